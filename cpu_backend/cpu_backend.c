/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file cpu_backend.c
 * The CPU paths behind the backend table: gfec's GFNI or AVX2 kernels, ISA-L, or the plain-C
 * reference, chosen once per context (auto: the best this CPU has). Long buffers are cut into
 * slices (64 KiB per stream by default, so one slice of a (10,4) stripe stays in L2; longer for
 * some GFNI products, slice_bytes()) that the pool's threads claim in turn.
 */
#include "cpu_backend.h"

#include <isa-l/erasure_code.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gf16.h"
#include "gf8.h"
#include "gfec/gfec_errors.h"
#include "threadpool.h"

/* The longest slice of a GFNI product in one pass over the sources (slice_bytes()). */
#define LONG_SLICE ((size_t)1 << 20)
/* Below this many bytes per stream, threads cost more than they save. */
#define PARALLEL_MIN (128u * 1024)
/* ISA-L takes an int length; serial calls are cut at this size. */
#define SERIAL_SLICE (1u << 30)
/*
 * w = 16 on AVX2: a plan keeps its matrix's nibble tables (128 bytes per coefficient) up to this
 * size; a larger matrix (k = 10000, m = 1000: 1.3 GB of tables) has them made per slice, a few
 * rows at a time (about GF16_ROW_TABLES bytes), which costs 64 multiplies per coefficient per
 * slice against the kernel's 1024 table lookups per coefficient for a 64 KiB slice.
 */
#define GF16_PLAN_TABLES (64u << 20)
#define GF16_ROW_TABLES (4u << 20)
/*
 * A w = 16 gemm costs rows x cols multiply-adds per symbol (200,000 at (1000,200)), so a stripe
 * far under PARALLEL_MIN is still worth every thread: its tasks are cut down to this many
 * coefficient-bytes (rows x cols x bytes; about 0.1 ms of the AVX2 kernel), and to
 * GF16_SETUP_TASK_MIN bytes where each task first makes tables (or a Cauchy form's rows).
 */
#define GF16_TASK_MIN (1u << 20)
#define GF16_SETUP_TASK_MIN (16u * 1024)

struct cpu_ctx {
	enum gfec_cpu_path path; /* never GFEC_CPU_AUTO */
	size_t slice;
	int long_slices; /* the slice not set: one-pass GFNI products cut longer (slice_bytes()) */
	size_t stream_min; /* GFNI gemm calls with len >= this store by non-temporal stores; 0: never */
	int prefetch[GFEC_GFNI_STREAM + 1]; /* per GFNI mode, what gfec_cpu_gfni_prefetch() adds */
	struct gfec_cpu_pool *pool; /* NULL when running on one thread */
};

struct cpu_plan {
	int rows, cols;
	uint8_t *a;	/* rows x cols */
	uint8_t *tbls;	/* ISA-L's 32 * rows * cols expanded tables (byte layout) */
	uint64_t *mats;	/* GFNI paths: rows x cols affine matrices, one per coefficient */
	size_t packetsize; /* > 0: CRS packet layout, through bits */
	uint8_t *bits;	/* 8rows x 8cols bitmatrix (CRS layout) */
	unsigned w;	/* 8, or 16: a16 (and tbl16 on AVX2) instead of a */
	uint16_t *a16;	/* rows x cols (w = 16); NULL: the Cauchy form in form */
	uint16_t *form;	/* x, log r (rows), y, log c (cols): A(i,j) = r_i c_j / (x_i ^ y_j) */
	int avx2;	/* w = 16 runs the AVX2 kernel (else the plain-C one) */
	uint8_t *tbl16;	/* its tables of a16; NULL on the base path or beyond GF16_PLAN_TABLES */
};

