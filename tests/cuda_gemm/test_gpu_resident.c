/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_gpu_resident.c
 * The resident small-call kernel (gpu_resident_us, cuda_gemm/device/resident.h; issue 17), byte
 * for byte against gfec_cpu_gemm_base / gfec_cpu_update_base:
 *   - random shapes (k 1..16, m 1..8), lengths 1..16 KiB and a little past, misaligned device
 *     buffers, poisoned outputs, then new inputs at the same addresses (a kernel that outlives
 *     its inputs must not serve an old copy), then an update of one column;
 *   - RS(10,4) 4 KiB: every call counted as the resident kernel's (the backend's stats);
 *   - the kernel gone idle, and past its 4 ms life under a stream of calls, then called again;
 *   - work queued on the legacy default stream before the call (a large memset, then the
 *     inputs' own): the call sees the inputs it left;
 *   - 8 threads on one context at once, a NULL pointer, an injected fault (never resident);
 *   - encode, decode and update through a codec with the knob, against the CPU codec.
 * Exits 77 (ctest: skipped) without a usable GPU.
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <time.h>
#include <cmocka.h>

#include "cpu_backend.h"
#include "gfec/gfec.h"
#include "gfec_gpu.h"
#include "test_util.h"
#include "codec_test.h" /* make() */

static const struct gfec_backend_ops *ops;

/* A backend context with the resident kernel (idle_us > 0) or without. */
static void *ctx_open(long long idle_us, int fault)
{
	struct gfec_backend_conf conf = { .resident_us = idle_us, .fault = fault };
	void *ctx = NULL;

	assert_int_equal(ops->init(&conf, &ctx), 0);
	return ctx;
}

static uint64_t resident_calls(void *ctx)
{
	struct gfec_backend_stats st = { 0 };

	ops->stats(ctx, &st);
	return st.resident;
}

/* One stripe: k + m device chunks of len bytes, each 0..15 bytes off 16-byte alignment. */
struct stripe {
	int k, m;
	size_t len;
	uint8_t *base[24], *d[24]; /* inputs then outputs */
	uint8_t *h[24];		    /* what the host holds of each */
	uint8_t a[16 * 8];
	void *plan;
};

static void stripe_open(struct stripe *s, void *ctx, int k, int m, size_t len, int misalign)
{
	struct gfec_gemm_matrix gm = { .w = 8, .rows = m, .cols = k, .a = s->a };

	s->k = k, s->m = m, s->len = len;
	test_fill(s->a, (size_t)k * m);
	assert_int_equal(ops->plan_create(ctx, &gm, &s->plan), 0);
	for (int i = 0; i < k + m; i++) {
		const size_t off = misalign ? (size_t)test_range(0, 15) : 0;

		assert_int_equal(cudaMalloc((void **)&s->base[i], len + 16), cudaSuccess);
		s->d[i] = s->base[i] + off;
		s->h[i] = malloc(len);
		assert_non_null(s->h[i]);
	}
}

static void stripe_close(struct stripe *s, void *ctx)
{
	ops->plan_free(ctx, s->plan);
	for (int i = 0; i < s->k + s->m; i++) {
		cudaFree(s->base[i]);
		free(s->h[i]);
	}
}

/* New random inputs (host and device), outputs poisoned on the device. */
static void stripe_fill(struct stripe *s)
{
	for (int i = 0; i < s->k + s->m; i++) {
		if (i < s->k)
			test_fill(s->h[i], s->len);
		else
			memset(s->h[i], 0xa5, s->len);
		assert_int_equal(cudaMemcpy(s->d[i], s->h[i], s->len, cudaMemcpyHostToDevice),
				 cudaSuccess);
	}
	/* a copy from pageable memory returns before its DMA lands; with the legacy stream busy the
	 * call would be launched instead (test_legacy_stream) */
	assert_int_equal(cudaStreamSynchronize(0), cudaSuccess);
}

/* The device's outputs equal the host's (computed by the reference into h[k..]). */
static void stripe_check(const struct stripe *s, const char *what)
{
	uint8_t *got = malloc(s->len);

	assert_non_null(got);
	for (int i = 0; i < s->m; i++) {
		assert_int_equal(cudaMemcpy(got, s->d[s->k + i], s->len, cudaMemcpyDeviceToHost),
				 cudaSuccess);
		if (memcmp(got, s->h[s->k + i], s->len))
			fail_msg("%s: k=%d m=%d len=%zu output %d differs from the CPU", what, s->k,
				 s->m, s->len, i);
	}
	free(got);
}

static void stripe_encode(struct stripe *s, void *ctx, const char *what)
{
	assert_int_equal(ops->gemm(ctx, s->plan, 1, s->len, (const uint8_t *const *)s->d,
				   s->d + s->k),
			 0);
	gfec_cpu_gemm_base(s->len, s->k, s->m, s->a, (const uint8_t *const *)s->h, s->h + s->k);
	stripe_check(s, what);
}

static void test_shapes(void **state)
{
	void *ctx = ctx_open(1000, 0);

	(void)state;
	for (int it = 0; it < 300; it++) {
		struct stripe s;
		const int k = test_range(1, 16), m = test_range(1, 8);
		const size_t len = it % 10 == 0 ? 4096 : (size_t)test_range(1, 16384 + 64);

		stripe_open(&s, ctx, k, m, len, it % 2);
		stripe_fill(&s);
		stripe_encode(&s, ctx, "encode");
		stripe_fill(&s); /* the same addresses, new bytes */
		stripe_encode(&s, ctx, "encode again");

		/* update one column: parity ^= A(:, col) * delta */
		const int col = test_range(0, k - 1);
		size_t done = 0;

		test_fill(s.h[0], len);
		assert_int_equal(cudaMemcpy(s.d[0], s.h[0], len, cudaMemcpyHostToDevice),
				 cudaSuccess);
		assert_int_equal(ops->update(ctx, s.plan, col, len, s.d[0], s.d + k, &done), 0);
		assert_int_equal(done, len);
		gfec_cpu_update_base(len, k, m, col, s.a, s.h[0], s.h + k);
		stripe_check(&s, "update");
		stripe_close(&s, ctx);
	}
	fprintf(stderr, "# %llu of 900 calls by the resident kernel\n",
		(unsigned long long)resident_calls(ctx));
	assert_true(resident_calls(ctx) > 0);
	ops->fini(ctx);
}

/* RS(10,4) 4 KiB, every call the resident kernel's: back to back, idle, and past its life. */
static void test_lifetime(void **state)
{
	void *ctx = ctx_open(50, 0);
	struct stripe s;
	uint64_t n = 0;

	(void)state;
	stripe_open(&s, ctx, 10, 4, 4096, 0);
	for (int i = 0; i < 20; i++, n++) {
		stripe_fill(&s);
		stripe_encode(&s, ctx, "back to back");
		assert_int_equal(resident_calls(ctx), n + 1);
	}
	for (int i = 0; i < 5; i++, n++) { /* the kernel has left: launched again */
		test_sleep_us(2000);
		stripe_fill(&s);
		stripe_encode(&s, ctx, "after idle");
		assert_int_equal(resident_calls(ctx), n + 1);
	}
	/* 20 ms of calls with the inputs changed on the device between them: several lives */
	for (const double t0 = test_now_s(); test_now_s() - t0 < 0.02; n++) {
		stripe_fill(&s);
		stripe_encode(&s, ctx, "long run");
	}
	assert_int_equal(resident_calls(ctx), n);
	stripe_close(&s, ctx);
	ops->fini(ctx);
}

/* Inputs written on the legacy default stream just before the call, behind a long memset. */
static void test_legacy_stream(void **state)
{
	void *ctx = ctx_open(1000, 0);
	struct stripe s;
	const size_t big = (size_t)1 << 30;
	uint8_t *junk;

	(void)state;
	assert_int_equal(cudaMalloc((void **)&junk, big), cudaSuccess);
	stripe_open(&s, ctx, 10, 4, 4096, 0);
	stripe_fill(&s);
	stripe_encode(&s, ctx, "first"); /* the kernel is resident now */
	for (int i = 0; i < 10; i++) {
		const int v = test_range(0, 255);

		assert_int_equal(cudaMemsetAsync(junk, i, big, 0), cudaSuccess);
		for (int j = 0; j < s.k; j++) {
			memset(s.h[j], v + j, s.len);
			assert_int_equal(cudaMemsetAsync(s.d[j], v + j, s.len, 0), cudaSuccess);
		}
		stripe_encode(&s, ctx, "behind the legacy stream");
	}
	stripe_close(&s, ctx);
	cudaFree(junk);
	ops->fini(ctx);
}

struct caller {
	void *ctx, *plan;
	const uint8_t *a;
	uint8_t *d[14], *h[14], *want[4];
	uint64_t rng;
	int bad;
};

static void *caller_run(void *arg)
{
	struct caller *c = arg;
	const size_t len = 4096;

	for (int it = 0; it < 200 && !c->bad; it++) {
		for (int j = 0; j < 10; j++) {
			for (size_t b = 0; b < len; b++) {
				c->rng ^= c->rng << 13, c->rng ^= c->rng >> 7, c->rng ^= c->rng << 17;
				c->h[j][b] = (uint8_t)c->rng;
			}
			cudaMemcpy(c->d[j], c->h[j], len, cudaMemcpyHostToDevice);
		}
		if (ops->gemm(c->ctx, c->plan, 1, len, (const uint8_t *const *)c->d, c->d + 10)) {
			c->bad = 1;
			break;
		}
		gfec_cpu_gemm_base(len, 10, 4, c->a, (const uint8_t *const *)c->h, c->want);
		for (int i = 0; i < 4; i++) {
			cudaMemcpy(c->h[10 + i], c->d[10 + i], len, cudaMemcpyDeviceToHost);
			c->bad |= memcmp(c->h[10 + i], c->want[i], len) != 0;
		}
	}
	return NULL;
}

static void test_callers(void **state)
{
	enum { T = 8 };
	void *ctx = ctx_open(1000, 0);
	struct stripe s;
	struct caller c[T];
	pthread_t th[T];

	(void)state;
	stripe_open(&s, ctx, 10, 4, 4096, 0); /* its plan and matrix; the callers' own buffers */
	for (int t = 0; t < T; t++) {
		c[t] = (struct caller){ .ctx = ctx, .plan = s.plan, .a = s.a, .rng = test_rand() | 1 };
		for (int i = 0; i < 14; i++) {
			assert_int_equal(cudaMalloc((void **)&c[t].d[i], 4096), cudaSuccess);
			c[t].h[i] = malloc(4096);
		}
		for (int i = 0; i < 4; i++)
			c[t].want[i] = malloc(4096);
	}
	for (int t = 0; t < T; t++)
		assert_int_equal(pthread_create(&th[t], NULL, caller_run, &c[t]), 0);
	for (int t = 0; t < T; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < T; t++) {
		assert_int_equal(c[t].bad, 0);
		for (int i = 0; i < 14; i++) {
			cudaFree(c[t].d[i]);
			free(c[t].h[i]);
		}
		for (int i = 0; i < 4; i++)
			free(c[t].want[i]);
	}
	fprintf(stderr, "# %d callers: %llu of %d calls by the resident kernel\n", T,
		(unsigned long long)resident_calls(ctx), T * 200);
	assert_true(resident_calls(ctx) > 0);
	stripe_close(&s, ctx);
	ops->fini(ctx);
}

static void test_bad_calls(void **state)
{
	void *ctx = ctx_open(1000, 0), *faulty = ctx_open(1000, 1);
	struct stripe s, f;
	uint8_t *keep;

	(void)state;
	stripe_open(&s, ctx, 10, 4, 4096, 0);
	stripe_fill(&s);
	keep = s.d[3];
	s.d[3] = NULL;
	assert_int_equal(ops->gemm(ctx, s.plan, 1, s.len, (const uint8_t *const *)s.d, s.d + 10),
			 GFEC_E_INVAL);
	s.d[3] = keep;
	stripe_encode(&s, ctx, "after a NULL");
	stripe_close(&s, ctx);
	/* an injected CUDA error: an error for the caller to redo on the CPU, never resident */
	stripe_open(&f, faulty, 10, 4, 4096, 0);
	stripe_fill(&f);
	assert_int_equal(ops->gemm(faulty, f.plan, 1, f.len, (const uint8_t *const *)f.d,
				   f.d + 10),
			 GFEC_E_DEVICE);
	assert_int_equal(resident_calls(faulty), 0);
	stripe_close(&f, faulty);
	ops->fini(faulty);
	ops->fini(ctx);
}

/* Encode, decode of up to m erasures and update through codecs, on device buffers. */
static void test_codec(void **state)
{
	(void)state;
	for (int it = 0; it < 40; it++) {
		const int k = test_range(2, 12), m = test_range(1, k < 4 ? k : 4), n = k + m;
		const size_t len = (size_t)test_range(1, 8192);
		gfec_codec *g = make("k=%d m=%d backend=gpu gpu_resident_us=500", k, m);
		gfec_codec *c = make("k=%d m=%d backend=cpu", k, m);
		uint8_t *h[16], *d[16], *out[16] = { 0 }, *delta = malloc(len), *got = malloc(len);
		uint8_t *ddelta;
		const uint8_t *avail[16];
		struct gfec_stats st;

		assert_true(delta && got);
		for (int i = 0; i < n; i++) {
			h[i] = malloc(len);
			assert_int_equal(cudaMalloc((void **)&d[i], len), cudaSuccess);
			test_fill(h[i], len);
			assert_int_equal(cudaMemcpy(d[i], h[i], len, cudaMemcpyHostToDevice),
					 cudaSuccess);
		}
		assert_int_equal(gfec_encode(g, (const uint8_t *const *)d, d + k, len), 0);
		assert_int_equal(gfec_encode(c, (const uint8_t *const *)h, h + k, len), 0);
		for (int i = k; i < n; i++) {
			assert_int_equal(cudaMemcpy(got, d[i], len, cudaMemcpyDeviceToHost),
					 cudaSuccess);
			assert_memory_equal(got, h[i], len);
		}
		/* erase up to m chunks at random, rebuilt into poisoned device buffers */
		for (int x = test_range(1, m); x > 0; x--) {
			const int i = test_range(0, n - 1);

			if (!out[i])
				assert_int_equal(cudaMalloc((void **)&out[i], len), cudaSuccess);
			assert_int_equal(cudaMemset(out[i], 0xa5, len), cudaSuccess);
		}
		for (int i = 0; i < n; i++)
			avail[i] = out[i] ? NULL : d[i];
		assert_int_equal(gfec_decode(g, avail, out, len), 0);
		for (int i = 0; i < n; i++) {
			if (!out[i])
				continue;
			assert_int_equal(cudaMemcpy(got, out[i], len, cudaMemcpyDeviceToHost),
					 cudaSuccess);
			assert_memory_equal(got, h[i], len);
		}
		/* update data chunk j with a random delta */
		const int j = test_range(0, k - 1);

		test_fill(delta, len);
		assert_int_equal(cudaMalloc((void **)&ddelta, len), cudaSuccess);
		assert_int_equal(cudaMemcpy(ddelta, delta, len, cudaMemcpyHostToDevice),
				 cudaSuccess);
		assert_int_equal(gfec_update(g, j, ddelta, d + k, len), 0);
		assert_int_equal(gfec_update(c, j, delta, h + k, len), 0);
		for (int i = k; i < n; i++) {
			assert_int_equal(cudaMemcpy(got, d[i], len, cudaMemcpyDeviceToHost),
					 cudaSuccess);
			assert_memory_equal(got, h[i], len);
		}
		gfec_codec_stats(g, &st);
		assert_int_equal(st.fallbacks, 0);
		cudaFree(ddelta);
		for (int i = 0; i < n; i++) {
			free(h[i]);
			cudaFree(d[i]);
			cudaFree(out[i]);
		}
		free(delta);
		free(got);
		gfec_codec_free(g);
		gfec_codec_free(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),	   cmocka_unit_test(test_lifetime),
		cmocka_unit_test(test_legacy_stream), cmocka_unit_test(test_callers),
		cmocka_unit_test(test_bad_calls), cmocka_unit_test(test_codec),
	};
	void *ctx = NULL;

	/* under compute-sanitizer (slow, and its memcheck takes memory allocated after a kernel's
	 * launch for out of bounds, which a resident kernel meets): test_*l* runs the tests whose
	 * buffers and plans all precede their first call */
	if (getenv("GFEC_TEST_FILTER"))
		cmocka_set_test_filter(getenv("GFEC_TEST_FILTER"));
	ops = gfec_gpu_backend();
	if (!ops || ops->init(NULL, &ctx)) {
		fprintf(stderr, "# no usable GPU: skipped\n");
		return 77;
	}
	ops->fini(ctx);
	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
