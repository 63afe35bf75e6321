/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_nc.c
 * `gfec-perf nc`: random linear network coding (gfec_nc.h) through the public API, on the CPU
 * and the GPU, in gfec-perf's table, JSON and SVG (perf_output.c). Rows, per n and B:
 *
 *   encode  encode   nseg segments x n coded blocks per call (gfec_nc_encode)
 *   decode  eager    one segment per call, one thread: a progressive decoder fed n coded blocks,
 *           defer    then read (eager and deferred modes); a comment line before each gives the
 *                    time from the last block's add to the read segment (p50, p99 over the calls)
 *   decode  batch    nseg segments of n coded blocks per call (gfec_nc_decode_batch)
 *   encode  recode   n new blocks from a full decoder per call (gfec_nc_recode)
 *
 * Every row is checked (decodes give back the segments, encodes equal raw ISA-L's products;
 * a recode's random weights have no reference: n/a) and compared with a figure measured in the
 * same run beside it:
 *   - CPU rows: raw ISA-L ec_encode_data with the same coefficient matrix on the same data and
 *     threads (decodes: the n x n product a decode must at least do, on the row's threads): the
 *     issue's target is gfec >= 0.9x of it. It is a reference, not a bound (gfec's GFNI kernels
 *     can pass it), so the self-check leaves these rows alone.
 *   - GPU rows (device buffers): the GPU copy bound (HBM bytes read + written per second,
 *     perf_gpu_d2d), as data GB/s for the row's traffic; a bound, so the self-check applies.
 * In the JSON a row's k is n, m the blocks each segment gives or gets, batch the segments per
 * call, technique the workload.
 *
 * LT rows (--family lt, issue 14; code LT(n), w = 1: an LT block is a sum over GF(2)), per n and
 * B of their own lists (--lt-n, --lt-block; default n = 10240, B = 1 KiB, the thesis's shape):
 *
 *   encode  encode   n coded blocks of one segment per call, on all threads (gfec_nc_encode)
 *   decode  prog     one thread: a progressive decoder fed the fewest blocks that decode the
 *                    segment (found once, beforehand), COMPLETE on the last, then read
 *
 * Both are bounded by the CPU memory sweeps measured in the same run (on all threads for encode,
 * on one for decode), for the least traffic each must make: encode reads the segment once and
 * writes its blocks, decode reads its blocks once and writes the segment. That is a true bound
 * (the XORs' repeated reads of sources only add traffic), so the self-check applies. Encodes are
 * checked against a plain XOR of the neighbours lt.h names, decodes against the segment.
 * With a GPU, an LT encode row on device buffers too: max(n, 262144) blocks of one segment per
 * call (the GPU encoder needs that many to fill the device; --lt-gpu-blocks sets another count),
 * against the GPU copy bound for the same least traffic; its first 4096 blocks are checked.
 *
 * GPU contexts (issue 18): the GPU rows' codes take gpu_devices= (GFEC_GPU_DEVICES) as any code
 * does, one context per entry. The run lists every context with its GPU's ceilings (copy, the
 * XOR-stream bound of RS(10,4) on 64 stripes of 1 MiB, pinned H2D and D2H; measured once per GPU)
 * and, after each GPU row, each context's share of the row's segment bytes, in the table (comment
 * lines) and the JSON (gpu_contexts, and each GPU row's gpu_context_shares).
 */
#include <isa-l/erasure_code.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gfec/gfec.h>
#include <gfec/gfec_nc.h>

#include "gfec_perf.h"
#include "lt.h"
#include "nc_prng.h"
#include "perf_nc.h"
#include "perf_util.h"
#include "threadpool.h"
#ifdef GFEC_HAVE_CUDA
#include "perf_gpu.h"
#endif

#define SEED 0x6e63u
#define NC_MAX_LIST 16
/* LT's GPU encode row: blocks per call (at least n) */
#define LT_GPU_BLOCKS 262144

/* Row @p r's contexts from @p nc (a GPU row's code, which ran only its calls). */
static void note_contexts(gfec_nc *nc, struct perf_row *r)
{
	struct gfec_gpu_device d[PERF_MAX_CTX];
	const int n = nc ? gfec_nc_gpu_devices(nc, d, PERF_MAX_CTX) : 0;

	r->nctx = n <= 0 ? 0 : n > PERF_MAX_CTX ? PERF_MAX_CTX : n;
	for (int i = 0; i < r->nctx; i++) {
		r->ctx_share[i] = d[i].share;
		r->ctx_calls[i] = d[i].calls;
		r->ctx_failures[i] = d[i].failures;
	}
}

/* --op's RLC workloads */
enum { OP_ENCODE = 1, OP_DECODE = 2, OP_BATCH = 4, OP_RECODE = 8, OP_ALL = 15 };

struct nc_opts {
	long ns[NC_MAX_LIST];
	int nn;
	size_t bs[NC_MAX_LIST];
	int nb;
	long lt_ns[NC_MAX_LIST];
	int lt_nn;
	size_t lt_bs[NC_MAX_LIST];
	int lt_nb;
	int rlc, lt; /* the families run */
	unsigned ops; /* the RLC workloads run: OP_* bits */
	int threads, repeats, cpu, gpu, quick;
	long lt_gpu_blocks; /* LT GPU encode: coded blocks per call (at least n) */
	double seconds; /* per repeat */
	size_t call_bytes;
	const char *json, *svg;
};

void perf_nc_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: gfec-perf nc [--family rlc,lt] [--n LIST] [--block LIST] [--lt-n LIST]\n"
	    "                    [--lt-block LIST] [--lt-gpu-blocks N] [-T THREADS] [-a cpu,gpu]\n"
	    "                    [-r REPEATS] [--quick] [--json FILE] [--svg PREFIX]\n"
	    "RLC (gfec_nc.h) encode, progressive decode (eager, deferred), batch decode and "
	    "recode\n"
	    "on the CPU and on the GPU (device buffers), each row beside raw ISA-L with the same\n"
	    "matrix (CPU) or the GPU copy bound (GPU), measured in the same run; LT encode (all\n"
	    "threads) and progressive decode (one thread) on the CPU against the CPU memory bound,\n"
	    "and LT encode on the GPU against the GPU copy bound. GPU rows run on the contexts of\n"
	    "GFEC_GPU_DEVICES (gpu_devices=), each listed with its ceilings and its share of each row.\n"
	    "  --family LIST  rlc, lt or rlc,lt (default rlc,lt)\n"
	    "  --op LIST      RLC workloads: encode, decode (eager and deferred), batch, recode\n"
	    "                 (default all)\n"
	    "  --n LIST       RLC segment widths, comma-separated (default 128,256,512,1024; --quick "
	    "128)\n"
	    "  --block LIST   RLC block sizes B (default 128,1K,4K,32K; --quick 4K)\n"
	    "  --lt-n LIST    LT segment widths, 1..65536 (default 10240; --quick 1024)\n"
	    "  --lt-block LIST  LT block sizes B (default 1K)\n"
	    "  --lt-gpu-blocks N  LT GPU encode: coded blocks per call, at least n (default "
	    "262144)\n"
	    "  -T THREADS     CPU threads for encode, batch decode and recode (default: online "
	    "CPUs)\n"
	    "  -a LIST        cpu, gpu or both (default: cpu, and gpu where there is one)\n"
	    "  -r REPEATS     timed repeats per row (default 5; --quick 3)\n"
	    "  --quick        n=128, B=4K, short repeats: a few seconds\n"
	    "  --json FILE    the rows and ceilings as gfec-perf's JSON\n"
	    "  --svg PREFIX   PREFIX-roofline.svg and PREFIX-latency.svg\n"
	    "Exit status: 0; 1 a row failed its check or could not run; 2 bad arguments; 3 JSON "
	    "or\n"
	    "SVG not written; 4 a GPU or LT row above its bound (the self-check).\n");
}

static int parse_list(const char *s, int sizes, long maxn, long *nl, size_t *bl, int *count)
{
	char buf[256], *save = NULL;

	if (!s || strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	*count = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*count == NC_MAX_LIST)
			return -1;
		if (sizes ? perf_parse_size(t, &bl[*count]) || bl[*count] > (1u << 30)
			  : perf_parse_long(t, 1, maxn, &nl[*count]))
			return -1;
		(*count)++;
	}
	return *count ? 0 : -1;
}