struct slice_job {
	const struct cpu_ctx *ctx;
	const struct cpu_plan *plan;
	size_t len, slice;
	size_t per;	/* w = 16: tasks (slices) per stripe; task t is slice t % per of stripe t / per */
	int col;	/* < 0: gemm; else the column to update */
	int stream;	/* a GFNI gemm whose outputs are 64-byte aligned: non-temporal stores */
	const uint8_t *const *src;
	uint8_t *const *dst;
	int err;	/* a slice's GFEC_E_NOMEM (w = 16 gemm: big shapes, Cauchy forms) */
};

/*
 * Cauchy forms are held as logarithms (r, c nonzero): A(i,j) = exp(lr_i + lc_j - log(x_i ^ y_j)),
 * two lookups per element. The exponent is reduced into [0, 65535) so that adding a symbol's
 * log stays inside the doubled exp table.
 */
static unsigned gf16_form_log(const struct cpu_plan *p, size_t i, size_t j)
{
	const uint16_t *x = p->form, *lr = x + p->rows, *y = lr + p->rows, *lc = y + p->cols;
	unsigned e = (unsigned)lr[i] + lc[j] + 65535u - gfec_gf16_tab.log[x[i] ^ y[j]];

	e = e >= 65535u ? e - 65535u : e;
	return e >= 65535u ? e - 65535u : e;
}

/* A(i, j) of a w = 16 plan, from its matrix or its Cauchy form. */
static uint16_t gf16_elem(const struct cpu_plan *p, size_t i, size_t j)
{
	if (p->a16)
		return p->a16[i * (size_t)p->cols + j];
	return gfec_gf16_tab.exp[gf16_form_log(p, i, j)];
}

/* Rows r0..r0+nr-1 of a Cauchy-form plan into @p out (nr x cols). */
static void gf16_form_rows(const struct cpu_plan *p, size_t r0, int nr, uint16_t *out)
{
	for (size_t i = 0; i < (size_t)nr; i++)
		for (size_t j = 0; j < (size_t)p->cols; j++)
			out[i * (size_t)p->cols + j] = gf16_elem(p, r0 + i, j);
}

/* Slices of a Cauchy form up to this many bytes are multiplied in the log domain. */
#define GF16_FORM_SHORT 128

/*
 * dst = A x src for a short slice of a Cauchy form: at a few symbols per source, the nibble
 * tables (128 bytes per coefficient) would cost more than the products, so each product is
 * exp(log A(i,j) + log s), with the sources' logs taken once. @p n is even.
 */
static int gf16_form_short(size_t n, const struct cpu_plan *p, const uint8_t *const *src,
			   uint8_t *const *dst)
{
	const size_t ns = n / 2, cols = (size_t)p->cols;
	uint16_t *ls = malloc(sizeof(*ls) * (cols * ns + ns)), *acc;

	if (!ls)
		return GFEC_E_NOMEM;
	acc = ls + cols * ns;
	for (size_t j = 0; j < cols; j++)
		for (size_t b = 0; b < ns; b++) {
			const uint16_t s = (uint16_t)(src[j][2 * b] | src[j][2 * b + 1] << 8);

			ls[j * ns + b] = s ? gfec_gf16_tab.log[s] : 0xffff;
		}
	for (size_t i = 0; i < (size_t)p->rows; i++) {
		memset(acc, 0, sizeof(*acc) * ns);
		for (size_t j = 0; j < cols; j++) {
			const unsigned e = gf16_form_log(p, i, j);
			const uint16_t *l = ls + j * ns;

			for (size_t b = 0; b < ns; b++)
				if (l[b] != 0xffff)
					acc[b] ^= gfec_gf16_tab.exp[l[b] + e];
		}
		for (size_t b = 0; b < ns; b++) {
			dst[i][2 * b] = (uint8_t)acc[b];
			dst[i][2 * b + 1] = (uint8_t)(acc[b] >> 8);
		}
	}
	free(ls);
	return 0;
}

