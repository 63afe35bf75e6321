/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_run.c
 * One gfec-perf row: buffers in the asked-for memory (several sets, rotated so that caches do not
 * flatter), warm-up, timed synchronous calls through the public API, latency percentiles, the check
 * against the CPU reference, and the ceiling that bounds the row. Also the CPU XOR-stream ceiling
 * of a row's shape, measured over buffers laid out and rotated as the row's.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <gfec/gfec.h>
#include <gfec/gfec_limits.h>

#include "cpu_backend.h" /* the codec's slices and GFNI groups, which the bounds follow */
#include "gfec_perf.h"
#include "perf_util.h"
#ifdef GFEC_HAVE_CUDA
#include "perf_gpu.h"
#endif

#define SPREAD_FLAG 0.10
#define SEED 0x243f6a8885a308d3ull

/* ------------------------------------------------------------------ buffers */

/* One rotation set: batch stripes of k+m chunks, e decode outputs and one delta each. */
struct set {
	uint8_t *mem;
	const uint8_t **enc_in;	  /* batch*k data */
	uint8_t **enc_out;	  /* batch*m parity */
	const uint8_t **dec_in;	  /* batch*(k+m), NULL = lost */
	uint8_t **dec_out;	  /* batch*(k+m), buffers where lost */
	uint8_t **parity;	  /* batch*m, for updates */
	const uint8_t **delta;	  /* batch */
};

struct bufs {
	int k, m, e, batch, nsets, next;
	size_t chunk, pitch, set_bytes;
	enum perf_data data;
	struct set *sets;
};

static void *mem_alloc(enum perf_data d, size_t n)
{
	switch (d) {
	case PERF_PAGEABLE:
		return gfec_alloc(n);
#ifdef GFEC_HAVE_CUDA
	case PERF_PINNED:
		return perf_pinned_malloc(n);
	case PERF_GPU:
		return perf_gpu_malloc(n);
#else
	default:
		break;
#endif
	}
	return NULL;
}

static void mem_free(enum perf_data d, void *p)
{
	if (!p)
		return;
	switch (d) {
	case PERF_PAGEABLE:
		gfec_free(p);
		return;
#ifdef GFEC_HAVE_CUDA
	case PERF_PINNED:
		perf_pinned_free(p);
		return;
	case PERF_GPU:
		perf_gpu_free(p);
		return;
#else
	default:
		return;
#endif
	}
}

/* Copies n bytes where one side may be in @p d's memory (only GPU memory needs the runtime). */
static int mem_copy(enum perf_data d, void *dst, const void *src, size_t n)
{
#ifdef GFEC_HAVE_CUDA
	if (d == PERF_GPU)
		return perf_gpu_copy(dst, src, n);
#endif
	(void)d;
	memcpy(dst, src, n);
	return 0;
}

static void bufs_free(struct bufs *b)
{
	for (int s = 0; s < b->nsets && b->sets; s++) {
		struct set *st = &b->sets[s];

		mem_free(b->data, st->mem);
		free(st->enc_in);
		free(st->enc_out);
		free(st->dec_in);
		free(st->dec_out);
		free(st->parity);
		free(st->delta);
	}
	free(b->sets);
	memset(b, 0, sizeof(*b));
}

/*
 * Sets enough that the chunks one call touches (@p touched of each stripe: encode k + m, decode
 * k + e, update 1 + m) cover @p rotate bytes before a set comes round again, within a quarter of
 * the machine's memory (and 8 GiB).
 */
static int bufs_alloc(struct bufs *b, int k, int m, int e, int batch, size_t chunk,
		      enum perf_data data, size_t rotate, int touched)
{
	const int n = k + m;
	const size_t phys = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
	const size_t cap = phys / 4 < ((size_t)8 << 30) ? phys / 4 : (size_t)8 << 30;
	size_t per_set;
	uint8_t *host;