static int parse_args(int argc, char **argv, struct nc_opts *o, int *help)
{
	const char *ns = NULL, *bs = NULL, *a = NULL, *lns = NULL, *lbs = NULL, *fam = NULL;
	const char *ops = NULL;
	long v;

	memset(o, 0, sizeof(*o));
	*help = 0;
	o->repeats = -1;
	for (int i = 1; i < argc; i++) {
		const char *f = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(f, "--help") || !strcmp(f, "-h")) {
			*help = 1;
			return 0;
		} else if (!strcmp(f, "--quick")) {
			o->quick = 1;
			continue;
		}
		if (!val) {
			fprintf(stderr, "gfec-perf nc: %s needs a value (try --help)\n", f);
			return -1;
		}
		i++;
		if (!strcmp(f, "--n")) {
			ns = val;
		} else if (!strcmp(f, "--block")) {
			bs = val;
		} else if (!strcmp(f, "--lt-n")) {
			lns = val;
		} else if (!strcmp(f, "--lt-block")) {
			lbs = val;
		} else if (!strcmp(f, "--family")) {
			fam = val;
		} else if (!strcmp(f, "--op")) {
			ops = val;
		} else if (!strcmp(f, "-a")) {
			a = val;
		} else if (!strcmp(f, "--lt-gpu-blocks")) {
			if (perf_parse_long(val, 1, 1L << 22, &o->lt_gpu_blocks)) {
				fprintf(stderr, "gfec-perf nc: %s %s: expected a number in 1..%ld\n",
					f, val, 1L << 22);
				return -1;
			}
		} else if (!strcmp(f, "-T") || !strcmp(f, "-r")) {
			if (perf_parse_long(val, f[1] == 'T' ? 0 : 1, f[1] == 'T' ? 1024 : 1000,
					    &v)) {
				fprintf(stderr, "gfec-perf nc: %s %s: expected a number in %s\n", f,
					val, f[1] == 'T' ? "0..1024" : "1..1000");
				return -1;
			}
			*(f[1] == 'T' ? &o->threads : &o->repeats) = (int)v;
		} else if (!strcmp(f, "--json")) {
			o->json = val;
		} else if (!strcmp(f, "--svg")) {
			o->svg = val;
		} else {
			fprintf(stderr, "gfec-perf nc: unknown flag %s (try --help)\n", f);
			return -1;
		}
	}
	o->ops = ops ? 0 : OP_ALL;
	for (const char *p = ops; p;) {
		static const char *const names[] = { "encode", "decode", "batch", "recode" };
		const size_t len = strcspn(p, ",");
		unsigned bit = 0;

		for (int k = 0; k < 4; k++)
			if (len == strlen(names[k]) && !strncmp(p, names[k], len))
				bit = 1u << k;
		if (!bit) {
			fprintf(stderr, "gfec-perf nc: --op %s: expected encode, decode, batch or "
					"recode, comma-separated\n",
				ops);
			return -1;
		}
		o->ops |= bit;
		p = p[len] == ',' ? p + len + 1 : NULL;
	}
	if (ns ? parse_list(ns, 0, GFEC_NC_RLC_MAX_N, o->ns, NULL, &o->nn) : 0) {
		fprintf(stderr, "gfec-perf nc: --n %s: expected up to %d numbers in 1..%d\n", ns,
			NC_MAX_LIST, GFEC_NC_RLC_MAX_N);
		return -1;
	}
	if (bs ? parse_list(bs, 1, 0, NULL, o->bs, &o->nb) : 0) {
		fprintf(stderr, "gfec-perf nc: --block %s: expected up to %d sizes in 1..1G\n", bs,
			NC_MAX_LIST);
		return -1;
	}
	if (lns ? parse_list(lns, 0, GFEC_NC_MAX_N, o->lt_ns, NULL, &o->lt_nn) : 0) {
		fprintf(stderr, "gfec-perf nc: --lt-n %s: expected up to %d numbers in 1..%d\n", lns,
			NC_MAX_LIST, GFEC_NC_MAX_N);
		return -1;
	}
	if (lbs ? parse_list(lbs, 1, 0, NULL, o->lt_bs, &o->lt_nb) : 0) {
		fprintf(stderr, "gfec-perf nc: --lt-block %s: expected up to %d sizes in 1..1G\n",
			lbs, NC_MAX_LIST);
		return -1;
	}
	if (fam) {
		o->rlc = !strcmp(fam, "rlc") || !strcmp(fam, "rlc,lt") || !strcmp(fam, "lt,rlc");
		o->lt = !strcmp(fam, "lt") || !strcmp(fam, "rlc,lt") || !strcmp(fam, "lt,rlc");
		if (!o->rlc && !o->lt) {
			fprintf(stderr, "gfec-perf nc: --family %s: expected rlc, lt or rlc,lt\n",
				fam);
			return -1;
		}
	} else {
		o->rlc = o->lt = 1;
	}
	for (int i = 0; i < o->lt_nn; i++)
		for (int b = 0; b < o->lt_nb; b++)
			if ((uint64_t)o->lt_ns[i] * o->lt_bs[b] > (1ull << 30)) {
				fprintf(stderr,
					"gfec-perf nc: --lt-n %ld with --lt-block %zu: a segment "
					"of more than 1 GiB\n",
					o->lt_ns[i], o->lt_bs[b]);
				return -1;
			}
	if (a) {
		o->cpu = strstr(a, "cpu") != NULL;
		o->gpu = strstr(a, "gpu") != NULL;
		if ((!o->cpu && !o->gpu) || strspn(a, "cpug,") != strlen(a)) {
			fprintf(stderr, "gfec-perf nc: -a %s: expected cpu, gpu or cpu,gpu\n", a);
			return -1;
		}
	} else {
		o->cpu = 1;
		o->gpu = -1; /* where there is one */
	}
	if (!o->nn) {
		static const long dn[] = {128, 256, 512, 1024};

		o->nn = o->quick ? 1 : 4;
		memcpy(o->ns, dn, sizeof(dn));
	}
	if (!o->nb) {
		static const size_t db[] = {128, 1024, 4096, 32768};

		if (o->quick) {
			o->nb = 1;
			o->bs[0] = 4096;
		} else {
			o->nb = 4;
			memcpy(o->bs, db, sizeof(db));
		}
	}
	if (!o->lt_nn) {
		o->lt_nn = 1;
		o->lt_ns[0] = o->quick ? 1024 : 10240;
	}
	if (!o->lt_nb) {
		o->lt_nb = 1;
		o->lt_bs[0] = 1024;
	}
	if (o->repeats < 0)
		o->repeats = o->quick ? 3 : 5;
	if (!o->lt_gpu_blocks)
		o->lt_gpu_blocks = LT_GPU_BLOCKS;
	o->seconds = o->quick ? 0.03 : 0.2;
	o->call_bytes = o->quick ? (size_t)1 << 20 : (size_t)8 << 20;
	return 0;
}

/* ---------- raw ISA-L with the same matrix ---------- */

/* Task t: stripe t / per of the job, rows of slice t % per. */
struct isal_job {
	int n, rows, per, nstripes;
	size_t B;
	unsigned char *tbls;
	unsigned char **src; /* nstripes x n */
	unsigned char **dst; /* nstripes x rows */
};

static void isal_task(void *arg, size_t t)
{
	struct isal_job *j = arg;
	const int s = (int)(t / (size_t)j->per), part = (int)(t % (size_t)j->per);
	const int chunk = (j->rows + j->per - 1) / j->per;
	const int r0 = part * chunk, r1 = r0 + chunk < j->rows ? r0 + chunk : j->rows;

	if (r1 > r0)
		ec_encode_data((int)j->B, j->n, r1 - r0, j->tbls + (size_t)32 * j->n * r0,
			       j->src + (size_t)s * j->n, j->dst + (size_t)s * j->rows + r0);
}

