/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU kernel of weight enumeration: see weights_cpu.h. Rows i are dealt to tasks in blocks,
 * folded (task s takes blocks s and 2T-1-s of every 2T) so that the triangle of pairs j > i
 * splits evenly. A task counts into a small histogram hist[gv][copy][a] for the weight group of
 * its current u and adds it to the shared result when u's group changes: a handful of atomic
 * adds per group instead of one per pair.
 */
#include "weights_cpu.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "gfec/gfec_errors.h"

enum { WT_BLOCK = 32 };

/* h[a]++ for each v in cw[from, to), a = |u AND v| */
typedef void (*wt_count_fn)(const uint64_t *u, const uint64_t *cw, size_t from, size_t to,
			    int words, uint64_t *h);

struct wt_job {
	const uint64_t *cw;
	int words, n, ng, tasks;
	const int *gw;
	const size_t *gs;
	uint64_t *jh;
	uint64_t *hist; /* tasks x ng x (n+1) */
	wt_count_fn count;
	void (*tick)(void *arg, uint64_t pairs);
	void *arg;
};

static void wt_flush(const struct wt_job *jb, uint64_t *hist, int gu)
{
	size_t s = (size_t)jb->n + 1;
	for (int gv = gu; gv < jb->ng; gv++) {
		uint64_t *h = hist + (size_t)gv * s;
		for (int a = 0; a <= jb->gw[gu] && a <= jb->gw[gv]; a++) {
			if (!h[a])
				continue;
			size_t at = ((size_t)a * s + (size_t)(jb->gw[gu] - a)) * s + (size_t)(jb->gw[gv] - a);
			__atomic_fetch_add(&jb->jh[at], h[a], __ATOMIC_RELAXED);
			h[a] = 0;
		}
	}
}

/*
 * One codeword v at a time; W words per codeword (0: any). Built twice: with the POPCNT
 * instruction (picked when the CPU has it) and portable (libgcc's).
 */
#define WT_COUNT(W, NAME, ATTR)                                                                  \
	ATTR static void NAME(const uint64_t *u, const uint64_t *cw, size_t from, size_t to,     \
			      int words, uint64_t *h)                                            \
	{                                                                                        \
		const int nw = (W) ? (W) : words;                                                \
		for (size_t j = from; j < to; j++) {                                             \
			const uint64_t *v = cw + j * (size_t)nw;                                 \
			int a = 0;                                                               \
			for (int x = 0; x < nw; x++)                                             \
				a += __builtin_popcountll(u[x] & v[x]);                          \
			h[a]++;                                                                  \
		}                                                                                \
	}
#define WT_POPCNT __attribute__((target("popcnt")))
WT_COUNT(1, wt_count_1p, WT_POPCNT)
WT_COUNT(2, wt_count_2p, WT_POPCNT)
WT_COUNT(3, wt_count_3p, WT_POPCNT)
WT_COUNT(4, wt_count_4p, WT_POPCNT)
WT_COUNT(0, wt_count_0p, WT_POPCNT)
WT_COUNT(1, wt_count_1, )
WT_COUNT(2, wt_count_2, )
WT_COUNT(3, wt_count_3, )
WT_COUNT(4, wt_count_4, )
WT_COUNT(0, wt_count_0, )

/*
 * AVX-512 VPOPCNTQ: 8 / W codewords of W words per 512-bit load, u repeated across the register,
 * the W lane counts of each codeword summed by in-register shuffles; the counts land in lanes
 * 0, W, 2W... The tail (fewer than 8 / W codewords) goes one at a time.
 */
#define WT_AVX512 __attribute__((target("avx512f,avx512vpopcntdq,popcnt")))
#define WT_COUNT512(W, NAME, BCAST, FOLD)                                                        \
	WT_AVX512 static void NAME(const uint64_t *u, const uint64_t *cw, size_t from, size_t to, \
				   int words, uint64_t *h)                                       \
	{                                                                                        \
		const __m512i ub = BCAST;                                                        \
		uint64_t c[8];                                                                   \
		size_t j = from;                                                                 \
		(void)words;                                                                     \
		for (; j + 8 / (W) <= to; j += 8 / (W)) {                                        \
			__m512i p = _mm512_popcnt_epi64(                                         \
			    _mm512_and_si512(ub, _mm512_loadu_si512(cw + j * (W))));             \
			FOLD;                                                                    \
			_mm512_storeu_si512(c, p);                                               \
			for (int x = 0; x < 8 / (W); x++)                                        \
				h[c[x * (W)]]++;                                                 \
		}                                                                                \
		for (; j < to; j++) {                                                            \
			int a = 0;                                                               \
			for (int x = 0; x < (W); x++)                                            \
				a += __builtin_popcountll(u[x] & cw[j * (W) + (size_t)x]);       \
			h[a]++;                                                                  \
		}                                                                                \
	}
