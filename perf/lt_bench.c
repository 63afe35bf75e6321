/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file lt_bench.c
 * gfec-lt-bench: LT codes on the CPU (gfmatrix/lt.h) against the thesis's table (T section 7.4,
 * n = 10240, B = 1 KiB): encode MB/s on one thread and on all, against the memory-write bound
 * measured in the same run (the best of a threaded memset and memcpy over 256 MiB, counted in
 * bytes written, which is all the encoder must send to memory: its segment stays in cache);
 * decode MB/s on one thread (add every block, then peel and eliminate; and the same fewest
 * blocks through the public gfec_nc.h decoder, headers, completion checks and all); and the
 * decoding overhead (extra blocks / n) at n in {128, 1024, 4096, 10240}, with inactivation and with
 * peeling alone, beside the thesis's peeling figures, each row checked against the bounds that
 * tests/gfmatrix/test_lt.c derives (exit 5 past one). GB/s are 10^9 bytes: of coded output for
 * encode, of decoded segment for decode.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gfec/gfec_errors.h"
#include "gfec/gfec_nc.h"
#include "lt.h"
#include "threadpool.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the calling thread: the one-thread rows are timed by it too, since the wall clock
 * of a loaded shared machine counts other processes' time slices */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x243F6A8885A308D3ull;

static uint32_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545f4914f6cdd1dull) >> 32);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gfec-lt-bench [-n N] [-B BYTES] [-t THREADS] [-s SEGMENTS] [-r REPS]\n"
		"  -n  source blocks for encode/decode timing (default 10240)\n"
		"  -B  block size in bytes (default 1024)\n"
		"  -t  encoder threads for the all-cores row (default: online CPUs)\n"
		"  -s  segments per n for the overhead table (default 1000)\n"
		"  -r  timed repetitions, best kept (default 5)\n"
		"exit: 0; 2 usage; 3 no memory or a library error; 4 a decode failed or differs;\n"
		"5 an overhead row past its bounds\n");
}

