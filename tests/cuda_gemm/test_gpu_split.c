/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_gpu_split.c
 * Several GPUs without a GPU (issue 18): the split arithmetic of cuda_gemm/device/split.c on
 * random totals, units, minimums and rates; the CPU backend run piece by piece at the cuts that
 * the multi-device layer would make (random shapes, w = 8 and 16, byte and CRS packet layouts,
 * several stripes or one), byte-identical to one whole call; and the gpu_devices, gpu_split_min
 * and GFEC_FAULT=cuda-ctxI knobs through the registry, a profile, the environment and gfec.conf.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "cpu_backend.h"
#include "gfec/gfec.h"
#include "internal.h"
#include "registry.h"
#include "split.h"
#include "test_util.h"

/* Every documented property of one gfec_gpu_split() result. */
static void check_cuts(uint64_t total, uint64_t unit, uint64_t min, const double *r, int n,
		       const uint64_t *cut, int ret)
{
	int nonempty = 0, active = 0;
	double sum = 0;

	for (int i = 0; i < n; i++)
		if (r[i] > 0 && isfinite(r[i]))
			active++, sum += r[i];
	assert_int_equal(cut[0], 0);
	for (int i = 0; i < n; i++) {
		const uint64_t len = cut[i + 1] - cut[i];

		assert_true(cut[i + 1] >= cut[i]);
		if (cut[i + 1] < total)
			assert_int_equal(cut[i + 1] % unit, 0);
		if (len) {
			nonempty++;
			assert_true(r[i] > 0 && isfinite(r[i])); /* a rate <= 0 gets nothing */
		}
	}
	assert_int_equal(ret, nonempty);
	if (total == 0 || active == 0) {
		assert_int_equal(ret, 0);
		assert_int_equal(cut[n], 0);
		return;
	}
	assert_int_equal(cut[n], total); /* all of it, once */
	assert_true(ret >= 1);
	if (ret > 1) /* no share under min, unless one context keeps the whole */
		for (int i = 0; i < n; i++)
			if (cut[i + 1] > cut[i])
				assert_true(cut[i + 1] - cut[i] >= min);
	if (min == 0) { /* proportional: every cut within one unit of its ideal place */
		double acc = 0;

		for (int i = 0; i < n; i++) {
			if (!(r[i] > 0 && isfinite(r[i])))
				continue;
			acc += r[i];
			const double ideal = (double)total * (acc / sum);

			assert_true((double)cut[i + 1] <= ideal + 1e-6 * (double)total + 1);
			assert_true((double)cut[i + 1] + (double)unit >= ideal - 1e-6 * (double)total);
		}
	}
}

static void test_split_random(void **state)
{
	(void)state;
	test_seed();
	for (int it = 0; it < 200000; it++) {
		const int n = test_range(1, GFEC_MAX_GPU_CONTEXTS);
		double r[GFEC_MAX_GPU_CONTEXTS];
		uint64_t cut[GFEC_MAX_GPU_CONTEXTS + 1];
		const uint64_t total = test_range(0, 3) == 0 ? (uint64_t)test_range(0, 5)
				       : test_range(0, 1) ? (uint64_t)test_range(0, 100000)
							  : test_rand() % ((uint64_t)1 << 40);
		const uint64_t unit = test_range(0, 1) ? 1 : (uint64_t)8 * test_range(1, 4096);
		const uint64_t min = test_range(0, 2) == 0 ? 0 : test_rand() % (total / 2 + 2);

		for (int i = 0; i < n; i++) {
			switch (test_range(0, 9)) {
			case 0:
				r[i] = 0;
				break;
			case 1:
				r[i] = -1;
				break;
			case 2:
				r[i] = NAN;
				break;
			default:
				r[i] = ldexp((double)(test_rand() % 1000 + 1), test_range(0, 40));
			}
		}
		check_cuts(total, unit, min, r, n, cut,
			   gfec_gpu_split(total, unit, min, r, n, cut));
	}
}

