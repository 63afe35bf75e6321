/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc.c
 * Random linear network coding (gfec_nc.h) on the CPU. Every payload product, encode, decode and
 * recode alike, is a GF(2^8) matrix product run through the CPU backend's gemm (GFNI kernels or
 * ISA-L): RLC is Reed-Solomon's product with a random C. The backend takes at most
 * GFEC_MAX_CHUNKS rows and columns per plan, so a product is cut into tiles of that size; column
 * tiles after the first are computed into scratch and XORed in.
 *
 * The eager decoder is Gauss-Jordan as blocks arrive (../shared/docs/seed-systems.md A),
 * blocked: coefficients are reduced at once (so a dependent block is found on arrival), payloads
 * in panels of up to PANEL_MAX blocks, each panel one product and one update over many rows
 * (see "the eager decoder" below). The deferred decoder eliminates on the coefficients only and
 * applies the inverse in read().
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_backend.h"
#include "gf8.h"
#include "gfec/gfec_nc.h"
#include "internal.h"
#include "nc_gpu.h"
#include "nc_internal.h"
#include "nc_lt.h"
#include "nc_prng.h"
#include "threadpool.h"

#define TILE GFEC_MAX_CHUNKS
/* Column tiles after the first go through scratch of TILE rows x this many bytes at most. */
#define SCRATCH_SLICE (16u * 1024)
/* Encode and recode split a block's bytes across threads down to this many bytes. */
#define MIN_SLICE (16u * 1024)

struct gfec_nc {
	struct gfec_nc_params p;
	size_t bsize;			  /* B */
	int zero_ok;
	int deferred;			  /* decoders: 1 deferred, 0 eager */
	uint32_t panel;			  /* eager decoders' widest panel; 0: PANEL_MAX */
	const struct gfec_backend_ops *ops;
	void *ctx;			  /* the CPU backend on one thread: nc.c threads over tiles */
	struct gfec_cpu_pool *pool;	  /* NULL on one thread */
	int threads;
	struct nc_lt *lt;		  /* an LT code (nc_lt.c): no backend, ctx NULL */
	struct gfec_nc_gpu *gpu;	  /* encode and batch decode on the GPU (nc_gpu.c), or NULL */
};

/* ---------- products through the backend ---------- */

/* A (rows x cols, row-major) cut into backend plans of at most th x TILE (th <= TILE). */
struct product {
	int rows, cols, th, rt, ct;
	void **plans; /* rt x ct */
};

static void product_free(const gfec_nc *nc, struct product *p)
{
	if (p->plans)
		for (int i = 0; i < p->rt * p->ct; i++)
			if (p->plans[i])
				nc->ops->plan_free(nc->ctx, p->plans[i]);
	free(p->plans);
	p->plans = NULL;
}

/* A in plans of @p th rows (a batch's split, batch_rows()) by TILE columns. */
static int product_create_rows(const gfec_nc *nc, const uint8_t *a, int rows, int cols, int th,
			       struct product *p)
{
	uint8_t *tile = NULL;
	int ret = 0;

	p->rows = rows;
	p->cols = cols;
	p->th = th;
	p->rt = (rows + th - 1) / th;
	p->ct = (cols + TILE - 1) / TILE;
	p->plans = calloc((size_t)p->rt * p->ct, sizeof(*p->plans));
	tile = malloc((size_t)TILE * TILE);
	if (!p->plans || !tile) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	for (int r = 0; r < p->rt && !ret; r++) {
		for (int c = 0; c < p->ct && !ret; c++) {
			int tr = rows - r * th < th ? rows - r * th : th;
			int tc = cols - c * TILE < TILE ? cols - c * TILE : TILE;
			struct gfec_gemm_matrix m = { .w = 8, .rows = tr, .cols = tc, .a = tile };

			for (int i = 0; i < tr; i++)
				memcpy(tile + (size_t)i * tc,
				       a + ((size_t)r * th + i) * cols + (size_t)c * TILE, tc);
			ret = nc->ops->plan_create(nc->ctx, &m, &p->plans[r * p->ct + c]);
		}
	}
out:
	free(tile);
	if (ret)
		product_free(nc, p);
	return ret;
}

static int product_create(const gfec_nc *nc, const uint8_t *a, int rows, int cols,
			  struct product *p)
{
	return product_create_rows(nc, a, rows, cols, TILE, p);
}

static void xor_into(uint8_t *dst, const uint8_t *src, size_t len)
{
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t a, b;

		memcpy(&a, dst + i, 8);
		memcpy(&b, src + i, 8);
		a ^= b;
		memcpy(dst + i, &a, 8);
	}
	for (; i < len; i++)
		dst[i] ^= src[i];
}

/*
 * Row tile @p r of the product over bytes [off, off + len): dst[i] + off = sum_j A(r*th+i, j) *
 * (src[j] + off) for the tile's rows, src and dst indexed from the product's first row/column.
 */
static int product_run(const gfec_nc *nc, const struct product *p, int r,
		       const uint8_t *const *src, uint8_t *const *dst, size_t off, size_t len)
{
	const uint8_t *s[TILE];
	uint8_t *d[TILE];
	int tr = p->rows - r * p->th < p->th ? p->rows - r * p->th : p->th;
	uint8_t *scratch = NULL;
	int ret;

	for (int i = 0; i < tr; i++)
		d[i] = dst[r * p->th + i] + off;
	for (int j = 0; j < TILE && j < p->cols; j++)
		s[j] = src[j] + off;
	ret = nc->ops->gemm(nc->ctx, p->plans[r * p->ct], 1, len, s, d);
	if (ret || p->ct == 1)
		return ret;

	size_t slice = len < SCRATCH_SLICE ? len : SCRATCH_SLICE;
	uint8_t *sd[TILE];

	scratch = malloc((size_t)tr * slice);
	if (!scratch)
		return GFEC_E_NOMEM;
	for (int i = 0; i < tr; i++)
		sd[i] = scratch + (size_t)i * slice;
	for (size_t o = 0; o < len && !ret; o += slice) {
		size_t l = len - o < slice ? len - o : slice;

		for (int c = 1; c < p->ct && !ret; c++) {
			int tc = p->cols - c * TILE < TILE ? p->cols - c * TILE : TILE;

			for (int j = 0; j < tc; j++)
				s[j] = src[c * TILE + j] + off + o;
			ret = nc->ops->gemm(nc->ctx, p->plans[r * p->ct + c], 1, l, s, sd);
			for (int i = 0; i < tr && !ret; i++)
				xor_into(d[i] + o, sd[i], l);
		}
	}
	free(scratch);
	return ret;
}