static void isal_run(struct gfec_cpu_pool *pool, struct isal_job *j)
{
	const int threads = pool ? gfec_cpu_pool_threads(pool) : 1;

	/* enough tasks for the threads: several stripes each, or row slices of few stripes */
	j->per = j->nstripes >= threads ? 1 : (threads + j->nstripes - 1) / j->nstripes;
	if (pool)
		gfec_cpu_pool_run(pool, (size_t)j->nstripes * j->per, isal_task, j);
	else
		for (int t = 0; t < j->nstripes * j->per; t++)
			isal_task(j, (size_t)t);
}

/* ---------- timing ---------- */

typedef int (*call_fn)(void *arg);

/*
 * Runs @p fn for o->repeats repeats of about o->seconds each (after one warm-up call); per-call
 * latencies and per-repeat data GB/s into @p r (data_bytes already set). 0, or the call's error.
 */
static int time_calls(const struct nc_opts *o, call_fn fn, void *arg, struct perf_row *r)
{
	size_t cap = 1024, nlat = 0;
	double *lat = malloc(cap * sizeof(*lat));
	double busy = 0;
	int ret = fn(arg); /* warm-up */
	const clock_t c0 = clock();

	r->rep_gbps = calloc((size_t)o->repeats, sizeof(double));
	if (!lat || !r->rep_gbps) {
		free(lat);
		return -1;
	}
	for (int rep = 0; rep < o->repeats && !ret; rep++) {
		const double t0 = perf_now();
		long calls = 0;
		double t = t0;

		while (!ret && (calls == 0 || t - t0 < o->seconds)) {
			const double a = perf_now();

			ret = fn(arg);
			t = perf_now();
			if (nlat == cap) {
				double *nl = realloc(lat, 2 * cap * sizeof(*lat));

				if (!nl) {
					ret = -1;
					break;
				}
				lat = nl;
				cap *= 2;
			}
			lat[nlat++] = (t - a) * 1e6;
			calls++;
		}
		r->rep_gbps[rep] = r->data_bytes * (double)calls / (t - t0) * 1e-9;
		r->n += calls;
		busy += t - t0;
	}
	r->repeats = o->repeats;
	qsort(lat, nlat, sizeof(*lat), perf_cmp_double);
	r->lat = lat;
	r->nlat = (int)nlat;
	if (nlat) {
		r->p50 = lat[nlat / 2];
		r->p90 = lat[nlat * 9 / 10];
		r->p99 = lat[nlat * 99 / 100];
		r->p999 = lat[nlat * 999 / 1000];
	}
	r->gbps = perf_summarise(r->rep_gbps, o->repeats);
	r->flagged = r->gbps.spread > 0.10;
	r->traffic_gbps = r->gbps.median * r->traffic_bytes / r->data_bytes;
	r->gops = r->gbps.median * r->gf_ops / r->data_bytes;
	r->intensity = r->traffic_bytes > 0 ? r->gf_ops / r->traffic_bytes : 0;
	if (busy > 0 && r->n)
		r->cpu_s_per_gb =
		    (double)(clock() - c0) / CLOCKS_PER_SEC / (r->data_bytes * (double)r->n * 1e-9);
	return ret;
}

static int isal_call(void *arg)
{
	void **a = arg;

	isal_run(a[0], a[1]);
	return 0;
}

/* Raw ISA-L's data GB/s for @p j (data bytes per run @p data_bytes), and its spread. */
static double isal_gbps(const struct nc_opts *o, struct gfec_cpu_pool *pool, struct isal_job *j,
			double data_bytes, double *spread)
{
	struct perf_row r = {.data_bytes = data_bytes, .traffic_bytes = data_bytes, .gf_ops = 1};
	void *arg[2] = {pool, j};
	double g;

	time_calls(o, isal_call, arg, &r);
	g = r.gbps.median;
	*spread = r.gbps.spread;
	free(r.lat);
	free(r.rep_gbps);
	return g;
}

/* ---------- the rows ---------- */

struct shape {
	uint32_t n;
	size_t B;
	int nseg;
	int threads;
	size_t seg, sbytes; /* n * B; a seed-carrying block */
	uint8_t *data;	    /* nseg segments */
	uint8_t *blocks;    /* nseg x n coded blocks (seeds n .. 2n - 1) */
	uint8_t *c;	    /* n x n: their coefficient rows */
};

static void row_init(struct perf_row *r, const struct shape *s, enum perf_op op, const char *tech,
		     const char *backend, int batch)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->k = (int)s->n;
	r->m = (int)s->n;
	r->batch = batch;
	r->chunk = s->B;
	r->w = 8;
	snprintf(r->code, sizeof(r->code), "RLC(%u)", s->n);
	r->w = 8; /* RLC's coefficients are GF(2^8)'s (the table's w column, the JSON's w) */
	snprintf(r->technique, sizeof(r->technique), "%s", tech);
	snprintf(r->backend, sizeof(r->backend), "%s", backend);
	r->data = PERF_PAGEABLE;
	r->checked = -1;
}

/* Sets a CPU row's reference: raw ISA-L's figure, as the % column. */
static void vs_isal(struct perf_row *r, double isal, double spread)
{
	snprintf(r->ceil_name, sizeof(r->ceil_name), "raw ISA-L, same C (target 0.9x)");
	r->ceil_gbps = isal;
	r->ceil_spread = spread;
	r->pct = isal > 0 ? 100 * r->gbps.median / isal : 0;
	snprintf(r->engine, sizeof(r->engine), "cpu, %.2fx raw ISA-L",
		 isal > 0 ? r->gbps.median / isal : 0);
}

struct enc_arg {
	gfec_nc *nc;
	struct gfec_nc_segment *segs;
	int nseg;
	uint32_t count;
	uint8_t *out;
	size_t olen;
};

static int enc_call(void *arg)
{
	struct enc_arg *a = arg;

	return gfec_nc_encode(a->nc, a->segs, a->nseg, a->count, a->count, a->out, a->olen);
}

