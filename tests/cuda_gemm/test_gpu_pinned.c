/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_gpu_pinned.c
 * Host buffers on the GPU backend (issue 17): pinned ones read and written in place by the
 * kernels (gpu_pinned=map) and copied by the DMA engines (dma), memory from cudaMallocHost and
 * from cudaHostRegister, a chunk that runs past a registration (must be staged, not mapped: a
 * kernel reading an unmapped page would kill the context), calls mixing pinned and pageable
 * buffers, encodes, decodes and updates, and many callers at once through the lanes of the staged
 * pipeline (gpu_lanes) and under a small cap on in-place bytes in flight (gpu_map_bytes). Every
 * output against the CPU codec, with no fallback allowed; last, kernels that fail on the device
 * under many callers, every call redone on the CPU. Exits 77 (ctest: skipped) without a usable
 * GPU.
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "gfec/gfec.h"
#include "test_util.h"
#include "codec_test.h" /* make() */
#include "coalesce.h"	/* gfec_codec_coalesce_stats */

static const char *const modes[] = { "map", "dma" };

/*
 * ns stripes of k + m chunks of len bytes at random places in one pool (shuffled, some 1..15
 * bytes off 16-byte alignment); want holds the CPU's parity laid out as the outputs are.
 */
struct pool {
	int k, m, ns;
	size_t len, slot, bytes;
	uint8_t *mem, *want;
	const uint8_t **src;
	uint8_t **dst;
};

static void pool_layout(struct pool *p, gfec_codec *cpu, uint8_t *mem)
{
	const size_t n = (size_t)p->ns * (p->k + p->m);
	size_t *off = malloc(n * sizeof(*off));
	const uint8_t **ws = malloc(sizeof(void *) * (size_t)p->ns * p->k);
	uint8_t **wd = malloc(sizeof(void *) * (size_t)p->ns * p->m);

	assert_true(off && ws && wd);
	p->mem = mem;
	for (size_t i = 0; i < n; i++)
		off[i] = i * p->slot + (test_rand() % 4 ? 0 : (size_t)test_range(1, 15));
	for (size_t i = n; i > 1; i--) {
		const size_t j = test_rand() % i, t = off[i - 1];

		off[i - 1] = off[j];
		off[j] = t;
	}
	test_fill(mem, p->bytes);
	memcpy(p->want, mem, p->bytes);
	for (size_t s = 0; s < (size_t)p->ns; s++) {
		for (int j = 0; j < p->k; j++) {
			const size_t o = off[s * (p->k + p->m) + j];

			p->src[s * p->k + j] = mem + o;
			ws[s * p->k + j] = p->want + o;
		}
		for (int i = 0; i < p->m; i++) {
			const size_t o = off[s * (p->k + p->m) + p->k + i];

			p->dst[s * p->m + i] = mem + o;
			wd[s * p->m + i] = p->want + o;
			memset(mem + o, TEST_POISON, p->len);
			memset(p->want + o, TEST_POISON, p->len);
		}
	}
	assert_int_equal(gfec_encode_batch(cpu, p->ns, ws, wd, p->len), 0);
	free(off);
	free(ws);
	free(wd);
}

static void pool_init(struct pool *p, int k, int m, int ns, size_t len)
{
	p->k = k, p->m = m, p->ns = ns, p->len = len;
	p->slot = len + 16;
	p->bytes = p->slot * (size_t)ns * (k + m);
	p->want = malloc(p->bytes);
	p->src = malloc(sizeof(void *) * (size_t)ns * k);
	p->dst = malloc(sizeof(void *) * (size_t)ns * m);
	assert_true(p->want && p->src && p->dst);
}

static void pool_fini(struct pool *p)
{
	free(p->want);
	free(p->src);
	free(p->dst);
}

/* The whole pool, parity and poison and sources alike, equals the CPU's. */
static void pool_check(const struct pool *p, const char *what)
{
	if (memcmp(p->mem, p->want, p->bytes))
		fail_msg("%s: k=%d m=%d ns=%d len=%zu differs from the CPU", what, p->k, p->m, p->ns,
			 p->len);
}

static void no_fallback(gfec_codec *g)
{
	struct gfec_stats st;

	gfec_codec_stats(g, &st);
	assert_int_equal(st.fallbacks, 0);
	assert_true(st.gpu_calls > 0);
}

