/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_perf_args.c  gfec-perf's flags: defaults, every flag, and every bad value; and a
 * -w 16 row run end to end (its codec, its check, its GF-op count).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gfec_perf.h"

static int parse(struct perf_opts *o, char *err, const char *const *args)
{
	char *argv[64];
	int argc = 0;

	argv[argc++] = (char *)"gfec-perf";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return perf_parse_args(argc, argv, o, err, 256);
}

static void test_defaults(void **state)
{
	static const char *const none[] = { NULL };
	struct perf_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, none), 0);
	assert_int_equal(o.ncodes, 1);
	assert_int_equal(o.codes[0].k, 10);
	assert_int_equal(o.codes[0].m, 4);
	assert_string_equal(o.technique, "cauchy");
	assert_int_equal(o.w, 8);
	assert_int_equal(o.ops, 1u << PERF_ENCODE | 1u << PERF_DECODE);
	assert_int_equal(o.minb, 1 << 20);
	assert_int_equal(o.maxb, 1 << 20);
	assert_int_equal(o.factor, 4);
	assert_int_equal(o.check, 1);
	assert_int_equal(o.repeats, 5);
	assert_int_equal(o.warmup, 2);
	assert_int_equal(o.data, -1);
	assert_int_equal(o.backends, 0);
}

static void test_every_flag(void **state)
{
	static const char *const args[] = {
		"-k", "10,4 4,2", "-t", "cauchy_good", "-o", "encode,update", "-E", "2", "-b", "4K",
		"-e", "64M", "-f", "2", "-B", "1,64", "-a", "cpu,auto", "-K", "nibble_rg1_t512",
		"-d", "pinned", "-T", "3", "-W", "7", "-n", "100", "-r", "9", "-c", "0", "-j",
		"out.json", "-s", "plot", "-C", "ceil.txt", "-w", "16", NULL,
	};
	static const char *const quick[] = { "--quick", "--repeats=8", NULL };
	struct perf_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, args), 0);
	assert_int_equal(o.ncodes, 2);
	assert_int_equal(o.codes[1].k, 4);
	assert_string_equal(o.technique, "cauchy_good");
	assert_int_equal(o.w, 16);
	assert_int_equal(o.ops, 1u << PERF_ENCODE | 1u << PERF_UPDATE);
	assert_int_equal(o.erasures, 2);
	assert_int_equal(o.minb, 4096);
	assert_int_equal(o.maxb, 64 << 20);
	assert_int_equal(o.factor, 2);
	assert_int_equal(o.nbatches, 2);
	assert_int_equal(o.batches[1], 64);
	assert_int_equal(o.backends, 1u << 0 | 1u << 2);
	assert_string_equal(o.kernel, "nibble_rg1_t512");
	assert_int_equal(o.data, PERF_PINNED);
	assert_int_equal(o.threads, 3);
	assert_int_equal(o.warmup, 7);
	assert_int_equal(o.iters, 100);
	assert_int_equal(o.repeats, 9);
	assert_int_equal(o.check, 0);
	assert_string_equal(o.json, "out.json");
	assert_string_equal(o.svg, "plot");
	assert_string_equal(o.ceilings_cache, "ceil.txt");
	/* --quick caps the repeats and the warm-up */
	assert_int_equal(parse(&o, err, quick), 0);
	assert_true(o.quick);
	assert_int_equal(o.repeats, 3);
	assert_int_equal(o.warmup, 1);
}