/* Rows r0..r0+nr-1 (nr <= GFEC_MAX_CHUNKS) of a w = 16 update: dst[i] ^= A(r0+i, col) * src. */
static void gf16_update_rows(size_t n, int col, const struct cpu_plan *p, int r0, int nr,
			     const uint8_t *src, uint8_t *const *dst)
{
	uint8_t tcol[GFEC_MAX_CHUNKS * GFEC_CPU_GF16_TABLE];
	uint16_t acol[GFEC_MAX_CHUNKS];

	for (int i = 0; i < nr; i++) {
		const size_t e = (size_t)(r0 + i) * p->cols + col;

		acol[i] = gf16_elem(p, (size_t)(r0 + i), (size_t)col);
		if (p->tbl16)
			memcpy(tcol + (size_t)i * GFEC_CPU_GF16_TABLE,
			       p->tbl16 + e * GFEC_CPU_GF16_TABLE, GFEC_CPU_GF16_TABLE);
	}
	if (p->avx2 && !p->tbl16)
		gfec_cpu_gf16_tables(acol, (size_t)nr, tcol);
	if (!p->avx2 || gfec_cpu_gemm16_avx2(n, 1, nr, tcol, &src, dst, 1))
		gfec_cpu_gemm16_base(n, 1, nr, acol, &src, dst, 1);
}

/*
 * dst = A x src at w = 16, through the plan's tables, or tables (and, for a Cauchy form, the
 * rows themselves) made here a few rows at a time. Should the AVX2 kernel find no memory for its
 * scratch (or its tables), the rows are computed by the plain-C kernel, which needs none; a
 * Cauchy form's rows need memory: GFEC_E_NOMEM without it.
 */
static int gf16_gemm(size_t n, const struct cpu_plan *p, const uint8_t *const *src,
		     uint8_t *const *dst)
{
	const size_t row_tables = (size_t)p->cols * GFEC_CPU_GF16_TABLE;
	size_t nr = GF16_ROW_TABLES / row_tables;
	uint16_t *rows = NULL;
	uint8_t *t = NULL;

	if (p->a16 && (!p->avx2 || p->tbl16)) {
		if (!p->tbl16 || gfec_cpu_gemm16_avx2(n, p->cols, p->rows, p->tbl16, src, dst, 0))
			gfec_cpu_gemm16_base(n, p->cols, p->rows, p->a16, src, dst, 0);
		return 0;
	}
	if (!p->a16 && n <= GF16_FORM_SHORT)
		return gf16_form_short(n, p, src, dst);
	nr = nr < 1 ? 1 : nr > (size_t)p->rows ? (size_t)p->rows : nr;
	if (!p->a16) {
		rows = malloc(sizeof(*rows) * nr * p->cols);
		if (!rows)
			return GFEC_E_NOMEM;
	}
	if (p->avx2)
		t = malloc(nr * row_tables);
	for (size_t r0 = 0; r0 < (size_t)p->rows; r0 += nr) {
		const int r = (int)((size_t)p->rows - r0 < nr ? (size_t)p->rows - r0 : nr);
		const uint16_t *a = p->a16 ? p->a16 + r0 * (size_t)p->cols : rows;

		if (rows)
			gf16_form_rows(p, r0, r, rows);
		if (t)
			gfec_cpu_gf16_tables(a, (size_t)r * p->cols, t);
		if (!t || gfec_cpu_gemm16_avx2(n, p->cols, r, t, src, dst + r0, 0))
			gfec_cpu_gemm16_base(n, p->cols, r, a, src, dst + r0, 0);
	}
	free(t);
	free(rows);
	return 0;
}

/*
 * A w = 16 slice at byte @p off of stripe @p s (0 for an update). An update runs 256 rows at a
 * time on the stack, so it cannot fail; a product with more than 256 rows or columns takes its
 * pointer arrays from the heap.
 */
