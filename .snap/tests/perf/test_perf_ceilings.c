/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_perf_ceilings.c
 * gfec-perf's --ceilings-cache file: what it writes reads back; a file of an older format,
 * another key or a line with a field missing or extra is refused (so the ceilings are measured
 * again instead of a zero ceiling switching the self-check off); --quick and a full run have
 * different keys; a failed write leaves no file behind. The kernels of the CPU ceilings against
 * plain loops (the XOR-stream kernel on every vector width this CPU has, the memory sweeps), the
 * shapes a run measures, and one XOR-stream measurement.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gfec_perf.h"
#include "perf_util.h"

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_cache(void **state)
{
	char dir[] = "/tmp/gfec_ceil_XXXXXX", path[64], bad[128], why[128];
	struct perf_ceilings c = { 0 }, r = { 0 };
	static const struct {
		const char *text, *why;
	} refused[] = {
		/* the format before the version line: cpu had 4 fields, so cpu_mem_t read 0 */
		{ "machine K\ncpu 2 2 10.5 0.1\ngpu 0 0 0 0\ncode 10 4 5 9 0\n", "not a" },
		{ PERF_CEILINGS_VERSION "\nmachine other\ncpu 2 2 1 1 1 1\ngpu 0 0 0 0\n",
		  "another machine" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 10.5 0.1\ngpu 0 0 0 0\n", "line 3" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 1 1 1 1 7\ngpu 0 0 0 0\n", "line 3" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 1 1 1 1\ngpu 0 0 0 0\ncode 10 4 5\n",
		  "line 5" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 1 1 1 1\ngpu 0 0 0 0\nbogus\n",
		  "line 5" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 1 1 1 1\n", "incomplete" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 1 1 1 1\ngpu 0 0 0 0", "line 4" },
		/* version 2 had no xor lines: its update rows were bound by the memory sweeps only */
		{ "gfec-perf ceilings 2\nmachine K\ncpu 2 2 1 1 1 1\ngpu 0 0 0 0\n", "not a" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 1 1 1 1\ngpu 0 0 0 0\n"
		  "xor update 10 4 0 1048576 9.5\n", "line 5" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 1 1 1 1\ngpu 0 0 0 0\n"
		  "xor update 10 4 0 1048576 9.5 0.1 3\n", "line 5" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 1 1 1 1\ngpu 0 0 0 0\n"
		  "xor repair 10 4 0 1048576 9.5 0.1\n", "line 5" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 1 1 1 1\ngpu 0 0 0 0\n"
		  "xor decode 10 4 0 1048576 9.5 0.1\n", "line 5" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 1 1 1 1\ngpu 0 0 0 0\n"
		  "xor encode 10 4 4 1048576 9.5 0.1\n", "line 5" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 1 1 1 1\ngpu 0 0 0 0\n"
		  "xor encode 10 4 0 1048576 -9.5 0.1\n", "line 5" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 1 1 1 1\ngpu 0 0 0 0\n"
		  "xor encode 10 4 0 0 9.5 0.1\n", "line 5" },
		{ PERF_CEILINGS_VERSION "\nmachine K\ncpu 2 2 1 1 1 1\ngpu 0 0 0 0\n"
		  "xor encode 0 4 0 1048576 9.5 0.1\n", "line 5" },
	};

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ceil", dir);
	assert_int_equal(perf_ceilings_load(path, "K", &r, why, sizeof(why)), 1);

	c.cpus = c.threads = 2;
	c.cpu_mem_1 = 10.5, c.cpu_mem_t = 19.25, c.h2d = 3.5;
	c.ncodes = 2;
	c.codes[0] = (struct perf_code_ceil){ .k = 10, .m = 4, .isal_1 = 5, .isal_all = 9 };
	c.codes[1] = (struct perf_code_ceil){ .k = 4, .m = 2, .isal_1 = 6, .isal_all = 11 };
	c.nxor = 3;
	c.xors[0] = (struct perf_xor_ceil){ PERF_ENCODE, 10, 4, 0, 1 << 20, 20.5, 0.125 };
	c.xors[1] = (struct perf_xor_ceil){ PERF_DECODE, 10, 4, 2, 1 << 20, 21.5, 0 };
	c.xors[2] = (struct perf_xor_ceil){ PERF_UPDATE, 4, 2, 0, 3 << 22, 22.75, 0.5 };
	assert_int_equal(perf_ceilings_save(path, "K", &c), 0);
	assert_int_equal(perf_ceilings_load(path, "K", &r, why, sizeof(why)), 0);
	assert_int_equal(r.threads, 2);
	assert_true(r.cpu_mem_t == 19.25 && r.h2d == 3.5);
	assert_int_equal(r.ncodes, 2);
	assert_int_equal(r.codes[1].k, 4);
	assert_true(r.codes[1].isal_all == 11);
	assert_int_equal(r.nxor, 3);
	for (int i = 0; i < 3; i++) {
		const struct perf_xor_ceil *x = &c.xors[i],
					   *y = perf_xor_ceil(&r, x->op, x->k, x->m, x->e, x->chunk);

		assert_non_null(y);
		assert_true(y->gbps == x->gbps && y->spread == x->spread);
	}
	/* another chunk size, erasure count or code is another shape */
	assert_null(perf_xor_ceil(&r, PERF_ENCODE, 10, 4, 0, 1 << 22));
	assert_null(perf_xor_ceil(&r, PERF_DECODE, 10, 4, 4, 1 << 20));
	assert_null(perf_xor_ceil(&r, PERF_UPDATE, 10, 4, 0, 3 << 22));
	assert_int_equal(perf_ceilings_load(path, "K2", &r, why, sizeof(why)), -1);

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		write_text(path, refused[i].text);
		why[0] = '\0';
		if (perf_ceilings_load(path, "K", &r, why, sizeof(why)) != -1 ||
		    !strstr(why, refused[i].why))
			fail_msg("case %zu accepted or wrong reason: \"%s\"", i, why);
	}
	unlink(path);

	/* a write that cannot happen fails and leaves nothing */
	snprintf(bad, sizeof(bad), "%s/missing/ceil", dir);
	assert_int_equal(perf_ceilings_save(bad, "K", &c), -1);
	assert_int_equal(rmdir(dir), 0); /* empty: no temporary file left */
}