static void test_split_cases(void **state)
{
	const double eq[2] = { 1, 1 }, twice[2] = { 2, 1 }, none[2] = { 0, -3 };
	uint64_t cut[3];

	(void)state;
	/* equal rates: halves on the unit */
	assert_int_equal(gfec_gpu_split(1000, 64, 0, eq, 2, cut), 2);
	assert_int_equal(cut[1], 448);
	assert_int_equal(cut[2], 1000);
	assert_int_equal(gfec_gpu_split(10, 1, 0, twice, 2, cut), 2);
	assert_int_equal(cut[1], 6);
	/* under the minimum: the slower context drops out, the other keeps the whole */
	assert_int_equal(gfec_gpu_split(10, 1, 6, twice, 2, cut), 1);
	assert_int_equal(cut[1], 10);
	assert_int_equal(cut[2], 10);
	assert_int_equal(gfec_gpu_split(100, 1, 1000, eq, 2, cut), 1);
	assert_int_equal(cut[2] - cut[1] + cut[1] - cut[0], 100);
	/* shorter than one unit: all of it on the last context */
	assert_int_equal(gfec_gpu_split(63, 64, 0, eq, 2, cut), 1);
	assert_int_equal(cut[1], 0);
	assert_int_equal(cut[2], 63);
	assert_int_equal(gfec_gpu_split(100, 1, 0, none, 2, cut), 0);
	assert_int_equal(gfec_gpu_split_unit(0), 64);
	assert_int_equal(gfec_gpu_split_unit(2048), 16384);
}

/*
 * The CPU backend, one whole call against the same call cut as multi.cu cuts it (by stripe when
 * there are several, else into byte ranges of gfec_gpu_split_unit()), on a random layout.
 */
static void one_layout(const struct gfec_backend_ops *ops, void *ctx)
{
	const unsigned w = test_range(0, 3) ? 8 : 16;
	const int packets = w == 8 && test_range(0, 2) == 0;
	const size_t P = packets ? 8 * (size_t)test_range(1, 64) : 0;
	const int rows = test_range(1, 8), cols = test_range(1, 12);
	const int ns = test_range(0, 2) ? 1 : test_range(2, 9), n = test_range(2, 5);
	size_t len;

	if (packets)
		len = 8 * P * (size_t)test_range(1, 20);
	else
		len = (size_t)test_range(1, 70000) * (w == 16 ? 2 : 1);
	uint8_t *a = malloc((size_t)rows * cols * (w / 8));
	uint8_t **src = malloc(sizeof(*src) * (size_t)ns * cols);
	uint8_t **want = malloc(sizeof(*want) * (size_t)ns * rows);
	uint8_t **got = malloc(sizeof(*got) * (size_t)ns * rows);
	struct gfec_gemm_matrix gm = { .w = w, .rows = rows, .cols = cols, .packetsize = P };
	double r[8];
	uint64_t cut[9];
	void *plan;

	test_fill(a, (size_t)rows * cols * (w / 8));
	gm.a = a;
	for (int i = 0; i < ns * cols; i++) {
		src[i] = malloc(len);
		test_fill(src[i], len);
	}
	for (int i = 0; i < ns * rows; i++) {
		want[i] = malloc(len);
		got[i] = malloc(len);
		memset(got[i], TEST_POISON, len);
	}
	for (int i = 0; i < n; i++)
		r[i] = test_range(0, 4) ? (double)test_range(1, 1000) : 0;
	r[test_range(0, n - 1)] = 1; /* at least one context takes part */
	assert_int_equal(ops->plan_create(ctx, &gm, &plan), 0);
	assert_int_equal(ops->gemm(ctx, plan, ns, len, (const uint8_t *const *)src, want), 0);
	if (ns > 1) {
		gfec_gpu_split((uint64_t)ns, 1, (uint64_t)test_range(0, 2), r, n, cut);
		for (int i = 0; i < n; i++)
			if (cut[i + 1] > cut[i])
				assert_int_equal(ops->gemm(ctx, plan, (int)(cut[i + 1] - cut[i]), len,
							   (const uint8_t *const *)src + cut[i] * cols,
							   got + cut[i] * rows),
						 0);
	} else {
		const uint64_t unit = gfec_gpu_split_unit(P);
		const uint8_t *s[12];
		uint8_t *d[8];

		gfec_gpu_split(len, unit, (uint64_t)test_range(0, 3) * unit, r, n, cut);
		for (int i = 0; i < n; i++) {
			if (cut[i + 1] == cut[i])
				continue;
			for (int j = 0; j < cols; j++)
				s[j] = src[j] + cut[i];
			for (int j = 0; j < rows; j++)
				d[j] = got[j] + cut[i];
			/* every piece is a length the layout accepts */
			assert_int_equal(ops->gemm(ctx, plan, 1, cut[i + 1] - cut[i], s, d), 0);
		}
	}
	for (int i = 0; i < ns * rows; i++)
		if (memcmp(want[i], got[i], len))
			fail_msg("w=%u P=%zu rows=%d cols=%d stripes=%d len=%zu: output %d differs", w,
				 P, rows, cols, ns, len, i);
	ops->plan_free(ctx, plan);
	for (int i = 0; i < ns * cols; i++)
		free(src[i]);
	for (int i = 0; i < ns * rows; i++) {
		free(want[i]);
		free(got[i]);
	}
	free(a);
	free(src);
	free(want);
	free(got);
}