/* Batches of random shapes in cudaMallocHost memory and in registered malloc memory. */
static void test_batches(void **state)
{
	(void)state;
	for (int mode = 0; mode < 2; mode++)
		for (int it = 0; it < 12; it++) {
			const int k = test_range(2, 20), m = test_range(1, k < 6 ? k : 6);
			const int ns = it % 3 == 0 ? test_range(1, 3) : test_range(1, 400);
			const size_t len = it % 4 == 0 ? (size_t)test_range(1, 100)
						       : (size_t)test_range(1, 20000);
			gfec_codec *g = make("k=%d m=%d backend=gpu gpu_pinned=%s", k, m, modes[mode]);
			gfec_codec *c = make("k=%d m=%d backend=cpu", k, m);
			const int registered = it % 2;
			struct pool p;
			uint8_t *mem;

			pool_init(&p, k, m, ns, len);
			if (registered) {
				mem = malloc(p.bytes);
				assert_non_null(mem);
				assert_int_equal(cudaHostRegister(mem, p.bytes, cudaHostRegisterDefault),
						 cudaSuccess);
			} else {
				assert_int_equal(cudaMallocHost((void **)&mem, p.bytes), cudaSuccess);
			}
			pool_layout(&p, c, mem);
			assert_int_equal(gfec_encode_batch(g, ns, p.src, p.dst, len), 0);
			pool_check(&p, modes[mode]);
			no_fallback(g);
			if (registered) {
				cudaHostUnregister(mem);
				free(mem);
			} else {
				cudaFreeHost(mem);
			}
			pool_fini(&p);
			gfec_codec_free(g);
			gfec_codec_free(c);
		}
}

/*
 * Chunks that start in a registered range and end past it, and calls mixing pinned and pageable
 * buffers: staged, right, and no CUDA error (a fallback would mean a kernel touched an unmapped
 * page, or a copy failed).
 */
static void test_partly_pinned(void **state)
{
	const int k = 6, m = 3;
	const size_t len = 3 * 4096 + 100, page = 4096;

	(void)state;
	for (int mode = 0; mode < 2; mode++) {
		gfec_codec *g = make("k=%d m=%d backend=gpu gpu_pinned=%s", k, m, modes[mode]);
		gfec_codec *c = make("k=%d m=%d backend=cpu", k, m);
		uint8_t *mem = NULL, *d[9], *ref[3];
		const size_t bytes = 24 * len + 4 * page, half = bytes / 2 / page * page;

		assert_int_equal(posix_memalign((void **)&mem, page, bytes), 0);
		for (int i = 0; i < m; i++)
			ref[i] = malloc(len);
		/* register the first half: every chunk in it but source 0, which straddles its end */
		assert_int_equal(cudaHostRegister(mem, half, cudaHostRegisterDefault), cudaSuccess);
		d[0] = mem + half - len / 2;
		for (int i = 1; i < k + m; i++)
			d[i] = mem + (size_t)(i - 1) * len + 7;
		test_fill(mem, bytes);
		for (int i = 0; i < m; i++)
			memset(d[k + i], TEST_POISON, len);
		assert_int_equal(gfec_encode(c, (const uint8_t *const *)d, ref, len), 0);
		assert_int_equal(gfec_encode(g, (const uint8_t *const *)d, d + k, len), 0);
		for (int i = 0; i < m; i++)
			assert_memory_equal(d[k + i], ref[i], len);
		/* pinned sources, pageable outputs; then a pageable source among pinned ones */
		for (int i = 0; i < k + m; i++)
			d[i] = mem + (size_t)i * len + 1;
		uint8_t *out[3], *heap = malloc(len);

		for (int i = 0; i < m; i++) {
			out[i] = malloc(len);
			memset(out[i], TEST_POISON, len);
		}
		assert_int_equal(gfec_encode(c, (const uint8_t *const *)d, ref, len), 0);
		assert_int_equal(gfec_encode(g, (const uint8_t *const *)d, out, len), 0);
		for (int i = 0; i < m; i++)
			assert_memory_equal(out[i], ref[i], len);
		memcpy(heap, d[2], len);
		d[2] = heap;
		for (int i = 0; i < m; i++)
			memset(d[k + i], TEST_POISON, len);
		assert_int_equal(gfec_encode(g, (const uint8_t *const *)d, d + k, len), 0);
		for (int i = 0; i < m; i++)
			assert_memory_equal(d[k + i], ref[i], len);
		no_fallback(g);
		cudaHostUnregister(mem);
		free(mem);
		free(heap);
		for (int i = 0; i < m; i++) {
			free(out[i]);
			free(ref[i]);
		}
		gfec_codec_free(g);
		gfec_codec_free(c);
	}
}

