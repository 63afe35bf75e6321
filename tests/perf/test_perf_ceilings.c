/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_perf_ceilings.c
 * gfec-perf's --ceilings-cache file: what it writes reads back; a file of an older format,
 * another key or a line with a field missing or extra is refused (so the ceilings are measured
 * again instead of a zero ceiling switching the self-check off); --quick and a full run have
 * different keys; a failed write leaves no file behind.
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
	assert_int_equal(perf_ceilings_save(path, "K", &c), 0);
	assert_int_equal(perf_ceilings_load(path, "K", &r, why, sizeof(why)), 0);
	assert_int_equal(r.threads, 2);
	assert_true(r.cpu_mem_t == 19.25 && r.h2d == 3.5);
	assert_int_equal(r.ncodes, 2);
	assert_int_equal(r.codes[1].k, 4);
	assert_true(r.codes[1].isal_all == 11);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