/* The whole product on the caller's thread. */
static int product_run_all(const gfec_nc *nc, const struct product *p,
			   const uint8_t *const *src, uint8_t *const *dst, size_t len)
{
	int ret = 0;

	for (int r = 0; r < p->rt && !ret; r++)
		ret = product_run(nc, p, r, src, dst, 0, len);
	return ret;
}

/*
 * Many products that share one matrix (encode: every segment; recode: one), spread over the pool
 * as (stripe, row tile, byte slice) tasks. Stripe s reads src[s] (cols pointers) and writes
 * dst[s] (rows pointers). With one stripe cut in no byte slices each row tile is one task, which
 * makes its own plans just before it runs them and frees them after (p NULL): on one thread the
 * next tile's tables then reuse the same heap memory, still in cache. Plans for all the tiles at
 * once (4 MiB of tables for 1024 x 128) came from freshly grown heap on every call: about 1000
 * page faults per call, 13% of a one-thread encode of n = 128, B = 4 KiB
 * (perf/results/dev-epyc-zen3-2core/nc_encode_cause.txt).
 */
struct batch_job {
	const gfec_nc *nc;
	const struct product *p; /* shared plans, or NULL: each task makes its tile's from a */
	const uint8_t *a;	 /* the matrix, rows x cols */
	int rows, cols, th, rt;
	const uint8_t *const *const *src;
	uint8_t *const *const *dst;
	size_t len, slice;
	size_t nslices;
	int ret;
};

static void batch_task(void *arg, size_t t)
{
	struct batch_job *j = arg;
	size_t per_stripe = (size_t)j->rt * j->nslices;
	size_t s = t / per_stripe, rest = t % per_stripe;
	int r = (int)(rest / j->nslices);
	size_t off = (rest % j->nslices) * j->slice;
	size_t len = j->len - off < j->slice ? j->len - off : j->slice;
	int ret;

	if (j->p) {
		ret = product_run(j->nc, j->p, r, j->src[s], j->dst[s], off, len);
	} else {
		struct product tp = { 0 };
		const int tr = j->rows - r * j->th < j->th ? j->rows - r * j->th : j->th;

		ret = product_create_rows(j->nc, j->a + (size_t)r * j->th * j->cols, tr, j->cols,
					  j->th, &tp);
		if (!ret)
			ret = product_run(j->nc, &tp, 0, j->src[s], j->dst[s] + (size_t)r * j->th,
					  off, len);
		product_free(j->nc, &tp);
	}
	if (ret)
		__atomic_store_n(&j->ret, ret, __ATOMIC_RELAXED);
}

/*
 * The row-tile height for a batch of @p nstripes products of @p rows rows over @p len bytes:
 * TILE, unless that leaves the pool fewer than two tasks per thread with every byte slice
 * batch_product may cut (MIN_SLICE); then halved until it does, down to 16 rows. Raw ISA-L run on
 * many threads splits the rows the same way; one tile per stripe left most threads idle (one
 * segment of n = 256, B = 32 KiB on 16 threads ran as 2 tasks).
 */
static int batch_rows(const gfec_nc *nc, int rows, size_t nstripes, size_t len)
{
	const size_t want = 2 * (size_t)nc->threads, slices = (len + MIN_SLICE - 1) / MIN_SLICE;
	int th = TILE;

	while (nc->pool && th > 16 && nstripes * (size_t)((rows + th - 1) / th) * slices < want)
		th /= 2;
	return th;
}

/* dst[s] = A x src[s] for @p nstripes stripes, A (rows x cols) at @p a, on the pool. */
static int batch_product(const gfec_nc *nc, const uint8_t *a, int rows, int cols,
			 size_t nstripes, const uint8_t *const *const *src,
			 uint8_t *const *const *dst, size_t len)
{
	const int th = batch_rows(nc, rows, nstripes, len);
	struct product p = { 0 };
	struct batch_job j = { .nc = nc, .a = a, .rows = rows, .cols = cols, .th = th,
			       .rt = (rows + th - 1) / th, .src = src, .dst = dst, .len = len,
			       .slice = len, .nslices = 1 };
	size_t tasks = nstripes * (size_t)j.rt;
	int ret;

	/* Too few tasks for the threads: cut the bytes too, in 64-byte multiples. */
	if (nc->pool && tasks < 2 * (size_t)nc->threads && len > MIN_SLICE) {
		size_t want = (2 * (size_t)nc->threads + tasks - 1) / tasks;
		size_t most = (len + MIN_SLICE - 1) / MIN_SLICE;

		j.nslices = want < most ? want : most;
		j.slice = ((len + j.nslices - 1) / j.nslices + 63) / 64 * 64;
		j.nslices = (len + j.slice - 1) / j.slice;
	}
	tasks *= j.nslices;
	if (nstripes > 1 || j.nslices > 1) {
		ret = product_create_rows(nc, a, rows, cols, th, &p);
		if (ret)
			return ret;
		j.p = &p;
	}
	if (nc->pool)
		gfec_cpu_pool_run(nc->pool, tasks, batch_task, &j);
	else
		for (size_t t = 0; t < tasks; t++)
			batch_task(&j, t);
	product_free(nc, &p);
	return j.ret;
}

/* ---------- the code ---------- */

/*
 * GFEC_NC_AUTO's choice between eager (blocked) and deferred decoding, from gfec-nc-bench's
 * decode rows (one thread's CPU time from the first add to a read segment; the measurements and
 * the machine are in perf/results/dev-epyc-zen3-2core/nc_panel.txt): deferred won for small
 * segments (n = 16: 1.4-1.6x at B = 4 KiB, 2.3-2.7x at 64 KiB), where eager's few small panels
 * cost more than one n x n product; n = 32 and 64 were ties (n = 32 within 1.2x either way); eager
 * won at n = 128 and 255 (1.2-1.5x at 255) and tied at n = 128, B = 64 KiB. Eager also makes the
 * segment readable the moment it completes (deferred pays the whole product in read()).
 */
static int auto_deferred(uint32_t n)
{
	return n <= 32;
}