static void test_key(void **state)
{
	struct perf_opts o = { 0 };
	struct perf_ceilings c = { 0 };
	char full[512], quick[512], t1[512];

	(void)state;
	perf_ceilings_key(full, sizeof(full), &o, &c, 2);
	perf_ceilings_key(t1, sizeof(t1), &o, &c, 1);
	o.quick = 1;
	perf_ceilings_key(quick, sizeof(quick), &o, &c, 2);
	assert_string_not_equal(full, quick);
	assert_string_not_equal(full, t1);
	assert_non_null(strstr(quick, "quick"));
}

/* The XOR-stream kernel against a byte loop: random shapes, lengths and misalignments, outputs
 * poisoned first, guard bytes after every buffer, on every vector width this CPU runs, in every
 * mode (set, in place, non-temporal stores, these with outputs aligned half of the time, each
 * with the sources prefetched ahead half of the time), in both
 * orders a ceiling measures (all outputs per pass, one per pass) and a random group between. */
static void test_xor_kernel(void **state)
{
	enum { MAXN = 5056, GUARD = 64, MAXS = 12 }; /* rows of dst a multiple of 64 bytes */
	static uint8_t src[MAXS][MAXN + 2 * GUARD], want[MAXS][MAXN + 2 * GUARD],
		poison[MAXS][MAXN + 2 * GUARD];
	static uint8_t dst[MAXS][MAXN + 2 * GUARD] __attribute__((aligned(64)));
	const int best = perf_xor_width();
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	(void)state;
	assert_true(best == 512 || best == 256 || best == 128);
	for (int width = 128; width <= best; width *= 2)
		for (int trial = 0; trial < 300; trial++) {
			const int nsrc = 1 + (int)(perf_xorshift(&seed) % MAXS);
			const int ndst = 1 + (int)(perf_xorshift(&seed) % MAXS);
			const int base = (int)(perf_xorshift(&seed) % 3);
			const int mode = base | (perf_xorshift(&seed) % 2 ? PERF_XOR_PREFETCH : 0);
			const int rmw = base == PERF_XOR_RMW;
			const int aligned = base == PERF_XOR_STREAM && perf_xorshift(&seed) % 2;
			const size_t n = perf_xorshift(&seed) % (trial < 20 ? 300 : MAXN);
			const uint8_t *sp[MAXS];
			uint8_t *dp[MAXS], sum[MAXN] = { 0 };

			perf_fill_random(&src[0][0], sizeof(src), perf_xorshift(&seed));
			perf_fill_random(&poison[0][0], sizeof(poison), perf_xorshift(&seed));
			memcpy(want, poison, sizeof(poison));
			for (int i = 0; i < nsrc; i++) {
				sp[i] = src[i] + GUARD - perf_xorshift(&seed) % GUARD;
				for (size_t p = 0; p < n; p++)
					sum[p] ^= sp[i][p];
			}
			for (int r = 0; r < ndst; r++) {
				const size_t off = aligned ? GUARD : GUARD - perf_xorshift(&seed) % GUARD;

				dp[r] = dst[r] + off;
				for (size_t p = 0; p < n; p++)
					want[r][off + p] = rmw ? want[r][off + p] ^ sum[p] : sum[p];
			}
			const int groups[] = { ndst, 1, 1 + (int)(perf_xorshift(&seed) % MAXS) };

			for (int g = 0; g < 3; g++) {
				memcpy(dst, poison, sizeof(dst));
				perf_xor_streams_group(width, n, nsrc, sp, ndst, dp, mode, groups[g]);
				if (memcmp(dst, want, sizeof(dst)) != 0)
					fail_msg("width %d: %d sources into %d outputs (mode %#x, %d "
						 "per pass), %zu bytes differ from the byte loop",
						 width, nsrc, ndst, mode, groups[g], n);
			}
		}
}

