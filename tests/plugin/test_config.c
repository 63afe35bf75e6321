/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_config.c
 * The knob registry and gfec.conf: the one number parser, good files, every malformed-line error
 * (named by file and line), the search order through GFEC_CONF, the precedence profile > env >
 * file > default with gfec_config_describe()'s origin column, a bad environment value (the
 * others still applied), a broken file and a FIFO that leave the defaults in place with a
 * warning, every default inside its knob's range, and the writer `gfec tune` uses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "gfec/gfec_config.h"
#include "internal.h"

static void test_numbers(void **state)
{
	static const struct {
		const char *s;
		long long lo, hi, want; /* want -1: rejected */
	} cases[] = {
		{ "0", 0, 10, 0 },
		{ "10", 0, 10, 10 },
		{ "11", 0, 10, -1 },
		{ "-3", -5, 5, -3 },
		{ "-3", 0, 5, -1 },
		{ "4K", 0, 1ll << 50, 4096 },
		{ "1M", 0, 1ll << 50, 1ll << 20 },
		{ "3G", 0, 1ll << 50, 3ll << 30 },
		{ "2T", 0, 1ll << 50, 2ll << 40 },
		{ "9223372036854775807", 0, 9223372036854775807ll, 9223372036854775807ll },
		{ "9223372036854775808", 0, 9223372036854775807ll, -1 },
		{ "99999999999999999999", 0, 9223372036854775807ll, -1 },
		{ "8388607T", 0, 9223372036854775807ll, 8388607ll << 40 },
		{ "8388608T", 0, 9223372036854775807ll, -1 }, /* 2^63 */
		{ "", 0, 10, -1 },
		{ "-", -5, 5, -1 },
		{ "+1", 0, 10, -1 },
		{ " 1", 0, 10, -1 },
		{ "1 ", 0, 10, -1 },
		{ "0x10", 0, 100, -1 },
		{ "1k", 0, 1 << 20, -1 },
		{ "1KiB", 0, 1 << 20, -1 },
		{ "1KB", 0, 1 << 20, -1 },
		{ "1.5", 0, 10, -1 },
		{ "K", 0, 1 << 20, -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long long x = 77;
		int r = gfec_parse_number(cases[i].s, cases[i].lo, cases[i].hi, &x);

		if (cases[i].want == -1 ? r != GFEC_E_INVAL || x != 77 : r != 0 || x != cases[i].want)
			fail_msg("\"%s\" in %lld..%lld: returned %d, %lld", cases[i].s, cases[i].lo,
				 cases[i].hi, r, x);
	}
	assert_int_equal(gfec_parse_number(NULL, 0, 1, &(long long){ 0 }), GFEC_E_INVAL);
}

/* The table's own promises: names unique, every source reachable, every default valid. */
static void test_table(void **state)
{
	struct gfec_settings s;
	long long x;

	(void)state;
	gfec_settings_defaults(&s);
	for (int k = 0; k < GFEC_NKNOBS; k++) {
		const struct gfec_knob_def *d = &gfec_knobs[k];

		/* a number's default is in its own range, or 0 / its word where the knob takes those */
		if (d->type == GFEC_KNOB_NUM) {
			x = s.v[k].num;
			if (!(d->lo <= x && x <= d->hi) && !(d->zero && x == 0) &&
			    !(d->special && x == -1))
				fail_msg("%s: default %s outside %lld..%lld", d->name, d->dflt,
					 d->lo, d->hi);
		}
		/* the default's text is a value the knob takes ("" = decided by its user) */
		if (*d->dflt) {
			struct gfec_settings t;

			gfec_settings_defaults(&t);
			if (gfec_knob_set(&t, (enum gfec_knob)k, d->dflt, GFEC_FROM_FILE, "x"))
				fail_msg("%s: default \"%s\" is refused", d->name, d->dflt);
		}
		if (d->type == GFEC_KNOB_WORD)
			assert_true(s.v[k].num >= 0); /* the default is one of the words */
		assert_int_equal(s.v[k].origin, GFEC_FROM_DEFAULT);

		assert_non_null(d->name);
		assert_non_null(d->help);
		if (d->profile)
			assert_int_equal(gfec_knob_by_profile(d->name), k);
		else
			assert_int_equal(gfec_knob_by_profile(d->name), -1);
		if (d->section) {
			assert_int_equal(gfec_knob_by_file(d->section, d->key), k);
			assert_true(gfec_conf_section(d->section));
		}
		if (d->env)
			assert_int_equal(strncmp(d->env, "GFEC_", 5), 0);
		for (int j = 0; j < k; j++)
			assert_string_not_equal(gfec_knobs[j].name, d->name);
	}
	/* a gfec.conf that sets every file knob to its default parses */
	{
		char text[4096], err[256];
		size_t used = 0;

		for (int k = 0; k < GFEC_NKNOBS; k++)
			if (gfec_knobs[k].section && *gfec_knobs[k].dflt)
				used += (size_t)snprintf(text + used, sizeof(text) - used,
							 "[%s]\n%s = %s\n", gfec_knobs[k].section,
							 gfec_knobs[k].key, gfec_knobs[k].dflt);
		assert_true(used < sizeof(text));
		gfec_settings_defaults(&s);
		if (gfec_config_parse(text, "defaults.conf", &s, err, sizeof(err)))
			fail_msg("%s", err);
		assert_int_equal(s.v[GFEC_KNOB_GPU_STREAMS].origin, GFEC_FROM_FILE);
		assert_int_equal(s.v[GFEC_KNOB_GPU_SEGMENT].num, 0);
	}
	assert_int_equal(gfec_technique_find("cauchy_good"), GFEC_TECH_CAUCHY_GOOD);
	assert_int_equal(gfec_technique_find("liberation"), -1);
}

static void test_good(void **state)
{
	struct gfec_settings s;
	char err[256], where[300];

	(void)state;
	gfec_settings_defaults(&s);
	assert_int_equal(gfec_config_parse("# tuned 2026-11-22\n\n[gpu]\n  kernel = nibble_rg1_t512 "
					   "# 2570 GB/s\nmin_bytes=1M\r\ndevice = 1\n"
					   "streams = 4\nsegment = 8388608\n[cpu]\nthreads = 3\n"
					   "path = base\n",
					   "a.conf", &s, err, sizeof(err)),
			 0);
	assert_string_equal(s.v[GFEC_KNOB_GPU_KERNEL].text, "nibble_rg1_t512");
	assert_int_equal(s.v[GFEC_KNOB_GPU_MIN_BYTES].num, 1048576);
	assert_int_equal(s.v[GFEC_KNOB_GPU_DEVICE].num, 1);
	assert_int_equal(s.v[GFEC_KNOB_GPU_STREAMS].num, 4);
	assert_int_equal(s.v[GFEC_KNOB_GPU_SEGMENT].num, 8388608);
	assert_int_equal(s.v[GFEC_KNOB_THREADS].num, 3);
	assert_string_equal(s.v[GFEC_KNOB_CPU_PATH].text, "base");
	assert_string_equal(gfec_knob_origin(&s, GFEC_KNOB_GPU_MIN_BYTES, where, sizeof(where)),
			    "a.conf:5");
	assert_string_equal(gfec_knob_origin(&s, GFEC_KNOB_THREADS, where, sizeof(where)),
			    "a.conf:10");
	assert_string_equal(gfec_knob_origin(&s, GFEC_KNOB_DECODE_CACHE, where, sizeof(where)),
			    "default");
	assert_int_equal(gfec_config_parse("", "empty.conf", &s, err, sizeof(err)), 0);

	gfec_settings_defaults(&s);
	assert_int_equal(gfec_config_parse("[tune]\nrule = nibble_rg1_t512 k=2-16 m=1-4 "
					   "chunk=4K-1073741824 # 2570 GB/s\n"
					   "rule = bmma_w8_n4_p2 k=17-255 m=5 chunk=0-4096\n",
					   "t.conf", &s, err, sizeof(err)),
			 0);
	assert_int_equal(s.nrules, 2);
	assert_string_equal(s.rules[0].kernel, "nibble_rg1_t512");
	assert_int_equal(s.rules[0].cols_min, 2);
	assert_int_equal(s.rules[0].cols_max, 16);
	assert_int_equal(s.rules[0].rows_max, 4);
	assert_int_equal(s.rules[0].len_min, 4096);
	assert_int_equal(s.rules[0].len_max, 1073741824);
	assert_int_equal(s.rules[1].rows_min, 5);
	assert_int_equal(s.rules[1].rows_max, 5);
}

static void test_bad_lines(void **state)
{
	static const struct {
		const char *text, *says;
	} cases[] = {
		{ "[gpu]\nkernel\n", "x.conf:2: expected key = value" },
		{ "kernel = a\n", "x.conf:1: 'kernel' is outside a [section]" },
		{ "[net]\n", "x.conf:1: unknown section [net]" },
		{ "[gpu\n", "x.conf:1: malformed section" },
		{ "[gpu]\n\n\nwarp = 9\n", "x.conf:4: unknown key 'warp'" },
		{ "[gpu]\nmin_bytes = lots\n", "x.conf:2: min_bytes: 'lots' is not a number" },
		{ "[gpu]\nmin_bytes = 4k\n", "x.conf:2: min_bytes" },
		{ "[gpu]\nstreams = 9\n", "x.conf:2: streams" },
		{ "[gpu]\nsegment = 12\n", "x.conf:2: segment" },
		{ "[gpu]\ndevice = -1\n", "x.conf:2: device" },
		{ "[gpu]\nkernel = \n", "x.conf:2: kernel" },
		{ "[gpu]\nkernel = a_kernel_name_longer_than_31_chars\n", "x.conf:2: kernel" },
		{ "[gpu]\nthreads = 2\n", "x.conf:2: unknown key 'threads' in [gpu]" },
		{ "[cpu]\npath = avx9\n", "x.conf:2: path: 'avx9' is not one of" },
		{ "[tune]\nrule = nibble k=2-16\n", "x.conf:2: rule: expected" },
		{ "[tune]\nrule = nibble k=9-2 m=1 chunk=1-2\n", "x.conf:2: rule" },
		{ "[tune]\nrule = nibble k=2 m=1 chunk=1-2 extra\n", "x.conf:2: rule" },
		{ "[tune]\nkernel = nibble\n", "x.conf:2: unknown key 'kernel' in [tune]" },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gfec_settings s;

		gfec_settings_defaults(&s);
		gfec_knob_set(&s, GFEC_KNOB_GPU_STREAMS, "2", GFEC_FROM_PROFILE, NULL);
		assert_int_equal(gfec_config_parse(cases[i].text, "x.conf", &s, err, sizeof(err)),
				 GFEC_E_PROFILE);
		if (!strstr(err, cases[i].says))
			fail_msg("\"%s\": got \"%s\", want \"%s\"", cases[i].text, err,
				 cases[i].says);
		/* nothing applied from a bad file */
		assert_int_equal(s.v[GFEC_KNOB_GPU_STREAMS].num, 2);
		assert_int_equal(s.v[GFEC_KNOB_GPU_STREAMS].origin, GFEC_FROM_PROFILE);
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

/* The line of gfec_config_describe()'s output for @p knob, words squeezed to single spaces. */
static void describe_line(const char *profile, const char *knob, char *out, size_t len)
{
	static char buf[8192];
	const char *l;
	size_t n = 0;

	assert_int_equal(gfec_config_describe(profile, buf, sizeof(buf)), 0);
	for (l = buf; *l; l += strcspn(l, "\n") + 1)
		if (strncmp(l, knob, strlen(knob)) == 0 && l[strlen(knob)] == ' ')
			break;
	assert_true(*l);
	for (; *l && *l != '\n' && *l != '#' && n + 1 < len; l++)
		if (*l != ' ' || (n && out[n - 1] != ' '))
			out[n++] = *l;
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

/* cpu_stream_min's auto reaches the CPU backend as GFEC_STREAM_MIN_AUTO; numbers as themselves. */
static void test_stream_min_auto(void **state)
{
	struct gfec_settings s;

	(void)state;
	gfec_settings_defaults(&s);
	assert_string_equal(s.v[GFEC_KNOB_CPU_STREAM_MIN].text, "auto");
	assert_true((size_t)s.v[GFEC_KNOB_CPU_STREAM_MIN].num == GFEC_STREAM_MIN_AUTO);
	assert_int_equal(gfec_knob_set(&s, GFEC_KNOB_CPU_STREAM_MIN, "0", GFEC_FROM_ENV, "x"), 0);
	assert_int_equal(s.v[GFEC_KNOB_CPU_STREAM_MIN].num, 0);
	assert_int_equal(gfec_knob_set(&s, GFEC_KNOB_CPU_STREAM_MIN, "64K", GFEC_FROM_ENV, "x"), 0);
	assert_int_equal(s.v[GFEC_KNOB_CPU_STREAM_MIN].num, 65536);
	assert_int_equal(gfec_knob_set(&s, GFEC_KNOB_CPU_STREAM_MIN, "off", GFEC_FROM_ENV, "x"), -1);
	assert_int_equal(gfec_knob_set(&s, GFEC_KNOB_CPU_STREAM_MIN, "-1", GFEC_FROM_ENV, "x"), -1);
}

/* One knob (threads) set in the file, the environment and the profile: profile > env > file. */
static void test_precedence(void **state)
{
	char path[] = "/tmp/gfec_conf_XXXXXX", line[512], want[600];
	struct gfec_profile p;
	char err[256];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	setenv("GFEC_CONF", path, 1);
	unsetenv("GFEC_THREADS");
	write_file(path, "[cpu]\n# three\nthreads = 3\n[gpu]\nmin_bytes = 4K\n");

	describe_line("k=4 m=2", "threads", line, sizeof(line));
	snprintf(want, sizeof(want), "threads 3 %s:3", path);
	assert_string_equal(line, want);
	describe_line("k=4 m=2", "gpu_min_bytes", line, sizeof(line));
	snprintf(want, sizeof(want), "gpu_min_bytes 4K %s:5", path);
	assert_string_equal(line, want);
	describe_line("k=4 m=2", "decode_cache", line, sizeof(line));
	assert_string_equal(line, "decode_cache 64 default");

	setenv("GFEC_THREADS", "5", 1);
	describe_line("k=4 m=2", "threads", line, sizeof(line));
	assert_string_equal(line, "threads 5 env GFEC_THREADS");
	assert_int_equal(gfec_settings_resolve("k=4 m=2", &p, err, sizeof(err)), 0);
	assert_int_equal(p.threads, 5);

	describe_line("k=4 m=2 threads=7", "threads", line, sizeof(line));
	assert_string_equal(line, "threads 7 profile");
	assert_int_equal(gfec_settings_resolve("k=4 m=2 threads=7", &p, err, sizeof(err)), 0);
	assert_int_equal(p.threads, 7);
	assert_int_equal(p.gpu_min_bytes, 4096);

	/* a bad environment value is an error naming the variable, in both */
	setenv("GFEC_THREADS", "many", 1);
	assert_int_equal(gfec_settings_resolve("k=4 m=2", &p, err, sizeof(err)), GFEC_E_PROFILE);
	assert_non_null(strstr(err, "GFEC_THREADS=many: expected a number in 0..1024"));
	assert_int_equal(gfec_config_describe("k=4 m=2", line, sizeof(line)), GFEC_E_PROFILE);
	assert_non_null(strstr(line, "GFEC_THREADS=many"));
	unsetenv("GFEC_THREADS");
	setenv("GFEC_FAULT", "sometimes", 1);
	assert_int_equal(gfec_settings_resolve("k=4 m=2", &p, err, sizeof(err)), GFEC_E_PROFILE);
	assert_non_null(strstr(err, "GFEC_FAULT=sometimes: expected one of none, cuda"));
	setenv("GFEC_FAULT", "cuda", 1);
	assert_int_equal(gfec_settings_resolve("k=4 m=2", &p, err, sizeof(err)), 0);
	assert_int_equal(p.gpu_fault, 1);
	/* cuda-kernel's index is GFEC_FAULT_KERNEL, not a context's */
	setenv("GFEC_FAULT", "cuda-kernel", 1);
	assert_int_equal(gfec_settings_resolve("k=4 m=2", &p, err, sizeof(err)), 0);
	assert_int_equal(p.gpu_fault, GFEC_FAULT_KERNEL);
	unsetenv("GFEC_FAULT");

	/* one bad variable does not drop the others: each good one applies, the first bad one is
	 * reported, and the bad ones keep their defaults (the ISA-L drop-in relies on this) */
	{
		struct gfec_settings s;

		setenv("GFEC_THREADS", "abc", 1);
		setenv("GFEC_FAULT", "cuda", 1);
		setenv("GFEC_ISAL_LIB", "/nowhere/libisal.so.2", 1);
		setenv("GFEC_ISAL_GPU_MIN", "lots", 1);
		gfec_settings_defaults(&s);
		assert_int_equal(gfec_settings_env(&s, err, sizeof(err)), GFEC_E_PROFILE);
		assert_non_null(strstr(err, "GFEC_THREADS=abc"));
		assert_int_equal(s.v[GFEC_KNOB_THREADS].origin, GFEC_FROM_DEFAULT);
		assert_string_equal(s.v[GFEC_KNOB_FAULT].text, "cuda");
		assert_string_equal(s.v[GFEC_KNOB_ISAL_LIB].text, "/nowhere/libisal.so.2");
		assert_int_equal(s.v[GFEC_KNOB_ISAL_GPU_MIN].num, -1);
		assert_int_equal(s.v[GFEC_KNOB_ISAL_GPU_MIN].origin, GFEC_FROM_DEFAULT);
		setenv("GFEC_ISAL_GPU_MIN", "64K", 1);
		gfec_settings_defaults(&s);
		assert_int_equal(gfec_settings_env(&s, err, sizeof(err)), GFEC_E_PROFILE);
		assert_int_equal(s.v[GFEC_KNOB_ISAL_GPU_MIN].num, 65536);
		unsetenv("GFEC_THREADS");
		unsetenv("GFEC_FAULT");
		unsetenv("GFEC_ISAL_LIB");
		unsetenv("GFEC_ISAL_GPU_MIN");
	}

	/* too small a buffer, and a bad profile */
	assert_int_equal(gfec_config_describe("k=4 m=2", line, 16), GFEC_E_INVAL);
	assert_int_equal(gfec_config_describe("k=4 m=2 threads=x", line, sizeof(line)),
			 GFEC_E_PROFILE);
	assert_non_null(strstr(line, "threads=x: threads must be a number in 0..1024"));
	assert_int_equal(gfec_config_describe("k=4 m=2", NULL, 0), GFEC_E_INVAL);

	unlink(path);
	unsetenv("GFEC_CONF");
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

	write_file(path, "[gpu]\nmin_bytes = 777\nstreams = 5\n[tune]\n"
			 "rule = nibble_rg1_t512 k=2-16 m=1-4 chunk=0-100\n");
	assert_int_equal(gfec_settings_resolve("k=4 m=2 gpu_streams=2", &p, err, sizeof(err)), 0);
	assert_int_equal(p.gpu_min_bytes, 777); /* from the file */
	assert_int_equal(p.gpu_streams, 2);	/* the profile wins */
	assert_int_equal(p.set.nrules, 1);

	/* A broken file: a warning naming file and line, the defaults, and a working codec. */
	write_file(path, "[gpu]\nmin_bytes = 777\nbogus\n");
	gfec_set_log(capture, &cap, GFEC_LOG_DEBUG);
	assert_int_equal(gfec_settings_resolve("k=4 m=2", &p, err, sizeof(err)), 0);
	gfec_set_log(NULL, NULL, GFEC_LOG_ERROR);
	assert_int_equal(cap.warnings, 1);
	assert_non_null(strstr(cap.last, ":3: expected key = value"));
	assert_true(p.gpu_min_bytes != 777);
	assert_int_equal(p.set.v[GFEC_KNOB_GPU_MIN_BYTES].origin, GFEC_FROM_DEFAULT);

	unlink(path);
	unsetenv("GFEC_CONF");
}

/* A FIFO (or any non-regular file) as GFEC_CONF: a warning and the defaults, not a hang. */
static void test_fifo(void **state)
{
	char dir[] = "/tmp/gfec_fifo_XXXXXX", path[64];
	struct gfec_profile p;
	struct captured cap = { 0 };
	char err[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/gfec.conf", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	setenv("GFEC_CONF", path, 1);
	alarm(20); /* a regression blocks in open() or read(): fail instead of hanging */
	gfec_set_log(capture, &cap, GFEC_LOG_DEBUG);
	assert_int_equal(gfec_settings_resolve("k=4 m=2", &p, err, sizeof(err)), 0);
	gfec_set_log(NULL, NULL, GFEC_LOG_ERROR);
	alarm(0);
	assert_int_equal(cap.warnings, 1);
	assert_non_null(strstr(cap.last, "cannot be read"));
	assert_int_equal(p.set.v[GFEC_KNOB_THREADS].origin, GFEC_FROM_DEFAULT);
	unsetenv("GFEC_CONF");
	unlink(path);
	rmdir(dir);
}

/* What tune writes replaces its own earlier output, keeps the rest, and parses. */
static void test_update(void **state)
{
	const char *old = "# mine\n[gpu]\nkernel = nibble_rg1_t512\nmin_bytes = 5\nstreams = 2\n"
			  "[tune]\nrule = seed_t8 k=10 m=1-4 chunk=0-100\n[cpu]\nthreads = 4";
	const char *tune = "[tune]\nrule = nibble_rg1_t512 k=10 m=1-4 chunk=0-1125899906842624 "
			   "# 2570.0 GB/s\n";
	char *out = gfec_config_update(old, GFEC_KNOB_GPU_MIN_BYTES, "4194304", "crossover", tune);
	struct gfec_settings s;
	char err[256];

	(void)state;
	assert_non_null(out);
	assert_non_null(strstr(out, "# mine\n[gpu]\nmin_bytes = 4194304   # crossover\n"));
	assert_non_null(strstr(out, "kernel = nibble_rg1_t512\nstreams = 2\n"));
	assert_non_null(strstr(out, "[cpu]\nthreads = 4\n"));
	assert_null(strstr(out, "seed_t8"));
	assert_null(strstr(out, "min_bytes = 5"));
	gfec_settings_defaults(&s);
	assert_int_equal(gfec_config_parse(out, "merged", &s, err, sizeof(err)), 0);
	assert_int_equal(s.v[GFEC_KNOB_GPU_MIN_BYTES].num, 4194304);
	assert_int_equal(s.nrules, 1);
	assert_int_equal(s.v[GFEC_KNOB_GPU_STREAMS].num, 2);
	assert_int_equal(s.v[GFEC_KNOB_THREADS].num, 4);
	free(out);
	/* no [gpu] section yet: one is added */
	out = gfec_config_update("", GFEC_KNOB_GPU_MIN_BYTES, "7", NULL, tune);
	assert_non_null(out);
	gfec_settings_defaults(&s);
	assert_int_equal(gfec_config_parse(out, "fresh", &s, err, sizeof(err)), 0);
	assert_int_equal(s.v[GFEC_KNOB_GPU_MIN_BYTES].num, 7);
	free(out);
	/* tune without a GPU: [cpu] stream_min set, the old [tune] rules kept as they were */
	out = gfec_config_update(old, GFEC_KNOB_CPU_STREAM_MIN, "0", "never", NULL);
	assert_non_null(out);
	assert_non_null(strstr(out, "[tune]\nrule = seed_t8 k=10 m=1-4 chunk=0-100\n"));
	assert_non_null(strstr(out, "[cpu]\nstream_min = 0   # never\nthreads = 4\n"));
	gfec_settings_defaults(&s);
	assert_int_equal(gfec_config_parse(out, "cpu only", &s, err, sizeof(err)), 0);
	assert_int_equal(s.v[GFEC_KNOB_CPU_STREAM_MIN].num, 0);
	assert_int_equal(s.v[GFEC_KNOB_GPU_MIN_BYTES].num, 5);
	assert_int_equal(s.nrules, 1);
	free(out);
	/* a value the knob does not take, or a broken old file: nothing to write */
	assert_null(gfec_config_update("", GFEC_KNOB_GPU_MIN_BYTES, "lots", NULL, ""));
	assert_null(gfec_config_update("[gpu]\nbogus\n", GFEC_KNOB_GPU_MIN_BYTES, "7", NULL, ""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_stream_min_auto),
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_file_and_profile_override),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_update),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