int gfec_nc_create(const struct gfec_nc_params *p, gfec_nc **out)
{
	struct gfec_settings set;
	struct gfec_backend_conf conf = { .threads = 1 };
	char err[256];
	gfec_nc *nc;
	int ret;

	const int lt = p && p->family == GFEC_NC_LT;

	if (!p || !out || p->n < 1 || p->n > (lt ? GFEC_NC_MAX_N : GFEC_NC_RLC_MAX_N) ||
	    (!lt && (p->family != 0 && p->family != GFEC_NC_RLC)) ||
	    (!lt && (p->lt_c != 0.0 || p->lt_delta != 0.0)) || p->block_size < 1 ||
	    p->block_size > GFEC_NC_MAX_BLOCK ||
	    p->flags & ~(GFEC_NC_SYSTEMATIC | GFEC_NC_ZERO_COEFS) || p->threads < 0 ||
	    p->threads > 1024 || p->decode < GFEC_NC_AUTO || p->decode > GFEC_NC_DEFERRED ||
	    (size_t)p->n > SIZE_MAX / p->block_size)
		return GFEC_E_INVAL;
	/* cpu_path and threads come from gfec.conf and the environment, as for a codec. */
	ret = gfec_config_load(&set, err, sizeof(err));
	if (ret)
		return GFEC_E_INVAL;
	nc = calloc(1, sizeof(*nc));
	if (!nc)
		return GFEC_E_NOMEM;
	nc->p = *p;
	nc->bsize = p->block_size;
	nc->zero_ok = !!(p->flags & GFEC_NC_ZERO_COEFS);
	nc->deferred = p->decode == GFEC_NC_DEFERRED ||
		       (p->decode == GFEC_NC_AUTO && auto_deferred(p->n));
	nc->threads = p->threads ? p->threads : (int)set.v[GFEC_KNOB_THREADS].num;
	if (nc->threads <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		nc->threads = c > 0 ? (int)(c > 1024 ? 1024 : c) : 1;
	}
	conf.path = set.v[GFEC_KNOB_CPU_PATH].text[0] ? set.v[GFEC_KNOB_CPU_PATH].text : NULL;
	conf.stream_min = (size_t)set.v[GFEC_KNOB_CPU_STREAM_MIN].num;
	nc->ops = gfec_cpu_backend();
	ret = lt ? 0 : nc->ops->init(&conf, &nc->ctx);
	if (!ret && nc->threads > 1)
		ret = gfec_cpu_pool_create(nc->threads, &nc->pool);
	if (!ret && lt)
		ret = nc_lt_create(p, nc->pool, &nc->lt);
	if (!ret)
		ret = gfec_nc_gpu_create(p, &set, &nc->gpu);
	if (ret) {
		gfec_nc_free(nc);
		return ret;
	}
	*out = nc;
	return 0;
}

void gfec_nc_free(gfec_nc *nc)
{
	if (!nc)
		return;
	nc_lt_free(nc->lt);
	gfec_nc_gpu_free(nc->gpu);
	gfec_cpu_pool_destroy(nc->pool);
	if (nc->ctx)
		nc->ops->fini(nc->ctx);
	free(nc);
}

void gfec_nc_stats(const gfec_nc *nc, struct gfec_nc_stats *out)
{
	if (out)
		gfec_nc_gpu_stats(nc ? nc->gpu : NULL, out);
}

int gfec_nc_gpu_devices(const gfec_nc *nc, struct gfec_gpu_device *out, int max)
{
	if (!nc || (max > 0 && !out))
		return GFEC_E_INVAL;
	return gfec_nc_gpu_contexts(nc->gpu, out, max);
}

size_t gfec_nc_block_bytes(const gfec_nc *nc, int kind)
{
	size_t h = nc ? gfec_nc_header_bytes(kind, nc->p.n) : 0;

	return h ? h + nc->bsize : 0;
}

/* The coefficient row of a seed-carrying block (a source block's is e_seed). */
static void seed_row(const gfec_nc *nc, uint32_t seed, int systematic, uint8_t *c)
{
	if (systematic) {
		memset(c, 0, nc->p.n);
		c[seed] = 1;
	} else {
		gfec_nc_prng_row(seed, nc->p.n, nc->zero_ok, c);
	}
}

int gfec_nc_encode(gfec_nc *nc, const struct gfec_nc_segment *segs, int nseg, uint32_t first,
		   uint32_t count, uint8_t *out, size_t out_len)
{
	const size_t bytes = gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);
	const size_t hdr = bytes - (nc ? nc->bsize : 0);
	const uint8_t **src = NULL;
	uint8_t **dst = NULL;
	const uint8_t *const **srcs = NULL;
	uint8_t *const **dsts = NULL;
	uint8_t *c = NULL;
	uint32_t nsys = 0, ncoded;
	int ret = 0;

	if (nc && nc->lt)
		return nc_lt_encode(nc->lt, nc->gpu, segs, nseg, first, count, out, out_len);
	if (!nc || !segs || !out || nseg < 1 || count > INT_MAX ||
	    (uint64_t)first + count > (1ull << 32))
		return GFEC_E_INVAL;
	for (int s = 0; s < nseg; s++)
		if (!segs[s].data)
			return GFEC_E_INVAL;
	if (count == 0)
		return 0;
	if ((uint64_t)nseg * count > SIZE_MAX / bytes || (size_t)nseg * count * bytes > out_len)
		return GFEC_E_INVAL;
	ret = gfec_nc_gpu_encode(nc->gpu, &nc->p, segs, nseg, first, count, out);
	if (ret != GFEC_NC_GPU_PASS)
		return ret;
	ret = 0;
	if (nc->p.flags & GFEC_NC_SYSTEMATIC && first < nc->p.n)
		nsys = nc->p.n - first < count ? nc->p.n - first : count;
	ncoded = count - nsys;

	/* headers, and the source blocks of a systematic code */
	for (int s = 0; s < nseg; s++) {
		for (uint32_t j = 0; j < count; j++) {
			uint8_t *blk = out + ((size_t)s * count + j) * bytes;
			struct gfec_nc_block b = { .family = GFEC_NC_RLC,
						   .kind = GFEC_NC_KIND_SEED,
						   .flags = (uint8_t)(nc->p.flags &
								      GFEC_NC_ZERO_COEFS),
						   .n = nc->p.n, .block_size = nc->p.block_size,
						   .segment = segs[s].id, .seed = first + j };

			if (j < nsys) {
				b.flags = GFEC_NC_SYSTEMATIC;
				memcpy(blk + hdr, segs[s].data + (size_t)(first + j) * nc->bsize,
				       nc->bsize);
			}
			gfec_nc_block_pack(&b, blk, hdr);
		}
	}
	if (!ncoded)
		return 0;

	/* the coded blocks: C (ncoded x n) times every segment, as one batch */
	c = malloc((size_t)ncoded * nc->p.n);
	src = malloc(sizeof(*src) * nseg * nc->p.n);
	dst = malloc(sizeof(*dst) * nseg * ncoded);
	srcs = malloc(sizeof(*srcs) * nseg);
	dsts = malloc(sizeof(*dsts) * nseg);
	if (!c || !src || !dst || !srcs || !dsts) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	for (uint32_t j = 0; j < ncoded; j++)
		seed_row(nc, first + nsys + j, 0, c + (size_t)j * nc->p.n);
	for (int s = 0; s < nseg; s++) {
		for (uint32_t i = 0; i < nc->p.n; i++)
			src[(size_t)s * nc->p.n + i] = segs[s].data + (size_t)i * nc->bsize;
		for (uint32_t j = 0; j < ncoded; j++)
			dst[(size_t)s * ncoded + j] =
				out + ((size_t)s * count + nsys + j) * bytes + hdr;
		srcs[s] = src + (size_t)s * nc->p.n;
		dsts[s] = dst + (size_t)s * ncoded;
	}
	ret = batch_product(nc, c, (int)ncoded, (int)nc->p.n, (size_t)nseg, srcs, dsts,
			    nc->bsize);