static int parse(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

struct membw {
	uint8_t *a, *b;
	size_t len, part;
	int copy;
};

static void membw_task(void *arg, size_t i)
{
	struct membw *m = arg;
	size_t lo = i * m->part, n = lo + m->part > m->len ? m->len - lo : m->part;

	if (m->copy)
		memcpy(m->b + lo, m->a + lo, n);
	else
		memset(m->b + lo, (int)(i & 0xFF), n);
}

/* Bytes written per second by the better of a threaded memset and memcpy over 256 MiB. */
static double write_bound(struct gfec_cpu_pool *pool, int reps)
{
	struct membw m = {NULL, NULL, 256u << 20, 0, 0};
	int threads = gfec_cpu_pool_threads(pool);
	double best = 0.0;

	m.a = malloc(m.len);
	m.b = malloc(m.len);
	if (!m.a || !m.b) {
		free(m.a);
		free(m.b);
		return 0.0;
	}
	memset(m.a, 1, m.len);
	memset(m.b, 2, m.len);
	m.part = (m.len + (size_t)threads - 1) / (size_t)threads;
	for (m.copy = 0; m.copy < 2; m.copy++)
		for (int r = 0; r < reps; r++) {
			double t0 = now(), t;

			gfec_cpu_pool_run(pool, (size_t)threads, membw_task, &m);
			t = now() - t0;
			if (m.len / t > best)
				best = m.len / t;
		}
	free(m.a);
	free(m.b);
	return best;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The fewest blocks base, base + 1, ... that decode (bisection; exact decoding is monotone). */
static int needed(struct gfec_lt_decoder *dec, uint32_t base, uint32_t n, unsigned flags,
		  uint32_t *out)
{
	uint32_t lo = n, hi = n;
	int rc;

	gfec_lt_decoder_reset(dec);
	for (uint32_t i = 0; i < n; i++)
		if ((rc = gfec_lt_decoder_add(dec, base + i, NULL)) < 0)
			return rc;
	while ((rc = gfec_lt_decoder_check(dec, hi, flags)) != 1) {
		uint32_t more = hi / 8 + 8;

		if (rc < 0)
			return rc;
		lo = hi + 1;
		for (uint32_t i = 0; i < more; i++)
			if ((rc = gfec_lt_decoder_add(dec, base + hi + i, NULL)) < 0)
				return rc;
		hi += more;
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		rc = gfec_lt_decoder_check(dec, mid, flags);
		if (rc < 0)
			return rc;
		if (rc == 1)
			hi = mid;
		else
			lo = mid + 1;
	}
	*out = hi;
	return 0;
}

/*
 * One row of the overhead table; 1 when it is past test_lt.c's bounds (with inactivation: mean at
 * most 2% + 10 blocks, every segment decoded by n ln(10^4 n segs) / mean + 30 blocks; peeling
 * alone: mean within 0.3-2x the thesis's), else 0 or a negative error.
 */
static int overhead_row(uint32_t n, int segs, double paper)
{
	struct gfec_lt_dist *d;
	struct gfec_lt_decoder *dec;
	double *o = malloc((size_t)segs * sizeof(double)), *p = malloc((size_t)segs * sizeof(double));
	double so = 0.0, sp = 0.0, sk = 0.0, max_m;
	int rc, ok, peel_short = 0;

	if (!o || !p)
		return GFEC_E_NOMEM;
	rc = gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d);
	if (rc)
		return rc;
	rc = gfec_lt_decoder_create(d, 1, &dec);
	if (rc)
		return rc;
	max_m = (uint32_t)(n * log(1e4 * n * segs) / d->mean) + 30;
	for (int s = 0; s < segs; s++) {
		uint32_t base = rnd() & 0x7FFFFFFFu, m, mp;

		if ((rc = needed(dec, base, n, 0, &m)) < 0)
			return rc;
		sk += gfec_lt_decoder_inactivated(dec);
		if ((rc = needed(dec, base, n, GFEC_LT_PEEL_ONLY, &mp)) < 0)
			return rc;
		peel_short |= mp < m; /* peeling alone cannot need fewer than the exact decoder */
		o[s] = (double)(m - n) / n;
		p[s] = (double)(mp - n) / n;
		so += o[s];
		sp += p[s];
	}
	qsort(o, (size_t)segs, sizeof(double), cmp_double);
	qsort(p, (size_t)segs, sizeof(double), cmp_double);
	ok = !peel_short && so / segs <= 0.02 + 10.0 / n && n + o[segs - 1] * n <= max_m + 0.5 &&
	     sp / segs >= 0.3 * paper && sp / segs <= 2.0 * paper;
	printf(
	    "%6u %6d  %6.2f%% %6.2f%% %6.2f%% %6.2f%%  %6.1f   %6.2f%% %6.2f%% %6.2f%%   %5.0f%%  "
	    "%s (mean <= %.2f%%, max <= %.1f%%, peeling %.0f-%.0f%%)\n",
	    n, segs, 100 * so / segs, 100 * o[segs / 2], 100 * o[segs * 99 / 100],
	    100 * o[segs - 1], sk / segs, 100 * sp / segs, 100 * p[segs / 2],
	    100 * p[segs * 99 / 100], 100 * paper, ok ? "ok" : "PAST", 2 + 1000.0 / n,
	    100 * (max_m - n) / n, 30 * paper, 200 * paper);
	fflush(stdout);
	gfec_lt_decoder_free(dec);
	gfec_lt_dist_free(d);
	free(o);
	free(p);
	return !ok;
}

/*
 * The fewest-blocks decode through the public API (gfec_nc.h, family LT): @p m blocks with
 * headers, added in order until COMPLETE (the decoder's structural checks included), then read.
 * Best wall and thread CPU seconds into *t and *c; 0, or -1 after printing why.
 */
static int api_decode(const uint8_t *seg, uint32_t n, uint32_t B, uint32_t m, int reps,
		      double *t, double *c)
{
	struct gfec_nc_params p = { .n = n, .block_size = B, .threads = 1, .family = GFEC_NC_LT };
	struct gfec_nc_segment sg = { .id = 1, .data = seg };
	gfec_nc *nc = NULL;
	size_t bytes;
	uint8_t *blk = NULL, *out = malloc((size_t)n * B);
	int rc = out ? gfec_nc_create(&p, &nc) : GFEC_E_NOMEM;

	*t = *c = 1e30;
	bytes = rc ? 0 : gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);
	if (!rc && !(blk = malloc((size_t)m * bytes)))
		rc = GFEC_E_NOMEM;
	if (!rc)
		rc = gfec_nc_encode(nc, &sg, 1, 0, m, blk, (size_t)m * bytes);
	for (int r = 0; r < reps && !rc; r++) {
		double t0 = now(), c0 = cpu_now();
		gfec_nc_decoder *d = NULL;
		uint32_t j = 0;

		rc = gfec_nc_decoder_create(nc, 1, &d);
		while (!rc && j < m) {
			int st = gfec_nc_decoder_add(d, blk + (size_t)j++ * bytes, bytes);

			if (st == GFEC_NC_COMPLETE)
				break;
			rc = st < 0 ? st : 0;
		}
		if (!rc)
			rc = gfec_nc_decoder_read(d, out, (size_t)n * B);
		c0 = cpu_now() - c0;
		t0 = now() - t0;
		gfec_nc_decoder_free(d);
		if (!rc && (j != m || memcmp(out, seg, (size_t)n * B))) {
			fprintf(stderr, "gfec-lt-bench: the API decode differs (%u blocks)\n", j);
			rc = -1;
		}
		*t = t0 < *t ? t0 : *t;
		*c = c0 < *c ? c0 : *c;
	}
	if (rc > 0 || rc < -1)
		fprintf(stderr, "gfec-lt-bench: API decode: %s\n", gfec_strerror(rc));
	gfec_nc_free(nc);
	free(blk);
	free(out);
	return rc ? -1 : 0;
}

