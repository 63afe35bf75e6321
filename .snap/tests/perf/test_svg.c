/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_svg.c
 * perf/svg.c, the SVG writer behind gfec-perf's figures: the element counts that scripts rely on
 * (one circle.point per drawn point, one .roof per roof, one polyline.cdf per series), escaping
 * of hostile labels, skipping of values a log scale cannot show, "no data" charts, numbers
 * immune to the caller's locale, and errors returned rather than printed.
 *
 * The files go to $GFEC_SVG_OUT when it is set (test_svg.sh then checks that each one parses as
 * XML, and a person can open them), else to a temporary directory removed at the end.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "svg.h"
#include "../test_util.h"

static char out_dir[4096];
static int out_is_temp;

static int setup(void **state)
{
	const char *env = getenv("GFEC_SVG_OUT"), *tmp = getenv("TMPDIR");

	(void)state;
	test_seed();
	if (env && *env) {
		snprintf(out_dir, sizeof(out_dir), "%s", env);
		if (mkdir(out_dir, 0777) != 0 && errno != EEXIST)
			return -1;
		return 0;
	}
	snprintf(out_dir, sizeof(out_dir), "%s/gfec_svg_XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(out_dir))
		return -1;
	out_is_temp = 1;
	return 0;
}

static int teardown(void **state)
{
	struct dirent *e;
	char path[8192];
	DIR *d;

	(void)state;
	if (!out_is_temp)
		return 0;
	d = opendir(out_dir);
	if (d) {
		while ((e = readdir(d))) {
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(path, sizeof(path), "%s/%s", out_dir, e->d_name);
				unlink(path);
			}
		}
		closedir(d);
	}
	rmdir(out_dir);
	return 0;
}

static const char *out_path(const char *name)
{
	static char path[8192];

	snprintf(path, sizeof(path), "%s/%s", out_dir, name);
	return path;
}

/* The whole file as a string (freed by the caller); fails the test if it cannot be read. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (s = strstr(s, what); s; s = strstr(s + 1, what))
		n++;
	return n;
}

/*
 * Checks what every chart must be, whatever went in: one complete document, and no attribute
 * value holding "nan" or "inf" (what printf makes of a value that slipped past the checks) or a
 * decimal comma (a locale leaking into the numbers): outside points="x,y x,y ...", no ',' may
 * sit between digits, and inside it there must be exactly one ',' per pair. Attributes hold
 * only numbers, colours and fixed words in this writer, so a plain scan is exact.
 */
static void check_sane(const char *svg)
{
	const char *p;

	assert_int_equal(strncmp(svg, "<?xml", 5), 0);
	assert_int_equal(count(svg, "<svg "), 1);
	assert_non_null(strstr(svg, "</svg>\n"));
	for (p = strstr(svg, "=\""); p; p = strstr(p, "=\"")) {
		const char *v = p + 2, *end = strchr(v, '"'), *q;
		int is_points = p - svg >= 6 && strncmp(p - 6, "points", 6) == 0;
		int commas = 0, spaces = 0;

		assert_non_null(end);
		for (q = v; q < end; q++) {
			assert_false(q + 3 <= end && strncasecmp(q, "nan", 3) == 0);
			assert_false(q + 3 <= end && strncasecmp(q, "inf", 3) == 0);
			commas += *q == ',';
			spaces += *q == ' ';
			if (!is_points)
				assert_false(*q == ',' && q > v && q + 1 < end &&
					     isdigit((unsigned char)q[-1]) &&
					     isdigit((unsigned char)q[1]));
		}
		if (is_points)
			assert_int_equal(commas, spaces + 1);
		p = end + 1;
	}
}

static const struct perf_roof roofs3[] = {
    {"HBM copy 4294 GB/s", PERF_ROOF_BANDWIDTH, 4294e9},
    {"L2 \"read\" 11 TB/s", PERF_ROOF_BANDWIDTH, 11e12},
    {"GF(2^8) table peak 61 Tops/s", PERF_ROOF_COMPUTE, 61e12},
};

