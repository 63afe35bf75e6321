/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_gpu_resident_pinned.c
 * The resident engines for pinned host memory (gpu_resident_pinned, cuda_gemm/device/resident.h;
 * issue 17), byte for byte against gfec_cpu_gemm_base:
 *   - random shapes (k 1..16, m 1..8), lengths 1 byte to 1 MiB, misaligned pinned buffers,
 *     poisoned outputs, then new inputs at the same addresses (a kernel that outlives its inputs
 *     must not serve an old copy of host memory); every call of less than 1 MiB of inputs, or
 *     of up to 4 pieces of the stages' size, counted as an engine's, the others as launches,
 *     as runs_resident (the launch slots' question) says;
 *   - the engines gone idle, and past their 4 ms life under a stream of calls;
 *   - work queued on the legacy default stream before a call: not waited for (host memory is
 *     read when the call is made);
 *   - 64 threads on 8 engines (up to 4 requests queued on each), each rewriting its own
 *     stripes between calls;
 *   - a NULL pointer (through a codec), an injected fault (never an engine's);
 *   - encode and decode through a codec with the knob, against the CPU codec, its encode an
 *     engine's when the engines take it;
 *   - chunks in cudaHostAlloc and registered memory read in place, and chunks across or past a
 *     registration's end not;
 *   - pageable chunks copied into stages and served by engines: an encode in pieces that each
 *     fit one, an update when it fits one (else through a lane); pageable callers among the 64,
 *     and which calls the engine's gate must hold (holds_lane), with gpu_pinned=dma too.
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
#include "coalesce.h"	/* gfec_codec_resident_calls() */

static const struct gfec_backend_ops *ops;

/* The engines take calls of fewer input bytes (backend.cu's kResidentPinnedSrc); others launch. */
#define ENGINE_SRC_MAX ((size_t)1 << 20)
/*
 * A staged stripe is read in place, so an engine may take it, when its chunks are cut in byte
 * ranges (pieces) that fit STAGE_BYTES each, padded to PITCH_ALIGN bytes; an update's are one
 * piece (backend.cu's kPitchAlign, kInPlacePiece).
 */
#define PITCH_ALIGN ((size_t)256)
#define STAGE_BYTES ((size_t)1 << 20)

static size_t pitch_of(size_t len)
{
	return (len + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
}

/*
 * How many pieces chunks of @p len bytes, @p cols + @p rows of them, are cut in (backend.cu's
 * pieces_of), and in *step the bytes of each but the last (piece_step).
 */
static size_t pieces_of(int cols, int rows, size_t len, size_t *step)
{
	const size_t most = STAGE_BYTES / (size_t)(cols + rows) / PITCH_ALIGN * PITCH_ALIGN;
	const size_t n = (len + most - 1) / most;

	*step = n > 1 ? pitch_of((len + n - 1) / n) : len;
	return n;
}

/* Whether an engine takes a staged call of @p cols inputs and @p rows outputs, len bytes each. */
static int staged_engine(int cols, int rows, size_t len, int update)
{
	size_t step = len;

	if (!update)
		pieces_of(cols, rows, len, &step);
	return (size_t)cols * step < ENGINE_SRC_MAX &&
	       pitch_of(step) * (size_t)(cols + rows) <= STAGE_BYTES;
}

/*
 * Whether an engine takes a pinned call of @p cols inputs and @p rows outputs, len bytes each:
 * whole under ENGINE_SRC_MAX source bytes, else in at most PINNED_PIECES pieces cut as a staged
 * stripe is (backend.cu's kResidentPieces, pinned_pieces).
 */
#define PINNED_PIECES 4

static int pinned_engine(int cols, int rows, size_t len)
{
	size_t step;
	const size_t n = pieces_of(cols, rows, len, &step);

	return (size_t)cols * len < ENGINE_SRC_MAX ||
	       (n <= PINNED_PIECES && (size_t)cols * step < ENGINE_SRC_MAX);
}

static void *ctx_conf(struct gfec_backend_conf conf)
{
	void *ctx = NULL;

	assert_int_equal(ops->init(&conf, &ctx), 0);
	return ctx;
}

static void *ctx_open(int engines, int fault)
{
	return ctx_conf((struct gfec_backend_conf){ .resident_pinned = engines, .fault = fault });
}

static uint64_t resident_calls(void *ctx)
{
	struct gfec_backend_stats st = { 0 };

	ops->stats(ctx, &st);
	return st.resident;
}

static uint64_t staged_calls(void *ctx)
{
	struct gfec_backend_stats st = { 0 };

	ops->stats(ctx, &st);
	return st.staged;
}

static uint8_t *pinned(size_t n)
{
	uint8_t *p = NULL;

	assert_int_equal(cudaHostAlloc((void **)&p, n, cudaHostAllocMapped), cudaSuccess);
	return p;
}

/* One stripe: k + m chunks of len bytes, pinned (or pageable), each 0..15 bytes off alignment. */
struct stripe {
	int k, m, pageable;
	size_t len;
	uint8_t *base[24], *p[24]; /* inputs then outputs */
	uint8_t *want[8];
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
		s->base[i] = s->pageable ? malloc(len + 16) : pinned(len + 16);
		assert_non_null(s->base[i]);
		s->p[i] = s->base[i] + (misalign ? (size_t)test_range(0, 15) : 0);
	}
	for (int i = 0; i < m; i++) {
		s->want[i] = malloc(len);
		assert_non_null(s->want[i]);
	}
}

static void stripe_close(struct stripe *s, void *ctx)
{
	ops->plan_free(ctx, s->plan);
	for (int i = 0; i < s->k + s->m; i++)
		if (s->pageable)
			free(s->base[i]);
		else
			cudaFreeHost(s->base[i]);
	for (int i = 0; i < s->m; i++)
		free(s->want[i]);
}

/* New inputs, poisoned outputs. */
static void stripe_fill(struct stripe *s)
{
	for (int i = 0; i < s->k; i++)
		test_fill(s->p[i], s->len);
	for (int i = 0; i < s->m; i++)
		memset(s->p[s->k + i], 0xa5, s->len);
}

static void stripe_call(struct stripe *s, void *ctx)
{
	assert_int_equal(ops->gemm(ctx, s->plan, 1, s->len, (const uint8_t *const *)s->p,
				   s->p + s->k),
			 0);
}

/* The outputs against the reference's. */
static void stripe_check(struct stripe *s, const char *what)
{
	gfec_cpu_gemm_base(s->len, s->k, s->m, s->a, (const uint8_t *const *)s->p, s->want);
	for (int i = 0; i < s->m; i++)
		if (memcmp(s->p[s->k + i], s->want[i], s->len))
			fail_msg("%s: k=%d m=%d len=%zu output %d differs from the CPU", what, s->k,
				 s->m, s->len, i);
}

/* New inputs, poisoned outputs, one call, its outputs against the reference's. */
static void stripe_encode(struct stripe *s, void *ctx, const char *what)
{
	stripe_fill(s);
	stripe_call(s, ctx);
	stripe_check(s, what);
}

static void test_shapes(void **state)
{
	void *ctx = ctx_open(4, 0);
	uint64_t n = 0;

	(void)state;
	for (int it = 0; it < 120; it++) {
		struct stripe s = { 0 };
		const int k = test_range(1, 16), m = test_range(1, 8);
		const size_t len = it % 10 == 0   ? (size_t)65536 << test_range(0, 4)
				   : it % 3 == 0 ? (size_t)test_range(1, 64)
						 : (size_t)test_range(1, 300000);

		stripe_open(&s, ctx, k, m, len, it % 2);
		/* what the launch slots ask: whether the engines take it (else it launches) */
		assert_int_equal(ops->runs_resident(ctx, s.plan, 1, len,
						    (const uint8_t *const *)s.p, s.p + k),
				 pinned_engine(k, m, len));
		stripe_encode(&s, ctx, "encode");
		stripe_encode(&s, ctx, "encode again"); /* the same addresses, new bytes */
		n += 2 * (uint64_t)pinned_engine(k, m, len);
		assert_int_equal(resident_calls(ctx), n);
		stripe_close(&s, ctx);
	}
	ops->fini(ctx);
}

/* RS(10,4) 64 KiB on 2 engines: back to back, after each has left (1 ms idle), past its life. */
static void test_lifetime(void **state)
{
	void *ctx = ctx_open(2, 0);
	struct stripe s = { 0 };
	uint64_t n = 0;

	(void)state;
	stripe_open(&s, ctx, 10, 4, 65536, 0);
	for (int i = 0; i < 20; i++, n++)
		stripe_encode(&s, ctx, "back to back");
	for (int i = 0; i < 5; i++, n++) {
		test_sleep_us(3000);
		stripe_encode(&s, ctx, "after idle");
	}
	for (const double t0 = test_now_s(); test_now_s() - t0 < 0.03; n++)
		stripe_encode(&s, ctx, "long run");
	assert_int_equal(resident_calls(ctx), n);
	stripe_close(&s, ctx);
	ops->fini(ctx);
}

/*
 * Work queued on the legacy default stream: host memory is read when the call is made, so the
 * engines serve the calls (none is launched behind the memsets). When they return is the GPU's
 * choice: an engine's kernel that had left may start only once the memsets' blocks drain.
 */
static void test_legacy_stream(void **state)
{
	void *ctx = ctx_open(2, 0);
	struct stripe s = { 0 };
	const size_t big = (size_t)4 << 30;
	uint8_t *junk;

	(void)state;
	assert_int_equal(cudaMalloc((void **)&junk, big), cudaSuccess);
	stripe_open(&s, ctx, 10, 4, 65536, 0);
	stripe_encode(&s, ctx, "first"); /* an engine runs now */
	assert_int_equal(resident_calls(ctx), 1);
	for (int i = 0; i < 5; i++) {
		stripe_fill(&s);
		assert_int_equal(cudaMemsetAsync(junk, i, big, 0), cudaSuccess);
		stripe_call(&s, ctx);
		stripe_check(&s, "beside the legacy stream");
	}
	assert_int_equal(resident_calls(ctx), 6);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	stripe_close(&s, ctx);
	cudaFree(junk);
	ops->fini(ctx);
}

/*
 * RS(6,3) 16 KiB stripes with chunks at random places in one pinned allocation: with @p mapped,
 * the chunks must be found mapped and read in place; else the call is staged. An engine serves
 * it either way. Outputs against the CPU.
 */
static void encode_in(void *ctx, uint8_t *mem, size_t bytes, const uint8_t *const *fixed,
		      int mapped)
{
	struct stripe s = { .k = 6, .m = 3, .len = 16384 };
	struct gfec_gemm_matrix gm = { .w = 8, .rows = s.m, .cols = s.k, .a = s.a };
	const uint64_t n0 = resident_calls(ctx), s0 = staged_calls(ctx);

	test_fill(s.a, (size_t)s.k * s.m);
	assert_int_equal(ops->plan_create(ctx, &gm, &s.plan), 0);
	for (int i = 0; i < s.k + s.m; i++) {
		/* disjoint slots of len + 16 bytes, each chunk 0..15 bytes into its own */
		s.p[i] = fixed && fixed[i] ? (uint8_t *)fixed[i]
					   : mem + (size_t)i * (s.len + 16) + (size_t)test_range(0, 15);
		assert_true(fixed || (size_t)(s.p[i] - mem) + s.len <= bytes);
	}
	for (int i = 0; i < s.m; i++) {
		s.want[i] = malloc(s.len);
		assert_non_null(s.want[i]);
	}
	stripe_encode(&s, ctx, "chunks placed");
	for (int i = 0; i < s.m; i++)
		free(s.want[i]);
	assert_int_equal(resident_calls(ctx), n0 + 1);
	assert_int_equal(staged_calls(ctx), s0 + (mapped ? 0 : 1));
	ops->plan_free(ctx, s.plan);
}

/*
 * Where pinned chunks live (backend.cu's in_pinned: one driver query per allocation): in one
 * cudaHostAlloc block, in registered malloc memory (page-aligned or not), across the boundary of
 * two registrations or past the end of one (not read in place), and after a registration is
 * replaced by a smaller one.
 */
static void test_where_pinned(void **state)
{
	void *ctx = ctx_open(2, 0);
	const size_t page = 4096, bytes = 64 * page;
	uint8_t *block = pinned(bytes), *heap = NULL;

	(void)state;
	encode_in(ctx, block, bytes, NULL, 1);
	assert_int_equal(posix_memalign((void **)&heap, page, 2 * bytes), 0);
	assert_int_equal(cudaHostRegister(heap, bytes, cudaHostRegisterDefault), cudaSuccess);
	encode_in(ctx, heap, bytes, NULL, 1);
	/* a second registration right behind the first; one chunk spans the boundary */
	assert_int_equal(cudaHostRegister(heap + bytes, bytes, cudaHostRegisterDefault),
			 cudaSuccess);
	encode_in(ctx, heap + bytes, bytes, NULL, 1);
	const uint8_t *across[9] = { heap + bytes - 100 };

	for (int i = 1; i < 9; i++)
		across[i] = heap + bytes + 8192 + (size_t)i * 20000;
	encode_in(ctx, NULL, 0, across, 0);
	/* the second registration gone: a chunk running from the first past its end */
	cudaHostUnregister(heap + bytes);
	for (int i = 1; i < 9; i++)
		across[i] = heap + (size_t)i * 20000;
	encode_in(ctx, NULL, 0, across, 0);
	/* the first replaced by a shorter one, 5 bytes past a page boundary */
	const size_t part = bytes / 2 + 5 * page;

	cudaHostUnregister(heap);
	assert_int_equal(cudaHostRegister(heap + 5, part, cudaHostRegisterDefault), cudaSuccess);
	encode_in(ctx, heap + 5, part, NULL, 1);
	for (int i = 0; i < 8; i++)
		across[i] = heap + 5 + (size_t)i * 16400;
	across[8] = heap + 5 + part - 100; /* an output past the new end */
	encode_in(ctx, NULL, 0, across, 0);
	cudaHostUnregister(heap + 5);
	free(heap);
	cudaFreeHost(block);
	ops->fini(ctx);
}

struct caller {
	void *ctx, *plan;
	const uint8_t *a;
	uint8_t *p[14], *want[4];
	size_t len;
	uint64_t rng;
	int bad;
};

static void *caller_run(void *arg)
{
	struct caller *c = arg;

	for (int it = 0; it < 40 && !c->bad; it++) {
		for (int j = 0; j < 10; j++)
			for (size_t b = 0; b < c->len; b++) {
				c->rng ^= c->rng << 13, c->rng ^= c->rng >> 7, c->rng ^= c->rng << 17;
				c->p[j][b] = (uint8_t)c->rng;
			}
		for (int i = 0; i < 4; i++)
			memset(c->p[10 + i], 0xa5, c->len);
		if (ops->gemm(c->ctx, c->plan, 1, c->len, (const uint8_t *const *)c->p, c->p + 10)) {
			c->bad = 1;
			break;
		}
		gfec_cpu_gemm_base(c->len, 10, 4, c->a, (const uint8_t *const *)c->p, c->want);
		for (int i = 0; i < 4; i++)
			c->bad |= memcmp(c->p[10 + i], c->want[i], c->len) != 0;
	}
	return NULL;
}

static void test_callers(void **state)
{
	enum { T = 64 };
	void *ctx = ctx_open(8, 0);
	struct stripe s = { 0 };
	struct caller c[T];
	pthread_t th[T];

	(void)state;
	stripe_open(&s, ctx, 10, 4, 16, 0); /* its plan and matrix; the callers' own buffers */
	for (int t = 0; t < T; t++) {
		/* one in 4 pageable, staged for the engines: 64 KiB, or 300000 bytes (5 pieces) */
		const int paged = t % 4 == 1;
		const size_t len = t % 8 == 5 ? 300000 : t % 4 ? 65536 : (size_t)test_range(1, 100000);

		c[t] = (struct caller){ .ctx = ctx, .plan = s.plan, .a = s.a, .rng = test_rand() | 1,
					.len = len };
		for (int i = 0; i < 14; i++)
			c[t].p[i] = paged ? malloc(c[t].len) : pinned(c[t].len);
		for (int i = 0; i < 4; i++)
			c[t].want[i] = malloc(c[t].len);
	}
	for (int t = 0; t < T; t++)
		assert_int_equal(pthread_create(&th[t], NULL, caller_run, &c[t]), 0);
	for (int t = 0; t < T; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < T; t++) {
		assert_int_equal(c[t].bad, 0);
		for (int i = 0; i < 14; i++)
			if (t % 4 == 1)
				free(c[t].p[i]);
			else
				cudaFreeHost(c[t].p[i]);
		for (int i = 0; i < 4; i++)
			free(c[t].want[i]);
	}
	/* a 300000-byte stripe takes stages only while more staged calls than lanes (8) are in
	 * flight, else a lane */
	assert_in_range(resident_calls(ctx), (T - T / 8) * 40, T * 40);
	assert_int_equal(staged_calls(ctx), T / 4 * 40);
	stripe_close(&s, ctx);
	ops->fini(ctx);
}

/*
 * Pageable stripes (misaligned, random shapes and lengths), staged: an engine takes the encode,
 * and the update of one column, when staged_engine() says so (an encode in as many pieces as it
 * takes, up to 7 here: 4 at once, on stages reused in turn; stage_calls = 1, so that a lone
 * caller's stripe of several pieces takes them); a launch the rest. Outputs against the CPU
 * reference.
 */
static void test_staged(void **state)
{
	void *ctx = ctx_conf((struct gfec_backend_conf){ .resident_pinned = 4, .stage_calls = 1 });
	uint64_t res = 0, staged = 0;

	(void)state;
	for (int it = 0; it < 80; it++) {
		struct stripe s = { .pageable = 1 };
		const int k = test_range(1, 16), m = test_range(1, 8), col = test_range(0, k - 1);
		const size_t len = it % 4 == 0 ? (size_t)test_range(1, 64)
				   : it % 4 == 1 ? (size_t)65536
						 : (size_t)test_range(1, 300000);
		const int engine = staged_engine(k, m, len, 0);
		size_t done = 0;

		stripe_open(&s, ctx, k, m, len, 1);
		/* the engine's gate lets a call pass when it holds no lane: the engines' ones */
		assert_int_equal(ops->holds_lane(ctx, s.plan, 1, len, (const uint8_t *const *)s.p,
						 s.p + k),
				 !engine);
		stripe_encode(&s, ctx, "staged encode");
		res += engine;
		/* update: parity ^= A(:, col) * delta, the delta in the first chunk's buffer */
		test_fill(s.p[0], len);
		gfec_cpu_update_base(len, k, m, col, s.a, s.p[0], s.want);
		assert_int_equal(ops->update(ctx, s.plan, col, len, s.p[0], s.p + k, &done), 0);
		assert_int_equal(done, len);
		for (int i = 0; i < m; i++)
			if (memcmp(s.p[k + i], s.want[i], len))
				fail_msg("staged update: k=%d m=%d col=%d len=%zu output %d differs", k,
					 m, col, len, i);
		res += staged_engine(1, m, len, 1);
		staged += 2;
		assert_int_equal(resident_calls(ctx), res);
		assert_int_equal(staged_calls(ctx), staged);
		stripe_close(&s, ctx);
	}
	assert_true(res > 0);
	ops->fini(ctx);
}

/*
 * Which calls hold a lane: staged ones without engines, of several stripes, or with
 * gpu_pinned=dma (every host call through the copy engines, pinned ones too), and a long one (of
 * several pieces) from fewer callers than lanes; none in place. Contexts: 2 engines, none, 2
 * engines with gpu_pinned=dma, 2 engines taking long stripes from one caller (stage_calls).
 */
static void test_holds_lane(void **state)
{
	void *ctxs[4] = {
		ctx_open(2, 0), ctx_open(0, 0),
		ctx_conf((struct gfec_backend_conf){ .resident_pinned = 2, .pinned_dma = 1 }),
		ctx_conf((struct gfec_backend_conf){ .resident_pinned = 2, .stage_calls = 1 }),
	};
	struct stripe h = { .pageable = 1 }, p = { 0 }, big = { .pageable = 1 };
	const uint8_t *const *src[3] = { (const uint8_t *const *)h.p, (const uint8_t *const *)p.p,
					 (const uint8_t *const *)big.p };

	(void)state;
	for (int i = 0; i < 4; i++) {
		void *ctx = ctxs[i];
		const int engines = i == 0 || i == 3;

		stripe_open(&h, ctx, 10, 4, 65536, 0);
		stripe_open(&p, ctx, 10, 4, 65536, 0);
		stripe_open(&big, ctx, 10, 4, (size_t)1 << 20, 0);
		assert_int_equal(ops->holds_lane(ctx, h.plan, 1, h.len, src[0], h.p + 10),
				 !engines);
		assert_int_equal(ops->holds_lane(ctx, p.plan, 1, p.len, src[1], p.p + 10), i == 2);
		/* 15 pieces: a lane for a lone caller, but with stage_calls = 1 */
		assert_int_equal(ops->holds_lane(ctx, big.plan, 1, big.len, src[2], big.p + 10),
				 i != 3);
		/* two stripes: staged as one piece through a lane */
		assert_int_equal(ops->holds_lane(ctx, h.plan, 2, 16, src[0], h.p + 10), 1);
		/* what it said: a call through a stage or a lane counts as staged, an engine's as
		 * resident either way */
		const uint64_t r0 = resident_calls(ctx), s0 = staged_calls(ctx);

		stripe_encode(&h, ctx, "holds_lane, pageable");
		stripe_encode(&p, ctx, "holds_lane, pinned");
		stripe_encode(&big, ctx, "holds_lane, pageable, long");
		assert_int_equal(resident_calls(ctx) - r0, 2 * engines + (i == 3));
		assert_int_equal(staged_calls(ctx) - s0, 2 + (i == 2));
		stripe_close(&h, ctx);
		stripe_close(&p, ctx);
		stripe_close(&big, ctx);
		ops->fini(ctx);
	}
}

static void test_bad_calls(void **state)
{
	void *faulty = ctx_open(2, 1);
	gfec_codec *g = make("k=10 m=4 backend=gpu gpu_resident_pinned=2");
	struct stripe f = { 0 };
	uint8_t *keep;

	(void)state;
	/* a NULL pointer: the codec's error, and the next call served */
	stripe_open(&f, faulty, 10, 4, 65536, 0);
	keep = f.p[3];
	f.p[3] = NULL;
	assert_int_equal(gfec_encode(g, (const uint8_t *const *)f.p, f.p + 10, f.len),
			 GFEC_E_INVAL);
	f.p[3] = keep;
	assert_int_equal(gfec_encode(g, (const uint8_t *const *)f.p, f.p + 10, f.len), 0);
	assert_int_equal(gfec_codec_resident_calls(g), 1);
	/* an injected CUDA error: an error for the caller to redo on the CPU, never an engine's */
	assert_int_equal(ops->gemm(faulty, f.plan, 1, f.len, (const uint8_t *const *)f.p,
				   f.p + 10),
			 GFEC_E_DEVICE);
	assert_int_equal(resident_calls(faulty), 0);
	stripe_close(&f, faulty);
	ops->fini(faulty);
	gfec_codec_free(g);
}

/* Encode, and decode of up to m erasures, through codecs on pinned buffers. */
static void test_codec(void **state)
{
	(void)state;
	for (int it = 0; it < 30; it++) {
		const int k = test_range(2, 12), m = test_range(1, k < 4 ? k : 4), n = k + m;
		const size_t len = (size_t)test_range(1, 200000);
		gfec_codec *g = make("k=%d m=%d backend=gpu gpu_resident_pinned=3", k, m);
		gfec_codec *c = make("k=%d m=%d backend=cpu", k, m);
		uint8_t *h[16], *p[16], *out[16] = { 0 };
		const uint8_t *avail[16];
		struct gfec_stats st;

		for (int i = 0; i < n; i++) {
			h[i] = malloc(len);
			p[i] = pinned(len);
			test_fill(h[i], len);
			memcpy(p[i], h[i], len);
		}
		assert_int_equal(gfec_encode(g, (const uint8_t *const *)p, p + k, len), 0);
		assert_int_equal(gfec_codec_resident_calls(g), pinned_engine(k, m, len));
		assert_int_equal(gfec_encode(c, (const uint8_t *const *)h, h + k, len), 0);
		for (int i = k; i < n; i++)
			assert_memory_equal(p[i], h[i], len);
		for (int x = test_range(1, m); x > 0; x--) {
			const int i = test_range(0, n - 1);

			if (!out[i])
				out[i] = pinned(len);
			memset(out[i], 0xa5, len);
		}
		for (int i = 0; i < n; i++)
			avail[i] = out[i] ? NULL : p[i];
		assert_int_equal(gfec_decode(g, avail, out, len), 0);
		for (int i = 0; i < n; i++)
			if (out[i])
				assert_memory_equal(out[i], h[i], len);
		gfec_codec_stats(g, &st);
		assert_int_equal(st.fallbacks, 0);
		for (int i = 0; i < n; i++) {
			free(h[i]);
			cudaFreeHost(p[i]);
			cudaFreeHost(out[i]);
		}
		gfec_codec_free(g);
		gfec_codec_free(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),	      cmocka_unit_test(test_lifetime),
		cmocka_unit_test(test_legacy_stream), cmocka_unit_test(test_callers),
		cmocka_unit_test(test_bad_calls),     cmocka_unit_test(test_codec),
		cmocka_unit_test(test_where_pinned),  cmocka_unit_test(test_staged),
		cmocka_unit_test(test_holds_lane),
	};
	void *ctx = NULL;

	ops = gfec_gpu_backend();
	if (!ops || ops->init(NULL, &ctx)) {
		fprintf(stderr, "# no usable GPU: skipped\n");
		return 77;
	}
	ops->fini(ctx);
	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
