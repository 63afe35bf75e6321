/* SPDX-License-Identifier: BSD-3-Clause */
/* LT codes: the robust soliton table, the encoder and the inactivation decoder (lt.h). */
#include "lt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "clones.h"
#include "gfec/gfec_errors.h"
#include "lt_dist.h"
#include "threadpool.h"

#define LT_MAX_N 65536u /* GFEC_NC_MAX_N, the block format's bound */
#define LT_SCAN_MAX 32	 /* degrees up to this test membership by a scan of the chosen */
#define LT_STACKMAP_WORDS 256 /* a bitmap on the stack for n <= 16384 */
#define LT_STRIPE 128	 /* the decoder's payloads and values are kept in stripes this wide */
#define LT_PAY_FLAG 0x80000000u /* in solve()'s program: an operand that is a block's payload */
#define LT_M4R_MIN 32 /* from this many inactivated sources on, solve() sums them by tables */
#define LT_AHEAD 4      /* solve()'s program fetches the base and dst of the op this many on */

/* R, the spike K and the normaliser beta of the robust soliton distribution. */
static void rsd_shape(uint32_t n, double c, double delta, double *R, uint32_t *K, double *beta)
{
	double r = c * log((double)n / delta) * sqrt((double)n);
	double k = floor((double)n / r);
	double spike;

	*K = k < 1.0 ? 1u : k > (double)n ? n : (uint32_t)k;
	*R = r;
	/* sum rho = 1; sum tau = R/n * H(K-1) + the spike (negative for tiny R/delta: then 0) */
	spike = r * log(r / delta) / n;
	*beta = 1.0 + (spike > 0.0 ? spike : 0.0);
	for (uint32_t d = 1; d < *K; d++)
		*beta += r / ((double)d * n);
}

double gfec_lt_dist_pmf(const struct gfec_lt_dist *dist, uint32_t d)
{
	double R, beta, p, spike;
	uint32_t K;

	if (!dist || d < 1 || d > dist->n)
		return 0.0;
	rsd_shape(dist->n, dist->c, dist->delta, &R, &K, &beta);
	p = d == 1 ? 1.0 / dist->n : 1.0 / ((double)d * (d - 1));
	if (d < K)
		p += R / ((double)d * dist->n);
	spike = R * log(R / dist->delta) / dist->n;
	if (d == K && spike > 0.0)
		p += spike;
	return p / beta;
}

int gfec_lt_dist_create(uint32_t n, double c, double delta, struct gfec_lt_dist **out)
{
	struct gfec_lt_dist *d;
	double cum = 0.0, mean = 0.0;

	if (!out || n < 1 || n > LT_MAX_N || !(c > 0.0) || !(c < 1e6) || !(delta > 0.0) ||
	    !(delta < 1.0))
		return GFEC_E_INVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return GFEC_E_NOMEM;
	d->n = n;
	d->c = c;
	d->delta = delta;
	d->len = n - 1;
	d->cdf = malloc(((size_t)n) * sizeof(uint32_t)); /* n >= 1: never malloc(0) */
	d->guide = malloc(((1u << GFEC_LT_GUIDE_BITS) + 1) * sizeof(uint32_t));
	if (!d->cdf || !d->guide) {
		free(d->cdf);
		free(d->guide);
		free(d);
		return GFEC_E_NOMEM;
	}
	for (uint32_t deg = 1; deg <= n; deg++) {
		double p = gfec_lt_dist_pmf(d, deg);

		mean += p * deg;
		cum += p;
		if (deg < n) {
			double t = floor(cum * 4294967296.0);

			d->cdf[deg - 1] = t >= 4294967295.0 ? 0xFFFFFFFFu : (uint32_t)t;
		}
	}
	d->mean = mean;
	for (uint32_t i = 0, j = 0; i < 1u << GFEC_LT_GUIDE_BITS; i++) {
		const uint32_t a = i << (32 - GFEC_LT_GUIDE_BITS);

		while (j < d->len && d->cdf[j] <= a)
			j++;
		d->guide[i] = j;
	}
	d->guide[1u << GFEC_LT_GUIDE_BITS] = d->len;
	*out = d;
	return 0;
}

uint32_t gfec_lt_dist_degree(const struct gfec_lt_dist *d, uint32_t u)
{
	/* cdf[j] <= u for every j below the bucket's start, and > u from the next bucket's on */
	const uint32_t b = u >> (32 - GFEC_LT_GUIDE_BITS);

	return gfec_lt_degree_in(d->cdf, d->guide[b], d->guide[b + 1], u);
}

void gfec_lt_dist_free(struct gfec_lt_dist *d)
{
	if (!d)
		return;
	free(d->cdf);
	free(d->guide);
	free(d);
}

/*
 * gfec_lt_neighbours()' indices, cheaper: the degree's search starts in its bucket of the guide,
 * the d draws are made first (independent, so they vectorise), and Floyd's membership test runs
 * over them in place, by a scan without an early exit (vectorised) up to LT_SCAN_MAX and through a
 * bitmap of the n sources beyond (O(d) instead of O(d^2)). At n = 10240 this took the lists of
 * 10244 blocks from 0.82 to 0.65 ms (perf/results/dev-epyc-zen3-2core/lt_block.txt); the encoder
 * and every decoder's add() draw them.
 */
GFEC_CLONES("avx2", "default")
uint32_t gfec_lt_block(const struct gfec_lt_dist *d, uint32_t seed, uint32_t *idx)
{
	const uint32_t key = gfec_nc_prng_key(seed), n = d->n;
	const uint32_t deg = gfec_lt_dist_degree(d, gfec_lt_degree_draw(key));

	for (uint32_t t = 0; t < deg; t++)
		idx[t] = gfec_lt_draw(key, n - deg + t, t);
	if (deg <= LT_SCAN_MAX) {
		for (uint32_t t = 1; t < deg; t++) {
			const uint32_t v = idx[t];
			uint32_t hit = 0;

			for (uint32_t s = 0; s < t; s++)
				hit |= idx[s] == v;
			if (hit)
				idx[t] = n - deg + t;
		}
		return deg;
	}
	{
		uint64_t stackmap[LT_STACKMAP_WORDS];
		size_t words = ((size_t)n + 63) / 64;
		uint64_t *map = words <= LT_STACKMAP_WORDS ? stackmap : calloc(words, 8);

		if (!map) { /* the scan, as the device does it */
			gfec_lt_neighbours(key, n, deg, idx);
			return deg;
		}
		if (map == stackmap)
			memset(stackmap, 0, words * 8);
		for (uint32_t t = 0; t < deg; t++) {
			uint32_t v = idx[t];

			if (map[v / 64] >> (v % 64) & 1)
				v = n - deg + t;
			map[v / 64] |= 1ull << (v % 64);
			idx[t] = v;
		}
		if (map != stackmap)
			free(map);
	}
	return deg;
}