static void gf16_slice(struct slice_job *j, size_t s, size_t off, size_t n)
{
	const struct cpu_plan *p = j->plan;
	const uint8_t *src_s[GFEC_MAX_CHUNKS], **src = src_s;
	uint8_t *dst_s[GFEC_MAX_CHUNKS], **dst = dst_s;
	void *heap = NULL;

	if (j->col >= 0) {
		for (int r0 = 0; r0 < p->rows; r0 += GFEC_MAX_CHUNKS) {
			const int left = p->rows - r0;
			const int nr = left < GFEC_MAX_CHUNKS ? left : GFEC_MAX_CHUNKS;

			for (int i = 0; i < nr; i++)
				dst[i] = j->dst[r0 + i] + off;
			gf16_update_rows(n, j->col, p, r0, nr, j->src[0] + off, dst);
		}
		return;
	}
	if (p->cols > GFEC_MAX_CHUNKS || p->rows > GFEC_MAX_CHUNKS) {
		heap = malloc(sizeof(void *) * ((size_t)p->cols + (size_t)p->rows));
		if (!heap) {
			__atomic_store_n(&j->err, GFEC_E_NOMEM, __ATOMIC_RELAXED);
			return;
		}
		src = heap;
		dst = (uint8_t **)(src + p->cols);
	}
	for (int i = 0; i < p->cols; i++)
		src[i] = j->src[s * (size_t)p->cols + i] + off;
	for (int i = 0; i < p->rows; i++)
		dst[i] = j->dst[s * (size_t)p->rows + i] + off;
	if (gf16_gemm(n, p, src, dst))
		__atomic_store_n(&j->err, GFEC_E_NOMEM, __ATOMIC_RELAXED);
	free(heap);
}

static void run_slice(void *arg, size_t index)
{
	struct slice_job *j = arg;
	const struct cpu_plan *p = j->plan;
	size_t off = index * j->slice;
	size_t n = j->len - off < j->slice ? j->len - off : j->slice;
	uint8_t *src[GFEC_MAX_CHUNKS], *dst[GFEC_MAX_CHUNKS];
	int nsrc = j->col < 0 ? p->cols : 1;

	if (p->w == 16) {
		gf16_slice(j, 0, off, n);
		return;
	}

	/* ISA-L's prototypes take non-const pointers; it only reads the sources. */
	for (int i = 0; i < nsrc; i++)
		src[i] = (uint8_t *)j->src[i] + off;
	for (int i = 0; i < p->rows; i++)
		dst[i] = j->dst[i] + off;

	if (p->packetsize) {
		gfec_cpu_bitmatrix_base(n, p->cols, p->rows, j->col, p->bits, p->packetsize,
					(const uint8_t *const *)src, dst);
	} else if (p->mats) {
		/* a slice at a 64-byte multiple keeps the outputs' alignment */
		const int mode = j->stream && off % 64 == 0 ? GFEC_GFNI_STREAM : GFEC_GFNI_SET;

		gfec_cpu_gfni_apply(j->ctx->path, n, p->cols, p->rows, p->mats, j->col,
				    mode | j->ctx->prefetch[mode], (const uint8_t *const *)src,
				    dst);
	} else if (j->ctx->path == GFEC_CPU_AVX2) {
		gfec_cpu_avx2_apply(n, p->cols, p->rows, p->tbls, j->col,
				    (const uint8_t *const *)src, dst);
	} else if (j->ctx->path == GFEC_CPU_BASE) {
		if (j->col < 0)
			gfec_cpu_gemm_base(n, p->cols, p->rows, p->a, (const uint8_t *const *)src,
					   dst);
		else
			gfec_cpu_update_base(n, p->cols, p->rows, j->col, p->a, src[0], dst);
	} else {
		if (j->col < 0)
			ec_encode_data((int)n, p->cols, p->rows, p->tbls, src, dst);
		else
			ec_encode_data_update((int)n, p->cols, p->rows, j->col, p->tbls, src[0],
					      dst);
	}
}

