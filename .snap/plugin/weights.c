/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gfec_weights.h: checks and packs the generator, finds its rank and whether the all-ones word
 * is in the code (gfmatrix/weights.c), lists the codewords of C (or of a complement C') sorted
 * by weight, counts every pair once on the GPU kernel (cuda_gemm/device/weights.cu) or the CPU
 * kernel (cpu_backend/weights_cpu.c), then unfolds the symmetry and the all-ones reduction into J.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gf8.h"
#include "gfec/gfec_weights.h"
#include "internal.h"
#include "matrix.h"
#include "threadpool.h"
#include "weights.h"
#include "weights_cpu.h"
#ifdef GFEC_HAVE_CUDA
#include "gfec_gpu_weights.h"
#endif

/* AUTO tries the GPU from 2^this codewords on: below, a CUDA context costs more than it saves. */
enum { WT_GPU_MIN_LOG2 = 16 };

/* Packs and checks @p gen; *out: rows x words, calloc'ed. */
static int wt_pack(const uint8_t *gen, int rows, int n, uint64_t **out)
{
	if (!gen || rows < 1 || n < 1 || n > GFEC_WEIGHTS_MAX_N)
		return GFEC_E_INVAL;
	int words = gfec_wt_words(n);
	uint64_t *m = calloc((size_t)rows * words, sizeof(uint64_t));
	if (!m)
		return GFEC_E_NOMEM;
	for (int r = 0; r < rows; r++)
		for (int j = 0; j < n; j++) {
			uint8_t b = gen[(size_t)r * n + j];
			if (b > 1) {
				free(m);
				return GFEC_E_INVAL;
			}
			m[(size_t)r * words + j / 64] |= (uint64_t)b << (j % 64);
		}
	*out = m;
	return 0;
}

int gfec_weights_rank(const uint8_t *gen, int rows, int n)
{
	uint64_t *m;
	int rc = wt_pack(gen, rows, n, &m);
	if (rc)
		return rc;
	rc = gfec_wt_rref(m, rows, gfec_wt_words(n));
	free(m);
	return rc;
}

void gfec_weights_free(struct gfec_weights *w)
{
	if (!w)
		return;
	free(w->A);
	free(w->J);
	memset(w, 0, sizeof(*w));
}

/* Progress: the kernels' ticks summed, passed on to the caller's callback at most every
 * WT_PROGRESS_NS, by one thread at a time. */
#define WT_PROGRESS_NS 100000000ull
struct wt_progress {
	gfec_weights_progress_fn fn;
	void *arg;
	uint64_t total;
	atomic_uint_fast64_t done, last_ns;
	atomic_flag busy;
};

static uint64_t wt_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void wt_tick(void *arg, uint64_t pairs)
{
	struct wt_progress *p = arg;
	uint64_t done = atomic_fetch_add(&p->done, pairs) + pairs, now = wt_now_ns();
	uint_fast64_t last = atomic_load(&p->last_ns);
	if (now - last < WT_PROGRESS_NS || !atomic_compare_exchange_strong(&p->last_ns, &last, now))
		return;
	if (atomic_flag_test_and_set(&p->busy))
		return;
	p->fn(p->arg, done < p->total ? done : p->total, p->total);
	atomic_flag_clear(&p->busy);
}

/*
 * The pair histogram: on the GPU when @p gpu (and this build has one), else, or after any
 * device error (the GPU's partial counts are dropped), on the CPU pool: identical counts.
 */
static int wt_pairs(struct gfec_cpu_pool *pool, int gpu, unsigned flags, const uint64_t *cw,
		    int words, int n, const int *gw, const size_t *gs, int ng,
		    struct wt_progress *prog, uint64_t *jp)
{
	void (*tick)(void *, uint64_t) = prog ? wt_tick : NULL;
#ifdef GFEC_HAVE_CUDA
	if (gpu) {
		if (!gfec_gpu_weights_pairs(cw, words, n, gw, gs, ng, tick, prog, jp))
			return 0;
		size_t s = (size_t)n + 1;
		memset(jp, 0, s * s * s * sizeof(uint64_t));
		if (prog)
			atomic_store(&prog->done, 0);
	}
#else
	(void)gpu;
#endif
	return gfec_cpu_weights_pairs(pool, cw, words, n, gw, gs, ng,
				      flags & GFEC_WEIGHTS_POPCNT ? GFEC_CPU_WT_POPCNT
								  : GFEC_CPU_WT_BEST,
				      tick, prog, jp);
}

/* J' and A' of the code spanned by the k rows of @p m (jp zeroed on entry). */
static int wt_count(struct gfec_cpu_pool *pool, int gpu, unsigned flags, const uint64_t *m, int k,
		    int n, struct wt_progress *prog, uint64_t *ap, uint64_t *jp)
{
	int words = gfec_wt_words(n), ng = 0;
	size_t count = (size_t)1 << k;
	uint64_t *cw = malloc(count * (size_t)words * sizeof(uint64_t));
	int *gw = malloc(((size_t)words * 64 + 2) * sizeof(int));
	size_t *gs = malloc(((size_t)words * 64 + 2) * sizeof(size_t));
	int rc = GFEC_E_NOMEM;
	if (cw && gw && gs)
		rc = gfec_wt_codewords(m, k, words, cw, gw, gs, &ng);
	if (!rc) {
		for (int g = 0; g < ng; g++)
			ap[gw[g]] = gs[g + 1] - gs[g];
		if (prog)
			prog->total = (uint64_t)count * (count - 1) / 2;
		rc = wt_pairs(pool, gpu, flags, cw, words, n, gw, gs, ng, prog, jp);
	}
	if (!rc && prog) /* the kernels' ticks add up to the total */
		prog->fn(prog->arg, atomic_load(&prog->done), prog->total);
	if (!rc)
		gfec_wt_symmetrize(jp, ap, n);
	free(cw);
	free(gw);
	free(gs);
	return rc;
}

int gfec_weights_enumerate(const uint8_t *gen, int rows, int n,
			   enum gfec_weights_backend backend, int threads, unsigned flags,
			   struct gfec_weights *out)
{
	return gfec_weights_enumerate_progress(gen, rows, n, backend, threads, flags, NULL, NULL,
					       out);
}

int gfec_weights_enumerate_progress(const uint8_t *gen, int rows, int n,
				    enum gfec_weights_backend backend, int threads, unsigned flags,
				    gfec_weights_progress_fn progress, void *arg,
				    struct gfec_weights *out)
{
	if (!out || threads < 0 ||
	    (flags & ~(unsigned)(GFEC_WEIGHTS_NO_ONES | GFEC_WEIGHTS_POPCNT)))
		return GFEC_E_INVAL;
	if (backend != GFEC_WEIGHTS_AUTO && backend != GFEC_WEIGHTS_CPU &&
	    backend != GFEC_WEIGHTS_GPU)
		return GFEC_E_INVAL;
	uint64_t *m;
	int rc = wt_pack(gen, rows, n, &m);
	if (rc)
		return rc;
	int k = gfec_wt_rref(m, rows, gfec_wt_words(n));
	if (k > GFEC_WEIGHTS_MAX_K) {
		free(m);
		return GFEC_E_NOTSUP;
	}
#ifndef GFEC_HAVE_CUDA
	if (backend == GFEC_WEIGHTS_GPU) {
		free(m);
		return GFEC_E_NOBACKEND;
	}
#endif
	int ones = !(flags & GFEC_WEIGHTS_NO_ONES) && gfec_wt_ones_last(m, k, n);
	size_t s = (size_t)n + 1;
	uint64_t *a = calloc(s, sizeof(uint64_t)), *j = calloc(s * s * s, sizeof(uint64_t));
	uint64_t *ap = ones ? calloc(s, sizeof(uint64_t)) : a;
	uint64_t *jp = ones ? calloc(s * s * s, sizeof(uint64_t)) : j;
	struct gfec_cpu_pool *pool = NULL;
	struct wt_progress prog = {.fn = progress, .arg = arg, .busy = ATOMIC_FLAG_INIT};
	if (!a || !j || !ap || !jp)
		rc = GFEC_E_NOMEM;
	if (!rc) {
		if (threads == 0) {
			long c = sysconf(_SC_NPROCESSORS_ONLN);
			threads = c > 0 && c < 1024 ? (int)c : 1;
		}
		rc = gfec_cpu_pool_create(threads, &pool);
	}
	if (!rc) {
		int kc = ones ? k - 1 : k;
		int gpu = backend == GFEC_WEIGHTS_GPU ||
			  (backend == GFEC_WEIGHTS_AUTO && kc >= WT_GPU_MIN_LOG2);
		atomic_init(&prog.done, 0);
		atomic_init(&prog.last_ns, wt_now_ns());
		rc = wt_count(pool, gpu, flags, m, kc, n, progress ? &prog : NULL, ap, jp);
	}
	if (!rc && ones) {
		gfec_wt_unfold_ones(jp, n, j);
		for (size_t w = 0; w < s; w++)
			a[w] = ap[w] + ap[s - 1 - w];
	}
	gfec_cpu_pool_destroy(pool);
	if (ones) {
		free(ap);
		free(jp);
	}
	free(m);
	if (rc) {
		free(a);
		free(j);
		return rc;
	}
	*out = (struct gfec_weights){.n = n, .k = k, .has_ones = ones, .A = a, .J = j};
	return 0;
}

int gfec_weights_bch(int n, int k, uint8_t *gen, int *delta)
{
	if (!delta)
		return GFEC_E_INVAL;
	int d, rc = gfec_wt_bch(n, k, NULL, &d);
	if (rc || !gen) {
		if (!rc)
			*delta = d;
		return rc;
	}
	int words = gfec_wt_words(n);
	uint64_t *m = malloc((size_t)k * words * sizeof(uint64_t));
	if (!m)
		return GFEC_E_NOMEM;
	gfec_wt_bch(n, k, m, &d);
	for (int r = 0; r < k; r++)
		for (int j = 0; j < n; j++)
			gen[(size_t)r * n + j] = (uint8_t)(m[(size_t)r * words + j / 64] >> (j % 64) & 1);
	free(m);
	*delta = d;
	return 0;
}

int gfec_weights_subcode(uint8_t *gen, int rows, int n, int t)
{
	uint64_t *m;
	int rc = wt_pack(gen, rows, n, &m);
	if (rc)
		return rc;
	int words = gfec_wt_words(n);
	int k = gfec_wt_rref(m, rows, words);
	if (t < 1 || t > k) {
		free(m);
		return GFEC_E_INVAL;
	}
	if (gfec_wt_ones_last(m, k, n)) /* row k-1 is now all-ones: it becomes row t-1 */
		memcpy(m + (size_t)(t - 1) * words, m + (size_t)(k - 1) * words,
		       (size_t)words * sizeof(uint64_t));
	for (int r = 0; r < t; r++)
		for (int j = 0; j < n; j++)
			gen[(size_t)r * n + j] = (uint8_t)(m[(size_t)r * words + j / 64] >> (j % 64) & 1);
	free(m);
	return 0;
}

int gfec_weights_code(const char *profile, int dual, uint8_t **gen, int *rows, int *n,
		      char *err, size_t errlen)
{
	struct gfec_profile p;
	if (!profile || !gen || !rows || !n)
		return GFEC_E_INVAL;
	int rc = gfec_profile_parse(profile, NULL, &p, err, errlen);
	if (rc)
		return rc;
	int k = p.k, m = p.m, len = 8 * (k + m), r = dual ? 8 * m : 8 * k;
	uint8_t *g = malloc((size_t)k * m), *bits = malloc((size_t)64 * k * m);
	uint8_t *out = calloc((size_t)r * len, 1);
	rc = g && bits && out ? 0 : GFEC_E_NOMEM;
	if (!rc) {
		switch (p.technique) {
		case GFEC_TECH_REED_SOL_VAN: rc = gfec_matrix_isal_rs(k, m, g); break;
		case GFEC_TECH_CAUCHY: rc = gfec_matrix_isal_cauchy1(k, m, g); break;
		case GFEC_TECH_JERASURE_RS_VAN: rc = gfec_matrix_jerasure_rs_van(k, m, g); break;
		case GFEC_TECH_CAUCHY_GOOD: rc = gfec_matrix_jerasure_cauchy_good(k, m, g); break;
		case GFEC_TECH_FFT: rc = GFEC_E_NOTSUP; break; /* w = 16 only; no GF(2^8) matrix */
		}
	}
	if (!rc) {
		/* bits: 8m x 8k; parity bit i = XOR over data bits j of bits[i][j] */
		gfec_gf8_to_bitmatrix(g, m, k, bits);
		for (int i = 0; i < 8 * m; i++)
			for (int j = 0; j < 8 * k; j++) {
				uint8_t b = bits[(size_t)i * 8 * k + j];
				if (dual)
					out[(size_t)i * len + j] = b;
				else
					out[(size_t)j * len + 8 * k + i] = b;
			}
		for (int i = 0; i < r; i++)
			out[(size_t)i * len + (dual ? 8 * k : 0) + i] = 1;
	}
	free(g);
	free(bits);
	if (rc) {
		free(out);
		return rc;
	}
	*gen = out;
	*rows = r;
	*n = len;
	return 0;
}