/* encode: nseg segments x n coded blocks (seeds n .. 2n - 1) per call. */
static int row_encode(const struct nc_opts *o, struct shape *s, struct gfec_cpu_pool *pool, int gpu,
		      double d2d, struct perf_row *r)
{
	struct gfec_nc_params p = {.n = s->n,
				   .block_size = (uint32_t)s->B,
				   .threads = s->threads,
				   .backend = gpu ? GFEC_NC_BACKEND_GPU : GFEC_NC_BACKEND_CPU};
	const size_t olen = (size_t)s->nseg * s->n * s->sbytes;
	struct gfec_nc_segment *segs = calloc((size_t)s->nseg, sizeof(*segs));
	struct enc_arg a = {.nseg = s->nseg, .count = s->n, .olen = olen, .segs = segs};
	uint8_t *host_out = malloc(olen);
#ifdef GFEC_HAVE_CUDA
	uint8_t *dev_data = NULL;
#endif
	int ret;

	row_init(r, s, PERF_ENCODE, "encode", gpu ? "gpu" : "cpu", s->nseg);
	r->data_bytes = (double)s->nseg * s->seg;
	r->traffic_bytes = r->data_bytes + (double)olen;
	r->gf_ops = (double)s->nseg * s->n * s->seg;
	if (!segs || !host_out || gfec_nc_create(&p, &a.nc)) {
		snprintf(r->skip, sizeof(r->skip), "cannot set up the %s code", r->backend);
		ret = -1;
		goto out;
	}
	a.out = host_out;
	for (int i = 0; i < s->nseg; i++)
		segs[i] = (struct gfec_nc_segment){.id = (uint64_t)i, .data = s->data + i * s->seg};
#ifdef GFEC_HAVE_CUDA
	if (gpu) {
		dev_data = perf_gpu_malloc((size_t)s->nseg * s->seg);
		a.out = perf_gpu_malloc(olen);
		if (!dev_data || !a.out ||
		    perf_gpu_copy(dev_data, s->data, (size_t)s->nseg * s->seg)) {
			snprintf(r->skip, sizeof(r->skip), "no GPU memory");
			ret = -1;
			goto out;
		}
		for (int i = 0; i < s->nseg; i++)
			segs[i].data = dev_data + i * s->seg;
		r->data = PERF_GPU;
		r->on_gpu = 1;
	}
#endif
	ret = time_calls(o, enc_call, &a, r);
	if (ret) {
		snprintf(r->skip, sizeof(r->skip), "gfec_nc_encode: %s", gfec_strerror(ret));
		goto out;
	}
#ifdef GFEC_HAVE_CUDA
	if (gpu && perf_gpu_copy(host_out, a.out, olen))
		ret = -1;
#endif
	{
		/* raw ISA-L with the same C: the check, and the CPU rows' reference */
		struct isal_job j = {
		    .n = (int)s->n, .rows = (int)s->n, .nstripes = s->nseg, .B = s->B};
		unsigned char *ref = malloc(olen);
		double spread = 0;

		j.tbls = malloc((size_t)32 * s->n * s->n);
		j.src = malloc(sizeof(*j.src) * s->nseg * s->n);
		j.dst = malloc(sizeof(*j.dst) * s->nseg * s->n);
		if (!ref || !j.tbls || !j.src || !j.dst) {
			ret = -1;
		} else {
			ec_init_tables((int)s->n, (int)s->n, s->c, j.tbls);
			for (size_t i = 0; i < (size_t)s->nseg * s->n; i++) {
				j.src[i] = s->data + i * s->B;
				j.dst[i] = ref + i * s->B;
			}
			isal_run(pool, &j);
			r->checked = 1;
			for (size_t i = 0; i < (size_t)s->nseg * s->n; i++)
				if (memcmp(host_out + i * s->sbytes + (s->sbytes - s->B),
					   ref + i * s->B, s->B))
					r->checked = 0;
			if (!gpu)
				vs_isal(r, isal_gbps(o, pool, &j, r->data_bytes, &spread), spread);
		}
		free(ref);
		free(j.tbls);
		free(j.src);
		free(j.dst);
	}
	if (gpu && d2d > 0) {
		snprintf(r->ceil_name, sizeof(r->ceil_name), "GPU copy (HBM)");
		r->ceil_gbps = d2d * r->data_bytes / r->traffic_bytes;
		r->pct = 100 * r->gbps.median / r->ceil_gbps;
		snprintf(r->engine, sizeof(r->engine), "gpu");
	}
	if (gpu)
		note_contexts(a.nc, r);
out:
#ifdef GFEC_HAVE_CUDA
	if (gpu) {
		perf_gpu_free(dev_data);
		perf_gpu_free(a.out);
	}
#endif
	gfec_nc_free(a.nc);
	free(segs);
	free(host_out);
	return ret;
}

struct dec_arg {
	gfec_nc *nc;
	const struct shape *s;
	uint8_t *out;
	double *last; /* progressive: each call's last add + read, seconds (up to cap) */
	size_t nlast, cap;
};

/*
 * One progressive decode: a decoder fed the n coded blocks of segment 0, then read; the time
 * from the last block's add to the read segment goes to a->last.
 */
static int prog_call(void *arg)
{
	struct dec_arg *a = arg;
	gfec_nc_decoder *d = NULL;
	int ret = gfec_nc_decoder_create(a->nc, 0, &d);
	double t0 = 0;

	for (uint32_t j = 0; !ret && j < a->s->n; j++) {
		if (j + 1 == a->s->n)
			t0 = perf_now();
		ret = gfec_nc_decoder_add(d, a->s->blocks + j * a->s->sbytes, a->s->sbytes);
		ret = ret < 0 ? ret : 0;
	}
	if (!ret)
		ret = gfec_nc_decoder_read(d, a->out, a->s->seg);
	if (!ret && a->nlast < a->cap)
		a->last[a->nlast++] = perf_now() - t0;
	gfec_nc_decoder_free(d);
	return ret;
}

/* The n x n product a decode must at least do, on one segment, as raw ISA-L on @p pool. */
static double isal_square(const struct nc_opts *o, const struct shape *s, int nstripes,
			  struct gfec_cpu_pool *pool, double *spread)
{
	struct isal_job j = {.n = (int)s->n, .rows = (int)s->n, .nstripes = nstripes, .B = s->B};
	uint8_t *out = malloc((size_t)nstripes * s->seg);
	double g = 0;

	*spread = 0;
	j.tbls = malloc((size_t)32 * s->n * s->n);
	j.src = malloc(sizeof(*j.src) * nstripes * s->n);
	j.dst = malloc(sizeof(*j.dst) * nstripes * s->n);
	if (out && j.tbls && j.src && j.dst) {
		ec_init_tables((int)s->n, (int)s->n, s->c, j.tbls);
		for (size_t i = 0; i < (size_t)nstripes * s->n; i++) {
			j.src[i] = s->data + i * s->B;
			j.dst[i] = out + i * s->B;
		}
		g = isal_gbps(o, pool, &j, (double)nstripes * s->seg, spread);
	}
	free(out);
	free(j.tbls);
	free(j.src);
	free(j.dst);
	return g;
}

static int row_progressive(const struct nc_opts *o, struct shape *s, int mode, double isal,
			   double spread, struct perf_row *r)
{
	struct gfec_nc_params p = {.n = s->n,
				   .block_size = (uint32_t)s->B,
				   .threads = 1,
				   .decode = mode,
				   .backend = GFEC_NC_BACKEND_CPU};
	struct dec_arg a = {.s = s, .out = malloc(s->seg), .cap = 1 << 16};
	int ret;

	a.last = malloc(sizeof(*a.last) * a.cap);
	row_init(r, s, PERF_DECODE, mode == GFEC_NC_EAGER ? "eager" : "defer", "cpu", 1);
	r->data_bytes = (double)s->seg;
	r->traffic_bytes = (double)s->n * s->sbytes + (double)s->seg;
	r->gf_ops = (double)s->n * s->seg;
	if (!a.out || !a.last || gfec_nc_create(&p, &a.nc)) {
		snprintf(r->skip, sizeof(r->skip), "cannot set up the code");
		free(a.out);
		free(a.last);
		return -1;
	}
	ret = time_calls(o, prog_call, &a, r);
	if (ret)
		snprintf(r->skip, sizeof(r->skip), "decode: %s", gfec_strerror(ret));
	else
		r->checked = memcmp(a.out, s->data, s->seg) == 0;
	vs_isal(r, isal, spread);
	if (!ret && a.nlast) { /* the "last block to a readable segment" */
		qsort(a.last, a.nlast, sizeof(*a.last), perf_cmp_double);
		printf("# decode %s RLC(%u) B=%zu: last block to readable (its add + read, one "
		       "thread) p50 %.1f us, p99 %.1f us over %zu decodes\n",
		       r->technique, s->n, s->B, 1e6 * a.last[a.nlast / 2],
		       1e6 * a.last[a.nlast - 1 - a.nlast / 100], a.nlast);
	}
	gfec_nc_free(a.nc);
	free(a.out);
	free(a.last);
	return ret;
}

struct batch_arg {
	gfec_nc *nc;
	struct gfec_nc_batch_segment *bs;
	int nseg;
};

static int batch_call(void *arg)
{
	struct batch_arg *a = arg;

	return gfec_nc_decode_batch(a->nc, a->bs, a->nseg);
}