static void test_bad_values(void **state)
{
	static const char *const cases[][4] = {
		{ "-k", "10", NULL },	      { "-k", "4,5", NULL },	   { "-k", "200,57", NULL },
		{ "-o", "encode,fly", NULL }, { "-E", "-1", NULL },	   { "-b", "0", NULL },
		{ "-b", "1Q", NULL },	      { "-f", "1", NULL },	   { "-B", "0", NULL },
		{ "-a", "fpga", NULL },	      { "-d", "gpu,pinned", NULL }, { "-d", "nvme", NULL },
		{ "-r", "0", NULL },	      { "-c", "2", NULL },	   { "-n", "x", NULL },
		{ "--bogus", NULL },	      { "-j", NULL },		   { "stray", NULL },
		{ "-b", "2M", "-e", "1M" },
		/* gfec's number syntax: no sign, no overflow, no 1k or KiB */
		{ "-k", "+4,2", NULL },	      { "-k", "4,2x", NULL },	   { "-k", "4294967300,2", NULL },
		{ "-b", "4k", NULL },	      { "-b", "4KiB", NULL },	   { "-T", "+2", NULL },
		/* the fields gfec has: GF(2^8) and GF(2^16) */
		{ "-w", "12", NULL },	      { "-w", "32", NULL },	   { "-w", "x", NULL },
		/* k+m within the field: 256 at w = 8 (either order of -k and -w), 65536 at 16 */
		{ "-k", "300,20", NULL },     { "-k", "250,7", "-w", "8" }, { "-w", "8", "-k", "250,7" },
		{ "-w", "16", "-k", "65000,537" },
	};
	struct perf_opts o;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[5] = { cases[i][0], cases[i][1], cases[i][2], cases[i][3], NULL };

		err[0] = '\0';
		if (parse(&o, err, args) != -1 || !err[0])
			fail_msg("case %zu (%s %s) was accepted", i, cases[i][0],
				 cases[i][1] ? cases[i][1] : "");
	}
}

/* gfec-perf isal takes --isal-lib and --hot and refuses the main mode's own flags; the main mode
 * refuses those two. */
static void test_modes(void **state)
{
	static const char *const isal[] = { "--isal-lib", "/x/libisal.so.2", "--hot", "-k", "4,2",
					    "-T", "2", NULL };
	static const char *const isal_bad[] = { "--hot", "-a", "cpu", NULL };
	static const char *const main_bad[] = { "-k", "4,2", "--isal-lib", "/x", NULL };
	static const char *const isal_w[] = { "-W", "1", "-w", "16", NULL };
	struct perf_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, isal), 0);
	assert_string_equal(o.isal_lib, "/x/libisal.so.2");
	assert_true(o.hot);
	assert_int_equal(perf_check_mode(&o, PERF_MODE_ISAL, err, sizeof(err)), 0);
	assert_int_equal(perf_check_mode(&o, PERF_MODE_MAIN, err, sizeof(err)), -1);
	assert_string_equal(err, "--isal-lib goes with gfec-perf isal (see gfec-perf isal --help)");
	assert_int_equal(parse(&o, err, isal_bad), 0);
	assert_int_equal(perf_check_mode(&o, PERF_MODE_ISAL, err, sizeof(err)), -1);
	assert_string_equal(err, "-a is not a flag of gfec-perf isal (see --help)");
	assert_int_equal(parse(&o, err, main_bad), 0);
	assert_int_equal(perf_check_mode(&o, PERF_MODE_MAIN, err, sizeof(err)), -1);
	/* gfec-perf isal times raw ISA-L, GF(2^8) only */
	assert_int_equal(parse(&o, err, isal_w), 0);
	assert_int_equal(perf_check_mode(&o, PERF_MODE_ISAL, err, sizeof(err)), -1);
	assert_string_equal(err, "-w is not a flag of gfec-perf isal (see --help)");
}

/*
 * -w 16 rows run w=16 codecs: checked against the CPU reference codec of the same field, named
 * w=16, and counting one GF op per 2-byte symbol; a technique GF(2^16) lacks skips the row with
 * the codec's reason. (No ceilings: this is about the row, not the machine.)
 */