typedef uint8_t lt_vec __attribute__((vector_size(32)));

/* an unaligned 32-byte load (a macro: a function returning a vector would change the ABI) */
#define LD(p) __extension__({ lt_vec v_; memcpy(&v_, (p), sizeof(v_)); v_; })

/*
 * dst = base ^ src[0] ^ ... ^ src[ns-1] over B bytes (base may be dst, or any block that does not
 * overlap it), up to eight sources per pass over dst, 32 bytes at a time. The decoder's blocks lie
 * scattered over more memory than the caches hold, so it is bound by the bytes it moves: each pass
 * reads and writes dst once, and the first pass reads base, so a fresh dst costs no copy.
 */
GFEC_CLONES("avx2", "default")
static void xor_sum(uint8_t *dst, const uint8_t *base, const uint8_t *const *src, uint32_t ns,
		    size_t B)
{
	const size_t v = B & ~(size_t)31;
	const uint8_t *in = base;

	if (ns == 0 && dst != base)
		memcpy(dst, base, B);
	for (uint32_t s = 0; s < ns; s += 8) {
		const uint32_t take = ns - s < 8 ? ns - s : 8;
		const uint8_t *const *p = src + s;
		size_t i = 0;

		/* the switch falls through the sources of this pass; it branches the same way on
		 * every step, so it predicts perfectly */
		for (; i < v; i += 32) {
			lt_vec x = LD(in + i);

			switch (take) {
			case 8: x ^= LD(p[7] + i); /* fall through */
			case 7: x ^= LD(p[6] + i); /* fall through */
			case 6: x ^= LD(p[5] + i); /* fall through */
			case 5: x ^= LD(p[4] + i); /* fall through */
			case 4: x ^= LD(p[3] + i); /* fall through */
			case 3: x ^= LD(p[2] + i); /* fall through */
			case 2: x ^= LD(p[1] + i); /* fall through */
			default: x ^= LD(p[0] + i);
			}
			memcpy(dst + i, &x, sizeof(x));
		}
		for (; i < B; i++) {
			uint8_t x = in[i];

			for (uint32_t t = 0; t < take; t++)
				x ^= p[t][i];
			dst[i] = x;
		}
		in = dst;
	}
}

/* ---- encoder ---- */

struct enc_job {
	const struct gfec_lt_dist *d;
	const uint8_t *seg;
	size_t B, stride;
	uint32_t first, count, per_task;
	uint8_t *out;
	int err;		  /* a task's scratch could not be allocated */
};

static void enc_task(void *arg, size_t t)
{
	struct enc_job *j = arg;
	uint32_t *idx = malloc((size_t)j->d->n * sizeof(*idx));
	const uint8_t **src = malloc((size_t)j->d->n * sizeof(*src));
	uint32_t lo = (uint32_t)t * j->per_task;
	uint32_t hi = lo + j->per_task < j->count ? lo + j->per_task : j->count;

	if (!idx || !src) {
		__atomic_store_n(&j->err, GFEC_E_NOMEM, __ATOMIC_RELAXED);
		hi = lo;
	}
	for (uint32_t b = lo; b < hi; b++) {
		uint32_t deg = gfec_lt_block(j->d, j->first + b, idx);
		uint8_t *dst = j->out + (size_t)b * j->stride;

		for (uint32_t i = 0; i < deg; i++)
			src[i] = j->seg + (size_t)idx[i] * j->B;
		xor_sum(dst, src[0], src + 1, deg - 1, j->B);
	}
	free(idx);
	free(src);
}

int gfec_lt_encode(const struct gfec_lt_dist *d, const uint8_t *seg, size_t B, uint32_t first,
		   uint32_t count, uint8_t *out, size_t stride, struct gfec_cpu_pool *pool)
{
	struct enc_job j = {d, seg, B, stride, first, count, 0, out, 0};
	size_t ntasks;
	int threads = pool ? gfec_cpu_pool_threads(pool) : 1;

	if (!d || !seg || !out || B == 0 || stride < B || (uint64_t)first + count > 1ull << 32)
		return GFEC_E_INVAL;
	if (count == 0)
		return 0;
	/* a few tasks per thread so that blocks of large degree even out */
	ntasks = (size_t)threads * 8;
	if (ntasks > count)
		ntasks = count;
	j.per_task = (uint32_t)((count + ntasks - 1) / ntasks);
	ntasks = (count + j.per_task - 1) / j.per_task;
	if (pool)
		gfec_cpu_pool_run(pool, ntasks, enc_task, &j);
	else
		for (size_t t = 0; t < ntasks; t++)
			enc_task(&j, t);
	return j.err;
}

/* ---- decoder ---- */

/*
 * The decoder keeps its payloads and solve() its values in stripes: a buffer of `slots` blocks of
 * B bytes holds bytes at .. at + w - 1 of every block (at a multiple of LT_STRIPE, w the stripe's
 * width, LT_STRIPE but for a shorter last one) together, from offset at * slots, slot c's at
 * + c * w. solve() runs its XORs over one stripe at a time: the blocks it reads are scattered
 * over the whole segment, and a stripe of them (2.6 MB at n = 10240, B = 1 KiB, against 20 MB)
 * is far more likely to be in cache.
 */
static size_t stripe_width(size_t B, size_t at)
{
	return B - at < LT_STRIPE ? B - at : LT_STRIPE;
}

/*
 * One stripe of solve()'s program: ops [dst, base, ns, src 1..ns], dst = base ^ the sources,
 * where dst and the sources are slots of val (width w) and base one of val or, with
 * LT_PAY_FLAG, of pay. A full stripe is four 32-byte vectors summed in registers.
 */