/* batch decode: every segment from its n coded blocks, nseg per call. */
static int row_batch(const struct nc_opts *o, struct shape *s, int gpu, double isal, double spread,
		     double d2d, struct perf_row *r)
{
	struct gfec_nc_params p = {.n = s->n,
				   .block_size = (uint32_t)s->B,
				   .threads = s->threads,
				   .backend = gpu ? GFEC_NC_BACKEND_GPU : GFEC_NC_BACKEND_CPU};
	const size_t blen = (size_t)s->nseg * s->n * s->sbytes, olen = (size_t)s->nseg * s->seg;
	struct batch_arg a = {.nseg = s->nseg};
	const uint8_t **ptr = malloc(sizeof(*ptr) * s->nseg * s->n);
	size_t *lens = malloc(sizeof(*lens) * s->nseg * s->n);
	uint8_t *blocks = malloc(blen), *out = malloc(olen), *dblk = NULL, *dout = NULL;
	int ret = -1;

	row_init(r, s, PERF_DECODE, "batch", gpu ? "gpu" : "cpu", s->nseg);
	r->data_bytes = (double)olen;
	r->traffic_bytes = (double)blen + (double)olen;
	r->gf_ops = (double)s->n * olen;
	a.bs = calloc((size_t)s->nseg, sizeof(*a.bs));
	if (!ptr || !lens || !blocks || !out || !a.bs || gfec_nc_create(&p, &a.nc)) {
		snprintf(r->skip, sizeof(r->skip), "cannot set up the %s code", r->backend);
		goto out;
	}
	/* segment i's blocks: segment 0's coded blocks re-encoded for segment i */
	{
		struct gfec_nc_segment sg[1];
		gfec_nc *cpu = NULL;
		struct gfec_nc_params cp = p;

		cp.backend = GFEC_NC_BACKEND_CPU;
		if (gfec_nc_create(&cp, &cpu))
			goto out;
		for (int i = 0; i < s->nseg; i++) {
			sg[0] = (struct gfec_nc_segment){.id = (uint64_t)i,
							 .data = s->data + i * s->seg};
			if (gfec_nc_encode(cpu, sg, 1, s->n, s->n, blocks + i * s->n * s->sbytes,
					   s->n * s->sbytes)) {
				gfec_nc_free(cpu);
				goto out;
			}
		}
		gfec_nc_free(cpu);
	}
	dblk = blocks;
	dout = out;
#ifdef GFEC_HAVE_CUDA
	if (gpu) {
		dblk = perf_gpu_malloc(blen);
		dout = perf_gpu_malloc(olen);
		if (!dblk || !dout || perf_gpu_copy(dblk, blocks, blen)) {
			snprintf(r->skip, sizeof(r->skip), "no GPU memory");
			goto out;
		}
		r->data = PERF_GPU;
		r->on_gpu = 1;
	}
#endif
	for (int i = 0; i < s->nseg; i++) {
		for (uint32_t j = 0; j < s->n; j++) {
			ptr[(size_t)i * s->n + j] = dblk + ((size_t)i * s->n + j) * s->sbytes;
			lens[(size_t)i * s->n + j] = s->sbytes;
		}
		a.bs[i] = (struct gfec_nc_batch_segment){.id = (uint64_t)i,
							 .blocks = ptr + (size_t)i * s->n,
							 .lens = lens + (size_t)i * s->n,
							 .nblocks = s->n,
							 .out = dout + i * s->seg};
	}
	ret = time_calls(o, batch_call, &a, r);
	if (ret) {
		snprintf(r->skip, sizeof(r->skip), "gfec_nc_decode_batch: %s", gfec_strerror(ret));
		goto out;
	}
#ifdef GFEC_HAVE_CUDA
	if (gpu && perf_gpu_copy(out, dout, olen))
		ret = -1;
#endif
	r->checked = !ret && memcmp(out, s->data, olen) == 0;
	if (gpu && d2d > 0) {
		snprintf(r->ceil_name, sizeof(r->ceil_name), "GPU copy (HBM)");
		r->ceil_gbps = d2d * r->data_bytes / r->traffic_bytes;
		r->pct = 100 * r->gbps.median / r->ceil_gbps;
		snprintf(r->engine, sizeof(r->engine), "gpu");
	} else if (!gpu) {
		vs_isal(r, isal, spread);
	}
	if (gpu)
		note_contexts(a.nc, r);
out:
#ifdef GFEC_HAVE_CUDA
	if (gpu) {
		perf_gpu_free(dblk);
		perf_gpu_free(dout);
	}
#endif
	gfec_nc_free(a.nc);
	free(a.bs);
	free(ptr);
	free(lens);
	free(blocks);
	free(out);
	return ret;
}

struct recode_arg {
	gfec_nc_decoder *d;
	uint32_t count;
	uint8_t *out;
	size_t olen;
};

static int recode_call(void *arg)
{
	struct recode_arg *a = arg;

	return gfec_nc_recode(a->d, 7, a->count, a->out, a->olen);
}

/* recode: n coefficient-carrying blocks per call from a decoder holding the n coded blocks. */
static int row_recode(const struct nc_opts *o, struct shape *s, struct gfec_cpu_pool *pool,
		      struct perf_row *r)
{
	struct gfec_nc_params p = {.n = s->n,
				   .block_size = (uint32_t)s->B,
				   .threads = s->threads,
				   .decode = GFEC_NC_DEFERRED,
				   .backend = GFEC_NC_BACKEND_CPU};
	gfec_nc *nc = NULL;
	struct recode_arg a = {.count = s->n};
	double spread = 0;
	int ret = -1;

	row_init(r, s, PERF_ENCODE, "recode", "cpu", 1);
	r->data_bytes = (double)s->seg;
	if (gfec_nc_create(&p, &nc) || gfec_nc_decoder_create(nc, 0, &a.d)) {
		snprintf(r->skip, sizeof(r->skip), "cannot set up the code");
		goto out;
	}
	a.olen = (size_t)s->n * gfec_nc_block_bytes(nc, GFEC_NC_KIND_COEF);
	a.out = malloc(a.olen);
	r->traffic_bytes = (double)s->seg + (double)a.olen;
	r->gf_ops = (double)s->n * s->seg;
	for (uint32_t j = 0; j < s->n; j++)
		gfec_nc_decoder_add(a.d, s->blocks + j * s->sbytes, s->sbytes);
	if (!a.out || gfec_nc_decoder_rank(a.d) != s->n)
		goto out;
	ret = time_calls(o, recode_call, &a, r);
	if (ret) {
		snprintf(r->skip, sizeof(r->skip), "gfec_nc_recode: %s", gfec_strerror(ret));
		goto out;
	}
	/* raw ISA-L: the same count x n product (the weights' shape) on the same threads */
	{
		struct isal_job j = {.n = (int)s->n, .rows = (int)s->n, .nstripes = 1, .B = s->B};
		uint8_t *ref = malloc(s->seg);

		j.tbls = malloc((size_t)32 * s->n * s->n);
		j.src = malloc(sizeof(*j.src) * s->n);
		j.dst = malloc(sizeof(*j.dst) * s->n);
		if (ref && j.tbls && j.src && j.dst) {
			ec_init_tables((int)s->n, (int)s->n, s->c, j.tbls);
			for (uint32_t i = 0; i < s->n; i++) {
				j.src[i] = s->data + i * s->B;
				j.dst[i] = ref + i * s->B;
			}
			vs_isal(r, isal_gbps(o, pool, &j, r->data_bytes, &spread), spread);
		}
		free(ref);
		free(j.tbls);
		free(j.src);
		free(j.dst);
	}
out:
	gfec_nc_decoder_free(a.d);
	gfec_nc_free(nc);
	free(a.out);
	return ret;
}

/* ---------- LT ---------- */

static void lt_row_init(struct perf_row *r, uint32_t n, size_t B, enum perf_op op, const char *tech,
			int batch)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->k = (int)n;
	r->m = (int)n;
	r->batch = batch;
	r->chunk = B;
	r->w = 1; /* an LT block is a sum over GF(2): gf_ops count bits */
	snprintf(r->code, sizeof(r->code), "LT(%u)", n);
	snprintf(r->technique, sizeof(r->technique), "%s", tech);
	snprintf(r->backend, sizeof(r->backend), "cpu");
	r->data = PERF_PAGEABLE;
	r->checked = -1;
}