out:
	free(c);
	free(src);
	free(dst);
	free(srcs);
	free(dsts);
	return ret;
}

/* ---------- Gauss-Jordan on the coefficients ---------- */

/*
 * Rows in reduced row-echelon form, in arrival order ("slots"): row s has a 1 at column
 * pivot[s] and 0 at every other slot's pivot. With @p m set (deferred mode, batch decode), m's
 * row s says which combination of the received rows row s is: R = M x C.
 */
struct elim {
	uint32_t n, rank;
	uint8_t *r;	    /* n x n */
	uint8_t *m;	    /* n x n, or NULL */
	uint32_t *pivot;    /* slot -> column */
	int32_t *slot_of;   /* column -> slot, -1: no pivot yet */
	uint8_t *f, *g;	    /* n each: stage A factors, stage E factors of the last reduce */
	uint8_t *row, *mrow; /* n each: the row being reduced */
};

static void elim_free(struct elim *e)
{
	free(e->r);
	free(e->m);
	free(e->pivot);
	free(e->slot_of);
	free(e->f);
	free(e->g);
	free(e->row);
	free(e->mrow);
}

static int elim_init(struct elim *e, uint32_t n, int with_m)
{
	memset(e, 0, sizeof(*e));
	e->n = n;
	e->r = malloc((size_t)n * n);
	e->m = with_m ? calloc((size_t)n, n) : NULL;
	e->pivot = malloc(sizeof(*e->pivot) * n);
	e->slot_of = malloc(sizeof(*e->slot_of) * n);
	e->f = malloc(n);
	e->g = malloc(n);
	e->row = malloc(n);
	e->mrow = malloc(n);
	if (!e->r || (with_m && !e->m) || !e->pivot || !e->slot_of || !e->f || !e->g || !e->row ||
	    !e->mrow) {
		elim_free(e);
		return GFEC_E_NOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		e->slot_of[i] = -1;
	return 0;
}

/* dst ^= c * src over n bytes. */
static void axpy(uint8_t *dst, const uint8_t *src, uint8_t c, uint32_t n)
{
	const uint8_t *t = gfec_gf8_tab.mul[c];

	if (c == 1)
		xor_into(dst, src, n);
	else if (c)
		for (uint32_t i = 0; i < n; i++)
			dst[i] ^= t[src[i]];
}

/*
 * Stages A-D on e->row (set by the caller): reduces it against every slot, leaving the factors
 * in e->f (slot s was added f[s] times, f already scaled by 1/pivot value) and, with m, the new
 * transform row in e->mrow. Returns the new pivot column, or -1 when the row is dependent (the
 * state is untouched either way).
 */
static int elim_reduce(struct elim *e)
{
	const uint32_t n = e->n, k = e->rank;
	int q = -1;
	uint8_t inv;

	if (e->m) {
		memset(e->mrow, 0, n);
		e->mrow[k] = 1;
	}
	for (uint32_t s = 0; s < k; s++) {
		/* row[pivot[s]] is still the original value: no other slot touches that column */
		uint8_t f = e->row[e->pivot[s]];

		e->f[s] = f;
		axpy(e->row, e->r + (size_t)s * n, f, n);
		if (e->m)
			axpy(e->mrow, e->m + (size_t)s * n, f, k);
	}
	for (uint32_t i = 0; i < n && q < 0; i++)
		if (e->row[i])
			q = (int)i;
	if (q < 0)
		return -1;
	inv = gfec_gf8_inv(e->row[q]);
	for (uint32_t i = 0; i < n; i++)
		e->row[i] = gfec_gf8_mul(e->row[i], inv);
	if (e->m)
		for (uint32_t i = 0; i <= k; i++)
			e->mrow[i] = gfec_gf8_mul(e->mrow[i], inv);
	for (uint32_t s = 0; s < k; s++) {
		e->f[s] = gfec_gf8_mul(e->f[s], inv);
		e->g[s] = e->r[(size_t)s * n + q];
	}
	e->f[k] = inv;
	return q;
}

/* Stage E on the coefficients and commit: the reduced row becomes slot rank, pivot @p q. */
static void elim_commit(struct elim *e, int q)
{
	const uint32_t n = e->n, k = e->rank;

	for (uint32_t s = 0; s < k; s++) {
		axpy(e->r + (size_t)s * n, e->row, e->g[s], n);
		if (e->m)
			axpy(e->m + (size_t)s * n, e->mrow, e->g[s], k + 1);
	}
	memcpy(e->r + (size_t)k * n, e->row, n);
	if (e->m)
		memcpy(e->m + (size_t)k * n, e->mrow, n);
	e->pivot[k] = (uint32_t)q;
	e->slot_of[q] = (int32_t)k;
	e->rank++;
}

/* ---------- the progressive decoder ---------- */

/*
 * The eager decoder: Gauss-Jordan as blocks arrive, with the payload row operations applied in
 * panels. Slots (rows, in arrival order) below base are "old": slot s holds coefficient row R_s
 * (e.r), 1 at pivot[s] and 0 at every other old pivot, and its payload Y_s = R_s x S (S: the
 * segment). Slots base..rank-1 are the panel: their blocks as received (coefficients c in e.r,
 * payloads x in yrow), and, on the coefficients only, the same rows fully reduced: P_u is 0 at
 * every pivot but its own, old or panel, and T_u says which combination of old and received
 * rows it is (P_u = sum_s T_u[s] R_s + sum_v T_u[base + v] c_v).
 *
 *   slot 0     +-----------------+
 *              | old: R, Y       |   Y = R x S, R reduced on the old pivots
 *   base       +-----------------+
 *              | panel: c, x     |   as received; P, T on the side (coefficients only)
 *   rank       +-----------------+
 *
 * A block costs its coefficient reduction (against R, one 1 x (base + 1) product over n bytes;
 * against P, on the columns without an old pivot) and a copy of its payload. When the panel is full (or the segment complete) it is
 * flushed: the panel's payloads T x [Y_old; x] are one (m x (base + m)) product into spare rows,
 * and the panel's pivot columns are cleared from the old rows by one (base x m) update, G(s, u) =
 * R_s[pivot of u]: every payload row operation is a product over many rows (about one n x n
 * product in all), where one row at a time ran at a third of the speed. Panels shrink towards
 * the end (panel_width) so that the last block's flush is about one block's worth of work.
 */
struct panel {
	uint32_t base;	  /* slots below hold reduced payloads */
	uint32_t width;	  /* the widest panel (its first) */
	uint8_t *p, *t;	  /* width x n each: the panel's rows reduced (P) and their T */
	uint8_t *p2, *t2; /* a flush's working copies (the panel is untouched until it succeeds) */
	uint8_t **spare;  /* width payload rows a flush writes the panel's payloads into */
	uint32_t *fc;	  /* the columns without an old pivot, ascending */
	uint32_t nfc;
	uint8_t *a;	  /* 2 x width x n: reduce_old's 1 x (base + 1) row, a flush's T and G */
	uint8_t **rows;	  /* n: reduce_old's sources, a flush's old rows */
};

struct gfec_nc_decoder {
	gfec_nc *nc;
	uint64_t segment;
	struct elim e;
	uint8_t *c;	/* deferred: n x n, the received coefficient rows by slot */
	uint8_t *y;	/* eager: n + panel.width rows of B; deferred: n, the received payloads */
	uint8_t **yrow; /* n pointers into y */
	struct panel pn; /* eager only */
	struct gfec_nc_decoder_stats st;
	struct nc_lt_decoder *lt;	/* an LT code's decoder (nc_lt.c); the rest unused */
};

/*
 * Widest panel of an eager decoder, measured on one thread (nc_panel.txt in
 * perf/results/dev-epyc-zen3-2core/): a block's panel work on the coefficients (its T and the
 * panel's rows, scalar) grows with the width, the products' efficiency hardly past 4. Width 4
 * tied 16 at n = 128, B = 4 KiB and beat it at n = 255 (5-10%), n = 512 B = 1 KiB (1.2-1.3x) and
 * n = 1024 B = 128 (1.2-1.5x, where 16 was slower than one block at a time), both paths.
 */
#define PANEL_MAX 4u

/*
 * The panel that starts at slot @p base of @p n: @p width, but at most half the slots left
 * (at least 1), so that the last panels are small and the last block's flush is about an
 * (n x 1) update.
 */
static uint32_t panel_width(uint32_t n, uint32_t width, uint32_t base)
{
	const uint32_t half = (n - base) / 2;

	return half < 1 ? 1 : half < width ? half : width;
}

int gfec_nc_set_panel(gfec_nc *nc, uint32_t width)
{
	if (!nc || width > TILE)
		return GFEC_E_INVAL;
	nc->panel = width;
	return 0;
}

void gfec_nc_decoder_free(gfec_nc_decoder *d)
{
	if (!d)
		return;
	nc_lt_decoder_free(d->lt);
	elim_free(&d->e);
	free(d->c);
	free(d->y);
	free(d->yrow);
	free(d->pn.p);
	free(d->pn.t);
	free(d->pn.p2);
	free(d->pn.t2);
	free(d->pn.spare);
	free(d->pn.fc);
	free(d->pn.a);
	free(d->pn.rows);
	free(d);
}

/* The columns without a pivot into pn->fc (a flush leaves no panel: every pivot is old). */
static void panel_columns(gfec_nc_decoder *d)
{
	d->pn.nfc = 0;
	for (uint32_t j = 0; j < d->e.n; j++)
		if (d->e.slot_of[j] < 0)
			d->pn.fc[d->pn.nfc++] = j;
}

int gfec_nc_decoder_create(gfec_nc *nc, uint64_t segment, gfec_nc_decoder **out)
{
	gfec_nc_decoder *d;
	const uint32_t n = nc ? nc->p.n : 0;
	struct panel *pn;
	size_t rows = n;

	if (!nc || !out)
		return GFEC_E_INVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return GFEC_E_NOMEM;
	d->nc = nc;
	d->segment = segment;
	if (nc->lt) {
		int ret = nc_lt_decoder_create(nc->lt, segment, &d->lt);

		if (ret)
			free(d);
		else
			*out = d;
		return ret;
	}
	pn = &d->pn;
	if (!nc->deferred) {
		pn->width = panel_width(n, nc->panel ? nc->panel : PANEL_MAX, 0);
		rows += pn->width;
		pn->p = malloc((size_t)pn->width * n);
		pn->t = malloc((size_t)pn->width * n);
		pn->p2 = malloc((size_t)pn->width * n);
		pn->t2 = malloc((size_t)pn->width * n);
		pn->spare = malloc(sizeof(*pn->spare) * pn->width);
		pn->fc = malloc(sizeof(*pn->fc) * n);
		pn->a = malloc((size_t)2 * pn->width * n);
		pn->rows = malloc(sizeof(*pn->rows) * n);
	}
	d->y = rows <= SIZE_MAX / nc->bsize ? malloc(rows * nc->bsize) : NULL;
	d->yrow = malloc(sizeof(*d->yrow) * n);
	d->c = nc->deferred ? malloc((size_t)n * n) : NULL;
	if (elim_init(&d->e, n, nc->deferred) || !d->y || !d->yrow || (nc->deferred && !d->c) ||
	    (!nc->deferred && (!pn->p || !pn->t || !pn->p2 || !pn->t2 || !pn->spare || !pn->fc ||
			       !pn->a || !pn->rows))) {
		gfec_nc_decoder_free(d);
		return GFEC_E_NOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		d->yrow[i] = d->y + (size_t)i * nc->bsize;
	for (uint32_t u = 0; u < pn->width; u++)
		pn->spare[u] = d->y + (size_t)(n + u) * nc->bsize;
	if (!nc->deferred)
		panel_columns(d);
	*out = d;
	return 0;
}

uint32_t gfec_nc_decoder_rank(const gfec_nc_decoder *d)
{
	if (d && d->lt)
		return nc_lt_decoder_rank(d->lt);
	return d ? d->e.rank : 0;
}

void gfec_nc_decoder_stats(const gfec_nc_decoder *d, struct gfec_nc_decoder_stats *out)
{
	if (d && out && d->lt)
		nc_lt_decoder_stats(d->lt, out);
	else if (d && out)
		*out = d->st;
}

/* Unpacks @p block and checks it is this code's, of @p segment; fills the coefficient row. */
static int take_block(const gfec_nc *nc, uint64_t segment, const uint8_t *block, size_t len,
		      struct gfec_nc_block *b, uint8_t *row)
{
	int ret = gfec_nc_block_unpack(block, len, b);

	if (ret)
		return ret;
	if (b->family != GFEC_NC_RLC || b->n != nc->p.n || b->block_size != nc->p.block_size ||
	    b->segment != segment ||
	    (b->kind == GFEC_NC_KIND_SEED && !(b->flags & GFEC_NC_SYSTEMATIC) &&
	     !!(b->flags & GFEC_NC_ZERO_COEFS) != nc->zero_ok))
		return GFEC_E_FOREIGN;
	if (b->kind == GFEC_NC_KIND_COEF)
		memcpy(row, b->coefs, nc->p.n);
	else
		seed_row(nc, b->seed, b->flags & GFEC_NC_SYSTEMATIC, row);
	return 0;
}

/* dst[j] ^= c * src[j] for the @p ncols columns j in @p cols. */
static void axpy_cols(uint8_t *dst, const uint8_t *src, uint8_t c, const uint32_t *cols,
		      uint32_t ncols)
{
	const uint8_t *t = gfec_gf8_tab.mul[c];

	for (uint32_t i = 0; i < ncols; i++)
		dst[cols[i]] ^= t[src[cols[i]]];
}

/*
 * e->row += sum_s e->row[pivot[s]] * R_s over the old rows s < @p base, as one 1 x (base + 1)
 * product over n bytes through the backend (a plain loop over the columns without an old pivot
 * cost about 1.3 ns a byte, base x (n - base) of them per block: 17% of a decode at n = 128, and
 * n^3 / 6 in all); leaves the factors in e->f. The product's row and sources are the panel's
 * a and rows (base + 1 <= n). On error the row is as it was.
 */
static int reduce_old(gfec_nc_decoder *d, uint32_t base)
{
	const gfec_nc *nc = d->nc;
	struct elim *e = &d->e;
	const uint32_t n = e->n;
	uint8_t *a = d->pn.a, **src = d->pn.rows;
	uint8_t *const dst[1] = { e->mrow };
	struct product p = { 0 };
	uint32_t nz = 0;
	int ret = 0;

	for (uint32_t s = 0; s < base; s++) {
		e->f[s] = e->row[e->pivot[s]];
		if (e->f[s]) {
			a[nz] = e->f[s];
			src[nz++] = e->r + (size_t)s * n;
		}
	}
	if (nz) {
		a[nz] = 1;
		src[nz++] = e->row;
		ret = product_create(nc, a, 1, (int)nz, &p);
		if (!ret)
			ret = product_run_all(nc, &p, (const uint8_t *const *)src, dst, n);
		if (!ret)
			memcpy(e->row, e->mrow, n);
	}
	product_free(nc, &p);
	return ret;
}

/*
 * Flushes the panel of @p m rows whose reduced rows and T are @p P and @p T (stride n; the last
 * one is the block being added, slot rank, pivot e->pivot[rank]): its payloads T x [Y_old; x]
 * into spare rows, which then take the panel's slots; the panel's pivot columns cleared from
 * the old rows (payloads and coefficients) by G; the panel's rows become old rows P. Everything
 * that can fail comes first: on error the decoder is as it was. T and G are built in the panel's
 * a (m x k + base x m <= 2 x width x n bytes), the old rows listed in its rows.
 */
static int panel_flush(gfec_nc_decoder *d, const uint8_t *P, const uint8_t *T, uint32_t m)
{
	const gfec_nc *nc = d->nc;
	struct elim *e = &d->e;
	struct panel *pn = &d->pn;
	const uint32_t n = e->n, base = pn->base, k = base + m;
	const size_t B = nc->bsize;
	uint8_t *a = pn->a, **rrow = pn->rows;
	struct product fw = { 0 }, bk = { 0 };
	int ret;

	for (uint32_t u = 0; u < m; u++)
		memcpy(a + (size_t)u * k, T + (size_t)u * n, k);
	ret = product_create(nc, a, (int)m, (int)k, &fw);
	if (!ret && base) {
		uint8_t *g = a + (size_t)m * k;

		for (uint32_t s = 0; s < base; s++) {
			for (uint32_t u = 0; u < m; u++)
				g[(size_t)s * m + u] = e->r[(size_t)s * n + e->pivot[base + u]];
			rrow[s] = e->r + (size_t)s * n;
		}
		ret = product_create(nc, g, (int)base, (int)m, &bk);
	}
	if (!ret)
		ret = product_run_all(nc, &fw, (const uint8_t *const *)d->yrow, pn->spare, B);
	if (ret)
		goto out;
	/* nothing below fails: the backend's update cannot, given a plan */
	for (uint32_t u = 0; u < m; u++) {
		uint8_t *x = d->yrow[base + u];

		d->yrow[base + u] = pn->spare[u];
		pn->spare[u] = x;
		memcpy(e->r + (size_t)(base + u) * n, P + (size_t)u * n, n);
	}
	for (int r = 0; base && r < bk.rt; r++) {
		for (uint32_t u = 0; u < m; u++) {
			size_t done;

			nc->ops->update(nc->ctx, bk.plans[r * bk.ct], (int)u, B, d->yrow[base + u],
					d->yrow + (size_t)r * TILE, &done);
			nc->ops->update(nc->ctx, bk.plans[r * bk.ct], (int)u, n,
					e->r + (size_t)(base + u) * n, rrow + (size_t)r * TILE,
					&done);
		}
	}
out:
	product_free(nc, &fw);
	product_free(nc, &bk);
	return ret;
}

/*
 * An eager decoder's add of the block @p b whose coefficient row is in e->row: reduced against
 * the old rows and the panel (coefficients only); kept as received in the panel, which is
 * flushed when full or when the segment completes. GFEC_NC_DEPENDENT leaves the decoder as it
 * was, and so does an error.
 */
static int eager_add(gfec_nc_decoder *d, const struct gfec_nc_block *b)
{
	struct elim *e = &d->e;
	struct panel *pn = &d->pn;
	const uint32_t n = e->n, k = e->rank, base = pn->base, np = k - base;
	const int flush = k + 1 == n || np + 1 == panel_width(n, pn->width, base);
	uint8_t *row = e->row, *P = pn->p, *T = pn->t, *pnew, *tnew;
	const uint8_t *inv_t;
	int q = -1, ret;

	/* the block's row as received: the panel's slot k (recode reads it) */
	memcpy(e->r + (size_t)k * n, row, n);
	/* against the old rows: row[pivot[s]] is untouched by every other old row */
	ret = reduce_old(d, base);
	if (ret)
		return ret;
	/* against the panel's reduced rows, each 0 at the other pivots */
	for (uint32_t u = 0; u < np; u++) {
		e->f[base + u] = row[e->pivot[base + u]];
		if (e->f[base + u])
			axpy_cols(row, P + (size_t)u * n, e->f[base + u], pn->fc, pn->nfc);
	}
	for (uint32_t i = 0; i < pn->nfc && q < 0; i++)
		if (row[pn->fc[i]])
			q = (int)pn->fc[i];
	if (q < 0)
		return GFEC_NC_DEPENDENT;
	if (flush) {
		memcpy(pn->p2, P, (size_t)np * n);
		memcpy(pn->t2, T, (size_t)np * n);
		P = pn->p2;
		T = pn->t2;
	}
	inv_t = gfec_gf8_tab.mul[gfec_gf8_inv(row[q])];
	pnew = P + (size_t)np * n;
	tnew = T + (size_t)np * n;
	memset(pnew, 0, n);
	for (uint32_t i = 0; i < pn->nfc; i++)
		pnew[pn->fc[i]] = inv_t[row[pn->fc[i]]];
	memset(tnew, 0, n);
	for (uint32_t s = 0; s < base; s++)
		tnew[s] = inv_t[e->f[s]];
	tnew[k] = inv_t[1];
	for (uint32_t u = 0; u < np; u++)
		axpy(tnew, T + (size_t)u * n, inv_t[e->f[base + u]], k);
	/* clear the new pivot from the panel's other rows */
	for (uint32_t u = 0; u < np; u++) {
		const uint8_t h = P[(size_t)u * n + q];

		if (h) {
			axpy_cols(P + (size_t)u * n, pnew, h, pn->fc, pn->nfc);
			axpy(T + (size_t)u * n, tnew, h, k + 1);
		}
	}
	memcpy(d->yrow[k], b->payload, d->nc->bsize);
	e->pivot[k] = (uint32_t)q;
	if (flush) {
		ret = panel_flush(d, P, T, np + 1);
		if (ret)
			return ret;
	}
	e->slot_of[q] = (int32_t)k;
	e->rank++;
	if (flush) {
		pn->base = e->rank;
		panel_columns(d);
	}
	return e->rank == n ? GFEC_NC_COMPLETE : GFEC_NC_INNOVATIVE;
}

int gfec_nc_decoder_add(gfec_nc_decoder *d, const uint8_t *block, size_t len)
{
	struct gfec_nc_block b;
	struct elim *e;
	int q, ret;

	if (!d || !block)
		return GFEC_E_INVAL;
	if (d->lt)
		return nc_lt_decoder_add(d->lt, block, len);
	e = &d->e;
	ret = take_block(d->nc, d->segment, block, len, &b, e->row);
	if (ret) {
		d->st.refused++;
		return ret;
	}
	d->st.received++;
	if (e->rank == e->n) {
		d->st.dependent++;
		return GFEC_NC_DEPENDENT;
	}
	if (!d->c) {
		ret = eager_add(d, &b);
		if (ret == GFEC_NC_DEPENDENT) {
			d->st.dependent++;
		} else if (ret < 0) {
			d->st.received--;
			d->st.refused++;
		} else {
			d->st.innovative++;
		}
		return ret;
	}
	q = elim_reduce(e);
	if (q < 0) {
		d->st.dependent++;
		return GFEC_NC_DEPENDENT;
	}
	/* deferred: keep the block as received; the payloads wait for read() */
	const uint32_t k = e->rank;

	memcpy(d->yrow[k], b.payload, d->nc->bsize);
	if (b.kind == GFEC_NC_KIND_COEF)
		memcpy(d->c + (size_t)k * e->n, b.coefs, e->n);
	else
		seed_row(d->nc, b.seed, b.flags & GFEC_NC_SYSTEMATIC, d->c + (size_t)k * e->n);
	elim_commit(e, q);
	d->st.innovative++;
	return e->rank == e->n ? GFEC_NC_COMPLETE : GFEC_NC_INNOVATIVE;
}

int gfec_nc_decoder_read(gfec_nc_decoder *d, uint8_t *out, size_t len)
{
	const struct elim *e;
	size_t B;
	uint8_t **dst = NULL;
	struct product p = { 0 };
	int ret;

	if (!d || !out)
		return GFEC_E_INVAL;
	if (d->lt)
		return nc_lt_decoder_read(d->lt, out, len);
	e = &d->e;
	B = d->nc->bsize;
	if (len < (size_t)e->n * B)
		return GFEC_E_INVAL;
	if (e->rank < e->n)
		return GFEC_E_TOOFEW;
	if (!d->c) {
		/* eager: row s is source block pivot[s] already */
		for (uint32_t s = 0; s < e->n; s++)
			memcpy(out + (size_t)e->pivot[s] * B, d->yrow[s], B);
		return 0;
	}
	/* deferred: source block pivot[s] = sum_j M(s, j) * received_j, one n x n product */
	dst = malloc(sizeof(*dst) * e->n);
	if (!dst) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	for (uint32_t s = 0; s < e->n; s++)
		dst[s] = out + (size_t)e->pivot[s] * B;
	ret = product_create(d->nc, e->m, (int)e->n, (int)e->n, &p);
	if (!ret)
		ret = product_run_all(d->nc, &p, (const uint8_t *const *)d->yrow, dst, B);
out:
	product_free(d->nc, &p);
	free(dst);
	return ret;
}

/* ---------- recoding ---------- */

int gfec_nc_recode(gfec_nc_decoder *d, uint32_t seed, uint32_t count, uint8_t *out,
		   size_t out_len)
{
	const gfec_nc *nc = d ? d->nc : NULL;
	const size_t bytes = gfec_nc_block_bytes(nc, GFEC_NC_KIND_COEF);
	uint8_t *w = NULL, *coef = NULL;
	uint8_t **dst = NULL;
	uint32_t n, k;
	int ret = 0;

	if (!d || !out || count > INT_MAX || (uint64_t)seed + count > (1ull << 32))
		return GFEC_E_INVAL;
	if (d->lt)
		return GFEC_E_NOTSUP;
	if (count == 0)
		return 0;
	if (count > SIZE_MAX / bytes || (size_t)count * bytes > out_len)
		return GFEC_E_INVAL;
	n = nc->p.n;
	k = d->e.rank;
	if (k == 0)
		return GFEC_E_TOOFEW;
	/* the rows held: eager, the reduced ones; deferred, the received ones (same span) */
	const uint8_t *rows = d->c ? d->c : d->e.r;

	w = malloc((size_t)count * k);
	coef = malloc(n);
	dst = malloc(sizeof(*dst) * count);
	if (!w || !coef || !dst) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	for (uint32_t j = 0; j < count; j++) {
		uint8_t *blk = out + (size_t)j * bytes;
		const uint8_t *wj = w + (size_t)j * k;
		struct gfec_nc_block b = { .family = GFEC_NC_RLC, .kind = GFEC_NC_KIND_COEF,
					   .n = n, .block_size = nc->p.block_size,
					   .segment = d->segment, .coefs = coef };

		gfec_nc_prng_row(seed + j, k, nc->zero_ok, w + (size_t)j * k);
		memset(coef, 0, n);
		for (uint32_t s = 0; s < k; s++)
			axpy(coef, rows + (size_t)s * n, wj[s], n);
		gfec_nc_block_pack(&b, blk, bytes);
		dst[j] = blk + bytes - nc->bsize;
	}
	const uint8_t *const *src = (const uint8_t *const *)d->yrow;

	ret = batch_product(nc, w, (int)count, (int)k, 1, &src, (uint8_t *const *const *)&dst,
			    nc->bsize);
out:
	free(w);
	free(coef);
	free(dst);
	return ret;
}

/* ---------- the multi-segment batch decoder ---------- */

struct batch_dec {
	gfec_nc *nc;
	struct gfec_nc_batch_segment *segs;
	int fatal;
};

/* One segment: the first n independent blocks, their inverse, one product into out. */
static void batch_dec_task(void *arg, size_t i)
{
	struct batch_dec *bd = arg;
	gfec_nc *nc = bd->nc;
	struct gfec_nc_batch_segment *sg = &bd->segs[i];
	const uint32_t n = nc->p.n;
	const uint8_t **src = NULL;
	uint8_t **dst = NULL;
	struct product p = { 0 };
	struct gfec_nc_block b;
	struct elim e;
	int ret;

	sg->dependent = 0;
	ret = elim_init(&e, n, 1);
	if (ret) {
		__atomic_store_n(&bd->fatal, ret, __ATOMIC_RELAXED);
		return;
	}
	src = malloc(sizeof(*src) * n);
	dst = malloc(sizeof(*dst) * n);
	if (!src || !dst || (sg->nblocks && (!sg->blocks || !sg->lens))) {
		ret = !src || !dst ? GFEC_E_NOMEM : GFEC_E_INVAL;
		goto out;
	}
	for (uint32_t j = 0; j < sg->nblocks && e.rank < n; j++) {
		int q;

		ret = sg->blocks[j] ? take_block(nc, sg->id, sg->blocks[j], sg->lens[j], &b, e.row)
				    : GFEC_E_INVAL;
		if (ret)
			goto out;
		q = elim_reduce(&e);
		if (q < 0) {
			sg->dependent++;
			continue;
		}
		src[e.rank] = b.payload;
		elim_commit(&e, q);
	}
	if (e.rank < n) {
		ret = GFEC_E_TOOFEW;
		goto out;
	}
	for (uint32_t s = 0; s < n; s++)
		dst[s] = sg->out + (size_t)e.pivot[s] * nc->bsize;
	ret = product_create(nc, e.m, (int)n, (int)n, &p);
	if (!ret)
		ret = product_run_all(nc, &p, src, dst, nc->bsize);
	if (ret == GFEC_E_NOMEM)
		__atomic_store_n(&bd->fatal, ret, __ATOMIC_RELAXED);
out:
	product_free(nc, &p);
	elim_free(&e);
	free(src);
	free(dst);
	sg->status = ret;
}

int gfec_nc_decode_batch(gfec_nc *nc, struct gfec_nc_batch_segment *segs, int nseg)
{
	struct batch_dec bd = { .nc = nc, .segs = segs };
	int ret;

	if (!nc || !segs || nseg < 1)
		return GFEC_E_INVAL;
	for (int i = 0; i < nseg; i++)
		if (!segs[i].out)
			return GFEC_E_INVAL;
	if (nc->lt) {
		/* no GPU LT decoder: device memory, which the CPU cannot read, is refused */
		for (int i = 0; i < nseg && nc->gpu; i++)
			if (gfec_nc_gpu_is_device(nc->gpu, segs[i].out) ||
			    (segs[i].nblocks && segs[i].blocks &&
			     gfec_nc_gpu_is_device(nc->gpu, segs[i].blocks[0])))
				return GFEC_E_NOTSUP;
		return nc_lt_decode_batch(nc->lt, segs, nseg);
	}
	ret = gfec_nc_gpu_decode_batch(nc->gpu, &nc->p, segs, nseg);
	if (ret != GFEC_NC_GPU_PASS)
		return ret;
	if (nc->pool)
		gfec_cpu_pool_run(nc->pool, (size_t)nseg, batch_dec_task, &bd);
	else
		for (int i = 0; i < nseg; i++)
			batch_dec_task(&bd, (size_t)i);
	if (bd.fatal)
		return bd.fatal;
	for (int i = 0; i < nseg; i++)
		if (segs[i].status)
			return GFEC_E_TOOFEW;
	return 0;
}