GFEC_CLONES("avx2", "default")
static void run_stripe(const uint32_t *op, const uint32_t *end, uint8_t *val, const uint8_t *pay,
		       size_t w, const uint8_t **src)
{
	/* An op's base (mostly a block's payload) and dst are single slots scattered over more
	 * than the L2 holds, and their loads stood for about half of this loop's cycles at
	 * n = 10240, B = 1 KiB; fetched LT_AHEAD ops early (2-16 measured alike), solve() took 7.0-7.4
	 * instead of 8.1-9.3 ms. Fetching the sources too was slower: they are many, and the
	 * inactivated values, right-hand sides and tables among them stay in cache. */
	const uint32_t *ahead = op;

	for (int i = 0; i < LT_AHEAD && ahead < end; i++)
		ahead += 3 + ahead[2];
	while (op < end) {
		const uint32_t ns = op[2], b = op[1];
		const uint8_t *base = b & LT_PAY_FLAG ? pay + (size_t)(b & ~LT_PAY_FLAG) * w
						      : val + (size_t)b * w;
		uint8_t *dst = val + (size_t)op[0] * w;

		if (ahead < end) {
			const uint32_t a = ahead[1];
			const uint8_t *p = a & LT_PAY_FLAG ? pay + (size_t)(a & ~LT_PAY_FLAG) * w
							   : val + (size_t)a * w;
			uint8_t *q = val + (size_t)ahead[0] * w;

			__builtin_prefetch(p);
			__builtin_prefetch(q, 1);
			if (w > 64) { /* the slot's second cache line */
				__builtin_prefetch(p + 64);
				__builtin_prefetch(q + 64, 1);
			}
			ahead += 3 + ahead[2];
		}
		op += 3;
		if (w == LT_STRIPE) {
			lt_vec x0 = LD(base), x1 = LD(base + 32), x2 = LD(base + 64);
			lt_vec x3 = LD(base + 96);

			for (uint32_t i = 0; i < ns; i++) {
				const uint8_t *p = val + (size_t)op[i] * LT_STRIPE;

				x0 ^= LD(p);
				x1 ^= LD(p + 32);
				x2 ^= LD(p + 64);
				x3 ^= LD(p + 96);
			}
			memcpy(dst, &x0, 32);
			memcpy(dst + 32, &x1, 32);
			memcpy(dst + 64, &x2, 32);
			memcpy(dst + 96, &x3, 32);
		} else {
			for (uint32_t i = 0; i < ns; i++)
				src[i] = val + (size_t)op[i] * w;
			xor_sum(dst, base, src, ns, w);
		}
		op += ns;
	}
}

/* A block's unknown neighbours while peeling: how many, and the XOR of their ids, which is the
 * last one's id once cnt is 1 (no scan of the block for it). */
struct lt_peel {
	uint32_t cnt, xs;
};

struct gfec_lt_decoder {
	const struct gfec_lt_dist *d;
	size_t B;
	uint32_t m, cap;      /* blocks held, room for */
	uint8_t *pay;	      /* cap * B, in stripes (stripe_at()): block c's bytes st * LT_STRIPE ..
				 of stripe st at its offset + c * that stripe's width */
	uint32_t *off;	      /* cap + 1: block c's neighbours are nb[off[c] .. off[c+1]) */
	uint32_t *nb;	      /* ecap */
	size_t ecap;
	uint32_t kinact;      /* of the last check or solve */
	uint32_t deficit;     /* of the last check or solve: n - rank, or a lower bound of it */
	uint32_t ready_m;     /* m of the last structural pass, if it decodes and no solve has
				 used it yet (solve reduces comb in place); 0: none */
	unsigned ready_flags; /* and its flags */
	uint32_t ext_m;	      /* m of the last structural pass, if it failed with every source
				 solved or inactivated (so that more blocks are only more equations
				 on the inactivated ones, extend()); 0: none */
	/* the last structural pass (check or solve) */
	uint32_t *scount, *soff, *sadj; /* sources -> blocks (n + 1, n + 1, edges) */
	struct lt_peel *peel; /* per block: its unknown neighbours */
	uint32_t *stack;      /* the ripple */
	uint8_t *state;	      /* per source: 0 unknown, 1 solved, 2 inactivated */
	uint8_t *used;	      /* per block: 1 if it solved a source */
	uint32_t *order;      /* sources in the order they were solved */
	uint32_t norder;
	uint32_t *pos;	      /* per source: its slot in val, the solved in solving order (pos[order[o]]
				 = o), then the inactivated by id (norder + id; while peeling: id) */
	uint32_t *sched;      /* solve()'s payload work, in solving order: per solved source s, its
				 block c, s, the popcount of its vec, np, ni, then the slots (pos) of
				 c's np other solved neighbours and the ids of its ni inactivated
				 ones (nsched words in all) */
	size_t nsched, sched_cap;
	uint32_t *inact;      /* inactivated sources, by id */
	uint32_t *pivots;     /* blocks whose rows became pivots, in order */
	uint32_t npivots;
	uint64_t *vec;	      /* n * W: each source as a combination of the inactivated ones (while
				 peeling, W grows with them: peel_one()) */
	uint64_t *rows;	      /* k * W: the pivot rows, indexed by their lowest column */
	uint64_t *comb;	      /* k * W, solve only: row j as a sum of the pivot blocks' equations
				 (bit i: pivots[i]) */
	uint8_t *haspiv;      /* k */
	uint8_t *val;	      /* (n + k + tables) * B in stripes, solve only: the sources' values,
				 the pivot blocks' right-hand sides, then m4r_sums()' tables */
	uint32_t *prog;	      /* solve only: its XORs (run_stripe()), nprog words */
	size_t nprog, vec_cap, rows_cap, comb_cap, k_cap, val_cap, prog_cap;
	const uint8_t **src;  /* n: XOR operands */
};

int gfec_lt_decoder_create(const struct gfec_lt_dist *d, size_t B, struct gfec_lt_decoder **out)
{
	struct gfec_lt_decoder *dec;
	uint32_t n;

	if (!d || !out || B == 0)
		return GFEC_E_INVAL;
	n = d->n;
	dec = calloc(1, sizeof(*dec));
	if (!dec)
		return GFEC_E_NOMEM;
	dec->d = d;
	dec->B = B;
	dec->off = calloc(1, sizeof(uint32_t));
	dec->scount = malloc(((size_t)n + 1) * sizeof(uint32_t));
	dec->soff = malloc(((size_t)n + 1) * sizeof(uint32_t));
	dec->state = malloc(n);
	dec->order = malloc((size_t)n * sizeof(uint32_t));
	dec->pos = malloc((size_t)n * sizeof(uint32_t));
	dec->inact = malloc((size_t)n * sizeof(uint32_t));
	dec->src = malloc((size_t)n * sizeof(*dec->src));
	if (!dec->off || !dec->scount || !dec->soff || !dec->state || !dec->order || !dec->pos ||
	    !dec->inact || !dec->src) {
		gfec_lt_decoder_free(dec);
		return GFEC_E_NOMEM;
	}
	*out = dec;
	return 0;
}