/* An LT row's GF work (one XOR per byte of each of @p edges B-byte neighbours) and its bound: the
 * memory sweep @p mem (bytes read + written per second) for the row's least traffic, as data
 * GB/s. */
static void lt_bound(struct perf_row *r, double edges, size_t B, const char *name, double mem,
		     double spread)
{
	r->gf_ops = edges * (double)B * 8;
	r->gops = r->gbps.median * r->gf_ops / r->data_bytes;
	r->intensity = r->gf_ops / r->traffic_bytes;
	snprintf(r->ceil_name, sizeof(r->ceil_name), "%s", name);
	r->ceil_gbps = mem * r->data_bytes / r->traffic_bytes;
	r->ceil_spread = spread;
	r->pct = r->ceil_gbps > 0 ? 100 * r->gbps.median / r->ceil_gbps : 0;
	snprintf(r->engine, sizeof(r->engine), "cpu, %.0f%% of memory", r->pct);
}

/* Whether the @p count blocks at @p blocks (seeds first.., payload last in each) are the XORs of
 * the neighbours lt.h names for their seeds (@p seg NULL: not checked): 1, 0, or -1 (no memory).
 * *edges: their degrees' sum. */
static int lt_check_encode(uint32_t n, size_t B, const uint8_t *seg, const uint8_t *blocks,
			   size_t sbytes, uint32_t first, uint32_t count, double *edges)
{
	struct gfec_lt_dist *dist = NULL;
	uint32_t *idx = malloc(sizeof(*idx) * n);
	uint8_t *x = malloc(B);
	int ok = 1;

	*edges = 0;
	if (!idx || !x || gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &dist)) {
		ok = -1;
		goto out;
	}
	for (uint32_t j = 0; j < count && ok == 1; j++) {
		uint32_t d = gfec_lt_block(dist, first + j, idx);

		*edges += d;
		if (!seg)
			continue;
		memset(x, 0, B);
		for (uint32_t t = 0; t < d; t++)
			for (size_t i = 0; i < B; i++)
				x[i] ^= seg[(size_t)idx[t] * B + i];
		ok = memcmp(x, blocks + (size_t)j * sbytes + (sbytes - B), B) == 0;
	}
out:
	gfec_lt_dist_free(dist);
	free(idx);
	free(x);
	return ok;
}

/* LT encode: n coded blocks (seeds n .. 2n - 1) of one segment per call, on all threads. */
static int row_lt_encode(const struct nc_opts *o, uint32_t n, size_t B, int threads,
			 const struct perf_ceilings *ce, struct perf_row *r)
{
	struct gfec_nc_params p = {.n = n,
				   .block_size = (uint32_t)B,
				   .threads = threads,
				   .family = GFEC_NC_LT,
				   .backend = GFEC_NC_BACKEND_CPU};
	const size_t seg = (size_t)n * B, sbytes = gfec_nc_header_bytes(GFEC_NC_KIND_SEED, n) + B;
	struct gfec_nc_segment sg = {.id = 1};
	struct enc_arg a = {.nseg = 1, .count = n, .olen = (size_t)n * sbytes, .segs = &sg};
	uint8_t *data = malloc(seg);
	double edges = 0;
	int ret = -1, ok;

	lt_row_init(r, n, B, PERF_ENCODE, "encode", 1);
	r->data_bytes = (double)seg;
	r->traffic_bytes = (double)seg + (double)a.olen;
	a.out = malloc(a.olen);
	if (!data || !a.out || gfec_nc_create(&p, &a.nc)) {
		snprintf(r->skip, sizeof(r->skip), "cannot set up the code");
		goto out;
	}
	perf_fill_random(data, seg, SEED + n);
	sg.data = data;
	ret = time_calls(o, enc_call, &a, r);
	if (ret) {
		snprintf(r->skip, sizeof(r->skip), "gfec_nc_encode: %s", gfec_strerror(ret));
		goto out;
	}
	ok = lt_check_encode(n, B, data, a.out, sbytes, n, n, &edges);
	if (ok < 0) {
		snprintf(r->skip, sizeof(r->skip), "no memory for the check");
		ret = -1;
		goto out;
	}
	r->checked = ok;
	lt_bound(r, edges, B, "CPU memory, T threads (least traffic)", ce->cpu_mem_t,
		 ce->cpu_mem_t_spread);
out:
	gfec_nc_free(a.nc);
	free(data);
	free(a.out);
	return ret;
}

#ifdef GFEC_HAVE_CUDA
/*
 * LT encode on the GPU, device buffers: max(n, --lt-gpu-blocks) coded blocks (seeds count ..) of
 * one segment per call, against the GPU copy bound @p d2d for the least traffic (the segment
 * read once, the blocks written); GB/s of coded payload. The first 4096 blocks are checked.
 */
static int row_lt_gpu(const struct nc_opts *o, uint32_t n, size_t B, double d2d,
		      struct perf_row *r)
{
	struct gfec_nc_params p = {.n = n,
				   .block_size = (uint32_t)B,
				   .family = GFEC_NC_LT,
				   .backend = GFEC_NC_BACKEND_GPU};
	const uint32_t count = n > o->lt_gpu_blocks ? n : (uint32_t)o->lt_gpu_blocks, nchk = 4096;
	const size_t seg = (size_t)n * B, sbytes = gfec_nc_header_bytes(GFEC_NC_KIND_SEED, n) + B;
	struct gfec_nc_segment sg = {.id = 1};
	struct enc_arg a = {.nseg = 1, .count = count, .olen = (size_t)count * sbytes, .segs = &sg};
	uint8_t *data = malloc(seg), *back = malloc((size_t)nchk * sbytes), *dev = NULL;
	double edges = 0, chk_edges;
	int ret = -1, ok;

	lt_row_init(r, n, B, PERF_ENCODE, "encode", 1);
	r->m = (int)count;
	snprintf(r->backend, sizeof(r->backend), "gpu");
	r->data = PERF_GPU;
	r->on_gpu = 1;
	r->data_bytes = (double)count * (double)B;
	r->traffic_bytes = (double)seg + (double)a.olen;
	dev = perf_gpu_malloc(seg);
	a.out = perf_gpu_malloc(a.olen);
	if (!data || !back || !dev || !a.out || gfec_nc_create(&p, &a.nc)) {
		snprintf(r->skip, sizeof(r->skip), "cannot set up the code (GPU memory)");
		goto out;
	}
	perf_fill_random(data, seg, SEED + n);
	if (perf_gpu_copy(dev, data, seg)) {
		snprintf(r->skip, sizeof(r->skip), "cannot copy to the GPU");
		goto out;
	}
	sg.data = dev;
	ret = time_calls(o, enc_call, &a, r);
	if (ret) {
		snprintf(r->skip, sizeof(r->skip), "gfec_nc_encode: %s", gfec_strerror(ret));
		goto out;
	}
	ret = perf_gpu_copy(back, a.out, (size_t)(count < nchk ? count : nchk) * sbytes);
	ok = ret ? -1
		 : lt_check_encode(n, B, data, back, sbytes, count, count < nchk ? count : nchk,
				   &chk_edges);
	if (ok >= 0)
		ok = ok && lt_check_encode(n, B, NULL, NULL, sbytes, count, count, &edges) >= 0;
	if (ok < 0) {
		snprintf(r->skip, sizeof(r->skip), "no memory for the check");
		ret = -1;
		goto out;
	}
	r->checked = ok;
	lt_bound(r, edges, B, "GPU copy (HBM, least traffic)", d2d, 0);
	snprintf(r->engine, sizeof(r->engine), "gpu, %.0f%% of the copy", r->pct);
	note_contexts(a.nc, r);
out:
	perf_gpu_free(dev);
	perf_gpu_free(a.out);
	gfec_nc_free(a.nc);
	free(data);
	free(back);
	return ret;
}