	memset(b, 0, sizeof(*b));
	b->k = k, b->m = m, b->e = e, b->batch = batch, b->chunk = chunk, b->data = data;
	b->pitch = (chunk + 255) / 256 * 256;
	/* per stripe: k+m chunks, e decode outputs, one delta */
	b->set_bytes = b->pitch * (size_t)(n + e + 1) * (size_t)batch;
	per_set = b->pitch * (size_t)touched * (size_t)batch;
	b->nsets = (int)((rotate + per_set - 1) / per_set);
	b->nsets = b->nsets < 2 ? 2 : b->nsets > 65536 ? 65536 : b->nsets;
	if (b->set_bytes * (size_t)b->nsets > cap)
		b->nsets = cap / b->set_bytes > 2 ? (int)(cap / b->set_bytes) : 2;
	b->sets = calloc((size_t)b->nsets, sizeof(*b->sets));
	host = malloc(b->set_bytes);
	if (!b->sets || !host)
		goto fail;
	for (int s = 0; s < b->nsets; s++) {
		struct set *st = &b->sets[s];
		const size_t nb = (size_t)batch;

		st->mem = mem_alloc(data, b->set_bytes);
		st->enc_in = calloc(nb * k, sizeof(void *));
		st->enc_out = calloc(nb * m, sizeof(void *));
		st->dec_in = calloc(nb * n, sizeof(void *));
		st->dec_out = calloc(nb * n, sizeof(void *));
		st->parity = calloc(nb * m, sizeof(void *));
		st->delta = calloc(nb, sizeof(void *));
		if (!st->mem || !st->enc_in || !st->enc_out || !st->dec_in || !st->dec_out ||
		    !st->parity || !st->delta)
			goto fail;
		perf_fill_random(host, b->set_bytes, SEED + (uint64_t)s);
		if (mem_copy(data, st->mem, host, b->set_bytes))
			goto fail;
		for (int t = 0; t < batch; t++) {
			uint8_t *base = st->mem + b->pitch * (size_t)(n + e + 1) * (size_t)t;

			for (int i = 0; i < n; i++) {
				uint8_t *c = base + b->pitch * (size_t)i;

				if (i < k)
					st->enc_in[(size_t)t * k + i] = c;
				else
					st->enc_out[(size_t)t * m + i - k] =
						st->parity[(size_t)t * m + i - k] = c;
				/* decode loses the first e data chunks: the costliest case */
				st->dec_in[(size_t)t * n + i] = i < e ? NULL : c;
				st->dec_out[(size_t)t * n + i] =
					i < e ? base + b->pitch * (size_t)(n + i) : NULL;
			}
			st->delta[t] = base + b->pitch * (size_t)(n + e);
		}
	}
	free(host);
	return 0;
fail:
	free(host);
	bufs_free(b);
	return -1;
}

/* ------------------------------------------------------------------ XOR-stream ceiling */

struct xor_sweep {
	const struct bufs *b;
	enum perf_op op;
	int width, nsrc, ndst, group; /* group: outputs per pass over a slice's sources */
	int mode;		      /* enum perf_xor_mode | PERF_XOR_PREFETCH */
	size_t slice, nslices, ntasks;
	atomic_size_t next; /* the first unclaimed task */
	atomic_int go;	    /* 0 wait, 1 run, -1 give up */
	atomic_int tid;	    /* the next worker's index */
	void **ptrs;	    /* nsrc + ndst stream pointers per worker (k+m to 65536 at w = 16) */
};

