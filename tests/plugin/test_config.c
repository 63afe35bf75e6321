/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_config.c
 * gfec.conf: good files, every malformed-line error (named by file and line), the search order
 * through GFEC_CONF, profile keys overriding the file, and a broken file that leaves the built-in
 * defaults in place with a warning instead of failing the codec.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "internal.h"

static void test_good(void **state)
{
	struct gfec_profile p = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(gfec_config_parse("# tuned 2026-11-22\n\n[gpu]\n  kernel = nibble_rg1_t512 "
					   "# 2570 GB/s\nmin_bytes=1048576\r\ndevice = 1\n"
					   "streams = 4\nsegment = 8388608\n",
					   "a.conf", &p, err, sizeof(err)),
			 0);
	assert_string_equal(p.gpu_kernel, "nibble_rg1_t512");
	assert_int_equal(p.gpu_min_bytes, 1048576);
	assert_int_equal(p.gpu_device, 1);
	assert_int_equal(p.gpu_streams, 4);
	assert_int_equal(p.gpu_segment, 8388608);
	assert_int_equal(gfec_config_parse("", "empty.conf", &p, err, sizeof(err)), 0);

	memset(&p, 0, sizeof(p));
	assert_int_equal(gfec_config_parse("[tune]\nrule = nibble_rg1_t512 k=2-16 m=1-4 "
					   "chunk=4096-1073741824 # 2570 GB/s\n"
					   "rule = bmma_w8_n4_p2 k=17-255 m=5 chunk=0-4096\n",
					   "t.conf", &p, err, sizeof(err)),
			 0);
	assert_int_equal(p.nrules, 2);
	assert_string_equal(p.rules[0].kernel, "nibble_rg1_t512");
	assert_int_equal(p.rules[0].cols_min, 2);
	assert_int_equal(p.rules[0].cols_max, 16);
	assert_int_equal(p.rules[0].rows_max, 4);
	assert_int_equal(p.rules[0].len_max, 1073741824);
	assert_int_equal(p.rules[1].rows_min, 5);
	assert_int_equal(p.rules[1].rows_max, 5);
}

static void test_bad_lines(void **state)
{
	static const struct {
		const char *text, *says;
	} cases[] = {
		{ "[gpu]\nkernel\n", "x.conf:2: expected key = value" },
		{ "kernel = a\n", "x.conf:1: 'kernel' is outside a [section]" },
		{ "[cpu]\n", "x.conf:1: unknown section [cpu]" },
		{ "[gpu\n", "x.conf:1: malformed section" },
		{ "[gpu]\n\n\nwarp = 9\n", "x.conf:4: unknown key 'warp'" },
		{ "[gpu]\nmin_bytes = lots\n", "x.conf:2: min_bytes" },
		{ "[gpu]\nstreams = 9\n", "x.conf:2: streams" },
		{ "[gpu]\nsegment = 12\n", "x.conf:2: segment" },
		{ "[gpu]\ndevice = -1\n", "x.conf:2: device" },
		{ "[gpu]\nkernel = \n", "x.conf:2: kernel" },
		{ "[tune]\nrule = nibble k=2-16\n", "x.conf:2: rule: expected" },
		{ "[tune]\nrule = nibble k=9-2 m=1 chunk=1-2\n", "x.conf:2: rule" },
		{ "[tune]\nrule = nibble k=2 m=1 chunk=1-2 extra\n", "x.conf:2: rule" },
		{ "[tune]\nkernel = nibble\n", "x.conf:2: unknown key 'kernel' in [tune]" },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gfec_profile p = { 0 };

		p.gpu_streams = 2;
		assert_int_equal(gfec_config_parse(cases[i].text, "x.conf", &p, err, sizeof(err)),
				 GFEC_E_PROFILE);
		if (!strstr(err, cases[i].says))
			fail_msg("\"%s\": got \"%s\", want \"%s\"", cases[i].text, err,
				 cases[i].says);
		assert_int_equal(p.gpu_streams, 2); /* nothing applied from a bad file */
	}
}

struct captured {
	int warnings;
	char last[512];
};

static void capture(enum gfec_log_level level, const char *msg, void *user)
{
	struct captured *c = user;

	if (level == GFEC_LOG_WARN) {
		c->warnings++;
		snprintf(c->last, sizeof(c->last), "%s", msg);
	}
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_file_and_profile_override(void **state)
{
	char path[] = "/tmp/gfec_conf_XXXXXX";
	struct gfec_profile p;
	struct captured cap = { 0 };
	char err[256];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	setenv("GFEC_CONF", path, 1);

	write_file(path, "[gpu]\nmin_bytes = 777\nstreams = 5\n");
	assert_int_equal(gfec_profile_parse("k=4 m=2 gpu_streams=2", &p, err, sizeof(err)), 0);
	assert_int_equal(p.gpu_min_bytes, 777); /* from the file */
	assert_int_equal(p.gpu_streams, 2);	/* the profile wins */

	/* A broken file: a warning naming file and line, the defaults, and a working codec. */
	write_file(path, "[gpu]\nmin_bytes = 777\nbogus\n");
	gfec_set_log(capture, &cap, GFEC_LOG_DEBUG);
	assert_int_equal(gfec_profile_parse("k=4 m=2", &p, err, sizeof(err)), 0);
	gfec_set_log(NULL, NULL, GFEC_LOG_ERROR);
	assert_int_equal(cap.warnings, 1);
	assert_non_null(strstr(cap.last, ":3: expected key = value"));
	assert_true(p.gpu_min_bytes != 777);

	unlink(path);
	unsetenv("GFEC_CONF");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_file_and_profile_override),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