static void test_split_cpu(void **state)
{
	const struct gfec_backend_ops *ops = gfec_cpu_backend();
	struct gfec_backend_conf conf = { .threads = 1 };
	void *ctx;

	(void)state;
	test_seed();
	assert_int_equal(ops->init(&conf, &ctx), 0);
	for (int it = 0; it < 300; it++)
		one_layout(ops, ctx);
	ops->fini(ctx);
}

static void test_parse_devices(void **state)
{
	static const char *const bad[] = { "", ",", "0,", ",0", "0,,1", "a", "0;1", "0:", ":", "65", "1000",
					   "-1", " 0", "0 ", "ALL", "all,0",
					   "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0" };
	int ord[GFEC_MAX_GPU_CONTEXTS] = { 0 }, n = 7;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 7;
		if (gfec_parse_gpu_devices(bad[i], ord, &n) != GFEC_E_INVAL || n != 7)
			fail_msg("gpu_devices=%s: taken", bad[i]);
	}
	assert_int_equal(gfec_parse_gpu_devices("all", ord, &n), 0);
	assert_int_equal(n, -1);
	assert_int_equal(gfec_parse_gpu_devices("0,0", ord, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ord[0], 0);
	assert_int_equal(ord[1], 0);
	assert_int_equal(gfec_parse_gpu_devices("3,64:007,1,0,0,0,0,0,0,0,0,0,0,0,2", ord, &n), 0);
	assert_int_equal(n, 16);
	assert_int_equal(ord[0], 3);
	assert_int_equal(ord[1], 64);
	assert_int_equal(ord[2], 7);
	assert_int_equal(ord[15], 2);
}

