/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc_gpu.c
 * RLC encode and batch decode, and LT encode, on the GPU (nc_gpu.h, gfec_nc.h's gfec_nc_backend):
 * headers are built on the host as nc.c and nc_lt.c build them, payloads are computed by
 * cuda_gemm's gfec_gpu_nc.h and gfec_gpu_lt.h.
 *
 *   encode   device buffers: headers (and a systematic code's source blocks) go into the blocks
 *            in one copy launch, the coded payloads straight from gfec_gpu_nc_encode. Host
 *            buffers (backend=gpu): the segments are uploaded, the payloads come back into the
 *            blocks, headers and source blocks are written by the CPU. LT the same way, its
 *            payloads from gfec_gpu_lt_encode (one launch sequence for every segment).
 *   decode   round 1 sends each segment's first n blocks to the GPU, which inverts and applies
 *            them: device blocks go as they are (gfec_gpu_nc_decode_blocks reads the headers on
 *            the device), host blocks' headers are read here. A segment the GPU finds singular
 *            or with a bad block among its first n, or that has fewer than n blocks, is
 *            eliminated on the host on its coefficients alone (device blocks: those segments'
 *            headers gathered in one copy launch), block by block as nc.c's CPU decoder does,
 *            and round 2 decodes the n blocks it kept.
 *
 * Several contexts (gpu_devices=, issue 18): each call's segments are cut into consecutive shares,
 * one per context, in proportion to the contexts' measured rates (split.h, as multi.cu cuts RS
 * stripes); segments in one GPU's memory go to that GPU's contexts only. Every context but the
 * first runs its shares on a thread of its own, the caller's thread the first's:
 *
 *   segments  [0 ........ a)[a ........ b)[b ...... nseg)     host memory: any context
 *                 ctx 0         ctx 1         ctx 2           device: the contexts on its GPU
 *
 * A share that fails with GFEC_E_DEVICE is cut again among the contexts that have not failed in
 * this call and redone there (its outputs are written whole again; the context's failures
 * count it, and it sits out the next NC_DOWN_CALLS calls). When none is left, every GPU error on
 * host buffers makes the whole call PASS to the CPU (a fallback); on device buffers it is the
 * call's result.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gf8.h"
#include "internal.h"
#include "nc_gpu.h"
#include "nc_prng.h"
#include "threadpool.h"

#ifdef GFEC_HAVE_CUDA
#include "gfec_gpu.h"
#include "gfec_gpu_lt.h"
#include "gfec_gpu_nc.h"
#include "device/split.h"
#include "nc_hdr.h"

/* gfec_gpu_nc_decode_blocks reads headers with nc_hdr.h: its constants are gfec_nc.h's. */
_Static_assert(GFEC_NC_HDR_FIXED == GFEC_NC_HEADER_FIXED && GFEC_NC_HDR_VERSION == GFEC_NC_VERSION &&
		       GFEC_NC_HDR_RLC == GFEC_NC_RLC && GFEC_NC_HDR_SEED == GFEC_NC_KIND_SEED &&
		       GFEC_NC_HDR_COEF == GFEC_NC_KIND_COEF &&
		       GFEC_NC_HDR_SYS == GFEC_NC_SYSTEMATIC && GFEC_NC_HDR_ZERO == GFEC_NC_ZERO_COEFS,
	       "nc_hdr.h and gfec_nc.h disagree on the block format");
#endif

/* A failed context sits out this many calls; the newest rate sample's weight. */
#define NC_DOWN_CALLS 64
#define NC_EWMA 0.25
/* Segment bytes per share below which a call is not cut (gpu_split_min = 0). */
#define NC_SPLIT_MIN ((size_t)1 << 20)

/* One device context (one of gfec_gpu_backend()'s) and its counters, under gfec_nc_gpu.lock. */
struct nc_ctx {
	void *ctx;
	int ordinal;
	uint64_t down_until; /* gfec_nc_gpu.seq before which it sits out */
	uint64_t calls, bytes, failures;
	double rate_host, rate_dev; /* EWMA of segment bytes per second */
};

struct gfec_nc_gpu {
	const struct gfec_backend_ops *ops;
	struct gfec_nc_params p; /* the code's shape */
	struct nc_ctx c[GFEC_MAX_GPU_CONTEXTS];
	int nctx;
	int one_gpu;	    /* every context on one GPU: device buffers need no look-up */
	size_t split_min;   /* segment bytes per share below which a call is not cut */
	pthread_mutex_t lock;
	uint64_t seq;	    /* calls so far, under lock */
	int always;	    /* backend=gpu: host buffers too */
	uint32_t max_n;	    /* widest n the GPU decoder takes, on every context */
	uint64_t gpu_calls; /* atomic */
	uint64_t fallbacks; /* atomic */
};

void gfec_nc_gpu_stats(const struct gfec_nc_gpu *g, struct gfec_nc_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!g)
		return;
	out->gpu = 1;
	out->gpu_calls = __atomic_load_n(&g->gpu_calls, __ATOMIC_RELAXED);
	out->fallbacks = __atomic_load_n(&g->fallbacks, __ATOMIC_RELAXED);
}