/* The contexts a GPU code of this run gets (gpu_devices=), and each one's GPU ceilings. */
static int measure_contexts(const struct nc_opts *o, struct perf_gpu_ctx *x)
{
	struct gfec_nc_params p = {.n = 4, .block_size = 64, .backend = GFEC_NC_BACKEND_GPU};
	struct gfec_gpu_device d[PERF_MAX_CTX];
	gfec_nc *nc = NULL;
	int n;

	if (gfec_nc_create(&p, &nc))
		return 0;
	n = gfec_nc_gpu_devices(nc, d, PERF_MAX_CTX);
	gfec_nc_free(nc);
	n = n < 0 ? 0 : n > PERF_MAX_CTX ? PERF_MAX_CTX : n;
	for (int i = 0; i < n; i++)
		x[i] = (struct perf_gpu_ctx){.d = d[i]};
	perf_gpu_contexts_measure(x, n, o->quick);
	return n;
}
#endif

struct lt_dec_arg {
	gfec_nc *nc;
	const uint8_t *blocks;
	size_t sbytes, seg;
	uint32_t m;
	uint8_t *out;
};

/* One progressive LT decode: the m blocks into a new decoder (COMPLETE on the last), then read. */
static int lt_dec_call(void *arg)
{
	struct lt_dec_arg *a = arg;
	gfec_nc_decoder *d = NULL;
	int ret = gfec_nc_decoder_create(a->nc, 1, &d), r = 0;

	for (uint32_t j = 0; !ret && j < a->m; j++) {
		r = gfec_nc_decoder_add(d, a->blocks + (size_t)j * a->sbytes, a->sbytes);
		ret = r < 0 ? r : 0;
	}
	if (!ret)
		ret = r == GFEC_NC_COMPLETE ? gfec_nc_decoder_read(d, a->out, a->seg) : GFEC_E_TOOFEW;
	gfec_nc_decoder_free(d);
	return ret;
}

/* LT progressive decode on one thread, from the fewest blocks (seeds 0..m-1) that decode. */
static int row_lt_decode(const struct nc_opts *o, uint32_t n, size_t B,
			 const struct perf_ceilings *ce, struct perf_row *r)
{
	struct gfec_nc_params p = {.n = n,
				   .block_size = (uint32_t)B,
				   .threads = 1,
				   .family = GFEC_NC_LT,
				   .backend = GFEC_NC_BACKEND_CPU};
	const size_t seg = (size_t)n * B, sbytes = gfec_nc_header_bytes(GFEC_NC_KIND_SEED, n) + B;
	/* an exact decoder needs a few blocks over n (2.7% at n = 128, far less above): 2n + 64
	 * leave room for any shape */
	const uint32_t most = 2 * n + 64;
	struct gfec_nc_segment sg = {.id = 1};
	struct lt_dec_arg a = {.sbytes = sbytes, .seg = seg};
	uint8_t *data = malloc(seg), *blocks = malloc((size_t)most * sbytes);
	gfec_nc_decoder *d = NULL;
	double edges = 0;
	int ret = -1, rc = 0;

	lt_row_init(r, n, B, PERF_DECODE, "prog", 1);
	a.out = malloc(seg);
	if (!data || !blocks || !a.out || gfec_nc_create(&p, &a.nc) ||
	    gfec_nc_decoder_create(a.nc, 1, &d)) {
		snprintf(r->skip, sizeof(r->skip), "cannot set up the code");
		goto out;
	}
	perf_fill_random(data, seg, SEED + n + 1);
	sg.data = data;
	if ((ret = gfec_nc_encode(a.nc, &sg, 1, 0, most, blocks, (size_t)most * sbytes)))
		goto out;
	for (a.m = 0; a.m < most && rc != GFEC_NC_COMPLETE; a.m++)
		if ((rc = gfec_nc_decoder_add(d, blocks + (size_t)a.m * sbytes, sbytes)) < 0)
			break;
	if (rc != GFEC_NC_COMPLETE) {
		snprintf(r->skip, sizeof(r->skip), "%u blocks do not decode", most);
		ret = -1;
		goto out;
	}
	a.blocks = blocks;
	r->m = (int)a.m;
	r->data_bytes = (double)seg;
	r->traffic_bytes = (double)a.m * sbytes + (double)seg;
	memset(a.out, 0x5a, seg);
	ret = time_calls(o, lt_dec_call, &a, r);
	if (ret) {
		snprintf(r->skip, sizeof(r->skip), "decode: %s", gfec_strerror(ret));
		goto out;
	}
	r->checked = memcmp(a.out, data, seg) == 0;
	/* GF-ops: one XOR per edge of the blocks taken, what peeling does (elimination adds) */
	if (lt_check_encode(n, B, NULL, NULL, sbytes, 0, a.m, &edges) < 0) {
		snprintf(r->skip, sizeof(r->skip), "no memory for the edge count");
		ret = -1;
		goto out;
	}
	lt_bound(r, edges, B, "CPU memory, 1 thread (least traffic)", ce->cpu_mem_1,
		 ce->cpu_mem_1_spread);
out:
	gfec_nc_decoder_free(d);
	gfec_nc_free(a.nc);
	free(data);
	free(blocks);
	free(a.out);
	return ret;
}

/* A shape's data: nseg segments, segment 0's n coded blocks, their coefficient rows. */
static int shape_init(struct shape *s, const struct nc_opts *o, uint32_t n, size_t B, int threads)
{
	struct gfec_nc_params p = {
	    .n = n, .block_size = (uint32_t)B, .backend = GFEC_NC_BACKEND_CPU};
	struct gfec_nc_segment sg = {.id = 0};
	gfec_nc *nc = NULL;
	int ret;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->B = B;
	s->seg = (size_t)n * B;
	s->threads = threads;
	s->nseg = (int)(o->call_bytes / s->seg);
	s->nseg = s->nseg < 1 ? 1 : s->nseg > 4096 ? 4096 : s->nseg;
	s->sbytes = gfec_nc_header_bytes(GFEC_NC_KIND_SEED, n) + B;
	s->data = malloc((size_t)s->nseg * s->seg);
	s->blocks = malloc((size_t)n * s->sbytes);
	s->c = malloc((size_t)n * n);
	if (!s->data || !s->blocks || !s->c || gfec_nc_create(&p, &nc))
		return -1;
	perf_fill_random(s->data, (size_t)s->nseg * s->seg, SEED + n);
	for (uint32_t r = 0; r < n; r++)
		gfec_nc_prng_row(n + r, n, 0, s->c + (size_t)r * n);
	sg.data = s->data;
	ret = gfec_nc_encode(nc, &sg, 1, n, n, s->blocks, (size_t)n * s->sbytes);
	gfec_nc_free(nc);
	return ret;
}

static void shape_free(struct shape *s)
{
	free(s->data);
	free(s->blocks);
	free(s->c);
}

/* A row that ran is printed: 1 if its check failed; one that did not run says why: 1. Else 0. */
static int row_done(const struct perf_row *r, int ret)
{
	if (ret || r->skip[0]) {
		fprintf(stderr, "gfec-perf nc: %s %s %s B=%zu: %s\n", perf_op_names[r->op], r->code,
			r->technique, r->chunk, r->skip[0] ? r->skip : "failed");
		return 1;
	}
	perf_print_row(r);
	return r->checked == 0;
}