/* The chunks of @p st that a call of the row reads (src) and writes (dst), from byte @p off. */
static void xor_streams_of(const struct xor_sweep *w, const struct set *st, size_t off,
			   const uint8_t **src, uint8_t **dst)
{
	const int n = w->b->k + w->b->m;
	int ns = 0, nd = 0;

	switch (w->op) {
	case PERF_ENCODE:
		for (int i = 0; i < w->nsrc; i++)
			src[i] = st->enc_in[i] + off;
		for (int i = 0; i < w->ndst; i++)
			dst[i] = st->enc_out[i] + off;
		break;
	case PERF_DECODE:
		/* the first k survivors into the lost chunks' buffers */
		for (int i = 0; i < n; i++) {
			if (st->dec_in[i] && ns < w->nsrc)
				src[ns++] = st->dec_in[i] + off;
			if (st->dec_out[i])
				dst[nd++] = st->dec_out[i] + off;
		}
		break;
	case PERF_UPDATE:
		src[0] = st->delta[0] + off;
		for (int i = 0; i < w->ndst; i++)
			dst[i] = st->parity[i] + off;
		break;
	}
}

/*
 * Claims tasks in turn, as the codec's thread pool does with a call's slices: task t is slice
 * t % nslices of set t / nslices (round the sets). Without the pool's per-call fork and join, a
 * sweep has less overhead than the row it bounds.
 */
static void *xor_worker(void *arg)
{
	struct xor_sweep *w = arg;
	void **p = w->ptrs + (size_t)(w->nsrc + w->ndst) * (size_t)atomic_fetch_add(&w->tid, 1);
	const uint8_t **src = (const uint8_t **)p;
	uint8_t **dst = (uint8_t **)(p + w->nsrc);
	size_t t;
	int go;

	while ((go = atomic_load(&w->go)) == 0)
		sched_yield();
	if (go < 0)
		return NULL;
	while ((t = atomic_fetch_add(&w->next, 1)) < w->ntasks) {
		const size_t set = t / w->nslices % (size_t)w->b->nsets;
		const size_t off = t % w->nslices * w->slice;
		const size_t n = w->b->chunk - off < w->slice ? w->b->chunk - off : w->slice;

		xor_streams_of(w, &w->b->sets[set], off, src, dst);
		perf_xor_streams_group(w->width, n, w->nsrc, src, w->ndst, dst, w->mode, w->group);
	}
	return NULL;
}

/* One sweep on @p threads threads moving @p bytes: GB/s, 0 if the threads could not be started. */
static double xor_sweep_run(struct xor_sweep *w, int threads, double bytes)
{
	pthread_t tid[1024];
	int started = 0;
	double t0, t;

	atomic_store(&w->next, 0);
	atomic_store(&w->go, 0);
	atomic_store(&w->tid, 0);
	for (; started < threads; started++)
		if (pthread_create(&tid[started], NULL, xor_worker, w) != 0)
			break;
	atomic_store(&w->go, started == threads ? 1 : -1);
	t0 = perf_now();
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	t = perf_now() - t0;
	return started == threads && t > 0 ? bytes / t / 1e9 : 0;
}