/* Task @p index of a w = 16 gemm over several stripes (gf16_run). */
static void run_gf16_task(void *arg, size_t index)
{
	struct slice_job *j = arg;
	const size_t off = index % j->per * j->slice;

	gf16_slice(j, index / j->per, off, j->len - off < j->slice ? j->len - off : j->slice);
}

/*
 * Bytes per task of a w = 16 gemm of @p nstripes stripes on @p threads threads: whole 64-byte
 * groups (the AVX2 kernel's unit, so that only a stripe's last task has a scalar tail), as many
 * tasks per stripe as give every thread one when there are fewer stripes than threads, none
 * longer than the context's slice (long stripes are cut as at w = 8) and none shorter than
 * GF16_TASK_MIN (GF16_SETUP_TASK_MIN) allows. One thread: a stripe per task.
 */
static size_t gf16_task_bytes(const struct cpu_ctx *c, const struct cpu_plan *p, size_t len,
			      int nstripes, int threads)
{
	const size_t want = nstripes >= threads ? 1 : (size_t)(threads + nstripes - 1) / nstripes;
	const int setup = !p->a16 || (p->avx2 && !p->tbl16);
	size_t least = GF16_TASK_MIN / ((size_t)p->rows * p->cols);
	size_t most = c->slice / 64 * 64, slice;

	if (threads < 2)
		return len;
	if (setup && least < GF16_SETUP_TASK_MIN)
		least = GF16_SETUP_TASK_MIN;
	least = (least + 63) / 64 * 64;
	least = least < 64 ? 64 : least;
	most = most < least ? least : most;
	slice = ((len + want - 1) / want + 63) / 64 * 64;
	slice = slice > most ? most : slice;
	return slice < least ? least : slice;
}

/* A w = 16 gemm: every stripe's tasks in one job. 0, or the first error a task met. */
static int gf16_run(struct cpu_ctx *c, struct slice_job *j, int nstripes)
{
	const int threads = c->pool ? gfec_cpu_pool_threads(c->pool) : 1;
	size_t ntasks;

	if (j->len == 0 || nstripes < 1)
		return 0;
	j->slice = gf16_task_bytes(c, j->plan, j->len, nstripes, threads);
	j->per = (j->len + j->slice - 1) / j->slice;
	ntasks = j->per * (size_t)nstripes;
	if (c->pool && ntasks > 1) {
		gfec_cpu_pool_run(c->pool, ntasks, run_gf16_task, j);
		return __atomic_load_n(&j->err, __ATOMIC_RELAXED);
	}
	for (size_t i = 0; i < ntasks; i++)
		run_gf16_task(j, i);
	return j->err;
}

/*
 * The slices a parallel call of @p j->len bytes per stream is cut in, whole @p units: the
 * context's, or by default GFEC_CPU_SLICE, so that a slice's sources stay in L2 while each group
 * of outputs reads them again. A GFNI product whose outputs all go in one pass reads each source
 * once; where it runs without prefetching (gfec_cpu_gfni_prefetch()), the hardware prefetchers
 * carry its loads and start over at each slice, so it takes len / (4 x threads), from
 * GFEC_CPU_SLICE up to LONG_SLICE, still four slices a thread. RS(10,4), 16 MiB chunks, from
 * DRAM, on all cores, in 64 KiB slices and in these (prefetch-2026-11-25 in the results of
 * dev-epyc-zen5-2core and of nvidia-h200): a Zen 5 EPYC's two cores, by non-temporal stores
 * without prefetching, 34.6-35.3 -> mostly 40.2-43.1 GB/s; the H200 host's 16 Xeon threads,
 * prefetching, 97.8-101.1 -> 90.5-96.5 (so not there).
 */
size_t gfec_cpu_long_slice(size_t len, int threads)
{
	const size_t even = len / (4 * (size_t)threads) / 64 * 64;

	return even > LONG_SLICE ? LONG_SLICE : even;
}