static void test_w16_row(void **state)
{
	static const char *const args[] = { "-q", "-w", "16", "-n", "2", "-r", "1", "-W", "1", NULL };
	static const char *const good[] = { "-q", "-w", "16", "-t", "cauchy_good", NULL };
	struct perf_ceilings ce;
	struct perf_opts o;
	struct perf_row r;
	char err[256];

	(void)state;
	memset(&ce, 0, sizeof(ce));
	assert_int_equal(parse(&o, err, args), 0);
	for (int op = PERF_ENCODE; op <= PERF_UPDATE; op++) {
		const double per_chunk = op == PERF_ENCODE ? 4.0 * 2 : op == PERF_DECODE ? 4.0 * 2 : 2;

		if (perf_run_row(&o, &ce, (enum perf_op)op, 4, 2, 64 << 10, 2, "cpu", PERF_PAGEABLE,
				 &r))
			fail_msg("%s row skipped: %s", perf_op_names[op], r.skip);
		assert_int_equal(r.w, 16);
		assert_int_equal(r.checked, 1);
		assert_true(r.gf_ops == per_chunk * (64 << 10) / 2 * 2);
		free(r.lat);
		free(r.rep_gbps);
	}
	assert_int_equal(parse(&o, err, good), 0);
	assert_int_equal(perf_run_row(&o, &ce, PERF_ENCODE, 4, 2, 64 << 10, 1, "cpu", PERF_PAGEABLE,
				      &r),
			 -1);
	assert_non_null(strstr(r.skip, "w=16"));

	/* past GF(2^8)'s 256 chunks, in either order; a (300,20) row and its check */
	static const char *const wide[] = { "-q", "-k", "300,20", "-w", "16", "-n", "1", "-r", "1",
					    NULL };
	static const char *const widest[] = { "-w", "16", "-k", "65000,536", NULL };

	assert_int_equal(parse(&o, err, widest), 0);
	assert_int_equal(o.codes[0].k + o.codes[0].m, 65536);
	assert_int_equal(parse(&o, err, wide), 0);
	for (int op = PERF_ENCODE; op <= PERF_DECODE; op++) {
		if (perf_run_row(&o, &ce, (enum perf_op)op, 300, 20, 4 << 10, 1, "cpu",
				 PERF_PAGEABLE, &r))
			fail_msg("%s row skipped: %s", perf_op_names[op], r.skip);
		assert_int_equal(r.checked, 1);
		free(r.lat);
		free(r.rep_gbps);
	}
}

/*
 * The self-check fires on a row above a (fake) ceiling by more than the row's and the ceiling's
 * spread together, names that row, and passes rows within it or without a ceiling.
 */
static void test_self_check(void **state)
{
	struct perf_row rows[3];
	char *out = NULL;
	size_t outlen = 0;
	FILE *f;

	(void)state;
	memset(rows, 0, sizeof(rows));
	for (int i = 0; i < 3; i++) {
		rows[i].op = PERF_ENCODE, rows[i].k = 10, rows[i].m = 4, rows[i].batch = 1;
		rows[i].chunk = 1 << 20;
		snprintf(rows[i].backend, sizeof(rows[i].backend), "cpu");
		snprintf(rows[i].ceil_name, sizeof(rows[i].ceil_name), "fake ceiling");
		rows[i].gbps.median = 10, rows[i].gbps.spread = 0.02;
		rows[i].ceil_spread = 0.01;
	}
	rows[0].ceil_gbps = 9.8;  /* 10 <= 9.8 x 1.03: within the spread */
	rows[1].ceil_gbps = 9.6;  /* 10 > 9.6 x 1.03 = 9.888: above */
	rows[1].op = PERF_DECODE, rows[1].pct = 104.2;
	rows[2].ceil_gbps = 0;	  /* no ceiling: nothing to check */
	rows[2].ceil_name[0] = '\0';
	f = open_memstream(&out, &outlen);
	assert_non_null(f);
	assert_int_equal(perf_self_check(rows, 3, f), 1);
	fclose(f);
	assert_non_null(strstr(out, "self-check FAILED: decode RS(10,4) 1M batch 1 cpu/pageable "
				    "runs at 10.00 GB/s, 104.2% of its ceiling \"fake ceiling\""));
	assert_null(strstr(out, "encode"));
	free(out);
	assert_int_equal(perf_self_check(rows, 1, stderr), 0);
}

/* A JSON file that cannot be created is an error, not a silent nothing. */
static void test_json_unwritable(void **state)
{
	struct perf_ceilings c;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(perf_write_json("/nonexistent-dir/q.json", "gfec-perf", &c, NULL, 0),
			 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_flag),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_w16_row),
		cmocka_unit_test(test_self_check),
		cmocka_unit_test(test_json_unwritable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