int main(int argc, char **argv)
{
	long n = 10240, B = 1024, threads = sysconf(_SC_NPROCESSORS_ONLN), segs = 1000, reps = 5;
	struct gfec_lt_dist *d;
	struct gfec_lt_decoder *dec;
	struct gfec_cpu_pool *pool1, *pool;
	uint8_t *seg, *coded, *out;
	uint32_t count, m;
	double bound, t_enc1 = 1e30, t_encT = 1e30, c_enc1 = 1e30;
	double t_dec[2] = {1e30, 1e30}, c_dec[2] = {1e30, 1e30}, t_api, c_api;
	uint32_t ms[2], ks[2];
	int c, rc, past = 0;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
	while ((c = getopt(argc, argv, "n:B:t:s:r:h")) != -1) {
		long *dst = c == 'n' ? &n : c == 'B' ? &B : c == 't' ? &threads : c == 's' ? &segs
			  : &reps;

		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == '?' || parse(optarg, 1,
				      c == 'n' ? 65536 : c == 'B' ? (1L << 24) : 1000000, dst)) {
			if (c != '?')
				fprintf(stderr, "gfec-lt-bench: bad value for -%c: %s\n", c, optarg);
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || threads < 1 || threads > 1024) {
		usage(stderr);
		return 2;
	}
	if (gfec_cpu_pool_create(1, &pool1) || gfec_cpu_pool_create((int)threads, &pool)) {
		fprintf(stderr, "gfec-lt-bench: cannot start threads\n");
		return 3;
	}
	rc = gfec_lt_dist_create((uint32_t)n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d);
	if (rc) {
		fprintf(stderr, "gfec-lt-bench: %s\n", gfec_strerror(rc));
		return 3;
	}
	count = (uint32_t)(2 * n);
	seg = malloc((size_t)n * B);
	coded = malloc((size_t)count * B);
	out = malloc((size_t)n * B);
	if (!seg || !coded || !out || gfec_lt_decoder_create(d, (size_t)B, &dec)) {
		fprintf(stderr, "gfec-lt-bench: out of memory\n");
		return 3;
	}
	for (size_t i = 0; i < (size_t)n * B; i++)
		seg[i] = (uint8_t)rnd();
	printf("# LT codes, c = %g, delta = %g, n = %ld, B = %ld: mean degree %.2f\n",
	       GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, n, B, d->mean);
	bound = write_bound(pool, (int)reps);
	for (int r = 0; r < reps; r++) {
		double t0 = now(), c0 = cpu_now();

		if (gfec_lt_encode(d, seg, (size_t)B, 0, count, coded, (size_t)B, pool1))
			return 3;
		c0 = cpu_now() - c0;
		t0 = now() - t0;
		t_enc1 = t0 < t_enc1 ? t0 : t_enc1;
		c_enc1 = c0 < c_enc1 ? c0 : c_enc1;
		t0 = now();
		if (gfec_lt_encode(d, seg, (size_t)B, 0, count, coded, (size_t)B, pool))
			return 3;
		t0 = now() - t0;
		t_encT = t0 < t_encT ? t0 : t_encT;
	}
	/* decode on one thread: the fewest blocks from seed 0 on that decode, and n + 2% */
	if (needed(dec, 0, (uint32_t)n, 0, &m) || m > count) {
		fprintf(stderr, "gfec-lt-bench: %u blocks do not decode\n", count);
		return 4;
	}
	for (int row = 0; row < 2; row++) {
		uint32_t mm = row ? (uint32_t)(n + n / 50) : m;

		if (mm < m)
			mm = m;
		if (mm > count)
			mm = count;
		ms[row] = mm;
		for (int r = 0; r < reps; r++) {
			double t0 = now(), c0 = cpu_now();

			gfec_lt_decoder_reset(dec);
			for (uint32_t j = 0; j < mm; j++)
				if (gfec_lt_decoder_add(dec, j, coded + (size_t)j * B) < 0)
					return 3;
			rc = gfec_lt_decoder_solve(dec, out, 0);
			c0 = cpu_now() - c0;
			t0 = now() - t0;
			if (rc || memcmp(out, seg, (size_t)n * B)) {
				fprintf(stderr, "gfec-lt-bench: decode failed or differs\n");
				return 4;
			}
			t_dec[row] = t0 < t_dec[row] ? t0 : t_dec[row];
			c_dec[row] = c0 < c_dec[row] ? c0 : c_dec[row];
		}
		ks[row] = gfec_lt_decoder_inactivated(dec);
	}
	if (api_decode(seg, (uint32_t)n, (uint32_t)B, m, (int)reps, &t_api, &c_api))
		return 4;
	printf("# memory-write bound, %ld threads (best of memset/memcpy, 256 MiB): %.2f GB/s\n",
	       threads, bound / 1e9);
	printf("# GB/s by wall clock, and by the thread's CPU time where one thread runs\n");
	printf("%-34s %10s %10s %12s\n", "row", "GB/s", "GB/s (CPU)", "thesis MB/s");
	printf("%-34s %10.3f %10.3f %12s\n", "encode, 1 thread", (double)count * B / t_enc1 / 1e9,
	       (double)count * B / c_enc1 / 1e9, "165.5");
	printf("%-34s %10.3f %10s %12s   (%.0f%% of the write bound)\n", "encode, all threads",
	       (double)count * B / t_encT / 1e9, "-", "447", 100.0 * count * B / t_encT / bound);
	for (int row = 0; row < 2; row++)
		printf("%-34s %10.3f %10.3f %12s   (%u blocks, overhead %.2f%%, %u inactivated)\n",
		       row ? "decode, 1 thread, n + 2% blocks" : "decode, 1 thread, fewest blocks",
		       (double)n * B / t_dec[row] / 1e9, (double)n * B / c_dec[row] / 1e9, "144.1",
		       ms[row], 100.0 * (ms[row] - n) / n, ks[row]);
	printf("%-34s %10.3f %10.3f %12s   (%u blocks: headers checked, COMPLETE, then read)\n",
	       "decode, 1 thread, gfec_nc API", (double)n * B / t_api / 1e9,
	       (double)n * B / c_api / 1e9, "144.1", m);
	printf("\n# overhead = extra blocks / n, over segments of consecutive seeds\n");
	printf("%6s %6s  %-36s  %-26s   %s  %s\n", "n", "segs",
	       "with inactivation: mean p50 p99 max, k", "peeling alone: mean p50 p99",
	       "thesis (peeling)", "bounds (tests/gfmatrix/test_lt.c)");
	static const uint32_t ns[] = {128, 1024, 4096, 10240};
	static const double paper[] = {0.40, 0.17, 0.09, 0.05};

	for (int i = 0; i < 4; i++) {
		if ((rc = overhead_row(ns[i], (int)segs, paper[i])) < 0) {
			fprintf(stderr, "gfec-lt-bench: %s\n", gfec_strerror(rc));
			return 3;
		}
		past |= rc;
	}
	gfec_lt_decoder_free(dec);
	gfec_lt_dist_free(d);
	gfec_cpu_pool_destroy(pool);
	gfec_cpu_pool_destroy(pool1);
	free(seg);
	free(coded);
	free(out);
	if (past)
		fprintf(stderr, "gfec-lt-bench: an overhead row is past its bounds\n");
	return past ? 5 : 0;
}