static size_t slice_bytes(const struct cpu_ctx *c, const struct slice_job *j, size_t unit)
{
	const struct cpu_plan *p = j->plan;
	const int group = c->path == GFEC_CPU_GFNI512 ? GFEC_GFNI_GROUP512 : GFEC_GFNI_GROUP256;
	const int mode = j->stream ? GFEC_GFNI_STREAM : GFEC_GFNI_SET;
	size_t slice = c->slice;

	if (c->long_slices && p->mats && p->rows <= group && !c->prefetch[mode]) {
		const size_t even = gfec_cpu_long_slice(j->len, gfec_cpu_pool_threads(c->pool));

		slice = even > slice ? even : slice;
	}
	return slice < unit ? unit : slice / unit * unit;
}

/* 0, or the first error a slice met (the other slices still ran). */
static int run_sliced(struct cpu_ctx *c, struct slice_job *j)
{
	size_t ntasks;

	if (j->len == 0)
		return 0;
	/* CRS slices hold whole blocks of 8 packets; w = 16 slices whole symbols. */
	const size_t unit = j->plan->packetsize ? 8 * j->plan->packetsize : j->plan->w / 8;

	if (c->pool && j->len >= PARALLEL_MIN) {
		j->slice = slice_bytes(c, j, unit);
		ntasks = (j->len + j->slice - 1) / j->slice;
		gfec_cpu_pool_run(c->pool, ntasks, run_slice, j);
		return __atomic_load_n(&j->err, __ATOMIC_RELAXED);
	}
	if (j->len <= SERIAL_SLICE) { /* whole symbols or blocks already (the ops check) */
		j->slice = j->len;
		run_slice(j, 0);
		return j->err;
	}
	j->slice = SERIAL_SLICE / unit * unit;
	ntasks = (j->len + j->slice - 1) / j->slice;
	for (size_t i = 0; i < ntasks; i++)
		run_slice(j, i);
	return j->err;
}

static int cpu_init(const struct gfec_backend_conf *conf, void **out)
{
	struct cpu_ctx *c;
	int threads = conf ? conf->threads : 0;
	int ret;

	gfec_gf8_init();
	gfec_gf16_init();
	c = calloc(1, sizeof(*c));
	if (!c)
		return GFEC_E_NOMEM;
	ret = gfec_cpu_path_parse(conf ? conf->path : NULL, &c->path);
	if (!ret && !gfec_cpu_path_supported(c->path))
		ret = GFEC_E_NOTSUP;
	if (ret) {
		free(c);
		return ret;
	}
	if (c->path == GFEC_CPU_AUTO)
		c->path = gfec_cpu_path_best();
	c->slice = conf && conf->slice ? conf->slice : GFEC_CPU_SLICE;
	c->long_slices = !(conf && conf->slice);
	c->stream_min = gfec_cpu_stream_min(conf ? conf->stream_min : 0);
	for (int mode = GFEC_GFNI_SET; mode <= GFEC_GFNI_STREAM; mode++)
		c->prefetch[mode] = gfec_cpu_gfni_prefetch(mode) & GFEC_GFNI_PREFETCH;
	if (threads <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		threads = n > 0 ? (int)(n > 1024 ? 1024 : n) : 1;
	}
	if (threads > 1) {
		ret = gfec_cpu_pool_create(threads, &c->pool);
		if (ret) {
			free(c);
			return ret;
		}
	}
	*out = c;
	return 0;
}

static void cpu_fini(void *ctx)
{
	struct cpu_ctx *c = ctx;

	if (!c)
		return;
	gfec_cpu_pool_destroy(c->pool);
	free(c);
}