int perf_xor_measure(const struct perf_opts *o, int threads, struct perf_xor_ceil *x)
{
	const int k = x->k, m = x->m, e = x->e;
	const int nsrc = x->op == PERF_UPDATE ? 1 : k, ndst = x->op == PERF_DECODE ? e : m;
	const size_t rotate = perf_rotate_bytes(o);
	struct xor_sweep w = { 0 };
	struct bufs b;
	double g[PERF_SWEEP_TRIALS_MAX], per_set;
	size_t touched, passes, long_slice;
	int ret = -1;

	x->gbps = x->spread = 0;
	if (threads < 1 || threads > 1024 || x->chunk == 0 || k < 1 || ndst < 1 ||
	    k + m > GFEC_MAX_CHUNKS_GF16 ||
	    !(w.ptrs = malloc(sizeof(*w.ptrs) * (size_t)(nsrc + ndst) * (size_t)threads)) ||
	    bufs_alloc(&b, k, m, e, 1, x->chunk, PERF_PAGEABLE, rotate, nsrc + ndst))
		return -1;
	w.b = &b, w.op = x->op, w.width = perf_xor_width(), w.nsrc = nsrc, w.ndst = ndst;
	per_set = (double)x->chunk * (x->op == PERF_UPDATE ? 1 + 2 * m : nsrc + ndst);
	touched = (size_t)b.nsets * (size_t)(nsrc + ndst) * x->chunk;
	const int trials = perf_sweep_trials(o);

	passes = ((size_t)perf_sweep_passes(o) * rotate + touched - 1) / touched;
	/* the codec's slice for a one-pass GFNI product that does not prefetch */
	long_slice = gfec_cpu_long_slice(x->chunk, threads);
	/*
	 * Both orders over a slice: all outputs in one pass (the fewest bytes moved), and one
	 * output after another while the slice's sources stay in cache (the fewest streams at once,
	 * which the prefetchers may serve better). The codec's kernels take up to 6 or 4 per pass;
	 * a bound must not lose to the row's order, so the shape gets the faster one, with its own
	 * spread. Outputs that are written, not updated, are also written by non-temporal stores,
	 * as gfec's GFNI kernels write them from cpu_stream_min on: the faster store kind counts
	 * too; and each store kind runs a third way, as those kernels go: their groups (all of
	 * RS(10,4)'s outputs in one pass) with the sources prefetched ahead; and a fourth, as the
	 * codec cuts a call that runs one pass without prefetching: in longer slices, where the
	 * chunk makes them longer.
	 */
	const int modes = x->op == PERF_UPDATE ? 1 : 2;

	for (int v = 0; v < 4 * modes; v++) {
		if (v % 4 == 3 && (x->op == PERF_UPDATE || long_slice <= GFEC_CPU_SLICE))
			continue;
		w.slice = v % 4 == 3 ? long_slice : GFEC_CPU_SLICE;
		w.nslices = (x->chunk + w.slice - 1) / w.slice;
		w.ntasks = passes * (size_t)b.nsets * w.nslices;
		w.group = v % 4 == 1 ? 1 : v % 4 == 2 ? GFEC_GFNI_GROUP(w.width) : ndst;
		w.mode = x->op == PERF_UPDATE ? PERF_XOR_RMW
			 : v / 4	      ? PERF_XOR_STREAM
					      : PERF_XOR_SET;
		w.mode |= v % 4 == 2 ? PERF_XOR_PREFETCH : 0;
		for (int trial = 0; trial < trials; trial++)
			if ((g[trial] = xor_sweep_run(&w, threads,
						      per_set * b.nsets * (double)passes)) <= 0)
				goto out;
		const struct perf_summary s = perf_summarise(g, trials);

		if (s.max > x->gbps) {
			x->gbps = s.max;
			x->spread = s.spread;
		}
	}
	ret = 0;
out:
	if (ret)
		x->gbps = x->spread = 0;
	bufs_free(&b);
	free(w.ptrs);
	return ret;
}

/* ------------------------------------------------------------------ one row */