WT_COUNT512(1, wt_count_1v, _mm512_set1_epi64((long long)u[0]), (void)0)
WT_COUNT512(2, wt_count_2v,
	    _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)u)),
	    p = _mm512_add_epi64(p, _mm512_shuffle_epi32(p, _MM_PERM_BADC)))
WT_COUNT512(4, wt_count_4v,
	    _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)u)),
	    p = _mm512_add_epi64(p, _mm512_shuffle_epi32(p, _MM_PERM_BADC));
	    p = _mm512_add_epi64(p, _mm512_permutex_epi64(p, 0x4E)))

int gfec_cpu_wt_have_vpopcntq(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
}

/* The kernel for @p words and @p kernel; NULL when this CPU cannot run it. */
static wt_count_fn wt_pick(int words, enum gfec_cpu_wt_kernel kernel)
{
	static const wt_count_fn hw[5] = {wt_count_0p, wt_count_1p, wt_count_2p, wt_count_3p,
					  wt_count_4p};
	static const wt_count_fn sw[5] = {wt_count_0, wt_count_1, wt_count_2, wt_count_3,
					  wt_count_4};
	/* three words go one codeword at a time: 512 bits hold no whole number of them */
	static const wt_count_fn vec[5] = {NULL, wt_count_1v, wt_count_2v, wt_count_3p,
					   wt_count_4v};
	int i = words <= 4 ? words : 0;
	int vpop = gfec_cpu_wt_have_vpopcntq();

	if (kernel == GFEC_CPU_WT_VPOPCNTQ || (kernel == GFEC_CPU_WT_BEST && vpop && vec[i]))
		return vpop ? vec[i] ? vec[i] : hw[i] : NULL;
	return __builtin_cpu_supports("popcnt") ? hw[i] : sw[i];
}

static void wt_task(void *arg, size_t task)
{
	const struct wt_job *jb = arg;
	size_t s = (size_t)jb->n + 1, count = jb->gs[jb->ng];
	uint64_t *hist = jb->hist + task * (size_t)jb->ng * s;
	size_t period = 2 * (size_t)jb->tasks;
	int gu = 0, words = jb->words;
	for (size_t q = 0; q * WT_BLOCK < count; q++) {
		size_t f = q % period;
		if (f != task && f != period - 1 - task)
			continue;
		size_t end = (q + 1) * WT_BLOCK < count ? (q + 1) * WT_BLOCK : count;
		uint64_t pairs = 0;
		for (size_t i = q * WT_BLOCK; i < end; i++) {
			if (i >= jb->gs[gu + 1]) {
				wt_flush(jb, hist, gu);
				while (i >= jb->gs[gu + 1])
					gu++;
			}
			const uint64_t *u = jb->cw + i * (size_t)words;
			for (int gv = gu; gv < jb->ng; gv++) {
				size_t from = jb->gs[gv] > i + 1 ? jb->gs[gv] : i + 1;
				size_t to = jb->gs[gv + 1];
				if (from >= to)
					continue;
				jb->count(u, jb->cw, from, to, words, hist + (size_t)gv * s);
			}
			pairs += count - 1 - i;
		}
		if (jb->tick)
			jb->tick(jb->arg, pairs);
	}
	wt_flush(jb, hist, gu);
}

int gfec_cpu_weights_pairs(struct gfec_cpu_pool *pool, const uint64_t *cw, int words, int n,
			   const int *gw, const size_t *gs, int ng, enum gfec_cpu_wt_kernel kernel,
			   void (*tick)(void *arg, uint64_t pairs), void *arg, uint64_t *jh)
{
	int tasks = gfec_cpu_pool_threads(pool);
	struct wt_job jb = {.cw = cw, .words = words, .n = n, .ng = ng, .tasks = tasks,
			    .gw = gw, .gs = gs, .jh = jh, .count = wt_pick(words, kernel),
			    .tick = tick, .arg = arg};
	if (!jb.count)
		return GFEC_E_NOTSUP;
	jb.hist = calloc((size_t)tasks * (size_t)ng * ((size_t)n + 1), sizeof(uint64_t));
	if (!jb.hist)
		return GFEC_E_NOMEM;
	gfec_cpu_pool_run(pool, (size_t)tasks, wt_task, &jb);
	free(jb.hist);
	return 0;
}