static int cpu_can_implement(void *ctx, const struct gfec_gemm_matrix *a)
{
	const int most = a->w == 16 ? GFEC_MAX_CHUNKS_GF16 : GFEC_MAX_CHUNKS;

	(void)ctx;
	if ((a->w != 8 && a->w != 16) || a->rows < 1 || a->cols < 1 || a->rows > most ||
	    a->cols > most || a->packetsize % 8 || (a->w == 16 && a->packetsize) ||
	    (!a->a && (a->w != 16 || !a->cx || !a->cr || !a->cy || !a->cc)))
		return GFEC_E_NOTSUP;
	return 0;
}

static void cpu_plan_free(void *ctx, void *plan)
{
	struct cpu_plan *p = plan;

	(void)ctx;
	if (!p)
		return;
	free(p->a);
	free(p->tbls);
	free(p->mats);
	free(p->bits);
	free(p->a16);
	free(p->form);
	free(p->tbl16);
	free(p);
}

/* A Cauchy form is usable when its scalars are nonzero and its row and column points disjoint. */
static int form_ok(const struct gfec_gemm_matrix *a)
{
	uint64_t seen[65536 / 64] = { 0 };

	for (int j = 0; j < a->cols; j++) {
		if (!a->cc[j])
			return 0;
		seen[a->cy[j] / 64] |= 1ull << (a->cy[j] % 64);
	}
	for (int i = 0; i < a->rows; i++)
		if (!a->cr[i] || (seen[a->cx[i] / 64] >> (a->cx[i] % 64) & 1))
			return 0;
	return 1;
}

static int cpu_plan_create(void *ctx, const struct gfec_gemm_matrix *a, void **out)
{
	const struct cpu_ctx *c = ctx;
	const int gfni = gfec_cpu_path_gfni(c->path);
	struct cpu_plan *p;
	size_t n;

	if (cpu_can_implement(ctx, a))
		return GFEC_E_NOTSUP;
	if (!a->a && !form_ok(a))
		return GFEC_E_INVAL;
	n = (size_t)a->rows * a->cols;
	p = calloc(1, sizeof(*p));
	if (!p)
		return GFEC_E_NOMEM;
	p->rows = a->rows;
	p->cols = a->cols;
	p->packetsize = a->packetsize;
	p->w = a->w;
	if (p->w == 16) {
		const int tables = GFEC_CPU_GF16_TABLE * n <= GF16_PLAN_TABLES;

		const size_t rs = sizeof(uint16_t) * (size_t)p->rows,
			     cs = sizeof(uint16_t) * (size_t)p->cols;

		p->avx2 = c->path != GFEC_CPU_BASE && gfec_cpu_avx2_supported();
		if (!a->a) { /* Cauchy form: its rows are made per slice */
			p->form = malloc(2 * (rs + cs));
			if (!p->form) {
				cpu_plan_free(ctx, p);
				return GFEC_E_NOMEM;
			}
			uint16_t *x = p->form, *lr = x + p->rows, *y = lr + p->rows,
				 *lc = y + p->cols;

			for (int i = 0; i < p->rows; i++) {
				x[i] = a->cx[i];
				lr[i] = gfec_gf16_tab.log[a->cr[i]];
			}
			for (int j = 0; j < p->cols; j++) {
				y[j] = a->cy[j];
				lc[j] = gfec_gf16_tab.log[a->cc[j]];
			}
			*out = p;
			return 0;
		}
		p->a16 = malloc(sizeof(uint16_t) * n);
		p->tbl16 = p->avx2 && tables ? malloc(GFEC_CPU_GF16_TABLE * n) : NULL;
		if (!p->a16 || (p->avx2 && tables && !p->tbl16)) {
			cpu_plan_free(ctx, p);
			return GFEC_E_NOMEM;
		}
		memcpy(p->a16, a->a, sizeof(uint16_t) * n);
		if (p->tbl16)
			gfec_cpu_gf16_tables(p->a16, n, p->tbl16);
		*out = p;
		return 0;
	}
	p->a = malloc(n);
	if (p->packetsize)
		p->bits = malloc(64 * n);
	else if (gfni)
		p->mats = malloc(sizeof(*p->mats) * n);
	else
		p->tbls = malloc(32 * n);
	if (!p->a || (!p->bits && !p->tbls && !p->mats)) {
		cpu_plan_free(ctx, p);
		return GFEC_E_NOMEM;
	}
	memcpy(p->a, a->a, n);
	if (p->packetsize)
		gfec_gf8_to_bitmatrix(p->a, p->rows, p->cols, p->bits);
	else if (gfni)
		gfec_cpu_gfni_matrices(p->a, n, p->mats);
	else if (c->path == GFEC_CPU_AVX2)
		gfec_cpu_avx2_tables(p->a, n, p->tbls);
	else
		ec_init_tables(p->cols, p->rows, p->a, p->tbls);
	*out = p;
	return 0;
}