static int call(gfec_codec *c, enum perf_op op, const struct bufs *b, const struct set *st)
{
	int ret = 0;

	switch (op) {
	case PERF_ENCODE:
		return gfec_encode_batch(c, b->batch, st->enc_in, st->enc_out, b->chunk);
	case PERF_DECODE:
		return gfec_decode_batch(c, b->batch, st->dec_in, st->dec_out, b->chunk);
	case PERF_UPDATE:
		for (int t = 0; t < b->batch && !ret; t++)
			ret = gfec_update(c, 0, st->delta[t], st->parity + (size_t)t * b->m,
					  b->chunk);
		return ret;
	}
	return GFEC_E_INVAL;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/* Host copies of n chunks (in @p d's memory) into one malloc'ed block, chunk after chunk. */
static uint8_t *fetch(enum perf_data d, const uint8_t *const *p, int n, size_t len)
{
	uint8_t *h = malloc((size_t)n * len + 1);

	for (int i = 0; h && i < n; i++)
		if (mem_copy(d, h + (size_t)i * len, p[i], len)) {
			free(h);
			return NULL;
		}
	return h;
}

/* The row's first set against the CPU reference: 1 matches, 0 differs, -1 could not check. */
static int check_row(gfec_codec *c, enum perf_op op, const struct bufs *b, const char *tech,
		     int w)
{
	const struct set *st = &b->sets[0];
	const int k = b->k, m = b->m, n = k + m;
	char prof[128];
	gfec_codec *ref;
	int ok = -1;

	snprintf(prof, sizeof(prof), "k=%d m=%d w=%d technique=%s backend=cpu", k, m, w, tech);
	if (gfec_codec_create(prof, &ref, NULL, 0))
		return -1;
	/* one stripe is enough to catch a wrong kernel or pipeline: the first */
	uint8_t *data = fetch(b->data, st->enc_in, k, b->chunk);
	uint8_t *par = fetch(b->data, (const uint8_t *const *)st->enc_out, m, b->chunk);
	uint8_t *want = malloc((size_t)n * b->chunk + 1);
	const uint8_t **dp = malloc(sizeof(*dp) * (size_t)n);
	uint8_t **wp = malloc(sizeof(*wp) * (size_t)m);

	if (!data || !par || !want || !dp || !wp)
		goto out;
	for (int i = 0; i < k; i++)
		dp[i] = data + (size_t)i * b->chunk;
	for (int i = 0; i < m; i++)
		wp[i] = want + (size_t)i * b->chunk;
	switch (op) {
	case PERF_ENCODE:
		ok = gfec_encode(ref, dp, wp, b->chunk) == 0 &&
		     memcmp(want, par, (size_t)m * b->chunk) == 0;
		break;
	case PERF_DECODE: {
		/* the rebuilt data chunks must be the data (set 0's parity came from an encode
		 * with this codec, checked by the same comparison on the encode row) */
		uint8_t *out = fetch(b->data, (const uint8_t *const *)st->dec_out, b->e, b->chunk);

		ok = out && memcmp(out, data, (size_t)b->e * b->chunk) == 0;
		free(out);
		break;
	}
	case PERF_UPDATE: {
		/* one more update of set 0, mirrored on a host copy with the reference codec */
		uint8_t *delta = fetch(b->data, st->delta, 1, b->chunk), *after = NULL;

		memcpy(want, par, (size_t)m * b->chunk);
		ok = delta && gfec_update(ref, 0, delta, wp, b->chunk) == 0 &&
		     call(c, op, b, st) == 0;
		if (ok)
			after = fetch(b->data, (const uint8_t *const *)st->parity, m, b->chunk);
		ok = after && memcmp(after, want, (size_t)m * b->chunk) == 0;
		free(after);
		free(delta);
		break;
	}
	}
out:
	free(dp);
	free(wp);
	free(data);
	free(par);
	free(want);
	gfec_codec_free(ref);
	return ok;
}

static double pct_of(double v, double ceil)
{
	return ceil > 0 ? 100.0 * v / ceil : 0;
}

int perf_run_row(const struct perf_opts *o, const struct perf_ceilings *ce, enum perf_op op, int k,
		 int m, size_t chunk, int batch, const char *backend, enum perf_data data,
		 struct perf_row *r)
{
	const int e = perf_erasures(o, op, m);
	const double target = o->quick ? 0.05 : 0.2;
	char prof[256];
	struct bufs b;
	gfec_codec *c;
	struct gfec_stats st0, st1;
	double cpu0, sum = 0;
	long n;
	int nlat = 0, next = 0;

	memset(r, 0, sizeof(*r));
	r->op = op, r->k = k, r->m = m, r->e = e, r->chunk = chunk, r->batch = batch;
	r->data = data;
	snprintf(r->backend, sizeof(r->backend), "%s", backend);
	snprintf(r->technique, sizeof(r->technique), "%s", o->technique);
	r->w = o->w;
	snprintf(prof, sizeof(prof), "k=%d m=%d w=%d technique=%s backend=%s threads=%d%s%s", k, m,
		 o->w, o->technique, backend, o->threads, o->kernel ? " gpu_kernel=" : "",
		 o->kernel ? o->kernel : "");
	if (gfec_codec_create(prof, &c, r->skip, sizeof(r->skip)))
		return -1;
	snprintf(r->engine, sizeof(r->engine), "%s", gfec_codec_backend(c));
	if (bufs_alloc(&b, k, m, e, batch, chunk, data, perf_rotate_bytes(o),
		       op == PERF_ENCODE ? k + m : op == PERF_DECODE ? k + e : 1 + m)) {
		snprintf(r->skip, sizeof(r->skip), "cannot allocate %s buffers", perf_data_names[data]);
		gfec_codec_free(c);
		return -1;
	}
	/* valid parity everywhere, so that decodes rebuild real data */
	for (int s = 0; s < b.nsets; s++)
		if (gfec_encode_batch(c, batch, b.sets[s].enc_in, b.sets[s].enc_out, chunk)) {
			snprintf(r->skip, sizeof(r->skip), "encode failed");
			goto fail;
		}
	for (int i = 0; i < o->warmup; i++)
		if (call(c, op, &b, &b.sets[i % b.nsets])) {
			snprintf(r->skip, sizeof(r->skip), "%s failed", perf_op_names[op]);
			goto fail;
		}
	n = o->iters;
	if (!n) {
		double t0 = perf_now();

		call(c, op, &b, &b.sets[0]);
		double t = perf_now() - t0;

		n = (long)(target / (t > 1e-7 ? t : 1e-7));
		n = n < 3 ? 3 : n > 100000 ? 100000 : n;
	}
	r->n = n;
	r->repeats = o->repeats;
	r->lat = malloc(sizeof(double) * (size_t)n * (size_t)o->repeats);
	r->rep_gbps = malloc(sizeof(double) * (size_t)o->repeats);
	if (!r->lat || !r->rep_gbps) {
		snprintf(r->skip, sizeof(r->skip), "out of memory");
		goto fail;
	}
	r->data_bytes = (double)chunk * batch *
			(op == PERF_ENCODE ? k : op == PERF_DECODE ? k : 1);
	r->traffic_bytes = (double)chunk * batch *
			   (op == PERF_ENCODE ? k + m : op == PERF_DECODE ? k + e : 1 + 2 * m);
	/* one GF op: a multiply-add of one w-bit symbol (w / 8 bytes) */
	r->gf_ops = (double)chunk / (o->w / 8) * batch *
		    (op == PERF_ENCODE ? (double)k * m : op == PERF_DECODE ? (double)k * e : m);
	gfec_codec_stats(c, &st0);
	cpu0 = cpu_seconds();
	for (int rep = 0; rep < o->repeats; rep++) {
		double rep_t = 0;

		for (long i = 0; i < n; i++) {
			const struct set *s = &b.sets[next];
			double t0 = perf_now(), t;

			next = (next + 1) % b.nsets;
			if (call(c, op, &b, s)) {
				snprintf(r->skip, sizeof(r->skip), "%s failed while timing",
					 perf_op_names[op]);
				goto fail;
			}
			t = perf_now() - t0;
			r->lat[nlat++] = t * 1e6;
			rep_t += t;
		}
		r->rep_gbps[rep] = r->data_bytes * n / rep_t / 1e9;
		sum += rep_t;
	}
	r->cpu_s_per_gb = (cpu_seconds() - cpu0) / (r->data_bytes * n * o->repeats / 1e9);
	gfec_codec_stats(c, &st1);
	r->on_gpu = st1.gpu_calls > st0.gpu_calls;
	if (r->on_gpu) { /* several contexts (gpu_devices=): each one's share of the codec's bytes */
		struct gfec_gpu_device d[PERF_MAX_CTX];
		const int nd = gfec_codec_gpu_devices(c, d, PERF_MAX_CTX);

		r->nctx = nd <= 0 ? 0 : nd > PERF_MAX_CTX ? PERF_MAX_CTX : nd;
		for (int i = 0; i < r->nctx; i++) {
			r->ctx_share[i] = d[i].share;
			r->ctx_calls[i] = d[i].calls;
			r->ctx_failures[i] = d[i].failures;
		}
	}
	r->nlat = nlat;
	r->gbps = perf_summarise(r->rep_gbps, o->repeats);
	r->traffic_gbps = r->gbps.median * r->traffic_bytes / r->data_bytes;
	r->gops = r->gbps.median * r->gf_ops / r->data_bytes;
	r->intensity = r->gf_ops / r->traffic_bytes;
	r->flagged = r->gbps.spread > SPREAD_FLAG;
	qsort(r->lat, (size_t)nlat, sizeof(double), perf_cmp_double);
	r->p50 = r->lat[nlat / 2];
	r->p90 = r->lat[(size_t)(nlat * 0.90)];
	r->p99 = r->lat[(size_t)(nlat * 0.99)];
	r->p999 = r->lat[(size_t)(nlat * 0.999)];
	(void)sum;

	r->checked = o->check ? check_row(c, op, &b, o->technique, o->w) : -2;
	/*
	 * The ceiling that bounds this row, by construction. On the CPU: memory traffic, the row's
	 * bytes read + written per call over the better of the memory bandwidth measured on the
	 * row's thread count and the XOR-stream rate of the row's shape (the same streams, threads,
	 * slices and buffer layout with no GF work; the buffers rotate over >= 4 x L3, so every byte
	 * crosses memory). On the GPU from device memory: the XOR-stream bound (k chunks read, m
	 * written, no GF work), over the row's traffic per data byte. From host memory to the GPU:
	 * every data byte crosses pinned H2D.
	 */
	{
		const struct perf_code_ceil *pc = perf_code_ceil(ce, k, m);
		const struct perf_xor_ceil *xc = perf_xor_ceil(ce, op, k, m, e, chunk);
		const double per_data = r->traffic_bytes / r->data_bytes;
		const int one = ce->threads == 1 || o->threads == 1;
		const int by_xor = xc && xc->gbps > (one ? ce->cpu_mem_1 : ce->cpu_mem_t);
		const double mem = by_xor ? xc->gbps : one ? ce->cpu_mem_1 : ce->cpu_mem_t;

		if (r->on_gpu && data == PERF_GPU && pc && pc->xor_gpu > 0) {
			snprintf(r->ceil_name, sizeof(r->ceil_name), "GPU XOR-stream bound");
			r->ceil_gbps = pc->xor_gpu * ((double)(k + m) / k) / per_data;
		} else if (r->on_gpu && ce->h2d > 0) {
			snprintf(r->ceil_name, sizeof(r->ceil_name), "pinned H2D");
			r->ceil_gbps = ce->h2d;
		} else if (!r->on_gpu && data == PERF_PAGEABLE && mem > 0) {
			snprintf(r->ceil_name, sizeof(r->ceil_name), "CPU %s, %d thread%s",
				 by_xor ? "XOR-stream" : "memory", one ? 1 : ce->threads,
				 one ? "" : "s");
			r->ceil_gbps = mem / per_data;
			r->ceil_spread = by_xor ? xc->spread
				       : one ? ce->cpu_mem_1_spread
					     : ce->cpu_mem_t_spread;
		}
		r->pct = pct_of(r->gbps.median, r->ceil_gbps);
	}
	bufs_free(&b);
	gfec_codec_free(c);
	return 0;
fail:
	bufs_free(&b);
	gfec_codec_free(c);
	free(r->lat);
	free(r->rep_gbps);
	r->lat = r->rep_gbps = NULL;
	return -1;
}