void gfec_nc_gpu_free(struct gfec_nc_gpu *g)
{
	if (!g)
		return;
	for (int i = 0; i < g->nctx; i++)
		g->ops->fini(g->c[i].ctx);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

/*
 * The contexts' ordinals, as a codec takes them (profile.c): gpu_devices unless gpu_device was
 * set where it outranks it, else gpu_device alone. Returns how many.
 */
static int context_list(const struct gfec_settings *set, int *ord)
{
	const struct gfec_knob_value *v = set->v;
	int n = 0;

	if (v[GFEC_KNOB_GPU_DEVICES].text[0] &&
	    v[GFEC_KNOB_GPU_DEVICE].origin <= v[GFEC_KNOB_GPU_DEVICES].origin &&
	    gfec_parse_gpu_devices(v[GFEC_KNOB_GPU_DEVICES].text, ord, &n) == 0 && n < 0) {
		n = 0;
#ifdef GFEC_HAVE_CUDA
		n = gfec_gpu_device_count();
#endif
		n = n > GFEC_MAX_GPU_CONTEXTS ? GFEC_MAX_GPU_CONTEXTS : n;
		for (int i = 0; i < n; i++)
			ord[i] = i;
	}
	if (n <= 0) {
		ord[0] = (int)v[GFEC_KNOB_GPU_DEVICE].num;
		n = 1;
	}
	return n;
}

int gfec_nc_gpu_create(const struct gfec_nc_params *p, const struct gfec_settings *set,
		       struct gfec_nc_gpu **out)
{
	const int required = p->backend == GFEC_NC_BACKEND_GPU;
	const struct gfec_backend_ops *ops = gfec_backend_gpu();
	struct gfec_backend_conf conf = {0};
	struct gfec_nc_gpu *g;
	int ord[GFEC_MAX_GPU_CONTEXTS], n, ret = 0;
	/* the fault knob's word: 1 cuda (every context), 2 + i cuda-ctxI (context i); not
	 * GFEC_FAULT_KERNEL (the GEMM kernels only) */
	const int fault = (int)set->v[GFEC_KNOB_FAULT].num;

	*out = NULL;
	if (p->backend < GFEC_NC_BACKEND_AUTO || p->backend > GFEC_NC_BACKEND_GPU)
		return GFEC_E_INVAL;
	if (p->backend == GFEC_NC_BACKEND_CPU)
		return 0;
	if (!ops) {
		if (required)
			gfec_log(GFEC_LOG_ERROR,
				 "gfec_nc: backend=gpu: this build of gfec has no GPU "
				 "backend");
		return required ? GFEC_E_NOBACKEND : 0;
	}
	g = calloc(1, sizeof(*g));
	if (!g || pthread_mutex_init(&g->lock, NULL)) {
		free(g);
		return GFEC_E_NOMEM;
	}
	g->ops = ops;
	n = context_list(set, ord);
	g->one_gpu = 1;
	for (int i = 0; i < n && !ret; i++) {
		conf.device = ord[i];
		conf.fault = fault != GFEC_FAULT_KERNEL && (fault == 1 || fault == 2 + i);
		ret = ops->init(&conf, &g->c[i].ctx);
		if (!ret) {
			g->c[i].ordinal = ord[i];
			g->one_gpu &= ord[i] == ord[0];
			g->nctx++;
		}
	}
	if (ret) {
		gfec_nc_gpu_free(g);
		if (!required) {
			gfec_log(GFEC_LOG_INFO,
				 "gfec_nc: backend=auto: GPU not used (%s); CPU only",
				 gfec_strerror(ret));
			return 0;
		}
		gfec_log(GFEC_LOG_ERROR, "gfec_nc: backend=gpu: no usable CUDA device %d (%s)",
			 conf.device, gfec_strerror(ret));
		return GFEC_E_NOBACKEND;
	}
	g->p = *p;
	g->always = required;
	g->split_min = set->v[GFEC_KNOB_GPU_SPLIT_MIN].num ? (size_t)set->v[GFEC_KNOB_GPU_SPLIT_MIN].num
							    : NC_SPLIT_MIN;
	g->max_n = UINT32_MAX;
#ifdef GFEC_HAVE_CUDA
	for (int i = 0; i < g->nctx; i++) {
		const uint32_t m = (uint32_t)gfec_gpu_nc_max_decode_n(g->c[i].ctx);

		g->max_n = m < g->max_n ? m : g->max_n;
	}
#endif
	*out = g;
	return 0;
}

#ifdef GFEC_HAVE_CUDA

static int is_dev(const struct gfec_nc_gpu *g, const void *p)
{
	return p && g->ops->is_device_ptr(g->c[0].ctx, p);
}

int gfec_nc_gpu_is_device(const struct gfec_nc_gpu *g, const void *p)
{
	return g && is_dev(g, p);
}

/* Bytes of a seed-carrying block's header; the block format's fixed part plus the seed. */
#define SEED_HDR (GFEC_NC_HEADER_FIXED + 4)

/*
 * The headers of an encode's blocks (s, j), written at dst + (s * count + j) * stride: the same
 * fields nc.c's (and, for an LT code, nc_lt.c's) CPU encode writes.
 */
static void pack_headers(const struct gfec_nc_params *p, const struct gfec_nc_segment *segs,
			 int nseg, uint32_t first, uint32_t count, uint32_t nsys, uint8_t *dst,
			 size_t stride)
{
	for (int s = 0; s < nseg; s++) {
		for (uint32_t j = 0; j < count; j++) {
			struct gfec_nc_block b = {.family = p->family == GFEC_NC_LT ? GFEC_NC_LT
										    : GFEC_NC_RLC,
						  .kind = GFEC_NC_KIND_SEED,
						  .flags = (uint8_t)(p->flags & GFEC_NC_ZERO_COEFS),
						  .n = p->n,
						  .block_size = p->block_size,
						  .segment = segs[s].id,
						  .seed = first + j};

			if (j < nsys)
				b.flags = GFEC_NC_SYSTEMATIC;
			gfec_nc_block_pack(&b, dst + ((size_t)s * count + j) * stride, SEED_HDR);
		}
	}
}

/*
 * Encode with every buffer in device memory: the headers from two templates per segment (a
 * systematic block's, a coded one's) made on the device, a systematic code's source blocks by one
 * copy of pieces, the coded payloads by the GEMM straight into the blocks.
 */
static int encode_device(void *ctx, const struct gfec_nc_params *p,
			 const struct gfec_nc_segment *segs, int nseg, uint32_t first,
			 uint32_t count, uint32_t nsys, uint8_t *out)
{
	const size_t B = p->block_size, bytes = SEED_HDR + B, seg_out = (size_t)count * bytes;
	const uint32_t ncoded = count - nsys;
	/* the GEMM's nseg segments and nseg * ncoded outputs, or the nseg * nsys source pieces */
	const size_t nptr = (size_t)nseg * (nsys > ncoded + 1 ? nsys : ncoded + 1);
	uint8_t *tmpl = malloc((size_t)2 * nseg * SEED_HDR), *coded;
	const uint8_t **src = malloc(sizeof(*src) * nptr);
	uint8_t **dst = malloc(sizeof(*dst) * nptr);
	size_t *len = malloc(sizeof(*len) * nptr);
	int ret = 0;

	if (!tmpl || !src || !dst || !len) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	coded = tmpl + (size_t)nseg * SEED_HDR;
	pack_headers(p, segs, nseg, 0, 1, 1, tmpl, SEED_HDR);
	pack_headers(p, segs, nseg, 0, 1, 0, coded, SEED_HDR);
	if (nsys) {
		for (int s = 0; s < nseg; s++) {
			for (uint32_t j = 0; j < nsys; j++) {
				const size_t i = (size_t)s * nsys + j;

				src[i] = segs[s].data + (size_t)(first + j) * B;
				dst[i] = out + s * seg_out + j * bytes + SEED_HDR;
				len[i] = B;
			}
		}
		ret = gfec_gpu_nc_seed_headers(ctx, tmpl, SEED_HDR, GFEC_NC_HEADER_FIXED, nseg,
					       first, nsys, out, bytes, seg_out);
		if (!ret)
			ret = gfec_gpu_nc_copy_pieces(ctx, (size_t)nseg * nsys, src, len, dst);
	}
	if (ret || !ncoded)
		goto out;
	ret = gfec_gpu_nc_seed_headers(ctx, coded, SEED_HDR, GFEC_NC_HEADER_FIXED, nseg,
				       first + nsys, ncoded, out + nsys * bytes, bytes, seg_out);
	if (ret)
		goto out;
	for (int s = 0; s < nseg; s++) {
		src[s] = segs[s].data;
		for (uint32_t r = 0; r < ncoded; r++)
			dst[(size_t)s * ncoded + r] =
			    out + s * seg_out + (nsys + r) * bytes + SEED_HDR;
	}
	ret = gfec_gpu_nc_encode(ctx, p->n, B, !!(p->flags & GFEC_NC_ZERO_COEFS), first + nsys,
				 ncoded, nseg, src, dst);
out:
	free(tmpl);
	free(src);
	free(dst);
	free(len);
	return ret;
}

/*
 * The staged encodes' uploads: @p nseg segments of @p seg bytes from host memory into one device
 * allocation (*d_seg), segment s at src[s].
 */
static int upload_segments(void *ctx, const struct gfec_nc_segment *segs, int nseg, size_t seg,
			   const uint8_t **src, uint8_t **d_seg)
{
	int ret = gfec_gpu_nc_alloc(ctx, seg * nseg, (void **)d_seg);

	for (int s = 0; s < nseg && !ret; s++) {
		src[s] = *d_seg + (size_t)s * seg;
		ret = gfec_gpu_nc_memcpy(ctx, *d_seg + (size_t)s * seg, segs[s].data, seg);
	}
	return ret;
}

/* Encode from host buffers through device memory (backend=gpu). */
static int encode_staged(void *ctx, const struct gfec_nc_params *p,
			 const struct gfec_nc_segment *segs, int nseg, uint32_t first,
			 uint32_t count, uint32_t nsys, uint8_t *out)
{
	const size_t B = p->block_size, bytes = SEED_HDR + B, seg = (size_t)p->n * B;
	const uint32_t ncoded = count - nsys;
	const size_t coded = (size_t)nseg * ncoded * B;
	uint8_t *d_seg = NULL, *d_out = NULL;
	const uint8_t **src = NULL;
	uint8_t **dst = NULL;
	int ret = 0;

	pack_headers(p, segs, nseg, first, count, nsys, out, bytes);
	for (int s = 0; s < nseg; s++)
		for (uint32_t j = 0; j < nsys; j++)
			memcpy(out + ((size_t)s * count + j) * bytes + SEED_HDR,
			       segs[s].data + (size_t)(first + j) * B, B);
	if (!ncoded)
		return 0;
	src = malloc(sizeof(*src) * nseg);
	dst = malloc(sizeof(*dst) * nseg * ncoded);
	if (!src || !dst) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	ret = upload_segments(ctx, segs, nseg, seg, src, &d_seg);
	if (!ret)
		ret = gfec_gpu_nc_alloc(ctx, coded, (void **)&d_out);
	if (ret)
		goto out;
	for (size_t i = 0; i < (size_t)nseg * ncoded; i++)
		dst[i] = d_out + i * B;
	ret = gfec_gpu_nc_encode(ctx, p->n, B, !!(p->flags & GFEC_NC_ZERO_COEFS), first + nsys,
				 ncoded, nseg, src, dst);
	/*
	 * The payloads straight into their blocks, B + 28 bytes apart, by strided copies (one for
	 * the call, one per segment when source blocks come first): a bounce buffer and a CPU copy
	 * ran at 1.2 GB/s of coded output from pinned memory on an H200 (run h, call 6).
	 */
	for (int s = 0; s < (nsys ? nseg : 1) && !ret; s++)
		ret = gfec_gpu_nc_memcpy2d(ctx, out + ((size_t)s * count + nsys) * bytes + SEED_HDR,
					   bytes, d_out + (size_t)s * ncoded * B, B, B,
					   nsys ? ncoded : (size_t)nseg * ncoded);
out:
	gfec_gpu_nc_free(ctx, d_seg);
	gfec_gpu_nc_free(ctx, d_out);
	free(src);
	free(dst);
	return ret;
}

/*
 * An LT code's payloads on the GPU: block (s, j) at out + (s * count + j) * stride, segments at
 * segs[s] (device memory). One call for every segment.
 */
static int lt_payloads(void *ctx, const struct gfec_nc_params *p, const struct gfec_lt_dist *dist,
		       const uint8_t *const *segs, int nseg, uint32_t first, uint32_t count,
		       uint8_t *out, size_t stride)
{
	return gfec_gpu_lt_encode(ctx, p->n, p->block_size, dist->cdf, dist->len, first, count,
				  nseg, segs, out, stride);
}

/*
 * LT encode with every buffer in device memory: the payloads straight into the blocks (B + 28
 * bytes apart: with B a multiple of 16, 16-byte aligned segments and a 4-byte aligned output the
 * encoder's vector path stores them in 4-byte words, else its byte path), then the headers from one
 * template per segment, made on the device. Before, the payloads went through scratch and a copy
 * with every header packed on the host, whose piece tables cost more than the encode (run h on an
 * H200: 10.9 GB/s through gfec_nc.h at n = 10240 against 410 for the encoder alone).
 */
static int lt_device(void *ctx, const struct gfec_nc_params *p, const struct gfec_lt_dist *dist,
		     const struct gfec_nc_segment *segs, int nseg, uint32_t first, uint32_t count,
		     uint8_t *out)
{
	const size_t bytes = SEED_HDR + p->block_size;
	uint8_t *tmpl = malloc((size_t)nseg * SEED_HDR);
	const uint8_t **sp = malloc(sizeof(*sp) * nseg);
	int ret = GFEC_E_NOMEM;

	if (tmpl && sp) {
		pack_headers(p, segs, nseg, 0, 1, 0, tmpl, SEED_HDR);
		for (int s = 0; s < nseg; s++)
			sp[s] = segs[s].data;
		ret = lt_payloads(ctx, p, dist, sp, nseg, first, count, out + SEED_HDR, bytes);
	}
	if (!ret)
		ret = gfec_gpu_nc_seed_headers(ctx, tmpl, SEED_HDR, GFEC_NC_HEADER_FIXED, nseg,
					       first, count, out, bytes, count * bytes);
	free(tmpl);
	free(sp);
	return ret;
}

/* LT encode from host buffers through device memory (backend=gpu). */
static int lt_staged(void *ctx, const struct gfec_nc_params *p, const struct gfec_lt_dist *dist,
		     const struct gfec_nc_segment *segs, int nseg, uint32_t first, uint32_t count,
		     uint8_t *out)
{
	const size_t B = p->block_size, bytes = SEED_HDR + B, seg = (size_t)p->n * B;
	const size_t coded = (size_t)nseg * count * B;
	uint8_t *d_seg = NULL, *d_out = NULL;
	const uint8_t **src = malloc(sizeof(*src) * nseg);
	int ret;

	if (!src) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	ret = upload_segments(ctx, segs, nseg, seg, src, &d_seg);
	if (!ret)
		ret = gfec_gpu_nc_alloc(ctx, coded, (void **)&d_out);
	if (!ret)
		ret = lt_payloads(ctx, p, dist, src, nseg, first, count, d_out, B);
	if (!ret) /* the payloads straight into their blocks, as encode_staged does */
		ret = gfec_gpu_nc_memcpy2d(ctx, out + SEED_HDR, bytes, d_out, B, B,
					   (size_t)nseg * count);
	if (!ret)
		pack_headers(p, segs, nseg, first, count, 0, out, bytes);
out:
	gfec_gpu_nc_free(ctx, d_seg);
	gfec_gpu_nc_free(ctx, d_out);
	free(src);
	return ret;
}

/* A GPU result on host buffers: the CPU takes the call again after an error. */
static int finish(struct gfec_nc_gpu *g, int dev, const char *what, int ret)
{
	if (ret == 0 || ret == GFEC_E_TOOFEW) {
		__atomic_fetch_add(&g->gpu_calls, 1, __ATOMIC_RELAXED);
		return ret;
	}
	if (dev)
		return ret;
	if (ret == GFEC_E_NOTSUP)
		return GFEC_NC_GPU_PASS;
	__atomic_fetch_add(&g->fallbacks, 1, __ATOMIC_RELAXED);
	gfec_log(GFEC_LOG_WARN, "gfec_nc: %s on the GPU failed (%s); redone on the CPU", what,
		 gfec_strerror(ret));
	return GFEC_NC_GPU_PASS;
}

/* ---------- segments spread over the contexts ---------- */

/* Segments [a, b) of a call on context ctx, and how that went. */
struct share {
	int ctx, a, b, ret;
	double secs;
};

/* A call's work on one share: segments [a, b) on @p ctx; 0, GFEC_E_TOOFEW or an error. */
typedef int (*share_fn)(void *arg, void *ctx, int a, int b);

/* One context's shares of a call, run in order on one thread. */
struct lane {
	struct gfec_nc_gpu *g;
	share_fn fn;
	void *arg;
	struct share *sh;
	int nsh, ctx;
	pthread_t th;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *lane_run(void *arg)
{
	struct lane *l = arg;

	for (int i = 0; i < l->nsh; i++) {
		struct share *x = &l->sh[i];
		double t0;

		if (x->ctx != l->ctx)
			continue;
		t0 = now_s();
		x->ret = l->fn(l->arg, l->g->c[l->ctx].ctx, x->a, x->b);
		x->secs = now_s() - t0;
	}
	return NULL;
}

/* Every share: each context's on a thread of its own, the first context's on the caller's. */
static void run_shares(struct gfec_nc_gpu *g, share_fn fn, void *arg, struct share *sh, int nsh)
{
	struct lane l[GFEC_MAX_GPU_CONTEXTS];
	int has[GFEC_MAX_GPU_CONTEXTS] = {0}, started[GFEC_MAX_GPU_CONTEXTS] = {0}, mine = -1;

	for (int i = 0; i < nsh; i++)
		has[sh[i].ctx] = 1;
	for (int i = 0; i < g->nctx; i++) {
		if (!has[i])
			continue;
		l[i] = (struct lane){.g = g, .fn = fn, .arg = arg, .sh = sh, .nsh = nsh, .ctx = i};
		if (mine < 0)
			mine = i;
		else
			started[i] = gfec_thread_start(&l[i].th, lane_run, &l[i]) == 0;
	}
	if (mine >= 0)
		lane_run(&l[mine]);
	for (int i = 0; i < g->nctx; i++) {
		if (started[i])
			pthread_join(l[i].th, NULL);
		else if (has[i] && i != mine) /* no thread could start: here, in turn */
			lane_run(&l[i]);
	}
}

/*
 * Appends to sh[*nsh] the shares of segments [a, b), all in one place (@p place: -1 host memory,
 * else the GPU whose memory holds them): cut among the contexts that may code them (none in
 * @p excl; those on that GPU when some are; those not sitting out, unless all are) in proportion
 * to their rates, none shorter than split_min bytes unless one context takes all. Returns how
 * many it added: 0 when no context may code them.
 */
static int plan(struct gfec_nc_gpu *g, int a, int b, int place, size_t seg_bytes, uint32_t excl,
		struct share *sh, int *nsh)
{
	const int n = g->nctx;
	double rates[GFEC_MAX_GPU_CONTEXTS], known = 0;
	uint64_t cut[GFEC_MAX_GPU_CONTEXTS + 1];
	int ok[GFEC_MAX_GPU_CONTEXTS], any = 0, up = 0, nknown = 0, on_gpu = 0, added = 0;

	for (int i = 0; i < n; i++)
		on_gpu += place >= 0 && g->c[i].ordinal == place;
	pthread_mutex_lock(&g->lock);
	for (int i = 0; i < n; i++) {
		ok[i] = !(excl >> i & 1) && (!on_gpu || g->c[i].ordinal == place);
		any += ok[i];
		up += ok[i] && g->c[i].down_until <= g->seq;
	}
	for (int i = 0; i < n; i++) {
		ok[i] = ok[i] && (!up || g->c[i].down_until <= g->seq);
		rates[i] = place >= 0 ? g->c[i].rate_dev : g->c[i].rate_host;
		if (ok[i] && rates[i] > 0)
			known += rates[i], nknown++;
	}
	pthread_mutex_unlock(&g->lock);
	if (!any)
		return 0;
	/* equal at the start; a context not measured yet counts as the mean of the others */
	for (int i = 0; i < n; i++)
		rates[i] = !ok[i] ? 0 : rates[i] > 0 ? rates[i] : nknown ? known / nknown : 1;
	gfec_gpu_split((uint64_t)(b - a), 1, (g->split_min + seg_bytes - 1) / seg_bytes, rates, n,
		       cut);
	for (int i = 0; i < n; i++) {
		if (cut[i + 1] == cut[i])
			continue;
		sh[(*nsh)++] = (struct share){
		    .ctx = i, .a = a + (int)cut[i], .b = a + (int)cut[i + 1]};
		added++;
	}
	return added;
}

/*
 * Runs a call of @p nseg segments of @p seg_bytes each through @p fn, in shares on the contexts
 * (@p place[s]: where segment s is, as plan() takes it; NULL: all in host memory), and redoes
 * the shares of a context that fails on the others. 0; GFEC_E_TOOFEW when a share said so;
 * GFEC_E_DEVICE when segments are left with no context; a share's other error; GFEC_E_NOMEM.
 */
static int spread(struct gfec_nc_gpu *g, int nseg, const int *place, size_t seg_bytes,
		  share_fn fn, void *arg)
{
	struct share *sh = malloc(sizeof(*sh) * nseg), *redo = malloc(sizeof(*sh) * nseg);
	int nsh = 0, ret = 0, toofew = 0;
	uint32_t excl = 0;

	if (!sh || !redo) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	pthread_mutex_lock(&g->lock);
	g->seq++;
	pthread_mutex_unlock(&g->lock);
	/* one plan per run of segments in one place; each run's shares are at most its length */
	for (int a = 0, b; a < nseg && !ret; a = b) {
		for (b = a + 1; place && b < nseg && place[b] == place[a]; b++)
			;
		b = place ? b : nseg;
		if (!plan(g, a, b, place ? place[a] : -1, seg_bytes, excl, sh, &nsh))
			ret = GFEC_E_DEVICE;
	}
	while (!ret && nsh) {
		int nredo = 0;

		run_shares(g, fn, arg, sh, nsh);
		pthread_mutex_lock(&g->lock);
		for (int i = 0; i < nsh; i++) {
			struct nc_ctx *c = &g->c[sh[i].ctx];
			const double bytes = (double)(sh[i].b - sh[i].a) * (double)seg_bytes;

			if (sh[i].ret == 0 || sh[i].ret == GFEC_E_TOOFEW) {
				double *r = place && place[sh[i].a] >= 0 ? &c->rate_dev : &c->rate_host;

				c->calls++;
				c->bytes += (uint64_t)bytes;
				if (sh[i].secs > 0)
					*r = *r > 0 ? (1 - NC_EWMA) * *r + NC_EWMA * bytes / sh[i].secs
						    : bytes / sh[i].secs;
				toofew |= sh[i].ret == GFEC_E_TOOFEW;
			} else if (sh[i].ret == GFEC_E_DEVICE) {
				c->failures++;
				c->down_until = g->seq + NC_DOWN_CALLS;
				excl |= 1u << sh[i].ctx;
				redo[nredo++] = sh[i];
			} else if (!ret) {
				ret = sh[i].ret;
			}
		}
		pthread_mutex_unlock(&g->lock);
		nsh = 0;
		for (int i = 0; i < nredo && !ret; i++)
			if (!plan(g, redo[i].a, redo[i].b, place ? place[redo[i].a] : -1, seg_bytes,
				  excl, sh, &nsh))
				ret = GFEC_E_DEVICE;
		if (nredo && !ret)
			gfec_log(GFEC_LOG_WARN,
				 "gfec_nc: %d share%s failed on a GPU context; redone on the others",
				 nredo, nredo == 1 ? "" : "s");
	}
	if (!ret && toofew)
		ret = GFEC_E_TOOFEW;
out:
	free(sh);
	free(redo);
	return ret;
}

/*
 * Where each of @p nseg buffers lies, for plan(): the GPU holding it (device buffers), or NULL
 * for host buffers. *ret: GFEC_E_NOMEM when NULL is for want of memory.
 */
static int *places(const struct gfec_nc_gpu *g, int dev, const void *const *ptr, size_t stride,
		   int nseg, int *ret)
{
	int *pl = dev ? malloc(sizeof(*pl) * nseg) : NULL;

	*ret = dev && !pl ? GFEC_E_NOMEM : 0;
	for (int s = 0; pl && s < nseg; s++)
		pl[s] = g->one_gpu ? g->c[0].ordinal
				   : gfec_gpu_ptr_device(*(const void *const *)((const char *)ptr +
										 (size_t)s * stride));
	return pl;
}

/* An encode's arguments, for its shares. */
struct enc_call {
	const struct gfec_nc_params *p;
	const struct gfec_lt_dist *dist; /* LT, else NULL */
	const struct gfec_nc_segment *segs;
	uint32_t first, count, nsys;
	uint8_t *out;
	int dev;
};

static int enc_share(void *arg, void *ctx, int a, int b)
{
	const struct enc_call *e = arg;
	const struct gfec_nc_segment *segs = e->segs + a;
	uint8_t *out = e->out + (size_t)a * e->count * (SEED_HDR + e->p->block_size);

	if (e->dist)
		return e->dev ? lt_device(ctx, e->p, e->dist, segs, b - a, e->first, e->count, out)
			      : lt_staged(ctx, e->p, e->dist, segs, b - a, e->first, e->count, out);
	return e->dev ? encode_device(ctx, e->p, segs, b - a, e->first, e->count, e->nsys, out)
		      : encode_staged(ctx, e->p, segs, b - a, e->first, e->count, e->nsys, out);
}

/* An encode of either family (dist: LT's table, else NULL), spread over the contexts. */
static int encode(struct gfec_nc_gpu *g, const struct gfec_lt_dist *dist,
		  const struct gfec_nc_segment *segs, int nseg, uint32_t first, uint32_t count,
		  uint8_t *out)
{
	struct enc_call e = {.p = &g->p, .dist = dist, .segs = segs, .first = first, .count = count,
			     .out = out, .dev = is_dev(g, out)};
	int *pl, ret;

	for (int s = 0; s < nseg; s++)
		if (is_dev(g, segs[s].data) != e.dev)
			return GFEC_E_INVAL;
	if (!e.dev && !g->always)
		return GFEC_NC_GPU_PASS;
	if (!dist && g->p.flags & GFEC_NC_SYSTEMATIC && first < g->p.n)
		e.nsys = g->p.n - first < count ? g->p.n - first : count;
	pl = places(g, e.dev, (const void *const *)&segs[0].data, sizeof(*segs), nseg, &ret);
	if (!ret)
		ret = spread(g, nseg, pl, (size_t)g->p.n * g->p.block_size, enc_share, &e);
	free(pl);
	return finish(g, e.dev, dist ? "LT encode" : "encode", ret);
}

int gfec_nc_gpu_encode(struct gfec_nc_gpu *g, const struct gfec_nc_params *p,
		       const struct gfec_nc_segment *segs, int nseg, uint32_t first, uint32_t count,
		       uint8_t *out)
{
	(void)p; /* the code's shape, as g->p */
	if (!g || count == 0)
		return GFEC_NC_GPU_PASS;
	return encode(g, NULL, segs, nseg, first, count, out);
}

int gfec_nc_gpu_lt_encode(struct gfec_nc_gpu *g, const struct gfec_lt_dist *dist,
			  const struct gfec_nc_segment *segs, int nseg, uint32_t first,
			  uint32_t count, uint8_t *out)
{
	if (!g || count == 0)
		return GFEC_NC_GPU_PASS;
	return encode(g, dist, segs, nseg, first, count, out);
}

/* ---------- batch decode ---------- */

/* A batch decode's state. */
struct dec {
	void *ctx; /* the context that runs it */
	const struct gfec_nc_params *p;
	struct gfec_nc_batch_segment *segs;
	int nseg, dev;
	const uint8_t **hdr; /* block j of segment s: hdr[first[s] + j], its header as the host
				reads it (the block itself in host memory, a gathered copy of a
				device block); NULL for a NULL block, or every block of a segment
				without blocks or lens (nc.c's GFEC_E_INVAL) */
	size_t *len;	     /* as hdr: the bytes readable at each block */
	size_t *first;	     /* nseg: segment s's blocks start at hdr[first[s]] */
	uint32_t *chosen;    /* nseg x n: the blocks a round decodes */
	uint8_t *rows;	     /* nseg x n x n: their coefficient rows */
	int *status;	     /* nseg */
};

/*
 * nc.c's take_block on a header: the block's coefficient row into @p row, and its payload's
 * offset into *off. The same checks in the same order, so a bad block gets the CPU path's error.
 * @p h may hold the header only: with len >= header, gfec_nc_block_unpack reads nothing past it.
 */
static int block_row(const struct gfec_nc_params *p, uint64_t segment, const uint8_t *h, size_t len,
		     uint8_t *row, size_t *off)
{
	struct gfec_nc_block b;
	int ret = gfec_nc_block_unpack(h, len, &b);

	if (ret)
		return ret;
	if (b.family != GFEC_NC_RLC || b.n != p->n || b.block_size != p->block_size ||
	    b.segment != segment ||
	    (b.kind == GFEC_NC_KIND_SEED && !(b.flags & GFEC_NC_SYSTEMATIC) &&
	     !!(b.flags & GFEC_NC_ZERO_COEFS) != !!(p->flags & GFEC_NC_ZERO_COEFS)))
		return GFEC_E_FOREIGN;
	if (b.kind == GFEC_NC_KIND_COEF) {
		memcpy(row, b.coefs, p->n);
	} else if (b.flags & GFEC_NC_SYSTEMATIC) {
		memset(row, 0, p->n);
		row[b.seed] = 1;
	} else {
		gfec_nc_prng_row(b.seed, p->n, !!(p->flags & GFEC_NC_ZERO_COEFS), row);
	}
	*off = (size_t)(b.payload - h);
	return 0;
}

/*
 * Segment s's first n blocks, when each is well formed: their rows and 0. Otherwise the first
 * error, or GFEC_E_TOOFEW for fewer than n blocks.
 */
static int first_n(struct dec *d, int s, size_t *off)
{
	const struct gfec_nc_batch_segment *sg = &d->segs[s];
	const uint32_t n = d->p->n;
	uint8_t *rows = d->rows + (size_t)s * n * n;

	if (sg->nblocks < n)
		return GFEC_E_TOOFEW;
	for (uint32_t j = 0; j < n; j++) {
		const uint8_t *h = d->hdr[d->first[s] + j];
		int ret = h ? block_row(d->p, sg->id, h, d->len[d->first[s] + j],
					rows + (size_t)j * n, off + j)
			    : GFEC_E_INVAL;

		if (ret)
			return ret;
		d->chosen[(size_t)s * n + j] = j;
	}
	return 0;
}

/* Device blocks: 0 when segment s has n blocks, none of the first n NULL; else an error. */
static int whole_n(const struct dec *d, int s)
{
	const struct gfec_nc_batch_segment *sg = &d->segs[s];

	if (sg->nblocks < d->p->n)
		return GFEC_E_TOOFEW;
	for (uint32_t j = 0; j < d->p->n; j++)
		if (!d->hdr[d->first[s] + j])
			return GFEC_E_INVAL;
	return 0;
}

/*
 * nc.c's batch decoder on the coefficients only: the first n independent blocks of segment s in
 * order, dependent ones counted, stopping at the first bad block. 0 with the n blocks chosen (and
 * their rows, and payload offsets in @p off); else the segment's status.
 */
static int select_blocks(struct dec *d, int s, size_t *off)
{
	struct gfec_nc_batch_segment *sg = &d->segs[s];
	const uint32_t n = d->p->n;
	uint8_t *rows = d->rows + (size_t)s * n * n;
	uint8_t *ech = malloc((size_t)n * n), *row = malloc(n);
	uint32_t *piv = malloc(sizeof(*piv) * n), rank = 0;
	int ret = 0;

	sg->dependent = 0;
	if (!ech || !row || !piv) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	for (uint32_t j = 0; j < sg->nblocks && rank < n; j++) {
		const uint8_t *h = d->hdr[d->first[s] + j];
		size_t o;
		int q = -1;

		ret =
		    h ? block_row(d->p, sg->id, h, d->len[d->first[s] + j], row, &o) : GFEC_E_INVAL;
		if (ret)
			goto out;
		memcpy(rows + (size_t)rank * n, row, n);
		/* each kept row is 1 at its pivot and 0 at the earlier rows' pivots */
		for (uint32_t r = 0; r < rank; r++) {
			const uint8_t f = row[piv[r]];
			const uint8_t *t = gfec_gf8_tab.mul[f];
			const uint8_t *e = ech + (size_t)r * n;

			if (f)
				for (uint32_t i = 0; i < n; i++)
					row[i] ^= t[e[i]];
		}
		for (uint32_t i = 0; i < n && q < 0; i++)
			if (row[i])
				q = (int)i;
		if (q < 0) {
			sg->dependent++;
			continue;
		}
		const uint8_t inv = gfec_gf8_inv(row[q]);

		for (uint32_t i = 0; i < n; i++)
			ech[(size_t)rank * n + i] = gfec_gf8_mul(row[i], inv);
		piv[rank] = (uint32_t)q;
		d->chosen[(size_t)s * n + rank] = j;
		off[rank] = o;
		rank++;
	}
	if (rank < n)
		ret = GFEC_E_TOOFEW;
out:
	free(ech);
	free(row);
	free(piv);
	return ret;
}

/*
 * One GPU round over the segments in @p list (cnt of them), each with its n chosen blocks and
 * rows: decodable ones are written to their out and get status 0 in d->status; singular ones
 * GFEC_E_TOOFEW. Returns 0, or a GPU error (outputs then unspecified).
 */
static int gpu_round(struct dec *d, const int *list, size_t cnt, const size_t *off)
{
	const uint32_t n = d->p->n;
	const size_t B = d->p->block_size, seg = (size_t)n * B;
	const uint8_t **in = malloc(sizeof(*in) * cnt * n);
	uint8_t **out = malloc(sizeof(*out) * cnt * n);
	uint8_t *rows = malloc(cnt * n * n), *stage = NULL, *d_in = NULL, *d_out = NULL;
	int *st = malloc(sizeof(*st) * cnt);
	int ret = 0;

	if (!in || !out || !rows || !st || cnt > (size_t)INT32_MAX) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	if (!d->dev) {
		stage = malloc(cnt * seg);
		if (!stage) {
			ret = GFEC_E_NOMEM;
			goto out;
		}
		ret = gfec_gpu_nc_alloc(d->ctx, cnt * seg, (void **)&d_in);
		if (!ret)
			ret = gfec_gpu_nc_alloc(d->ctx, cnt * seg, (void **)&d_out);
		if (ret)
			goto out;
	}
	for (size_t y = 0; y < cnt; y++) {
		const int s = list[y];
		const struct gfec_nc_batch_segment *sg = &d->segs[s];

		memcpy(rows + y * n * n, d->rows + (size_t)s * n * n, (size_t)n * n);
		for (uint32_t r = 0; r < n; r++) {
			const uint32_t j = d->chosen[(size_t)s * n + r];
			const uint8_t *payload = sg->blocks[j] + off[(size_t)s * n + r];

			if (d->dev) {
				in[y * n + r] = payload;
			} else {
				memcpy(stage + y * seg + (size_t)r * B, payload, B);
				in[y * n + r] = d_in + y * seg + (size_t)r * B;
			}
			out[y * n + r] = d->dev ? sg->out + (size_t)r * B : d_out + y * seg + r * B;
		}
	}
	if (!d->dev)
		ret = gfec_gpu_nc_memcpy(d->ctx, d_in, stage, cnt * seg);
	if (!ret)
		ret = gfec_gpu_nc_decode_batch(d->ctx, n, B, (int)cnt, rows, in, out, st);
	if (ret == GFEC_E_TOOFEW)
		ret = 0;
	if (!ret && !d->dev)
		ret = gfec_gpu_nc_memcpy(d->ctx, stage, d_out, cnt * seg);
	for (size_t y = 0; y < cnt && !ret; y++) {
		d->status[list[y]] = st[y];
		if (!d->dev && !st[y])
			memcpy(d->segs[list[y]].out, stage + y * seg, seg);
	}
out:
	gfec_gpu_nc_free(d->ctx, d_in);
	gfec_gpu_nc_free(d->ctx, d_out);
	free(stage);
	free(in);
	free(out);
	free(rows);
	free(st);
	return ret;
}

/*
 * Device blocks of the segments whose d->status is not 0: their headers (at most 24 + n bytes,
 * never past a block's length) to host, d->hdr then pointing at the copies.
 */
static int gather_headers(struct dec *d, size_t nblk, size_t stride, uint8_t **host)
{
	const uint8_t **src = malloc(sizeof(*src) * (nblk ? nblk : 1));
	uint8_t **dst = malloc(sizeof(*dst) * (nblk ? nblk : 1));
	size_t *len = malloc(sizeof(*len) * (nblk ? nblk : 1)), cnt = 0;
	uint8_t *d_h = NULL;
	int ret;

	*host = malloc(nblk ? nblk * stride : 1);
	if (!src || !dst || !len || !*host) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	for (int s = 0; s < d->nseg; s++)
		for (uint32_t j = 0; d->status[s] && j < d->segs[s].nblocks; j++) {
			const size_t i = d->first[s] + j;

			if (!d->hdr[i]) /* a NULL block: nothing to copy */
				continue;
			src[cnt] = d->hdr[i];
			len[cnt] = d->len[i] < stride ? d->len[i] : stride;
			d->hdr[i] = *host + cnt * stride;
			cnt++;
		}
	ret = gfec_gpu_nc_alloc(d->ctx, cnt * stride, (void **)&d_h);
	if (ret)
		goto out;
	for (size_t c = 0; c < cnt; c++)
		dst[c] = d_h + c * stride;
	ret = gfec_gpu_nc_copy_pieces(d->ctx, cnt, src, len, dst);
	if (!ret)
		ret = gfec_gpu_nc_memcpy(d->ctx, *host, d_h, cnt * stride);
out:
	gfec_gpu_nc_free(d->ctx, d_h);
	free(src);
	free(dst);
	free(len);
	return ret;
}

/*
 * Device blocks, round 1: the segments in @p list (cnt of them) sent with their first n blocks
 * as they are to the GPU, which reads the headers itself. d->status: 0 decoded (out written), or
 * GFEC_E_TOOFEW / GFEC_E_FORMAT for round 2. Returns 0 or a GPU error.
 */
static int blocks_round(struct dec *d, const int *list, size_t cnt)
{
	const uint32_t n = d->p->n;
	const uint8_t **blk = malloc(sizeof(*blk) * cnt * n);
	size_t *len = malloc(sizeof(*len) * cnt * n);
	uint8_t **out = malloc(sizeof(*out) * cnt * n);
	uint64_t *ids = malloc(sizeof(*ids) * cnt);
	int *st = malloc(sizeof(*st) * cnt);
	int ret = 0;

	if (!blk || !len || !out || !ids || !st || cnt > (size_t)INT32_MAX) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	for (size_t y = 0; y < cnt; y++) {
		const struct gfec_nc_batch_segment *sg = &d->segs[list[y]];

		ids[y] = sg->id;
		for (uint32_t r = 0; r < n; r++) {
			blk[y * n + r] = sg->blocks[r];
			len[y * n + r] = sg->lens[r];
			out[y * n + r] = sg->out + (size_t)r * d->p->block_size;
		}
	}
	ret = gfec_gpu_nc_decode_blocks(d->ctx, n, d->p->block_size,
					!!(d->p->flags & GFEC_NC_ZERO_COEFS), (int)cnt, ids, blk, len,
					out, st);
	if (ret == GFEC_E_TOOFEW)
		ret = 0;
	for (size_t y = 0; y < cnt && !ret; y++)
		d->status[list[y]] = st[y];
out:
	free(blk);
	free(len);
	free(out);
	free(ids);
	free(st);
	return ret;
}

static int decode(struct dec *d)
{
	const uint32_t n = d->p->n;
	const size_t nn = (size_t)n * n;
	size_t nblk = 0, c1 = 0, c2 = 0;
	int *list1 = malloc(sizeof(int) * d->nseg), *list2 = malloc(sizeof(int) * d->nseg);
	size_t *off = malloc(sizeof(size_t) * n * d->nseg);
	uint8_t *gathered = NULL;
	int ret = 0;

	d->first = malloc(sizeof(size_t) * d->nseg);
	d->status = malloc(sizeof(int) * d->nseg);
	d->chosen = malloc(sizeof(uint32_t) * n * d->nseg);
	d->rows = malloc(nn * d->nseg);
	if (!list1 || !list2 || !off || !d->first || !d->status || !d->chosen || !d->rows) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	for (int s = 0; s < d->nseg; s++) {
		d->first[s] = nblk;
		nblk += d->segs[s].nblocks;
	}
	d->hdr = malloc(sizeof(*d->hdr) * (nblk ? nblk : 1));
	d->len = malloc(sizeof(*d->len) * (nblk ? nblk : 1));
	if (!d->hdr || !d->len) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	for (int s = 0; s < d->nseg; s++) {
		const struct gfec_nc_batch_segment *sg = &d->segs[s];
		const int whole = sg->blocks && sg->lens;

		for (uint32_t j = 0; j < sg->nblocks; j++) {
			d->hdr[d->first[s] + j] = whole ? sg->blocks[j] : NULL;
			d->len[d->first[s] + j] = whole ? sg->lens[j] : 0;
		}
	}
	/* round 1: the first n blocks as they are (device blocks: headers read on the GPU) */
	for (int s = 0; s < d->nseg; s++) {
		d->segs[s].dependent = 0;
		d->status[s] = d->dev ? whole_n(d, s) : first_n(d, s, off + (size_t)s * n);
		if (!d->status[s])
			list1[c1++] = s;
	}
	if (c1)
		ret = d->dev ? blocks_round(d, list1, c1) : gpu_round(d, list1, c1, off);
	for (int s = 0; s < d->nseg && !ret && d->dev && !gathered; s++)
		if (d->status[s]) /* round 2 has work: its segments' headers, once */
			ret = gather_headers(d, nblk, GFEC_NC_HEADER_FIXED + (n > 4 ? n : 4),
					     &gathered);
	if (ret)
		goto out;
	/* round 2: what round 1 could not take, from the blocks the CPU decoder would keep */
	for (int s = 0; s < d->nseg; s++) {
		if (!d->status[s])
			continue;
		d->status[s] = select_blocks(d, s, off + (size_t)s * n);
		if (d->status[s] == GFEC_E_NOMEM) {
			ret = GFEC_E_NOMEM;
			goto out;
		}
		if (!d->status[s])
			list2[c2++] = s;
	}
	if (c2)
		ret = gpu_round(d, list2, c2, off);
	for (size_t y = 0; y < c2 && !ret; y++)
		if (d->status[list2[y]]) /* independent rows found singular: a device fault */
			ret = GFEC_E_DEVICE;
	if (ret)
		goto out;
	ret = 0;
	for (int s = 0; s < d->nseg; s++) {
		d->segs[s].status = d->status[s];
		if (d->status[s])
			ret = GFEC_E_TOOFEW;
	}
out:
	free(list1);
	free(list2);
	free(off);
	free(gathered);
	free(d->first);
	free(d->status);
	free(d->chosen);
	free(d->rows);
	free(d->hdr);
	free(d->len);
	return ret;
}

/* A batch decode's arguments, for its shares. */
struct dec_call {
	const struct gfec_nc_params *p;
	struct gfec_nc_batch_segment *segs;
	int dev;
};

static int dec_share(void *arg, void *ctx, int a, int b)
{
	const struct dec_call *c = arg;
	struct dec d = {.ctx = ctx, .p = c->p, .segs = c->segs + a, .nseg = b - a, .dev = c->dev};

	return decode(&d);
}

int gfec_nc_gpu_decode_batch(struct gfec_nc_gpu *g, const struct gfec_nc_params *p,
			     struct gfec_nc_batch_segment *segs, int nseg)
{
	struct dec_call c = {.p = p, .segs = segs};
	int *pl, ret;

	if (!g)
		return GFEC_NC_GPU_PASS;
	c.dev = is_dev(g, segs[0].out);
	for (int s = 0; s < nseg; s++)
		if (is_dev(g, segs[s].out) != c.dev ||
		    (segs[s].nblocks && segs[s].blocks && segs[s].blocks[0] &&
		     is_dev(g, segs[s].blocks[0]) != c.dev))
			return GFEC_E_INVAL;
	if (!c.dev && !g->always)
		return GFEC_NC_GPU_PASS;
	if (p->n > g->max_n)
		return c.dev ? GFEC_E_NOTSUP : GFEC_NC_GPU_PASS;
	/* a segment is where its output is */
	pl = places(g, c.dev, (const void *const *)&segs[0].out, sizeof(*segs), nseg, &ret);
	if (!ret)
		ret = spread(g, nseg, pl, (size_t)p->n * p->block_size, dec_share, &c);
	free(pl);
	return finish(g, c.dev, "batch decode", ret);
}

int gfec_nc_gpu_contexts(struct gfec_nc_gpu *g, struct gfec_gpu_device *out, int max)
{
	struct gfec_backend_device info;
	uint64_t sum = 0;

	if (!g)
		return 0;
	for (int i = 0; i < g->nctx && i < max; i++) {
		gfec_gpu_device_info(g->c[i].ordinal, &info);
		memset(&out[i], 0, sizeof(out[i]));
		out[i].ordinal = info.ordinal;
		snprintf(out[i].name, sizeof(out[i].name), "%s", info.name);
		out[i].mem_gib = info.mem_gib;
		out[i].pci_bus = info.pci_bus;
	}
	pthread_mutex_lock(&g->lock);
	for (int i = 0; i < g->nctx; i++)
		sum += g->c[i].bytes;
	for (int i = 0; i < g->nctx && i < max; i++) {
		out[i].calls = g->c[i].calls;
		out[i].bytes = g->c[i].bytes;
		out[i].failures = g->c[i].failures;
		out[i].share = sum ? (double)g->c[i].bytes / (double)sum : 0;
		out[i].rate_host = g->c[i].rate_host;
		out[i].rate_dev = g->c[i].rate_dev;
	}
	pthread_mutex_unlock(&g->lock);
	return g->nctx;
}

#else /* no CUDA: gfec_nc_gpu_create never makes a GPU side */

int gfec_nc_gpu_is_device(const struct gfec_nc_gpu *g, const void *p)
{
	(void)g, (void)p;
	return 0;
}

int gfec_nc_gpu_lt_encode(struct gfec_nc_gpu *g, const struct gfec_lt_dist *dist,
			  const struct gfec_nc_segment *segs, int nseg, uint32_t first,
			  uint32_t count, uint8_t *out)
{
	(void)g, (void)dist, (void)segs, (void)nseg, (void)first, (void)count, (void)out;
	return GFEC_NC_GPU_PASS;
}

int gfec_nc_gpu_encode(struct gfec_nc_gpu *g, const struct gfec_nc_params *p,
		       const struct gfec_nc_segment *segs, int nseg, uint32_t first, uint32_t count,
		       uint8_t *out)
{
	(void)g, (void)p, (void)segs, (void)nseg, (void)first, (void)count, (void)out;
	return GFEC_NC_GPU_PASS;
}

int gfec_nc_gpu_decode_batch(struct gfec_nc_gpu *g, const struct gfec_nc_params *p,
			     struct gfec_nc_batch_segment *segs, int nseg)
{
	(void)g, (void)p, (void)segs, (void)nseg;
	return GFEC_NC_GPU_PASS;
}

int gfec_nc_gpu_contexts(struct gfec_nc_gpu *g, struct gfec_gpu_device *out, int max)
{
	(void)g, (void)out, (void)max;
	return 0;
}

#endif