/* Decodes of every pattern of up to m losses of (6,3), and updates, on pinned buffers. */
static void test_decode_update(void **state)
{
	const int k = 6, m = 3, n = k + m;
	const size_t len = 70000;

	(void)state;
	for (int mode = 0; mode < 2; mode++) {
		gfec_codec *g = make("k=%d m=%d backend=gpu gpu_pinned=%s", k, m, modes[mode]);
		gfec_codec *c = make("k=%d m=%d backend=cpu", k, m);
		uint8_t *pin, *orig[9], *b[9], *delta;

		assert_int_equal(cudaMallocHost((void **)&pin, (size_t)(n + 1) * len + 64), cudaSuccess);
		for (int i = 0; i < n; i++) {
			b[i] = pin + (size_t)i * len + 3;
			orig[i] = malloc(len);
			if (i < k)
				test_fill(b[i], len);
		}
		delta = pin + (size_t)n * len + 3;
		assert_int_equal(gfec_encode(c, (const uint8_t *const *)b, b + k, len), 0);
		for (int i = 0; i < n; i++)
			memcpy(orig[i], b[i], len);
		for (unsigned mask = 1; mask < 1u << n; mask++) {
			const uint8_t *in[9];
			uint8_t *want[9];

			if (__builtin_popcount(mask) > m)
				continue;
			for (int i = 0; i < n; i++) {
				const int gone = mask >> i & 1;

				in[i] = gone ? NULL : b[i];
				want[i] = gone ? b[i] : NULL;
				if (gone)
					memset(b[i], TEST_POISON, len);
			}
			assert_int_equal(gfec_decode(g, in, want, len), 0);
			for (int i = 0; i < n; i++)
				if (memcmp(b[i], orig[i], len))
					fail_msg("%s: losses %#x: chunk %d differs", modes[mode], mask, i);
		}
		/* data chunk 4 changes: the update on the GPU equals a CPU re-encode */
		test_fill(delta, len);
		for (size_t j = 0; j < len; j++)
			delta[j] ^= b[4][j];
		assert_int_equal(gfec_update(g, 4, delta, b + k, len), 0);
		for (size_t j = 0; j < len; j++)
			b[4][j] ^= delta[j];
		assert_int_equal(gfec_encode(c, (const uint8_t *const *)b, orig + k, len), 0);
		for (int i = 0; i < m; i++)
			assert_memory_equal(b[k + i], orig[k + i], len);
		no_fallback(g);
		for (int i = 0; i < n; i++)
			free(orig[i]);
		cudaFreeHost(pin);
		gfec_codec_free(g);
		gfec_codec_free(c);
	}
}

/* Many callers, pinned and pageable, small and large, on one codec with two lanes. */
struct caller {
	gfec_codec *g;
	struct pool p;
	int pinned, reps, failed;
};

static void *caller_run(void *arg)
{
	struct caller *a = arg;

	for (int r = 0; r < a->reps && !a->failed; r++) {
		for (int i = 0; i < a->p.ns * a->p.m; i++)
			memset(a->p.dst[i], TEST_POISON, a->p.len);
		a->failed = gfec_encode_batch(a->g, a->p.ns, a->p.src, a->p.dst, a->p.len) != 0 ||
			    memcmp(a->p.mem, a->p.want, a->p.bytes) != 0;
	}
	return NULL;
}

/* Caller @p a on codec @p g: @p ns RS(10,4) stripes of @p len bytes, pinned (cudaMallocHost)
 * or pageable, checked against @p c's parity @p reps times. */
static void caller_init(struct caller *a, gfec_codec *g, gfec_codec *c, int pinned, int reps,
			int ns, size_t len)
{
	uint8_t *mem;

	*a = (struct caller){ .g = g, .pinned = pinned, .reps = reps };
	pool_init(&a->p, 10, 4, ns, len);
	if (pinned)
		assert_int_equal(cudaMallocHost((void **)&mem, a->p.bytes), cudaSuccess);
	else
		assert_non_null(mem = malloc(a->p.bytes));
	pool_layout(&a->p, c, mem);
}

/* Runs the @p n callers at once, fails naming the first that got wrong parity (@p what: the
 * setting), and frees them. */
static void callers_run(struct caller *a, int n, const char *what)
{
	pthread_t th[32];

	assert_in_range(n, 1, 32);
	for (int t = 0; t < n; t++)
		assert_int_equal(pthread_create(&th[t], NULL, caller_run, &a[t]), 0);
	for (int t = 0; t < n; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < n; t++) {
		if (a[t].failed)
			fail_msg("%s: caller %d (%s, ns %d, len %zu) got wrong parity", what, t,
				 a[t].pinned ? "pinned" : "pageable", a[t].p.ns, a[t].p.len);
		if (a[t].pinned)
			cudaFreeHost(a[t].p.mem);
		else
			free(a[t].p.mem);
		pool_fini(&a[t].p);
	}
}

static void test_callers(void **state)
{
	enum { T = 12 };
	/* the third: in-place calls past 64 KiB in flight wait for room (every large one does) */
	static const char *const extra[] = { "gpu_pinned=map", "gpu_pinned=dma",
					     "gpu_pinned=map gpu_map_bytes=65536" };

	(void)state;
	for (int mode = 0; mode < 3; mode++) {
		gfec_codec *g = make("k=10 m=4 backend=gpu gpu_lanes=2 %s", extra[mode]);
		gfec_codec *c = make("k=10 m=4 backend=cpu");
		struct caller a[T];

		for (int t = 0; t < T; t++)
			caller_init(&a[t], g, c, t % 2, 6, t % 3 == 0 ? 1 : 1 + 7 * t,
				    t % 3 == 0 ? (1 << 20) + 16 * t : 4096 + 16 * t);
		callers_run(a, T, extra[mode]);
		no_fallback(g);
		gfec_codec_free(g);
		gfec_codec_free(c);
	}
}