/* 1 when a GFNI gemm of @p len bytes into these outputs should use non-temporal stores. */
static int use_stream(const struct cpu_ctx *c, const struct cpu_plan *p, size_t len,
		      uint8_t *const *dst)
{
	if (!p->mats || !c->stream_min || len < c->stream_min)
		return 0;
	for (int i = 0; i < p->rows; i++)
		if ((uintptr_t)dst[i] % 64)
			return 0;
	return 1;
}

static int cpu_gemm(void *ctx, const void *plan, int nstripes, size_t len,
		    const uint8_t *const *src, uint8_t *const *dst)
{
	const struct cpu_plan *p = plan;

	if ((p->packetsize && len % (8 * p->packetsize)) || (p->w == 16 && len % 2))
		return GFEC_E_INVAL;
	if (p->w == 16) {
		struct slice_job j = { .ctx = ctx, .plan = plan, .len = len, .col = -1,
				       .src = src, .dst = dst };

		return gf16_run(ctx, &j, nstripes);
	}
	for (int s = 0; s < nstripes; s++) {
		struct slice_job j = { .ctx = ctx, .plan = plan, .len = len, .col = -1,
				       .src = src + (size_t)s * p->cols,
				       .dst = dst + (size_t)s * p->rows };
		int ret;

		j.stream = use_stream(ctx, p, len, j.dst);
		ret = run_sliced(ctx, &j);

		if (ret)
			return ret;
	}
	return 0;
}

static int cpu_update(void *ctx, const void *plan, int col, size_t len, const uint8_t *src,
		      uint8_t *const *dst, size_t *done)
{
	const struct cpu_plan *p = plan;
	struct slice_job j = { .ctx = ctx, .plan = plan, .len = len, .col = col,
			       .src = &src, .dst = dst };

	*done = 0;
	if (col < 0 || col >= p->cols || (p->packetsize && len % (8 * p->packetsize)) ||
	    len % (p->w / 8))
		return GFEC_E_INVAL;
	run_sliced(ctx, &j); /* an update's slices cannot fail */
	*done = len;
	return 0;
}

static const char *cpu_path_name(void *ctx)
{
	return gfec_cpu_path_name(((struct cpu_ctx *)ctx)->path);
}

static int cpu_butterfly16(void *ctx, int kind, int n, size_t len, uint8_t *const *x,
			   uint8_t *const *y, const uint16_t *c)
{
	const struct cpu_ctx *cc = ctx;

	return gfec_cpu_bfly16_run(cc->pool, cc->path == GFEC_CPU_BASE, kind, n, len, x, y, c);
}

static const struct gfec_backend_ops cpu_ops = {
	.name = "cpu",
	.init = cpu_init,
	.fini = cpu_fini,
	.can_implement = cpu_can_implement,
	.plan_create = cpu_plan_create,
	.plan_free = cpu_plan_free,
	.gemm = cpu_gemm,
	.update = cpu_update,
	.path_name = cpu_path_name,
	.butterfly16 = cpu_butterfly16,
};

const struct gfec_backend_ops *gfec_cpu_backend(void)
{
	return &cpu_ops;
}