int perf_nc_main(int argc, char **argv)
{
	struct nc_opts o;
	struct perf_opts po = {0};
	struct perf_ceilings ce;
	struct perf_row *rows = NULL;
	struct gfec_cpu_pool *pool = NULL;
	char cmd[2048] = "gfec-perf ", cpu[128];
	int help, nrows = 0, status = 0, gpu = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct perf_gpu_ctx ctxs[PERF_MAX_CTX];
	int nctx = 0;

	if (parse_args(argc, argv, &o, &help))
		return 2;
	if (help) {
		perf_nc_usage(stdout);
		return 0;
	}
	const int threads = o.threads ? o.threads : (int)(ncpu > 0 ? ncpu : 1);

	perf_command_line(argc, argv, cmd + strlen(cmd), sizeof(cmd) - strlen(cmd));
	perf_cpu_model(cpu, sizeof(cpu));
	printf("# reproduce: %s\n", cmd);
	/* the machine's ceilings without any RS code: CPU memory, GPU copy and PCIe */
	po.threads = threads;
	po.quick = o.quick;
	perf_measure_ceilings(&po, &ce);
#ifdef GFEC_HAVE_CUDA
	gpu = o.gpu != 0 && ce.gpu;
#endif
	if (o.gpu == 1 && !gpu) {
		fprintf(stderr, "gfec-perf nc: -a gpu: no usable GPU%s\n",
#ifdef GFEC_HAVE_CUDA
			""
#else
			" (built without CUDA)"
#endif
		);
		return 2;
	}
#ifdef GFEC_HAVE_CUDA
	if (gpu) {
		nctx = measure_contexts(&o, ctxs);
		perf_print_gpu_contexts(ctxs, nctx);
	}
#endif
	printf("# gfec_nc.h (%s) on %s, %ld online CPUs; %d threads for encode, batch decode and "
	       "recode, 1 for progressive decode%s%s\n",
	       o.rlc && o.lt ? "RLC and LT" : o.rlc ? "RLC" : "LT",
	       cpu, ncpu, threads, gpu ? "; GPU " : "", gpu ? ce.gpu_name : "");
	printf("# GB/s = 10^9 segment bytes (n x B) per second, median of %d repeats; code RLC(n)"
	       " or LT(n): k = n, m = blocks per segment; batch = segments per call\n",
	       o.repeats);
	if (o.rlc)
		printf("# %%ceil: CPU rows against raw ISA-L ec_encode_data with the same C on the same "
	       "threads (a reference, target >= 90%%); GPU rows against the GPU copy bound\n");
	if (o.lt)
		printf("# LT(n) rows (w = 1, XOR): encode n blocks per call on %d threads, decode on "
		       "1 from the fewest blocks (m); %%ceil against the CPU memory sweeps of this "
		       "run (%.1f GB/s on 1 thread, %.1f on %d, read + written) for the least "
		       "traffic (self-checked)",
		       threads, ce.cpu_mem_1, ce.cpu_mem_t, threads);
	if (o.lt && gpu)
		printf("; GPU encode: max(n, %ld) blocks per call from GPU memory against the GPU "
		       "copy for the same least traffic, GB/s of coded payload",
		       o.lt_gpu_blocks);
	if (o.lt)
		printf("\n");
	if (gfec_cpu_pool_create(threads, &pool)) {
		fprintf(stderr, "gfec-perf nc: cannot start %d threads\n", threads);
		return 1;
	}
	rows = calloc((size_t)o.nn * o.nb * 8 + (size_t)o.lt_nn * o.lt_nb * 3, sizeof(*rows));
	if (!rows) {
		status = 1;
		goto out;
	}
	perf_print_header();
	for (int i = 0; o.rlc && i < o.nn; i++) {
		for (int b = 0; b < o.nb; b++) {
			struct shape s;
			double sq1, sq1s, sqt, sqts;
			struct gfec_cpu_pool *one = NULL;

			if (shape_init(&s, &o, (uint32_t)o.ns[i], o.bs[b], threads)) {
				fprintf(stderr, "gfec-perf nc: cannot set up n=%ld B=%zu\n",
					o.ns[i], o.bs[b]);
				shape_free(&s);
				status = 1;
				continue;
			}
			/* the decode rows' reference (CPU rows only: it costs as much as they do)
			 */
			sq1 = sqt = sq1s = sqts = 0;
			if (o.cpu && (o.ops & OP_DECODE))
				sq1 = isal_square(&o, &s, 1, one, &sq1s);
			if (o.cpu && (o.ops & OP_BATCH))
				sqt = isal_square(&o, &s, s.nseg, pool, &sqts);
			for (int w = 0; w < 8; w++) {
				struct perf_row *r = &rows[nrows];
				int ret = 0, run = 1;

				switch (w) {
				case 0:
					run = o.cpu && (o.ops & OP_ENCODE);
					if (run)
						ret = row_encode(&o, &s, pool, 0, 0, r);
					break;
				case 1:
					run = gpu && (o.ops & OP_ENCODE);
					if (run)
						ret = row_encode(&o, &s, pool, 1, ce.d2d, r);
					break;
				case 2:
				case 3:
					run = o.cpu && (o.ops & OP_DECODE);
					if (run)
						ret = row_progressive(&o, &s,
								      w == 2 ? GFEC_NC_EAGER
									     : GFEC_NC_DEFERRED,
								      sq1, sq1s, r);
					break;
				case 4:
					run = o.cpu && (o.ops & OP_BATCH);
					if (run)
						ret = row_batch(&o, &s, 0, sqt, sqts, 0, r);
					break;
				case 5:
					run = gpu && (o.ops & OP_BATCH);
					if (run)
						ret = row_batch(&o, &s, 1, 0, 0, ce.d2d, r);
					break;
				case 6:
					run = o.cpu && (o.ops & OP_RECODE);
					if (run)
						ret = row_recode(&o, &s, pool, r);
					break;
				default:
					run = 0;
				}
				if (!run)
					continue;
				nrows++;
				if (ret == GFEC_E_NOTSUP && r->on_gpu) {
					/* n past what the GPU kernels take: said, not a failure */
					printf("# %s %s RLC(%u) B=%zu on the GPU: not run (%s)\n",
					       perf_op_names[r->op], r->technique, s.n, s.B,
					       r->skip);
					free(r->lat);
					free(r->rep_gbps);
					nrows--;
					continue;
				}
				if (row_done(r, ret))
					status = 1;
				perf_print_row_contexts(r);
			}
			shape_free(&s);
		}
	}
	for (int i = 0; o.lt && i < o.lt_nn; i++) {
		for (int b = 0; b < o.lt_nb; b++) {
			for (int w = 0; w < 3; w++) {
				struct perf_row *r = &rows[nrows];
				const uint32_t n = (uint32_t)o.lt_ns[i];
				int ret = 0;

				if (w < 2 ? !o.cpu : !gpu)
					continue;
				nrows++;
				if (w == 0)
					ret = row_lt_encode(&o, n, o.lt_bs[b], threads, &ce, r);
				else if (w == 1)
					ret = row_lt_decode(&o, n, o.lt_bs[b], &ce, r);
#ifdef GFEC_HAVE_CUDA
				else
					ret = row_lt_gpu(&o, n, o.lt_bs[b], ce.d2d, r);
#endif
				if (row_done(r, ret))
					status = 1;
				perf_print_row_contexts(r);
			}
		}
	}
	{
		/* the self-check: GPU and LT rows (the RLC CPU rows' reference is not a bound) */
		struct perf_row *bound = calloc((size_t)nrows + 1, sizeof(*bound));
		int nb = 0, above;

		for (int i = 0; bound && i < nrows; i++)
			if ((rows[i].on_gpu || rows[i].w == 1) && !rows[i].skip[0])
				bound[nb++] = rows[i];
		above = bound ? perf_self_check(bound, nb, stderr) : 0;
		free(bound);
		if (above && !status)
			status = 4;
	}
	if (o.json && (perf_write_json(o.json, cmd, &ce, rows, nrows) ||
		       (gpu && perf_json_add_gpu_contexts(o.json, ctxs, nctx)))) {
		fprintf(stderr, "gfec-perf nc: %s: cannot write the JSON\n", o.json);
		status = status ? status : 3;
	}
	if (o.svg && perf_write_svgs(o.svg, &ce, rows, nrows)) {
		fprintf(stderr, "gfec-perf nc: %s-*.svg: cannot write the charts\n", o.svg);
		status = status ? status : 3;
	}
out:
	for (int i = 0; rows && i < nrows; i++) {
		free(rows[i].lat);
		free(rows[i].rep_gbps);
	}
	free(rows);
	gfec_cpu_pool_destroy(pool);
	return status;
}