/* Seven points: a cluster (labels must find room), one flagged, one label with <&>. */
static void points7(struct perf_point *p)
{
	static const struct perf_point base[7] = {
	    {"RS(10,4) t512", 40.0 / 14, 40.0 / 14 * 3580e9, 0},
	    {"RS(10,4) t256", 40.0 / 14, 40.0 / 14 * 3409e9, 0},
	    {"RS(10,4) <&> 'rg2'", 40.0 / 14, 40.0 / 14 * 2142e9, 0},
	    {"RS(10,4) bmma", 40.0 / 14, 40.0 / 14 * 346e9, 1},
	    {"RS(8,3)", 24.0 / 11, 24.0 / 11 * 3336e9, 0},
	    {"RS(4,2)", 8.0 / 6, 8.0 / 6 * 2900e9, 0},
	    {"CPU 2 cores", 40.0 / 14, 40.0 / 14 * 38e9, 0},
	};

	memcpy(p, base, sizeof(base));
}

static void test_roofline(void **state)
{
	struct perf_point pts[7];
	char *svg;

	(void)state;
	points7(pts);
	assert_int_equal(
	    perf_svg_roofline(out_path("roofline.svg"), "roofline <test> & co",
			      "GB/s = 10^9 bytes per second; measured on a \"test\" host", roofs3,
			      3, pts, 7),
	    0);
	svg = slurp(out_path("roofline.svg"));
	check_sane(svg);
	assert_int_equal(count(svg, "class=\"point\""), 7);
	assert_int_equal(count(svg, "class=\"roof\""), 3);
	assert_int_equal(count(svg, "data-flagged=\"1\""), 1);
	/* Every label is there, escaped; the raw text nowhere. */
	assert_non_null(strstr(svg, "RS(10,4) &lt;&amp;&gt; &apos;rg2&apos;"));
	assert_non_null(strstr(svg, "L2 &quot;read&quot; 11 TB/s"));
	assert_non_null(strstr(svg, "roofline &lt;test&gt; &amp; co"));
	assert_non_null(strstr(svg, "a &quot;test&quot; host"));
	assert_null(strstr(svg, "<&>"));
	assert_null(strstr(svg, "no data"));
	assert_null(strstr(svg, "not drawn"));
	free(svg);
}

static void test_roofline_empty(void **state)
{
	char *svg;

	(void)state;
	assert_int_equal(
	    perf_svg_roofline(out_path("roofline_empty.svg"), NULL, NULL, NULL, 0, NULL, 0), 0);
	svg = slurp(out_path("roofline_empty.svg"));
	check_sane(svg);
	assert_non_null(strstr(svg, "no data"));
	assert_int_equal(count(svg, "class=\"point\""), 0);
	assert_int_equal(count(svg, "class=\"roof\""), 0);
	free(svg);

	/* Roofs but no points: the roofs, and a plot that says so. */
	assert_int_equal(perf_svg_roofline(out_path("roofline_roofs_only.svg"), "roofs only", "",
					   roofs3, 3, NULL, 0),
			 0);
	svg = slurp(out_path("roofline_roofs_only.svg"));
	check_sane(svg);
	assert_non_null(strstr(svg, "no data"));
	assert_int_equal(count(svg, "class=\"roof\""), 3);
	free(svg);
}

/* One of seven points made unusable in each way a log scale cannot show: six circles, and a
 * footnote that says one was left out. */