/*
 * Launch slots (gpu_coalesce_slots, coalesce.h): 16 callers of one shape on pinned memory, one
 * RS(10,4) stripe a call (4 KiB and 64 KiB chunks, some unaligned), with 1 and 2 slots; then
 * 16 more callers on pageable memory beside them, which slots do not hold. Every byte of every
 * pool equals the CPU's, nothing falls back, and the pinned calls shared launches. Without
 * engines (gpu_resident_pinned=0, whatever the environment says): the slots leave the calls
 * the engines take to them (runs_resident).
 */
static void test_slots(void **state)
{
	enum { T = 16, PAGEABLE = 8 };
	static const size_t lens[] = { 4096, 65536 };

	(void)state;
	for (int slots = 1; slots <= 2; slots++)
		for (size_t l = 0; l < sizeof(lens) / sizeof(*lens); l++) {
			gfec_codec *g = make("k=10 m=4 backend=gpu gpu_coalesce_slots=%d "
					     "gpu_coalesce_slot_min=0 gpu_resident_pinned=0",
					     slots);
			gfec_codec *c = make("k=10 m=4 backend=cpu");
			const int n = T + (l ? PAGEABLE : 0);
			const uint64_t calls = (uint64_t)n * 20;
			struct gfec_coalesce_stats cs;
			struct caller a[T + PAGEABLE];
			char what[32];

			for (int t = 0; t < n; t++)
				caller_init(&a[t], g, c, t < T, 20, 1, lens[l]);
			snprintf(what, sizeof(what), "slots %d", slots);
			callers_run(a, n, what);
			no_fallback(g);
			assert_int_equal(gfec_codec_coalesce_stats(g, &cs), 1);
			assert_int_equal(cs.callers, calls);
			fprintf(stderr, "# slots %d, len %zu: %llu calls (%d pageable callers) in %llu "
					"launches\n", slots, lens[l], (unsigned long long)calls,
				n - T, (unsigned long long)cs.launches);
			assert_true(cs.launches < calls);
			assert_true(cs.windows > 0);
			gfec_codec_free(g);
			gfec_codec_free(c);
		}
}

/*
 * GFEC_FAULT=cuda-kernel: every GEMM kernel launches, then traps on the device. One pinned 1 MiB
 * stripe alone first: its caller polls the word the GPU never writes, so the trap must end a
 * polled wait. Then 18 callers at once of six shapes on the lost context: pinned and pageable
 * stripes of 4 KiB (whose callers would sleep on events), 64 KiB and 1 MiB (would poll). Every
 * call must return the CPU's parity (callers_run) and none may hang (ctest's timeout). Last: the
 * trap loses the process's CUDA context.
 */
static void test_kernel_fault(void **state)
{
	enum { T = 18 };
	static const size_t lens[] = { 4096, 65536, 1 << 20 };
	gfec_codec *g, *c = make("k=10 m=4 backend=cpu");
	struct caller a[1 + T];
	struct gfec_stats st;

	(void)state;
	setenv("GFEC_FAULT", "cuda-kernel", 1);
	g = make("k=10 m=4 backend=gpu");
	unsetenv("GFEC_FAULT");
	/* every pinned pool before the first trap: after it cudaMallocHost fails too */
	caller_init(&a[0], g, c, 1, 1, 1, 1 << 20);
	for (int t = 0; t < T; t++)
		caller_init(&a[1 + t], g, c, t % 2, 3, 1, lens[t / 2 % 3]);
	callers_run(a, 1, "fault=cuda-kernel, one caller");
	callers_run(a + 1, T, "fault=cuda-kernel");
	gfec_codec_stats(g, &st);
	fprintf(stderr, "# fault=cuda-kernel: %llu fallbacks\n", (unsigned long long)st.fallbacks);
	assert_true(st.fallbacks > 0);
	gfec_codec_free(g);
	gfec_codec_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_partly_pinned),
		cmocka_unit_test(test_decode_update),
		cmocka_unit_test(test_callers),
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_kernel_fault), /* last: it loses the CUDA context */
	};

	gfec_codec *probe = NULL;

	if (gfec_codec_create("k=4 m=2 backend=gpu", &probe, NULL, 0)) {
		fprintf(stderr, "# no usable GPU: skipped\n");
		return 77;
	}
	gfec_codec_free(probe);
	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