void gfec_lt_decoder_free(struct gfec_lt_decoder *dec)
{
	if (!dec)
		return;
	free(dec->pay);
	free(dec->off);
	free(dec->nb);
	free(dec->scount);
	free(dec->soff);
	free(dec->sadj);
	free(dec->peel);
	free(dec->stack);
	free(dec->state);
	free(dec->used);
	free(dec->order);
	free(dec->pos);
	free(dec->sched);
	free(dec->inact);
	free(dec->pivots);
	free(dec->vec);
	free(dec->rows);
	free(dec->comb);
	free(dec->haspiv);
	free(dec->val);
	free(dec->prog);
	free(dec->src);
	free(dec);
}

void gfec_lt_decoder_reset(struct gfec_lt_decoder *dec)
{
	dec->m = 0;
	dec->kinact = 0;
	dec->deficit = 0;
	dec->ready_m = 0;
	dec->ext_m = 0;
}

uint32_t gfec_lt_decoder_count(const struct gfec_lt_decoder *dec)
{
	return dec->m;
}

uint32_t gfec_lt_decoder_inactivated(const struct gfec_lt_decoder *dec)
{
	return dec->kinact;
}

uint32_t gfec_lt_decoder_deficit(const struct gfec_lt_decoder *dec)
{
	return dec->deficit;
}

/* Set bits of @p x (__builtin_popcountll is a library call on the baseline x86-64 target). */
static uint32_t popcount64(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

/*
 * A buffer of @p bytes for the decoder's payloads and values: from 2 MiB on, in huge pages where
 * the system gives them for the asking (transparent huge pages in "madvise" mode): a fresh
 * decoder touches every page of both, and on a virtual machine a 4 KiB page fault costs
 * microseconds (the gfec_nc.h decode of gfec-lt-bench, a new decoder each time, ran 0.26-0.33
 * GB/s without, 0.36-0.58 with, on the shared 2-core VM). NULL: no memory.
 */
static void *alloc_big(size_t bytes)
{
	const size_t huge = (size_t)1 << 21;
	void *p = NULL;

	if (bytes < huge)
		return malloc(bytes ? bytes : 1);
	if (posix_memalign(&p, huge, bytes))
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, bytes & ~(huge - 1), MADV_HUGEPAGE); /* a hint: its failure changes nothing */
#endif
	return p;
}

/* Grows *p to hold @p want elements of @p size bytes (doubling); 0 or GFEC_E_NOMEM. */
static int grow(void **p, size_t *cap, size_t want, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *q;

	if (want <= *cap)
		return 0;
	while (c < want)
		c *= 2;
	q = realloc(*p, c * size);
	if (!q)
		return GFEC_E_NOMEM;
	*p = q;
	*cap = c;
	return 0;
}