static void test_roofline_skips_unusable(void **state)
{
	static const struct {
		const char *file;
		double intensity, ops;
	} bad[] = {
	    {"roofline_nan.svg", NAN, 1e12},  {"roofline_inf.svg", 3, INFINITY},
	    {"roofline_neg.svg", -3, 1e12},   {"roofline_zero.svg", 3, 0},
	    {"roofline_negnan.svg", 3, -NAN},
	};
	struct perf_roof roofs[3];
	struct perf_point pts[7];
	unsigned i;
	char *svg;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		points7(pts);
		pts[2].intensity = bad[i].intensity;
		pts[2].ops_per_s = bad[i].ops;
		assert_int_equal(
		    perf_svg_roofline(out_path(bad[i].file), "skips", NULL, roofs3, 3, pts, 7), 0);
		svg = slurp(out_path(bad[i].file));
		check_sane(svg);
		assert_int_equal(count(svg, "class=\"point\""), 6);
		assert_int_equal(count(svg, "class=\"roof\""), 3);
		assert_non_null(strstr(svg, "1 point, 0 roofs"));
		free(svg);
	}

	/* An unusable roof is skipped the same way; all points unusable leaves the roofs. */
	memcpy(roofs, roofs3, sizeof(roofs));
	roofs[1].value = NAN;
	points7(pts);
	for (i = 0; i < 7; i++)
		pts[i].ops_per_s = -1;
	assert_int_equal(
	    perf_svg_roofline(out_path("roofline_all_bad.svg"), "all bad", NULL, roofs, 3, pts, 7),
	    0);
	svg = slurp(out_path("roofline_all_bad.svg"));
	check_sane(svg);
	assert_int_equal(count(svg, "class=\"point\""), 0);
	assert_int_equal(count(svg, "class=\"roof\""), 2);
	assert_non_null(strstr(svg, "7 points, 1 roof"));
	free(svg);
}

/* Labels that are not text: control characters, invalid UTF-8, a very long one, NULL. */
static void test_roofline_hostile_labels(void **state)
{
	struct perf_roof roofs[2] = {{"ctl\x01\x1f\x7f end", PERF_ROOF_BANDWIDTH, 1e12},
				     {NULL, PERF_ROOF_COMPUTE, 1e13}};
	struct perf_point pts[3] = {{"bad \xff\xc3 utf8 \xed\xa0\x80 surrogate", 2, 1e12, 0},
				    {NULL, 3, 2e12, 1},
				    {"", 4, 3e12, 0}};
	char longlabel[600], *svg;

	(void)state;
	memset(longlabel, 'x', sizeof(longlabel) - 1);
	longlabel[sizeof(longlabel) - 1] = '\0';
	pts[2].label = longlabel;
	assert_int_equal(perf_svg_roofline(out_path("roofline_hostile.svg"), longlabel, longlabel,
					   roofs, 2, pts, 3),
			 0);
	svg = slurp(out_path("roofline_hostile.svg"));
	check_sane(svg);
	assert_int_equal(count(svg, "class=\"point\""), 3);
	assert_int_equal(count(svg, "class=\"roof\""), 2);
	assert_null(strchr(svg, '\x01'));
	assert_null(strchr(svg, '\x1f'));
	assert_null(strchr(svg, '\x7f'));
	assert_null(strchr(svg, '\xff'));
	assert_null(strstr(svg, "\xed\xa0\x80"));
	assert_non_null(strstr(svg, "\xef\xbf\xbd")); /* U+FFFD */
	assert_non_null(strstr(svg, "\xe2\x80\xa6")); /* the shortened label's ellipsis */
	free(svg);
}

/* Log-normal-ish latencies around @p median_us. */
static void latencies(double *v, int n, double median_us)
{
	int i;

	for (i = 0; i < n; i++) {
		double u1 = ((test_rand() >> 11) + 1) * 0x1p-53, u2 = (test_rand() >> 11) * 0x1p-53;

		v[i] = median_us * exp(0.4 * sqrt(-2 * log(u1)) * cos(2 * 3.141592653589793 * u2));
	}
}

static void test_cdf(void **state)
{
	static double a[5000], b[777];
	struct perf_cdf s[2] = {{"GPU <encode> & \"copy\"", a, 5000}, {"CPU encode", b, 777}};
	char *svg;

	(void)state;
	latencies(a, 5000, 40);
	latencies(b, 777, 130);
	assert_int_equal(perf_svg_latency_cdf(out_path("cdf.svg"), "latency", s, 2), 0);
	svg = slurp(out_path("cdf.svg"));
	check_sane(svg);
	assert_int_equal(count(svg, "class=\"cdf\""), 2);
	assert_int_equal(count(svg, "<polyline class=\"cdf\""), 2);
	assert_non_null(strstr(svg, "GPU &lt;encode&gt; &amp; &quot;copy&quot;"));
	assert_non_null(strstr(svg, "n=5000"));
	assert_non_null(strstr(svg, "n=777"));
	assert_non_null(strstr(svg, ">P50<"));
	assert_non_null(strstr(svg, ">P99<"));
	free(svg);
}