/* The memory sweeps over 1, 3 and 8 streams: the read folds exactly the whole blocks of every
 * part, the in-place sweep flips exactly those and nothing past them. */
static void test_mem_sweeps(void **state)
{
	enum { N = 8 * 64 * 5 + 200 };
	static uint8_t buf[N], orig[N];
	const int streams[] = { 1, 3, 8 };

	(void)state;
	perf_fill_random(orig, N, 7);
	for (size_t t = 0; t < sizeof(streams) / sizeof(streams[0]); t++) {
		const int s = streams[t];
		const size_t covered = (size_t)s * (N / (size_t)s / 64 * 64);
		uint64_t fold = 0, w;

		for (size_t i = 0; i < covered; i += 8) {
			memcpy(&w, orig + i, 8);
			fold ^= w;
		}
		memcpy(buf, orig, N);
		assert_true(perf_mem_read(buf, N, s) == fold);
		perf_mem_rmw(buf, N, s);
		for (size_t i = 0; i < N; i++)
			if (buf[i] != (uint8_t)(orig[i] ^ (i < covered ? 0x5a : 0)))
				fail_msg("%d streams: byte %zu of %d", s, i, N);
	}
}

/* A run measures one XOR-stream shape per CPU row: op x code x chunk size, decodes with -E. */
static void test_xor_shapes(void **state)
{
	struct perf_xor_ceil x[PERF_MAX_XOR];
	char *argv[] = { "gfec-perf", "-k", "10,4 4,2", "-o", "encode,decode,update", "-b", "1M",
			 "-e", "4M", "-E", "2", NULL };
	char *gpu[] = { "gfec-perf", "-a", "gpu", NULL };
	struct perf_opts o;
	char err[256];
	int n;

	(void)state;
	assert_int_equal(perf_parse_args(11, argv, &o, err, sizeof(err)), 0);
	n = perf_xor_shapes(&o, x);
	assert_int_equal(n, 3 * 2 * 2);
	for (int i = 0; i < n; i++) {
		assert_true(x[i].chunk == 1 << 20 || x[i].chunk == 4 << 20);
		assert_int_equal(x[i].e, x[i].op == PERF_DECODE ? 2 : 0);
		assert_true(x[i].gbps == 0);
	}
	assert_int_equal(x[n - 1].op, PERF_UPDATE);
	assert_int_equal(x[n - 1].k, 4);
	/* GPU rows only: none */
	assert_int_equal(perf_parse_args(3, gpu, &o, err, sizeof(err)), 0);
	assert_int_equal(perf_xor_shapes(&o, x), 0);
}

/* One measurement of each op (a chunk of a slice and a ragged piece, on 2 threads), and the
 * arguments it refuses. */
static void test_xor_measure(void **state)
{
	char *argv[] = { "gfec-perf", "--quick", NULL };
	struct perf_opts o;
	char err[256];

	(void)state;
	assert_int_equal(perf_parse_args(2, argv, &o, err, sizeof(err)), 0);
	for (int op = 0; op < 3; op++) {
		struct perf_xor_ceil x = { (enum perf_op)op, 4, 2, op == PERF_DECODE ? 2 : 0,
					   (64 << 10) + 1000, -1, -1 };

		assert_int_equal(perf_xor_measure(&o, 2, &x), 0);
		assert_true(x.gbps > 0 && x.spread >= 0);
	}
	{
		/* a w = 16 shape past 256 chunks: each worker's own stream pointers */
		struct perf_xor_ceil x = { PERF_DECODE, 300, 20, 20, 4 << 10, -1, -1 };

		assert_int_equal(perf_xor_measure(&o, 3, &x), 0);
		assert_true(x.gbps > 0 && x.spread >= 0);
	}
	{
		struct perf_xor_ceil x = { PERF_ENCODE, 4, 2, 0, 1 << 16, -1, -1 };

		assert_int_equal(perf_xor_measure(&o, 0, &x), -1);
		assert_true(x.gbps == 0 && x.spread == 0);
		x.chunk = 0;
		assert_int_equal(perf_xor_measure(&o, 2, &x), -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_xor_kernel),
		cmocka_unit_test(test_mem_sweeps),
		cmocka_unit_test(test_xor_shapes),
		cmocka_unit_test(test_xor_measure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