int gfec_lt_decoder_add(struct gfec_lt_decoder *dec, uint32_t seed, const uint8_t *payload)
{
	uint32_t n = dec->d->n, deg;
	size_t e;

	if (dec->m == LT_PAY_FLAG)
		return GFEC_E_NOMEM;
	if (dec->m == dec->cap) {
		/* room for about what an exact decode takes, so that growing, which moves every
		 * stripe, is rare */
		size_t cap = dec->cap ? (size_t)dec->cap * 2 : (size_t)n + n / 16 + 16;
		uint8_t *p;
		uint32_t *o;

		if (cap > LT_PAY_FLAG)
			cap = LT_PAY_FLAG;
		o = realloc(dec->off, (cap + 1) * sizeof(uint32_t));
		if (!o)
			return GFEC_E_NOMEM;
		dec->off = o;
		p = alloc_big(cap * dec->B);
		if (!p)
			return GFEC_E_NOMEM;
		for (size_t at = 0, w; dec->m && at < dec->B; at += w) { /* stripes to their places */
			w = stripe_width(dec->B, at);
			memcpy(p + at * cap, dec->pay + at * dec->cap, (size_t)dec->m * w);
		}
		free(dec->pay);
		dec->pay = p;
		dec->cap = (uint32_t)cap;
	}
	e = dec->off[dec->m];
	if (grow((void **)&dec->nb, &dec->ecap, e + n, sizeof(uint32_t)))
		return GFEC_E_NOMEM;
	deg = gfec_lt_block(dec->d, seed, dec->nb + e);
	dec->off[dec->m + 1] = (uint32_t)(e + deg);
	for (size_t at = 0, w; at < dec->B; at += w) {
		uint8_t *dst = dec->pay + at * dec->cap + (size_t)dec->m * (w = stripe_width(dec->B, at));

		/* a full stripe by a copy of constant size, which the compiler inlines: through
		 * memcpy() the 8 calls a 1 KiB block took 2.3-2.5 ms of the 10244 adds at n = 10240,
		 * inlined 1.6-1.7 (thread CPU time, alternated, shared 2-core VM at load 11) */
		if (payload && w == LT_STRIPE)
			memcpy(dst, payload + at, LT_STRIPE);
		else if (payload)
			memcpy(dst, payload + at, w);
		else
			memset(dst, 0, w);
	}
	dec->m++;
	return (int)(dec->m > INT32_MAX ? INT32_MAX : dec->m);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * One equation of Gaussian elimination over GF(2) on the k inactivated columns: reduces @p row
 * (W words) by the pivot rows held (rows[j] has its lowest set bit at column j) and stores it at
 * its lowest remaining column. With @p comb (solve), the same XORs run on comb, which says which
 * of the equations taken so far the row is the sum of, and it is stored beside the row.
 * @returns 1 stored, 0 the row was a sum of the pivots (row and comb are then scratch).
 */
static int pivot_insert(struct gfec_lt_decoder *dec, uint32_t W, uint64_t *row, uint64_t *comb)
{
	for (uint32_t w = 0; w < W; w++) {
		while (row[w]) {
			uint32_t j = w * 64 + (uint32_t)__builtin_ctzll(row[w]);
			uint64_t *p = dec->rows + (size_t)j * W;
			uint64_t *q = comb ? dec->comb + (size_t)j * W : NULL;

			if (!dec->haspiv[j]) {
				memcpy(p, row, W * sizeof(uint64_t));
				if (q)
					memcpy(q, comb, W * sizeof(uint64_t));
				dec->haspiv[j] = 1;
				return 1;
			}
			for (uint32_t x = w; x < W; x++)
				row[x] ^= p[x];
			for (uint32_t x = 0; q && x < W; x++)
				comb[x] ^= q[x];
		}
	}
	return 0;
}

/* The unused block @p c as an equation on the inactivated sources (vec), offered to the pivots. */
static void offer(struct gfec_lt_decoder *dec, uint32_t W, uint32_t c, uint64_t *row,
		  uint64_t *comb)
{
	const uint32_t *off = dec->off, *nb = dec->nb;

	memset(row, 0, W * sizeof(uint64_t));
	for (uint32_t e = off[c]; e < off[c + 1]; e++) {
		const uint64_t *u = dec->vec + (size_t)nb[e] * W;

		for (uint32_t w = 0; w < W; w++)
			row[w] ^= u[w];
	}
	memset(comb, 0, W * sizeof(uint64_t));
	comb[dec->npivots / 64] = 1ull << (dec->npivots % 64);
	if (pivot_insert(dec, W, row, comb))
		dec->pivots[dec->npivots++] = c;
}

/*
 * A check of more blocks after a pass over ext_m of them that failed with every source solved or
 * inactivated: the peeled part stays as it is, and blocks ext_m..m-1 are only further equations on
 * the k inactivated sources, offered to the pivots as the pass offered its unused blocks. The rank,
 * (n - k) + pivots, and so the answer and the deficit, are the blocks' own, as a new pass would
 * find them (it may peel the new blocks instead, and inactivate fewer: solve() then does a little
 * more work); the cost is O(new edges x k / 64) instead of a pass over every edge, so that a
 * decoder checking after each block (gfec_nc.h's) pays for the structure about once.
 * @returns 1 decodable, 0 not, or GFEC_E_NOMEM (the pass kept, extended by nothing).
 */
static int extend(struct gfec_lt_decoder *dec, uint32_t m, unsigned flags)
{
	const uint32_t k = dec->kinact, W = (k + 63) / 64;
	uint64_t *row = malloc(2 * W * sizeof(uint64_t));
	void *a = row ? realloc(dec->pivots, (size_t)m * sizeof(uint32_t)) : NULL;

	if (!a) {
		free(row);
		return GFEC_E_NOMEM;
	}
	dec->pivots = a;
	for (uint32_t c = dec->ext_m; c < m && dec->npivots < k; c++)
		offer(dec, W, c, row, row + W);
	free(row);
	dec->deficit = k - dec->npivots;
	dec->ext_m = m;
	if (dec->npivots < k)
		return 0;
	dec->ext_m = 0;
	dec->ready_m = m;
	dec->ready_flags = flags;
	return 1;
}

/*
 * Widens vec's rows from @p Wo to @p W words (the inactivated sources have passed a multiple of
 * 64), keeping the rows of the sources solved or inactivated so far: the others are written when
 * their source is. Rows move from the last down, each to a place at or past its old one.
 * @returns 0 or GFEC_E_NOMEM.
 */
static int vec_widen(struct gfec_lt_decoder *dec, uint32_t n, uint32_t Wo, uint32_t W)
{
	if (grow((void **)&dec->vec, &dec->vec_cap, (size_t)n * W, sizeof(uint64_t)))
		return GFEC_E_NOMEM;
	for (uint32_t s = n; s-- > 0;) {
		uint64_t *v = dec->vec + (size_t)s * W;

		if (dec->state[s] == 0)
			continue;
		memmove(v, dec->vec + (size_t)s * Wo, Wo * sizeof(uint64_t));
		memset(v + Wo, 0, (W - Wo) * sizeof(uint64_t));
	}
	return 0;
}

/*
 * Source @p s solved by block @p c, whose other neighbours are all solved or inactivated by now:
 * its place in the solving order (and slot), its row of vec (W words: the sum of theirs), and its
 * entry of solve()'s schedule, written here while c's neighbours are at hand instead of by a
 * second walk over the solving blocks (the solved neighbours' slots from the front, the
 * inactivated ids from the back: np + ni = deg - 1).
 */
static void peel_one(struct gfec_lt_decoder *dec, uint32_t c, uint32_t s, uint32_t W)
{
	const uint32_t *nb = dec->nb + dec->off[c], deg = dec->off[c + 1] - dec->off[c];
	uint32_t *op = dec->sched + dec->nsched, *nbs = op + 5, np = 0, ni = 0, pop = 0;
	uint64_t *restrict v = dec->vec + (size_t)s * W;

	dec->state[s] = 1;
	dec->used[c] = 1;
	dec->pos[s] = dec->norder;
	dec->order[dec->norder++] = s;
	memset(v, 0, W * sizeof(uint64_t));
	for (uint32_t e = 0; e < deg; e++) {
		const uint32_t t = nb[e];

		if (t == s)
			continue;
		if (dec->state[t] == 1) {
			const uint64_t *restrict u = dec->vec + (size_t)t * W;

			nbs[np++] = dec->pos[t];
			for (uint32_t w = 0; w < W; w++)
				v[w] ^= u[w];
		} else {
			const uint32_t id = dec->pos[t];

			nbs[deg - 2 - ni++] = id;
			v[id / 64] ^= 1ull << (id % 64);
		}
	}
	for (uint32_t w = 0; w < W; w++)
		pop += popcount64(v[w]);
	op[0] = c;
	op[1] = s;
	op[2] = pop;
	op[3] = np;
	op[4] = ni;
	dec->nsched += 5 + (size_t)np + ni;
}

/*
 * The structural pass over blocks 0..m-1: peeling with inactivation (or without), then the
 * inactivated sources' rows and a GF(2) elimination that picks k independent redundant blocks.
 * Fills order/state/inact/vec/sched/pivots and comb: with it, solve() reduces the rows to the
 * identity on the bits alone, so that the payloads see each inactivated value computed once, as a
 * sum of the pivot blocks' right-hand sides. A pass that decodes is kept for the next solve of
 * the same blocks: a decoder that checks after each block solves without a second pass.
 * @returns 1 decodable, 0 not, or GFEC_E_NOMEM.
 */
static int structure(struct gfec_lt_decoder *dec, uint32_t m, unsigned flags)
{
	uint32_t n = dec->d->n, k = 0, sp = 0, W = 0;
	size_t edges = dec->off[m];
	const uint32_t *off = dec->off, *nb = dec->nb;
	struct lt_peel *pl;
	uint32_t scan = 0;

	if (dec->ext_m && m > dec->ext_m && !flags)
		return extend(dec, m, flags);
	dec->ext_m = 0;
	dec->kinact = 0;
	dec->norder = 0;
	dec->npivots = 0;
	dec->deficit = 1; /* what a structure that stops early can promise */
	dec->ready_m = 0;
	if (m < n) {
		dec->deficit = n - m;
		return 0;
	}
	/* per-block arrays (m), the source -> block adjacency (edges), the schedule */
	{
		void *a = realloc(dec->peel, (size_t)m * sizeof(*dec->peel));

		if (!a)
			return GFEC_E_NOMEM;
		dec->peel = a;
		a = realloc(dec->stack, (size_t)m * sizeof(uint32_t));
		if (!a)
			return GFEC_E_NOMEM;
		dec->stack = a;
		a = realloc(dec->used, m);
		if (!a)
			return GFEC_E_NOMEM;
		dec->used = a;
		a = realloc(dec->pivots, (size_t)m * sizeof(uint32_t));
		if (!a)
			return GFEC_E_NOMEM;
		dec->pivots = a;
		a = realloc(dec->sadj, (edges ? edges : 1) * sizeof(uint32_t));
		if (!a)
			return GFEC_E_NOMEM;
		dec->sadj = a;
		if (grow((void **)&dec->sched, &dec->sched_cap, edges + 5 * (size_t)n,
			 sizeof(uint32_t)) ||
		    grow((void **)&dec->vec, &dec->vec_cap, n, sizeof(uint64_t)))
			return GFEC_E_NOMEM;
	}
	pl = dec->peel;
	memset(dec->scount, 0, ((size_t)n + 1) * sizeof(uint32_t));
	for (size_t e = 0; e < edges; e++)
		dec->scount[nb[e]]++;
	dec->soff[0] = 0;
	for (uint32_t s = 0; s < n; s++)
		dec->soff[s + 1] = dec->soff[s] + dec->scount[s];
	memcpy(dec->scount, dec->soff, (size_t)n * sizeof(uint32_t)); /* fill cursors */
	for (uint32_t c = 0; c < m; c++) {
		uint32_t xs = 0;

		for (uint32_t e = off[c]; e < off[c + 1]; e++) {
			dec->sadj[dec->scount[nb[e]]++] = c;
			xs ^= nb[e];
		}
		pl[c].cnt = off[c + 1] - off[c];
		pl[c].xs = xs;
		dec->used[c] = 0;
		if (pl[c].cnt == 1)
			dec->stack[sp++] = c;
	}
	memset(dec->state, 0, n);
	dec->nsched = 0;

	for (;;) {
		while (sp) {
			const uint32_t c = dec->stack[--sp], s = pl[c].xs;

			if (pl[c].cnt != 1)
				continue; /* its last unknown was solved by another block */
			peel_one(dec, c, s, W);
			for (uint32_t e = dec->soff[s]; e < dec->soff[s + 1]; e++) {
				const uint32_t c2 = dec->sadj[e];

				pl[c2].xs ^= s;
				if (--pl[c2].cnt == 1)
					dec->stack[sp++] = c2;
			}
		}
		if (dec->norder + k == n)
			break;
		if (flags & GFEC_LT_PEEL_ONLY)
			return 0;
		/* stalled: the block with the fewest unknowns left (>= 2) gives up all of them but
		 * one to inactivation, and peeling resumes from it */
		{
			uint32_t best = UINT32_MAX, bc = 0, keep = UINT32_MAX, kdeg = UINT32_MAX;

			for (uint32_t i = 0; i < m; i++) {
				uint32_t c = (scan + i) % m, v = pl[c].cnt;

				if (v >= 2 && v < best) {
					best = v;
					bc = c;
					if (v == 2)
						break;
				}
			}
			if (best == UINT32_MAX)
				return 0; /* some source is in no block with an unknown left */
			scan = bc;
			/* it keeps the unknown in the fewest blocks; those in more free more blocks */
			for (uint32_t e = off[bc]; e < off[bc + 1]; e++) {
				uint32_t s = nb[e], deg = dec->soff[s + 1] - dec->soff[s];

				if (dec->state[s] == 0 && deg < kdeg) {
					kdeg = deg;
					keep = s;
				}
			}
			for (uint32_t e = off[bc]; e < off[bc + 1]; e++) {
				uint32_t s = nb[e];
				uint64_t *v;

				if (dec->state[s] != 0 || s == keep)
					continue;
				if (k % 64 == 0) { /* inactivated id k needs a word more */
					if (vec_widen(dec, n, W, W + 1))
						return GFEC_E_NOMEM;
					W++;
				}
				v = dec->vec + (size_t)s * W;
				memset(v, 0, W * sizeof(uint64_t));
				v[k / 64] = 1ull << (k % 64);
				dec->state[s] = 2;
				dec->pos[s] = k; /* its slot once the solved are counted */
				dec->inact[k++] = s;
				for (uint32_t f = dec->soff[s]; f < dec->soff[s + 1]; f++) {
					const uint32_t c2 = dec->sadj[f];

					pl[c2].xs ^= s;
					if (--pl[c2].cnt == 1)
						dec->stack[sp++] = c2;
				}
			}
		}
	}
	dec->kinact = k;
	for (uint32_t i = 0; i < k; i++)
		dec->pos[dec->inact[i]] = dec->norder + i;
	if (grow((void **)&dec->rows, &dec->rows_cap, (size_t)k * W, sizeof(uint64_t)) ||
	    grow((void **)&dec->haspiv, &dec->k_cap, k, 1))
		return GFEC_E_NOMEM;
	if (k == 0) { /* peeling alone decoded */
		dec->deficit = 0;
		dec->ready_m = m;
		dec->ready_flags = flags;
		return 1;
	}
	/*
	 * The unused blocks are equations on the inactivated sources: eliminate until k pivots.
	 * Whether k are independent does not depend on the order; the payload work does: each
	 * pivot block costs solve() one XOR per neighbour, and the unused blocks are often those of
	 * the soliton's spike (degree n/R: 276 at n = 10240), so solve() takes the lightest first.
	 */
	if (grow((void **)&dec->comb, &dec->comb_cap, (size_t)k * W, sizeof(uint64_t)))
		return GFEC_E_NOMEM;
	memset(dec->haspiv, 0, k);
	{
		uint64_t *row = malloc(2 * W * sizeof(uint64_t)), *comb = row + W;
		uint64_t *cand = NULL; /* (degree << 32 | block) of each unused block */
		uint32_t ncand = 0;

		if (row)
			cand = malloc(((size_t)m - dec->norder) * sizeof(*cand));
		if (!row || !cand) {
			free(cand);
			free(row);
			return GFEC_E_NOMEM;
		}
		for (uint32_t c = 0; c < m; c++)
			if (!dec->used[c])
				cand[ncand++] = (uint64_t)(off[c + 1] - off[c]) << 32 | c;
		qsort(cand, ncand, sizeof(*cand), cmp_u64);
		for (uint32_t i = 0; i < ncand; i++)
			dec->stack[i] = (uint32_t)cand[i]; /* the ripple is spent */
		free(cand);
		for (uint32_t i = 0; i < ncand && dec->npivots < k; i++)
			offer(dec, W, dec->stack[i], row, comb);
		free(row);
	}
	/* rank = (n - k) peeled equations + npivots independent ones on the k inactivated */
	dec->deficit = k - dec->npivots;
	if (dec->npivots == k) {
		dec->ready_m = m;
		dec->ready_flags = flags;
	} else {
		dec->ext_m = m; /* every candidate was offered: more blocks can extend() this */
	}
	return dec->npivots == k;
}

int gfec_lt_decoder_check(struct gfec_lt_decoder *dec, uint32_t m, unsigned flags)
{
	if (!dec || m > dec->m)
		return GFEC_E_INVAL;
	return structure(dec, m, flags);
}

/*
 * Appends the op dst = base ^ the ns sources to solve()'s program: the sources are @p list's, or
 * with @p bits the inactivated sources whose bits are set there (ns of them; inactivated source
 * id i is slot norder + i).
 * @returns 0 or GFEC_E_NOMEM.
 */
static int emit(struct gfec_lt_decoder *dec, uint32_t dst, uint32_t base, const uint32_t *list,
		uint32_t ns, const uint64_t *bits)
{
	uint32_t *op;

	if (grow((void **)&dec->prog, &dec->prog_cap, dec->nprog + 3 + ns, sizeof(uint32_t)))
		return GFEC_E_NOMEM;
	op = dec->prog + dec->nprog;
	op[0] = dst;
	op[1] = base;
	op[2] = ns;
	if (list) {
		memcpy(op + 3, list, (size_t)ns * sizeof(uint32_t));
	} else {
		uint32_t *o = op + 3;

		for (uint32_t w = 0; o < op + 3 + ns; w++)
			for (uint64_t b = bits[w]; b; b &= b - 1)
				*o++ = dec->norder + w * 64 + (uint32_t)__builtin_ctzll(b);
	}
	dec->nprog += 3 + (size_t)ns;
	return 0;
}

/*
 * solve()'s step 3, the inactivated values: source inact[j] = the sum of the right-hand sides
 * (slots n + i) that comb j names, one op per j. @returns 0 or GFEC_E_NOMEM.
 */
static int plain_sums(struct gfec_lt_decoder *dec, uint32_t n)
{
	const uint32_t k = dec->kinact, W = (k + 63) / 64;

	for (uint32_t j = 0; j < k; j++) {
		const uint64_t *q = dec->comb + (size_t)j * W;
		uint32_t ns = 0, *list = dec->stack; /* the ripple is spent */
		int rc;

		for (uint32_t w = 0; w < W; w++)
			for (uint64_t bits = q[w]; bits; bits &= bits - 1)
				list[ns++] = n + w * 64 + (uint32_t)__builtin_ctzll(bits);
		/* ns >= 1: the k equations are independent, so comb j is not zero */
		rc = emit(dec, dec->pos[dec->inact[j]], list[0], list + 1, ns - 1, NULL);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The table slot (after slot n + k) of the sum of group g's right-hand sides that @p mask
 * names, a mask of two bits or more; one of the right-hand sides for a mask of one bit. */
static uint32_t m4r_slot(uint32_t n, uint32_t k, uint32_t g, uint32_t mask)
{
	static const uint8_t place[16] = {0, 0, 0, 0, 0, 1, 2, 3, 0, 4, 5, 6, 7, 8, 9, 10};

	if ((mask & (mask - 1)) == 0)
		return n + 4 * g + (uint32_t)__builtin_ctz(mask);
	return n + k + 11 * g + place[mask];
}

/*
 * plain_sums() by the method of four Russians: the rows of comb are dense (about k/2 bits), so
 * instead of k/2 operands per inactivated source, the right-hand sides are taken in groups of
 * four and each group's 11 sums of two or more of them made once (one operand each, from a
 * smaller sum); a row then reads one table entry per group: k^2/8 + 11k/4 operands in all
 * instead of about k^2/2 (at k = 331: 30K against 55K). The tables take 11 slots per group
 * after slot n + k. @returns 0 or GFEC_E_NOMEM.
 */
static int m4r_sums(struct gfec_lt_decoder *dec, uint32_t n)
{
	const uint32_t k = dec->kinact, W = (k + 63) / 64, groups = (k + 3) / 4;
	int rc;

	for (uint32_t g = 0; g < groups; g++) {
		const uint32_t have = k - 4 * g < 4 ? k - 4 * g : 4;

		for (uint32_t mask = 3; mask < 1u << have; mask++) {
			const uint32_t low = mask & (0u - mask);
			const uint32_t one = n + 4 * g + (uint32_t)__builtin_ctz(low);

			if (mask == low)
				continue; /* one bit: the right-hand side itself */
			if ((rc = emit(dec, m4r_slot(n, k, g, mask), m4r_slot(n, k, g, mask ^ low),
				       &one, 1, NULL)) < 0)
				return rc;
		}
	}
	for (uint32_t j = 0; j < k; j++) {
		const uint64_t *q = dec->comb + (size_t)j * W;
		uint32_t ns = 0, *list = dec->stack; /* the ripple is spent */

		for (uint32_t g = 0; g < groups; g++) {
			const uint32_t mask = (uint32_t)(q[g / 16] >> (4 * (g % 16))) & 15;

			if (mask)
				list[ns++] = m4r_slot(n, k, g, mask);
		}
		/* ns >= 1: the k equations are independent, so comb j is not zero */
		rc = emit(dec, dec->pos[dec->inact[j]], list[0], list + 1, ns - 1, NULL);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * The n values from val (@p slots slots a stripe, source s in slot pos[s]) to @p out, a block at
 * a time, so that out is written once, in order. Where out and B allow it (x86, both multiples of
 * 16 bytes), by
 * non-temporal stores, fenced at the end: the n * B bytes are more than the caches keep, and
 * ordinary stores read each of out's lines from memory before they write it (at n = 10240,
 * B = 1 KiB, the program and the copy 9.40 -> 8.91 ms, medians of 8 alternating runs on the
 * shared 2-core VM at load 9-20).
 */
static void copy_out(const struct gfec_lt_decoder *dec, const uint8_t *val, size_t slots,
		     uint32_t n, size_t B, uint8_t *out)
{
#ifdef __SSE2__
	const int stream = (uintptr_t)out % 16 == 0 && B % 16 == 0;
#endif

	for (uint32_t p = 0; p < n; p++) {
		const uint32_t s = p < dec->norder ? dec->order[p] : dec->inact[p - dec->norder];

		for (size_t at = 0; at < B; at += LT_STRIPE) {
			const size_t w = stripe_width(B, at);
			const uint8_t *v = val + at * slots + (size_t)p * w;
			uint8_t *o = out + (size_t)s * B + at;

#ifdef __SSE2__
			if (stream) {
				for (size_t i = 0; i < w; i += 16)
					_mm_stream_si128((__m128i *)(o + i),
							 _mm_loadu_si128((const __m128i *)(v + i)));
				continue;
			}
#endif
			memcpy(o, v, w);
		}
	}
#ifdef __SSE2__
	if (stream)
		_mm_sfence(); /* the stores above are seen before anything the caller stores after */
#endif
}

int gfec_lt_decoder_solve(struct gfec_lt_decoder *dec, uint8_t *out, unsigned flags)
{
	const uint32_t *off, *nb;
	const uint8_t **src;
	uint32_t n, k, W;
	size_t B, slots;
	int rc;

	if (!dec || !out)
		return GFEC_E_INVAL;
	if (dec->ready_m && dec->ready_m == dec->m && dec->ready_flags == flags)
		rc = 1;
	else
		rc = structure(dec, dec->m, flags);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return GFEC_E_TOOFEW;
	dec->ready_m = 0; /* step 2 below reduces comb in place */
	off = dec->off;
	nb = dec->nb;
	B = dec->B;
	n = dec->d->n;
	k = dec->kinact;
	W = (k + 63) / 64;
	src = dec->src;
	slots = (size_t)n + k + (k >= LT_M4R_MIN ? 11 * (((size_t)k + 3) / 4) : 0);
	if (dec->val_cap < slots * B) { /* scratch: nothing to keep */
		size_t want = (slots + k / 8 + 8) * B;

		free(dec->val);
		dec->val_cap = 0;
		dec->val = alloc_big(want);
		if (!dec->val)
			return GFEC_E_NOMEM;
		dec->val_cap = want;
	}
	dec->nprog = 0;
	/* 1: every solved source with the inactivated ones taken as zero */
	for (const uint32_t *op = dec->sched, *end = op + dec->nsched; op < end;) {
		const uint32_t np = op[3];

		if ((rc = emit(dec, dec->pos[op[1]], LT_PAY_FLAG | op[0], op + 5, np, NULL)) < 0)
			return rc;
		op += 5 + np + op[4];
	}
	if (k == 0)
		goto run;
	/* 2: the pivot rows to the identity on the bits alone, highest column first: row b > j is
	 * e_b already, so clearing bit b of row j only adds comb b to comb j */
	for (uint32_t j = k; j-- > 0;) {
		const uint64_t *p = dec->rows + (size_t)j * W;
		uint64_t *q = dec->comb + (size_t)j * W;

		for (uint32_t w = j / 64; w < W; w++) {
			uint64_t bits = p[w];

			if (w == j / 64)
				bits &= j % 64 == 63 ? 0 : ~0ull << (j % 64 + 1);
			while (bits) {
				uint32_t b = w * 64 + (uint32_t)__builtin_ctzll(bits);
				const uint64_t *qb = dec->comb + (size_t)b * W;

				bits &= bits - 1;
				for (uint32_t x = 0; x < W; x++)
					q[x] ^= qb[x];
			}
		}
	}
	/* 3: each pivot block's right-hand side (its solved neighbours' partial values moved
	 * over) into slot n + i, then inactivated source j = the sum of those comb j names */
	for (uint32_t i = 0; i < k; i++) {
		uint32_t c = dec->pivots[i], ns = 0, *list = dec->stack; /* the ripple is spent */

		for (uint32_t e = off[c]; e < off[c + 1]; e++)
			if (dec->state[nb[e]] == 1)
				list[ns++] = dec->pos[nb[e]];
		if ((rc = emit(dec, n + i, LT_PAY_FLAG | c, list, ns, NULL)) < 0)
			return rc;
	}
	if ((rc = k >= LT_M4R_MIN ? m4r_sums(dec, n) : plain_sums(dec, n)) < 0)
		return rc;
	/* 4: every solved source gets its inactivated part, by whichever sum is shorter: its
	 * combination of inactivated values, or its solver block redone with final values */
	for (const uint32_t *op = dec->sched, *end = op + dec->nsched; op < end;) {
		const uint32_t c = op[0], s = op[1], pop = op[2], np = op[3], nn = np + op[4];

		op += 5;
		if (pop == 0) {
			rc = 0;
		} else if (pop < nn) {
			rc = emit(dec, dec->pos[s], dec->pos[s], NULL, pop, dec->vec + (size_t)s * W);
		} else {
			uint32_t *list = dec->stack; /* the ripple is spent */

			memcpy(list, op, (size_t)np * sizeof(uint32_t));
			for (uint32_t i = np; i < nn; i++)
				list[i] = dec->norder + op[i]; /* an inactivated id to its slot */
			rc = emit(dec, dec->pos[s], LT_PAY_FLAG | c, list, nn, NULL);
		}
		if (rc < 0)
			return rc;
		op += nn;
	}
run:
	/* the program over each stripe, then the values to out */
	for (size_t at = 0; at < B; at += LT_STRIPE)
		run_stripe(dec->prog, dec->prog + dec->nprog, dec->val + at * slots,
			   dec->pay + at * dec->cap, stripe_width(B, at), src);
	copy_out(dec, dec->val, slots, n, B, out);
	return 0;
}