/* The polyline keeps a few vertices per pixel column, so a million samples stay a small file. */
static void test_cdf_many_samples(void **state)
{
	const int n = 1000000;
	double *v = malloc((size_t)n * sizeof(*v));
	struct perf_cdf s = {"1e6 samples", v, n};
	struct stat st;
	char *svg;

	(void)state;
	assert_non_null(v);
	latencies(v, n, 25);
	assert_int_equal(perf_svg_latency_cdf(out_path("cdf_big.svg"), "big", &s, 1), 0);
	assert_int_equal(stat(out_path("cdf_big.svg"), &st), 0);
	assert_true(st.st_size < 200 * 1024);
	svg = slurp(out_path("cdf_big.svg"));
	check_sane(svg);
	assert_int_equal(count(svg, "class=\"cdf\""), 1);
	free(svg);
	free(v);
}

static void test_cdf_empty_and_unusable(void **state)
{
	static double a[100];
	double bad[4] = {NAN, -1, 0, INFINITY};
	struct perf_cdf s[3] = {{"good", a, 100}, {"all bad", bad, 4}, {"none", NULL, 0}};
	char *svg;
	int i;

	(void)state;
	assert_int_equal(perf_svg_latency_cdf(out_path("cdf_empty.svg"), "empty", NULL, 0), 0);
	svg = slurp(out_path("cdf_empty.svg"));
	check_sane(svg);
	assert_non_null(strstr(svg, "no data"));
	assert_int_equal(count(svg, "class=\"cdf\""), 0);
	free(svg);

	/* Only unusable series: still "no data", with each series named in the legend. */
	assert_int_equal(perf_svg_latency_cdf(out_path("cdf_unusable.svg"), NULL, &s[1], 2), 0);
	svg = slurp(out_path("cdf_unusable.svg"));
	check_sane(svg);
	assert_non_null(strstr(svg, "no data"));
	assert_int_equal(count(svg, "class=\"cdf\""), 0);
	assert_int_equal(count(svg, "no usable samples"), 2);
	free(svg);

	/* One good series among them: one polyline; the bad samples are counted, not drawn. */
	for (i = 0; i < 100; i++)
		a[i] = 1 + i;
	a[7] = NAN;
	assert_int_equal(perf_svg_latency_cdf(out_path("cdf_mixed.svg"), "mixed", s, 3), 0);
	svg = slurp(out_path("cdf_mixed.svg"));
	check_sane(svg);
	assert_int_equal(count(svg, "class=\"cdf\""), 1);
	assert_non_null(strstr(svg, "n=99"));
	assert_non_null(strstr(svg, "1 unusable skipped"));
	free(svg);
}

/* A caller that set a locale with a decimal comma must still get '.' in every number. */
static void test_locale(void **state)
{
	static const char *const comma[] = {"de_DE.UTF-8", "de_DE.utf8",  "fr_FR.UTF-8",
					    "fr_FR.utf8",  "ru_RU.UTF-8", "de_DE"};
	struct perf_point pts[7];
	double a[64];
	struct perf_cdf s = {"x", a, 64};
	char *svg, *old = NULL;
	const char *l = NULL;
	unsigned i;

	(void)state;
	old = strdup(setlocale(LC_NUMERIC, NULL));
	assert_non_null(old);
	for (i = 0; i < sizeof(comma) / sizeof(comma[0]) && !l; i++)
		l = setlocale(LC_NUMERIC, comma[i]);
	if (!l || localeconv()->decimal_point[0] != ',') {
		setlocale(LC_NUMERIC, old);
		free(old);
		skip(); /* no decimal-comma locale installed here */
	}
	points7(pts);
	latencies(a, 64, 10);
	assert_int_equal(
	    perf_svg_roofline(out_path("roofline_locale.svg"), "locale", NULL, roofs3, 3, pts, 7),
	    0);
	assert_int_equal(perf_svg_latency_cdf(out_path("cdf_locale.svg"), "locale", &s, 1), 0);
	setlocale(LC_NUMERIC, old);
	free(old);
	svg = slurp(out_path("roofline_locale.svg"));
	check_sane(svg);
	free(svg);
	svg = slurp(out_path("cdf_locale.svg"));
	check_sane(svg);
	free(svg);
}