/* The knobs as a profile, the environment and gfec.conf give them. */
static void test_knobs(void **state)
{
	struct gfec_settings s;
	struct gfec_profile p;
	char err[256];

	(void)state;
	gfec_settings_defaults(&s);
	assert_int_equal(gfec_profile_parse("k=4 m=2 gpu_devices=1:0:1 gpu_split_min=4K", &s, &p,
					    err, sizeof(err)),
			 0);
	assert_int_equal(p.gpu_ndevices, 3);
	assert_int_equal(p.gpu_devices[0], 1);
	assert_int_equal(p.gpu_devices[2], 1);
	assert_int_equal(p.gpu_split_min, 4096);
	assert_int_equal(gfec_profile_parse("k=4 m=2 gpu_devices=all", &s, &p, err, sizeof(err)), 0);
	assert_int_equal(p.gpu_ndevices, -1);
	assert_int_equal(gfec_profile_parse("k=4 m=2", &s, &p, err, sizeof(err)), 0);
	assert_int_equal(p.gpu_ndevices, 0);
	assert_int_equal(p.gpu_split_min, 0);
	assert_int_not_equal(gfec_profile_parse("k=4 m=2 gpu_devices=0:x", &s, &p, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "CUDA ordinals"));
	/* a comma ends the profile entry: "gpu_devices=0" and a stray "1" */
	assert_int_not_equal(gfec_profile_parse("k=4 m=2 gpu_devices=0,1", &s, &p, err, sizeof(err)),
			     0);
	assert_int_not_equal(gfec_profile_parse("k=4 m=2 gpu_split_min=-1", &s, &p, err,
						sizeof(err)),
			     0);
	/* GFEC_FAULT: cuda is 1, cuda-ctxI is 2 + I (gfec_backend_conf.fault) */
	assert_int_equal(gfec_knob_set(&s, GFEC_KNOB_FAULT, "cuda-ctx1", GFEC_FROM_ENV, NULL), 0);
	assert_int_equal(gfec_profile_parse("k=4 m=2", &s, &p, err, sizeof(err)), 0);
	assert_int_equal(p.gpu_fault, 3);
	assert_int_equal(gfec_knob_set(&s, GFEC_KNOB_FAULT, "cuda", GFEC_FROM_ENV, NULL), 0);
	assert_int_equal(gfec_profile_parse("k=4 m=2", &s, &p, err, sizeof(err)), 0);
	assert_int_equal(p.gpu_fault, 1);
	assert_int_not_equal(gfec_knob_set(&s, GFEC_KNOB_FAULT, "cuda-ctx9", GFEC_FROM_ENV, NULL),
			     0);
	/* the environment and gfec.conf */
	gfec_settings_defaults(&s);
	setenv("GFEC_GPU_DEVICES", "0,0", 1);
	assert_int_equal(gfec_settings_env(&s, err, sizeof(err)), 0);
	assert_string_equal(s.v[GFEC_KNOB_GPU_DEVICES].text, "0,0");
	/* gpu_device in the profile outranks the environment's list; gpu_devices there does not */
	assert_int_equal(gfec_profile_parse("k=4 m=2 gpu_device=3", &s, &p, err, sizeof(err)), 0);
	assert_int_equal(p.gpu_ndevices, 0);
	assert_int_equal(p.gpu_device, 3);
	assert_int_equal(gfec_profile_parse("k=4 m=2 gpu_device=3 gpu_devices=1:2", &s, &p, err,
					    sizeof(err)),
			 0);
	assert_int_equal(p.gpu_ndevices, 2);
	assert_int_equal(gfec_profile_parse("k=4 m=2", &s, &p, err, sizeof(err)), 0);
	assert_int_equal(p.gpu_ndevices, 2);
	setenv("GFEC_GPU_DEVICES", "0,,0", 1);
	assert_int_equal(gfec_settings_env(&s, err, sizeof(err)), GFEC_E_PROFILE);
	unsetenv("GFEC_GPU_DEVICES");
	gfec_settings_defaults(&s);
	assert_int_equal(gfec_config_parse("[gpu]\ndevices = 2,3\nsplit_min = 1M\n", "t.conf", &s,
					   err, sizeof(err)),
			 0);
	assert_string_equal(s.v[GFEC_KNOB_GPU_DEVICES].text, "2,3");
	assert_int_equal(s.v[GFEC_KNOB_GPU_SPLIT_MIN].num, 1 << 20);
	assert_int_not_equal(gfec_config_parse("[gpu]\ndevices = 2;3\n", "t.conf", &s, err,
					       sizeof(err)),
			     0);
	/* A CPU codec takes the key, and lists no GPU context. */
	gfec_codec *c = NULL;
	struct gfec_gpu_device d[2];

	assert_int_equal(gfec_codec_create("k=4 m=2 backend=cpu gpu_devices=0:0", &c, err,
					   sizeof(err)),
			 0);
	assert_int_equal(gfec_codec_gpu_devices(c, d, 2), 0);
	assert_int_equal(gfec_codec_gpu_devices(NULL, d, 2), GFEC_E_INVAL);
	gfec_codec_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_cases),
		cmocka_unit_test(test_split_random),
		cmocka_unit_test(test_split_cpu),
		cmocka_unit_test(test_parse_devices),
		cmocka_unit_test(test_knobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