static void test_errors(void **state)
{
	struct perf_point pts[7];
	double a[3] = {1, 2, 3};
	struct perf_cdf s = {"s", a, 3}, s_null = {"s", NULL, 3}, s_neg = {"s", a, -1};
	struct perf_roof bad_kind[1] = {roofs3[0]};
	struct stat st;

	(void)state;
	points7(pts);
	/* Unwritable: a missing directory, a directory as the file. */
	assert_int_equal(
	    perf_svg_roofline("/nonexistent-gfec-dir/r.svg", "t", NULL, roofs3, 3, pts, 7),
	    -ENOENT);
	assert_int_equal(perf_svg_latency_cdf("/nonexistent-gfec-dir/c.svg", "t", &s, 1), -ENOENT);
	assert_true(perf_svg_roofline(out_dir, "t", NULL, roofs3, 3, pts, 7) < 0);
	assert_true(perf_svg_latency_cdf(out_dir, "t", &s, 1) < 0);
	/* A full disk: the error from fclose() comes back, and the device is not unlinked. */
	if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
		assert_int_equal(perf_svg_roofline("/dev/full", "t", NULL, roofs3, 3, pts, 7),
				 -ENOSPC);
		assert_int_equal(stat("/dev/full", &st), 0);
	}

	/* Bad arguments: -EINVAL, and no file. */
	assert_int_equal(perf_svg_roofline(NULL, "t", NULL, roofs3, 3, pts, 7), -EINVAL);
	assert_int_equal(perf_svg_roofline(out_path("einval.svg"), "t", NULL, roofs3, -1, pts, 7),
			 -EINVAL);
	assert_int_equal(perf_svg_roofline(out_path("einval.svg"), "t", NULL, roofs3, 3, pts, -1),
			 -EINVAL);
	assert_int_equal(perf_svg_roofline(out_path("einval.svg"), "t", NULL, NULL, 3, pts, 7),
			 -EINVAL);
	assert_int_equal(perf_svg_roofline(out_path("einval.svg"), "t", NULL, roofs3, 3, NULL, 7),
			 -EINVAL);
	bad_kind[0].kind = (enum perf_roof_kind)7;
	assert_int_equal(perf_svg_roofline(out_path("einval.svg"), "t", NULL, bad_kind, 1, pts, 7),
			 -EINVAL);
	assert_int_equal(perf_svg_latency_cdf(NULL, "t", &s, 1), -EINVAL);
	assert_int_equal(perf_svg_latency_cdf(out_path("einval.svg"), "t", NULL, 1), -EINVAL);
	assert_int_equal(perf_svg_latency_cdf(out_path("einval.svg"), "t", &s, -1), -EINVAL);
	assert_int_equal(perf_svg_latency_cdf(out_path("einval.svg"), "t", &s_null, 1), -EINVAL);
	assert_int_equal(perf_svg_latency_cdf(out_path("einval.svg"), "t", &s_neg, 1), -EINVAL);
	assert_int_equal(access(out_path("einval.svg"), F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roofline),
	    cmocka_unit_test(test_roofline_empty),
	    cmocka_unit_test(test_roofline_skips_unusable),
	    cmocka_unit_test(test_roofline_hostile_labels),
	    cmocka_unit_test(test_cdf),
	    cmocka_unit_test(test_cdf_many_samples),
	    cmocka_unit_test(test_cdf_empty_and_unusable),
	    cmocka_unit_test(test_locale),
	    cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
