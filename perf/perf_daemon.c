/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_daemon.c
 * `gfec-perf daemon` (issue 17): gfec as a storage daemon calls it. A Ceph OSD does not hand gfec
 * one large buffer: it calls encode once per object stripe, from many threads at once, on host
 * memory. Each row here is N caller threads sharing ONE codec (as Ceph shares one codec per pool
 * across its OSD threads), each looping synchronous gfec_encode() or gfec_decode() calls on one
 * stripe at a time from its own buffers, for -d seconds after a warm-up:
 *
 *   caller 0: stripes 0, N, 2N, ...  --gfec_encode--> | one shared codec (backend=cpu, gpu,
 *   caller 1: stripes 1, N+1, ...    --gfec_encode--> | auto or hybrid; threads=T per call,
 *   ...                                               | default 1: the call runs on its
 *                                                     | caller's thread)
 *
 * The stripes of a (code, chunk, memory) cover at least 4 x L3 (perf_rotate_bytes) in all, times
 * the run's most callers / CPUs where those outnumber the CPUs (pool_alloc; every row of the pool
 * rotates over as much), and every caller has at least one of its own, so no row is served from
 * cache; a line says where memory caps the pool short of that. Per row: aggregate
 * data GB/s (k x chunk per stripe, over the row's whole window), P50/P99 per call, CPU-s/GB
 * (getrusage of the whole process over the window: callers, gfec's threads, the CUDA runtime's),
 * and from the codec's stats the GPU calls per second and the share of calls the GPU completed;
 * GPU launches per second and stripes per launch from its coalescer (plugin/coalesce.h: calls of
 * many callers gathered into one launch; gpu_coalesce_us, e.g. GFEC_GPU_COALESCE_US=0 for off),
 * else one launch per GPU call. Decodes lose the first m data chunks (the costliest case).
 *
 * Every row is checked (each caller's first stripe against the CPU reference, its outputs
 * poisoned before the row) and compared with a bound measured in the same run:
 *   - calls on the CPU: host memory traffic, the best of the memory sweeps, the XOR-stream rate
 *     of the row's shape (no GF work) on min(callers x T, cpus) threads (1 or all), and the
 *     daemon-shaped XOR stream measured right after the row: its callers, each looping over its
 *     stripes as the row's did, each "call" a plain XOR of the call's streams (xor_call), its
 *     outputs by ordinary or non-temporal stores and its sources prefetched or not, the best of
 *     the four (daemon_xor). The
 *     generic sweeps split one stripe set among the CPUs; C callers keep C independent calls'
 *     streams in flight (on the H200 host's 16 CPUs, an RS(10,4) 64K decode row ran at 1.28x
 *     the generic XOR stream);
 *   - calls on the GPU: pinned H2D (every data byte crosses it); pageable buffers must also be
 *     staged through pinned memory by the CPU, so they get the lower of pinned H2D and the
 *     staging copies measured right after the row (daemon_stage: the row's callers, or every
 *     CPU where they are fewer, each copying its calls' chunks into a 1 MiB stage of its own and
 *     the outputs back, as the GPU backend's CPU does, with no GPU work). A figure computed from
 *     the memory sweep is no bound for them: on the H200 host, 16 callers of RS(10,4) 1 MiB
 *     pageable encodes ran at 1.2-1.35x three times their bytes over it
 *     (perf/results/nvidia-h200/lanes-2026-11-24/), the staging buffers being written and
 *     read by DMA in the CPU's cache rather than in DRAM. The copies timed alone are one: the
 *     row makes them all, on no more CPUs, and other work besides;
 *   - a row whose calls went to both, and every row of a codec that splits calls between both
 *     (backend=hybrid, plugin/hybrid.h; auto where gfec tune measured the split better): the
 *     sum of the two. Hybrid rows also get a line comparing them with the cpu and gpu rows of
 *     their shape and with the host memory-traffic roofline (hybrid_summary).
 * GPU rows in which some launch carried two callers or more also get their P99 against issue 17's
 * latency bound: the configured deadline plus twice the mean window's PCIe time (p99_summary).
 * A row above its bound by more than the measured spreads fails the run (the self-check).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <gfec/gfec.h>

#include "coalesce.h" /* gfec_codec_coalesce_stats: launches and stripes per launch */
#include "cpu_backend.h" /* the codec's slices and GFNI groups, which the bound follows */
#include "gfec_perf.h"
#include "perf_daemon.h"
#include "perf_util.h"
#include "device/stage_copy.h" /* the GPU backend's staging copies, which daemon_stage times */
#ifdef GFEC_HAVE_CUDA
#include "perf_gpu.h"
#endif

#define SEED 0x6461656d6f6eull
#define DMN_MAX_LIST 16
#define DMN_MAX_CALLERS 1024
#define DMN_WINDOWS 5 /* sub-windows of a row, for its spread */
#define SPREAD_FLAG 0.10

struct dmn_opts {
	struct {
		int k, m;
	} codes[DMN_MAX_LIST];
	int ncodes;
	size_t sizes[DMN_MAX_LIST];
	int nsizes;
	int callers[DMN_MAX_LIST], ncallers, max_callers;
	unsigned ops;	   /* bit per enum perf_op (encode, decode) */
	unsigned backends; /* bit per dmn_backends: cpu, gpu, auto, hybrid; 0 = the default */
	unsigned memory;   /* bit 0 pageable, bit 1 pinned */
	double seconds;
	int threads, warmup, quick;
	const char *json, *svg;
};

/* perf_backend_names' three and backend=hybrid (the CPU+GPU split, plugin/hybrid.h) */
static const char *const dmn_backends[4] = { "cpu", "gpu", "auto", "hybrid" };
#define DMN_GPU_BACKENDS (1u << 1 | 1u << 3) /* need a GPU */

void perf_daemon_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: gfec-perf daemon [OPTIONS]\n"
	    "\n"
	    "A storage daemon's load: N caller threads share one codec, each encoding or decoding\n"
	    "its own stream of single stripes with synchronous calls (host buffers). Per row:\n"
	    "aggregate GB/s (10^9 data bytes per second), P50/P99 per call, CPU-s/GB, GPU calls/s\n"
	    "and the share of calls on the GPU, against a bound measured in the same run.\n"
	    "\n"
	    "  -k, --codes LIST      (k,m) pairs, e.g. \"10,4 4,2\"            [10,4]\n"
	    "  -b, --sizes LIST      chunk sizes, e.g. \"4K 64K 1M 4M\"        [4K 64K 1M 4M]\n"
	    "      --callers LIST    caller threads per row                   [1 4 16 64]\n"
	    "  -o, --ops LIST        encode,decode                            [encode,decode]\n"
	    "  -a, --backends LIST   cpu,gpu,auto,hybrid   [cpu, and gpu,auto,hybrid with a GPU]\n"
	    "      --memory LIST     pageable,pinned (pinned: all but cpu rows) [pageable]\n"
	    "  -d, --seconds S       timed seconds per row                    [1]\n"
	    "  -T, --threads N       the codec's CPU threads per call (0: all) [1]\n"
	    "  -W, --warmup N        untimed calls per caller before each row [2]\n"
	    "  -j, --json FILE       every number, the machine and the command line\n"
	    "  -s, --svg PREFIX      PREFIX-roofline.svg and PREFIX-latency.svg\n"
	    "  -q, --quick           RS(10,4), 4K and 64K, 1 and 2 callers, 0.1 s rows\n"
	    "  -h, --help            this text\n"
	    "\n"
	    "Exit status: 0 ok; 1 a row differs from the CPU reference, a call failed or no row\n"
	    "ran; 2 bad arguments; 3 the JSON or SVG could not be written; 4 a row ran above its\n"
	    "bound by more than the measured spread (the self-check).\n");
}

/* ------------------------------------------------------------------ flags */

static int parse_sizes(const char *s, struct dmn_opts *o)
{
	char buf[256], *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	o->nsizes = 0;
	for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
		if (o->nsizes == DMN_MAX_LIST || perf_parse_size(t, &o->sizes[o->nsizes++]) ||
		    o->sizes[o->nsizes - 1] > ((size_t)64 << 20))
			return -1;
	return o->nsizes ? 0 : -1;
}

static int parse_callers(const char *s, struct dmn_opts *o)
{
	char buf[256], *save = NULL;
	long v;

	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	o->ncallers = 0;
	for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		if (o->ncallers == DMN_MAX_LIST || perf_parse_long(t, 1, DMN_MAX_CALLERS, &v))
			return -1;
		o->callers[o->ncallers++] = (int)v;
	}
	return o->ncallers ? 0 : -1;
}

static int parse_codes(const char *s, struct dmn_opts *o)
{
	char buf[256], *save = NULL;
	long k, m;

	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	o->ncodes = 0;
	for (char *t = strtok_r(buf, " ;", &save); t; t = strtok_r(NULL, " ;", &save)) {
		char *comma = strchr(t, ',');

		if (!comma || o->ncodes == DMN_MAX_LIST)
			return -1;
		*comma = '\0';
		if (perf_parse_long(t, 2, GFEC_MAX_CHUNKS - 1, &k) ||
		    perf_parse_long(comma + 1, 1, k, &m) || k + m > GFEC_MAX_CHUNKS)
			return -1;
		o->codes[o->ncodes].k = (int)k;
		o->codes[o->ncodes++].m = (int)m;
	}
	return o->ncodes ? 0 : -1;
}

static int parse_names(const char *s, const char *const *names, int n, unsigned *mask)
{
	char buf[128], *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	*mask = 0;
	for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		int i = 0;

		while (i < n && strcmp(t, names[i]) != 0)
			i++;
		if (i == n)
			return -1;
		*mask |= 1u << i;
	}
	return *mask ? 0 : -1;
}

/* 0; 1 for --help; -1 after a one-line reason on stderr. */
static int parse_args(int argc, char **argv, struct dmn_opts *o)
{
	static const char *const ops[] = {"encode", "decode"};
	static const char *const mem[] = {"pageable", "pinned"};
	const char *codes = NULL, *sizes = NULL, *callers = NULL;
	long v;

	memset(o, 0, sizeof(*o));
	o->ops = 1u << PERF_ENCODE | 1u << PERF_DECODE;
	o->memory = 1u;
	o->seconds = -1;
	o->threads = 1;
	o->warmup = 2;
	for (int i = 1; i < argc; i++) {
		const char *f = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;

		if (!strcmp(f, "-h") || !strcmp(f, "--help"))
			return 1;
		if (!strcmp(f, "-q") || !strcmp(f, "--quick")) {
			o->quick = 1;
			continue;
		}
		if (!val) {
			fprintf(stderr, "gfec-perf daemon: %s needs a value (see --help)\n", f);
			return -1;
		}
		i++;
		if (!strcmp(f, "-k") || !strcmp(f, "--codes"))
			codes = val;
		else if (!strcmp(f, "-b") || !strcmp(f, "--sizes"))
			sizes = val;
		else if (!strcmp(f, "--callers"))
			callers = val;
		else if (!strcmp(f, "-o") || !strcmp(f, "--ops"))
			bad = parse_names(val, ops, 2, &o->ops);
		else if (!strcmp(f, "-a") || !strcmp(f, "--backends"))
			bad = parse_names(val, dmn_backends, 4, &o->backends);
		else if (!strcmp(f, "--memory"))
			bad = parse_names(val, mem, 2, &o->memory);
		else if (!strcmp(f, "-d") || !strcmp(f, "--seconds")) {
			char *end;

			o->seconds = strtod(val, &end);
			bad = *end || end == val || !(o->seconds >= 0.01 && o->seconds <= 3600);
		} else if (!strcmp(f, "-T") || !strcmp(f, "--threads")) {
			bad = perf_parse_long(val, 0, 1024, &v);
			o->threads = (int)v;
		} else if (!strcmp(f, "-W") || !strcmp(f, "--warmup")) {
			bad = perf_parse_long(val, 0, 1000000, &v);
			o->warmup = (int)v;
		} else if (!strcmp(f, "-j") || !strcmp(f, "--json"))
			o->json = val;
		else if (!strcmp(f, "-s") || !strcmp(f, "--svg"))
			o->svg = val;
		else {
			fprintf(stderr, "gfec-perf daemon: unknown flag %s (see --help)\n", f);
			return -1;
		}
		if (bad) {
			fprintf(stderr, "gfec-perf daemon: %s: bad value '%s' (see --help)\n", f,
				val);
			return -1;
		}
	}
	if (codes ? parse_codes(codes, o)
		  : (o->codes[0].k = 10, o->codes[0].m = 4, o->ncodes = 1, 0)) {
		fprintf(stderr, "gfec-perf daemon: -k: bad value '%s' (see --help)\n", codes);
		return -1;
	}
	if (sizes && parse_sizes(sizes, o)) {
		fprintf(stderr, "gfec-perf daemon: -b: bad value '%s' (sizes up to 64M)\n", sizes);
		return -1;
	}
	if (callers && parse_callers(callers, o)) {
		fprintf(stderr, "gfec-perf daemon: --callers: bad value '%s' (1..%d each)\n",
			callers, DMN_MAX_CALLERS);
		return -1;
	}
	if (!sizes) {
		static const size_t full[] = {4 << 10, 64 << 10, 1 << 20, 4 << 20};

		o->nsizes = o->quick ? 2 : 4;
		memcpy(o->sizes, full, sizeof(full));
	}
	if (!callers) {
		static const int full[] = {1, 4, 16, 64}, quick[] = {1, 2};

		o->ncallers = o->quick ? 2 : 4;
		memcpy(o->callers, o->quick ? quick : full,
		       o->quick ? sizeof(quick) : sizeof(full));
	}
	if (o->seconds < 0)
		o->seconds = o->quick ? 0.1 : 1.0;
	if (o->quick && o->warmup > 1)
		o->warmup = 1;
	for (int i = 0; i < o->ncallers; i++)
		o->max_callers = o->callers[i] > o->max_callers ? o->callers[i] : o->max_callers;
	return 0;
}

/* ------------------------------------------------------------------ stripes */

/*
 * The stripes of one (code, chunk, memory), shared by its rows: stripe s holds k data chunks,
 * m parity chunks and e decode outputs, one allocation for all of them.
 */
struct dmn_pool {
	int k, m, e, nstripes;
	size_t chunk, pitch, bytes;
	size_t wanted; /* the bytes the rotation asked for, over the cap where bytes < wanted */
	int pinned;
	uint8_t *mem;
	const uint8_t **data; /* nstripes x k */
	uint8_t **parity;     /* nstripes x m */
	const uint8_t **in;   /* nstripes x (k + m), NULL = lost */
	uint8_t **out;	      /* nstripes x (k + m), a buffer where lost */
};

static void pool_free(struct dmn_pool *p)
{
#ifdef GFEC_HAVE_CUDA
	if (p->pinned)
		perf_pinned_free(p->mem);
	else
#endif
		free(p->mem);
	free(p->data);
	free(p->parity);
	free(p->in);
	free(p->out);
	memset(p, 0, sizeof(*p));
}

/*
 * 0; -1 with the reason in @p why. Parity is left for the caller to compute. @p callers: the
 * most callers of any row on the pool. The stripes cover @p rotate bytes x callers / CPUs where
 * the callers outnumber the CPUs: each caller loops over its own share, and only the callers
 * running at once touch memory, so that their shares too cover @p rotate (64 callers of RS(10,4)
 * 64K encodes on the H200 host's 16 CPUs, whose shares then held 4 x L3 / 4, ran at 1.07-1.52x
 * the daemon-shaped XOR stream and above every memory sweep:
 * perf/results/nvidia-h200/bound-2026-11-25). Under a cap of min(RAM / 4, 8 GiB); p->wanted says
 * what the rotation asked for.
 */
static int pool_alloc(struct dmn_pool *p, int k, int m, size_t chunk, int pinned, size_t rotate,
		      int callers, char *why, size_t whylen)
{
	const int n = k + m, e = m;
	const size_t phys = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
	const size_t cap = phys / 4 < ((size_t)8 << 30) ? phys / 4 : (size_t)8 << 30;
	const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t stripe_bytes, touched, nstripes;

	if (cpus > 0 && callers > cpus)
		rotate = rotate * (size_t)((callers + cpus - 1) / cpus);
	memset(p, 0, sizeof(*p));
	p->k = k, p->m = m, p->e = e, p->chunk = chunk, p->pinned = pinned;
	p->pitch = (chunk + 63) & ~(size_t)63;
	stripe_bytes = p->pitch * (size_t)(n + e);
	touched = p->pitch * (size_t)n; /* what one call reads and writes, at least */
	nstripes = (rotate + touched - 1) / touched;
	nstripes = nstripes < (size_t)callers ? (size_t)callers : nstripes;
	p->wanted = nstripes * stripe_bytes;
	if (nstripes > cap / stripe_bytes) {
		if ((size_t)callers > cap / stripe_bytes) {
			snprintf(why, whylen,
				 "%d callers' stripes need %zu MiB, over the %zu MiB cap", callers,
				 ((size_t)callers * stripe_bytes) >> 20, cap >> 20);
			return -1;
		}
		nstripes = cap / stripe_bytes;
	}
	p->nstripes = (int)nstripes; /* <= cap / stripe_bytes < 2^31: 8 GiB over >= 2 x 64 bytes */
	p->bytes = nstripes * stripe_bytes;
#ifdef GFEC_HAVE_CUDA
	if (pinned)
		p->mem = perf_pinned_malloc(p->bytes);
#endif
	if (!pinned && posix_memalign((void **)&p->mem, 64, p->bytes))
		p->mem = NULL;
	p->data = calloc((size_t)p->nstripes * k, sizeof(*p->data));
	p->parity = calloc((size_t)p->nstripes * m, sizeof(*p->parity));
	p->in = calloc((size_t)p->nstripes * n, sizeof(*p->in));
	p->out = calloc((size_t)p->nstripes * n, sizeof(*p->out));
	if (!p->mem || !p->data || !p->parity || !p->in || !p->out) {
		snprintf(why, whylen, "cannot allocate %zu MiB of %s memory", p->bytes >> 20,
			 pinned ? "pinned" : "pageable");
		pool_free(p);
		return -1;
	}
	for (size_t s = 0; s < (size_t)p->nstripes; s++) {
		uint8_t *base = p->mem + s * stripe_bytes;

		perf_fill_random(base, p->pitch * (size_t)k, SEED + s);
		memset(base + p->pitch * (size_t)k, 0, p->pitch * (size_t)(m + e));
		for (int i = 0; i < n; i++) {
			uint8_t *c = base + p->pitch * (size_t)i;

			if (i < k)
				p->data[s * k + i] = c;
			else
				p->parity[s * m + i - k] = c;
			p->in[s * n + i] = i < e ? NULL : c;
			p->out[s * n + i] = i < e ? base + p->pitch * (size_t)(n + i) : NULL;
		}
	}
	return 0;
}

static int call(gfec_codec *c, enum perf_op op, const struct dmn_pool *p, int s)
{
	const size_t n = (size_t)(p->k + p->m);

	if (op == PERF_ENCODE)
		return gfec_encode(c, p->data + (size_t)s * p->k, p->parity + (size_t)s * p->m,
				   p->chunk);
	return gfec_decode(c, p->in + (size_t)s * n, p->out + (size_t)s * n, p->chunk);
}

/* Valid parity in every stripe (the CPU reference's), so that decodes rebuild real data. */
static int pool_parity(struct dmn_pool *p)
{
	char prof[96];
	gfec_codec *ref;
	int ret = 0;

	snprintf(prof, sizeof(prof), "k=%d m=%d technique=cauchy backend=cpu threads=0", p->k,
		 p->m);
	if (gfec_codec_create(prof, &ref, NULL, 0))
		return -1;
	for (int s = 0; s < p->nstripes && !ret; s++)
		ret = call(ref, PERF_ENCODE, p, s);
	gfec_codec_free(ref);
	return ret;
}

/* ------------------------------------------------------------------ one row */

struct dmn_row;

struct dmn_caller {
	struct dmn_row *row;
	int idx, err;
	double *lat; /* microseconds per call */
	size_t nlat, cap;
	_Alignas(64) atomic_ulong calls; /* read by the main thread for the sub-windows */
};

struct dmn_row {
	gfec_codec *codec;
	const struct dmn_pool *pool;
	enum perf_op op;
	int callers, warmup;
	int xor_width;	  /* 0: the codec's calls; else xor_call()s of this vector width */
	int xor_mode;	  /* and how they write (enum perf_xor_mode | PERF_XOR_PREFETCH) */
	uint8_t **stages; /* non-NULL: stage_call()s, caller i's stage stages[i] */
	atomic_int ready; /* callers past their warm-up */
	atomic_int go;	  /* 0 wait, 1 run, -1 give up (not every caller could be started) */
	atomic_int stop;
	struct dmn_caller *c;
};

/*
 * The streams of stripe @p s that the stand-ins for a call (xor_call, stage_call) read and write:
 * encode's k data chunks, decode's k surviving ones, into the stripe's e spare chunks (the decode
 * outputs, as large and in the same allocation: an encode's parity stays valid). The count read.
 */
static int call_streams(enum perf_op op, const struct dmn_pool *p, int s, const uint8_t **src,
			uint8_t **dst)
{
	const int n = p->k + p->m;
	int nsrc = 0;

	for (int i = 0; i < n; i++)
		if (op == PERF_ENCODE ? i < p->k : p->in[(size_t)s * n + i] != NULL)
			src[nsrc++] = op == PERF_ENCODE ? p->data[(size_t)s * p->k + i]
							: p->in[(size_t)s * n + i];
	for (int i = 0; i < p->e; i++)
		dst[i] = p->out[(size_t)s * n + i];
	return nsrc;
}

/*
 * The daemon-shaped XOR stream's "call" on stripe @p s: the call's streams XORed, no GF work, in
 * the order the codec's kernels go (cpu_backend.c: GFEC_CPU_SLICE slices in turn, with -T 1 on the
 * caller's thread; in each, gfni.c's groups of up to 6 outputs (AVX-512) or 4 per pass over the
 * sources, so every output of an RS(10,4) call in one pass). Encode reads the k data
 * chunks into m outputs; these are the stripe's spare chunks (the decode outputs, as large and
 * in the same allocation), so that the parity the decode rows read stays valid. Decode reads the
 * k surviving chunks into the e rebuilt ones, as the row does.
 */
static void xor_call(int width, int mode, enum perf_op op, const struct dmn_pool *p, int s)
{
	const uint8_t *src[GFEC_MAX_CHUNKS];
	uint8_t *dst[GFEC_MAX_CHUNKS];
	const int nsrc = call_streams(op, p, s, src, dst);

	for (size_t off = 0; off < p->chunk; off += GFEC_CPU_SLICE) {
		const size_t len =
		    p->chunk - off < GFEC_CPU_SLICE ? p->chunk - off : GFEC_CPU_SLICE;
		const uint8_t *sv[GFEC_MAX_CHUNKS];
		uint8_t *dv[GFEC_MAX_CHUNKS];

		for (int i = 0; i < nsrc; i++)
			sv[i] = src[i] + off;
		for (int i = 0; i < p->e; i++)
			dv[i] = dst[i] + off;
		perf_xor_streams_group(width, len, nsrc, sv, p->e, dv, mode,
				       GFEC_GFNI_GROUP(width));
	}
}

/*
 * The staging copies of stripe @p s through @p stage (GFEC_STAGE_BYTES), with no GPU work: what
 * the GPU backend's CPU does for a pageable call (stage_copy.h: gfec_stage_stripe), its outputs
 * copied back into the stripe's spare chunks (call_streams).
 */
static void stage_call(enum perf_op op, const struct dmn_pool *p, int s, uint8_t *stage)
{
	const uint8_t *src[GFEC_MAX_CHUNKS];
	uint8_t *dst[GFEC_MAX_CHUNKS];
	const int nsrc = call_streams(op, p, s, src, dst);

	gfec_stage_stripe(GFEC_STAGE_AUTO, stage, src, nsrc, dst, p->e, p->chunk);
}

/*
 * One call of caller @p idx of the row on stripe @p s: the codec's, or xor_call() or stage_call()
 * (which cannot fail).
 */
static int row_call(const struct dmn_row *x, int idx, int s)
{
	if (x->stages) {
		stage_call(x->op, x->pool, s, x->stages[idx]);
		return 0;
	}
	if (x->xor_width) {
		xor_call(x->xor_width, x->xor_mode, x->op, x->pool, s);
		return 0;
	}
	return call(x->codec, x->op, x->pool, s);
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	while (nanosleep(&ts, &ts) != 0)
		;
}

static void *caller_main(void *arg)
{
	struct dmn_caller *me = arg;
	const struct dmn_row *x = me->row;
	const int per = x->pool->nstripes / x->callers; /* stripes me->idx + j * callers */
	int j = 0, go;

	for (int i = 0; i < x->warmup && !me->err; i++, j = (j + 1) % per)
		me->err = row_call(x, me->idx, me->idx + j * x->callers);
	atomic_fetch_add(&me->row->ready, 1);
	while ((go = atomic_load(&me->row->go)) == 0)
		sleep_s(1e-4);
	if (go < 0)
		return NULL;
	while (!me->err && !atomic_load_explicit(&me->row->stop, memory_order_relaxed)) {
		double t0, t;

		if (me->nlat == me->cap) {
			size_t cap = me->cap ? 2 * me->cap : 4096;
			double *l = realloc(me->lat, cap * sizeof(*l));

			if (!l) {
				me->err = GFEC_E_NOMEM;
				break;
			}
			me->lat = l, me->cap = cap;
		}
		t0 = perf_now();
		me->err = row_call(x, me->idx, me->idx + j * x->callers);
		t = perf_now() - t0;
		j = (j + 1) % per;
		if (me->err)
			break;
		me->lat[me->nlat++] = t * 1e6;
		atomic_store_explicit(&me->calls, me->nlat, memory_order_relaxed);
	}
	return NULL;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static unsigned long calls_now(const struct dmn_row *x)
{
	unsigned long n = 0;

	for (int i = 0; i < x->callers; i++)
		n += atomic_load_explicit(&x->c[i].calls, memory_order_relaxed);
	return n;
}

/*
 * Each caller's first stripe against the CPU reference: 1 all match, 0 one differs, -1 the
 * reference could not run.
 */
static int check_row(const struct dmn_pool *p, enum perf_op op, int callers)
{
	const int k = p->k, m = p->m, n = k + m;
	uint8_t *want = malloc((size_t)m * p->chunk + 1);
	uint8_t *wp[GFEC_MAX_CHUNKS];
	char prof[96];
	gfec_codec *ref = NULL;
	int ok = 1;

	snprintf(prof, sizeof(prof), "k=%d m=%d technique=cauchy backend=cpu threads=1", k, m);
	if (!want || gfec_codec_create(prof, &ref, NULL, 0)) {
		free(want);
		return -1;
	}
	for (int i = 0; i < m; i++)
		wp[i] = want + (size_t)i * p->chunk;
	for (int s = 0; s < callers && ok == 1; s++) {
		if (op == PERF_ENCODE) {
			if (gfec_encode(ref, p->data + (size_t)s * k, wp, p->chunk)) {
				ok = -1;
				break;
			}
			for (int i = 0; i < m && ok == 1; i++)
				ok = memcmp(wp[i], p->parity[(size_t)s * m + i], p->chunk) == 0;
		} else {
			/* the rebuilt chunks are the lost data chunks */
			for (int i = 0; i < p->e && ok == 1; i++)
				ok = memcmp(p->out[(size_t)s * n + i], p->data[(size_t)s * k + i],
					    p->chunk) == 0;
		}
	}
	gfec_codec_free(ref);
	free(want);
	return ok;
}

/* What the row's checked outputs hold before it runs: not the answer. */
static void poison(const struct dmn_pool *p, enum perf_op op, int callers)
{
	const size_t n = (size_t)(p->k + p->m);

	for (int s = 0; s < callers; s++) {
		if (op == PERF_ENCODE)
			for (int i = 0; i < p->m; i++)
				memset(p->parity[(size_t)s * p->m + i], 0xa5 ^ i, p->chunk);
		else
			for (int i = 0; i < p->e; i++)
				memset(p->out[(size_t)s * n + i], 0x5a ^ i, p->chunk);
	}
}

struct dmn_bounds {
	double mem_1, mem_1_spread, mem_t, mem_t_spread, h2d, d2h;
	const struct perf_xor_ceil *xor_1, *xor_t; /* the row's shape, or NULL */
	int cpus;
};

/*
 * Issue 17's latency bound of a row whose GPU calls went through the coalescer: the configured
 * deadline (gpu_coalesce_us; 0 with launch slots alone) plus twice the transfer time of the mean
 * window (stripes per launch x the chunks in at pinned H2D and out at D2H): a caller waits at most
 * for the window before its own to cross, then for its own.
 */
static void p99_bound(struct perf_row *r, const struct dmn_bounds *b)
{
	const double outs = r->op == PERF_ENCODE ? r->m : r->e;

	r->daemon.p99_bound_us = 0;
	r->daemon.window_us = 0;
	if (!r->on_gpu || r->daemon.windows_per_s <= 0 || b->h2d <= 0 || b->d2h <= 0)
		return; /* no launch carried two callers: nothing was coalesced */
	/* h2d and d2h in GB/s: bytes / (GB/s) is ns */
	r->daemon.window_us =
	    1e-3 * r->daemon.stripes_per_launch * (double)r->chunk * (r->k / b->h2d + outs / b->d2h);
	r->daemon.p99_bound_us = r->daemon.coalesce_us + 2 * r->daemon.window_us;
}

/* A pageable GPU row's staging copies (daemon_stage): data GB/s, spread, on how many threads */
struct dmn_stage {
	double gbps, spread;
	int threads;
};

/*
 * The row's bound (see the file's comment): the CPU's for the share of calls on the CPU (the best
 * of the memory sweeps, the shape's XOR stream and @p xd, the daemon-shaped one, or NULL), pinned
 * H2D for the GPU's, or the staging copies @p sc where measured (pageable) and lower, the sum
 * where both ran.
 */
static void row_bound(struct perf_row *r, const struct dmn_bounds *b, int threads, double share,
		      const struct perf_xor_ceil *xd, const struct dmn_stage *sc)
{
	const int one = threads == 1;
	const struct perf_xor_ceil *x = one ? b->xor_1 : b->xor_t;
	const double per_data = r->traffic_bytes / r->data_bytes;
	double best = one ? b->mem_1 : b->mem_t, spread = one ? b->mem_1_spread : b->mem_t_spread;
	double cpu;
	char cpu_name[32];

	snprintf(cpu_name, sizeof(cpu_name), "CPU memory, %d thr", one ? 1 : b->cpus);
	if (x && x->gbps > best) {
		best = x->gbps, spread = x->spread;
		snprintf(cpu_name, sizeof(cpu_name), "CPU XOR-stream, %d thr", one ? 1 : b->cpus);
	}
	if (xd && xd->gbps > best) {
		best = xd->gbps, spread = xd->spread;
		snprintf(cpu_name, sizeof(cpu_name), "CPU XOR-stream, %d caller%s",
			 r->daemon.callers, r->daemon.callers == 1 ? "" : "s");
	}
	cpu = best / per_data;
	if (share <= 0) {
		snprintf(r->ceil_name, sizeof(r->ceil_name), "%s", cpu_name);
		r->ceil_gbps = cpu;
		r->ceil_spread = spread;
	} else if (share >= 1 && sc && sc->gbps < b->h2d) {
		snprintf(r->ceil_name, sizeof(r->ceil_name), "staging copies, %d thr", sc->threads);
		r->ceil_gbps = sc->gbps;
		r->ceil_spread = sc->spread;
	} else if (share >= 1) {
		snprintf(r->ceil_name, sizeof(r->ceil_name), "pinned H2D%s",
			 r->data == PERF_PINNED ? "" : " (pageable staged)");
		r->ceil_gbps = b->h2d;
	} else {
		snprintf(r->ceil_name, sizeof(r->ceil_name), "pinned H2D + %s", cpu_name);
		r->ceil_gbps = b->h2d + cpu;
		r->ceil_spread = spread;
	}
	r->pct = r->ceil_gbps > 0 ? 100 * r->gbps.median / r->ceil_gbps : 0;
}

/* The time, the process's CPU seconds and the codec's stats (where there is one) at a moment. */
struct dmn_snap {
	double t, cpu;
	struct gfec_stats st;
	struct gfec_coalesce_stats co;
	int coalesced;
	uint64_t resident; /* calls served by kernels kept running: no launch */
};

static void snap(const struct dmn_row *x, struct dmn_snap *s)
{
	s->t = perf_now();
	s->cpu = cpu_seconds();
	if (x->codec) {
		gfec_codec_stats(x->codec, &s->st);
		s->coalesced = gfec_codec_coalesce_stats(x->codec, &s->co);
		s->resident = gfec_codec_resident_calls(x->codec);
	}
}

/*
 * Runs @p x's callers (x->c allocated, @p tid for their threads) for @p seconds after their
 * warm-up: calls per second of each of the DMN_WINDOWS sub-windows in @p win, snapshots at the
 * start and after the last caller stopped. 0; -1 where not every caller's thread could be
 * started (then none ran).
 */
static int drive(struct dmn_row *x, pthread_t *tid, double seconds, double *win, struct dmn_snap *a,
		 struct dmn_snap *z)
{
	unsigned long before = 0;
	double tw;
	int started = 0;

	memset(x->c, 0, (size_t)x->callers * sizeof(*x->c));
	atomic_init(&x->ready, 0);
	atomic_init(&x->go, 0);
	atomic_init(&x->stop, 0);
	for (; started < x->callers; started++) {
		x->c[started].row = x;
		x->c[started].idx = started;
		atomic_init(&x->c[started].calls, 0);
		if (pthread_create(&tid[started], NULL, caller_main, &x->c[started]))
			break;
	}
	if (started < x->callers) {
		atomic_store(&x->go, -1);
		for (int i = 0; i < started; i++)
			pthread_join(tid[i], NULL);
		for (int i = 0; i < started; i++)
			free(x->c[i].lat);
		return -1;
	}
	while (atomic_load(&x->ready) < x->callers)
		sleep_s(1e-4);
	atomic_store(&x->go, 1);
	snap(x, a);
	tw = a->t;
	for (int w = 0; w < DMN_WINDOWS; w++) {
		double now;
		unsigned long c;

		sleep_s(seconds / DMN_WINDOWS);
		now = perf_now();
		c = calls_now(x);
		win[w] = (double)(c - before) / (now - tw);
		before = c, tw = now;
	}
	atomic_store(&x->stop, 1);
	for (int i = 0; i < x->callers; i++)
		pthread_join(tid[i], NULL);
	snap(x, z);
	return 0;
}

/*
 * The daemon-shaped XOR stream of row @p r, on its stripes @p p with its callers for as long
 * (xor_call), four ways: by ordinary or non-temporal stores (the GFNI kernels store parity so
 * from cpu_stream_min on), each with the sources prefetched (as the GFNI kernels fetch them) or
 * not (as the AVX2 and ISA-L paths do). The best way's bytes read + written per second as the
 * row counts them into xd->gbps, its sub-windows' spread into xd->spread. 0; -1 where the
 * threads or memory could not be had.
 */
static int daemon_xor(const struct dmn_opts *o, const struct dmn_pool *p, const struct perf_row *r,
		      struct perf_xor_ceil *xd)
{
	static const int modes[] = {PERF_XOR_SET, PERF_XOR_SET | PERF_XOR_PREFETCH, PERF_XOR_STREAM,
				    PERF_XOR_STREAM | PERF_XOR_PREFETCH};
	struct dmn_row x = {.pool = p,
			    .op = r->op,
			    .callers = r->daemon.callers,
			    .warmup = o->warmup,
			    .xor_width = perf_xor_width()};
	pthread_t *tid = calloc((size_t)x.callers, sizeof(*tid));
	double win[DMN_WINDOWS];
	struct dmn_snap a, z;
	const size_t nmodes = sizeof(modes) / sizeof(modes[0]);
	size_t v = 0;

	*xd = (struct perf_xor_ceil){r->op, r->k, r->m, r->e, r->chunk, 0, 0};
	x.c = aligned_alloc(64, (size_t)x.callers * sizeof(*x.c));
	for (; tid && x.c && v < nmodes; v++) {
		unsigned long calls = 0;
		int err = 0;

		x.xor_mode = modes[v];
		if (drive(&x, tid, o->seconds, win, &a, &z) != 0)
			break;
		for (int i = 0; i < x.callers; i++) {
			calls += x.c[i].nlat;
			err |= x.c[i].err; /* only a failed realloc of the latencies */
			free(x.c[i].lat);
		}
		if (!calls || err)
			break;
		const double gbps = (double)calls * r->traffic_bytes / (z.t - a.t) / 1e9;

		if (gbps > xd->gbps) {
			for (int w = 0; w < DMN_WINDOWS; w++)
				win[w] *= r->traffic_bytes / 1e9;
			xd->gbps = gbps;
			xd->spread = perf_summarise(win, DMN_WINDOWS).spread;
		}
	}
	free(x.c);
	free(tid);
	return v == nmodes ? 0 : -1;
}

/*
 * The staging copies of pageable GPU row @p r, on its stripes @p p for as long (stage_call): its
 * callers, or every CPU where they are fewer (the backend may spread a long stripe's copies over
 * its pool), each with a stage of its own. Data GB/s into sc->gbps, the sub-windows' spread
 * into sc->spread. 0; -1 where the threads or memory could not be had.
 */
static int daemon_stage(const struct dmn_opts *o, const struct dmn_pool *p,
			const struct perf_row *r, int cpus, struct dmn_stage *sc)
{
	const int fill = cpus < p->nstripes ? cpus : p->nstripes;
	struct dmn_row x = {.pool = p,
			    .op = r->op,
			    .callers = r->daemon.callers > fill ? r->daemon.callers : fill,
			    .warmup = o->warmup};
	pthread_t *tid = calloc((size_t)x.callers, sizeof(*tid));
	double win[DMN_WINDOWS];
	struct dmn_snap a, z;
	unsigned long calls = 0;
	int got = 0, err = 0, ret = -1;

	*sc = (struct dmn_stage){0, 0, x.callers};
	x.c = aligned_alloc(64, (size_t)x.callers * sizeof(*x.c));
	x.stages = calloc((size_t)x.callers, sizeof(*x.stages));
	for (; x.stages && got < x.callers; got++)
		if (posix_memalign((void **)&x.stages[got], 4096, GFEC_STAGE_BYTES))
			break;
	if (tid && x.c && got == x.callers && drive(&x, tid, o->seconds, win, &a, &z) == 0) {
		for (int i = 0; i < x.callers; i++) {
			calls += x.c[i].nlat;
			err |= x.c[i].err; /* only a failed realloc of the latencies */
			free(x.c[i].lat);
		}
		if (calls && !err) {
			for (int w = 0; w < DMN_WINDOWS; w++)
				win[w] *= r->data_bytes / 1e9;
			sc->gbps = (double)calls * r->data_bytes / (z.t - a.t) / 1e9;
			sc->spread = perf_summarise(win, DMN_WINDOWS).spread;
			ret = 0;
		}
	}
	while (x.stages && got--)
		free(x.stages[got]);
	free(x.stages);
	free(x.c);
	free(tid);
	return ret;
}

/* 0 (the row in @p r); -1 with r->skip set: the codec or threads could not be had, a call failed.
 */
static int run_row(const struct dmn_opts *o, const struct dmn_pool *p, gfec_codec *codec,
		   enum perf_op op, int callers, const struct dmn_bounds *b, struct perf_row *r)
{
	struct dmn_row x = {
	    .codec = codec, .pool = p, .op = op, .callers = callers, .warmup = o->warmup};
	struct dmn_snap a, z;
	struct perf_xor_ceil xd;
	struct dmn_stage sc;
	pthread_t *tid = calloc((size_t)callers, sizeof(*tid));
	double win[DMN_WINDOWS];
	unsigned long calls = 0;
	int ran = 0, ret = -1;

	x.c = aligned_alloc(64, (size_t)callers * sizeof(*x.c));
	if (!tid || !x.c) {
		snprintf(r->skip, sizeof(r->skip), "out of memory");
		goto out_free;
	}
	poison(p, op, callers);
	if (drive(&x, tid, o->seconds, win, &a, &z)) {
		snprintf(r->skip, sizeof(r->skip), "cannot start %d caller threads", callers);
		goto out_free;
	}
	ran = 1;
	for (int i = 0; i < callers; i++) {
		if (x.c[i].err && !r->skip[0])
			snprintf(r->skip, sizeof(r->skip), "caller %d: %s failed: %s", i,
				 perf_op_names[op], gfec_strerror(x.c[i].err));
		calls += x.c[i].nlat;
	}
	if (r->skip[0])
		goto out_free;
	if (!calls) {
		snprintf(r->skip, sizeof(r->skip), "no call finished in %.2f s", o->seconds);
		goto out_free;
	}
	r->lat = malloc(calls * sizeof(*r->lat));
	r->rep_gbps = malloc(DMN_WINDOWS * sizeof(*r->rep_gbps));
	if (!r->lat || !r->rep_gbps) {
		snprintf(r->skip, sizeof(r->skip), "out of memory");
		goto out_free;
	}
	for (int i = 0; i < callers; i++) {
		memcpy(r->lat + r->nlat, x.c[i].lat, x.c[i].nlat * sizeof(double));
		r->nlat += (int)x.c[i].nlat;
	}
	qsort(r->lat, (size_t)r->nlat, sizeof(double), perf_cmp_double);
	r->p50 = r->lat[r->nlat / 2];
	r->p90 = r->lat[(size_t)(r->nlat * 0.90)];
	r->p99 = r->lat[(size_t)(r->nlat * 0.99)];
	r->p999 = r->lat[(size_t)(r->nlat * 0.999)];
	r->n = (long)calls;
	r->repeats = DMN_WINDOWS;
	for (int w = 0; w < DMN_WINDOWS; w++)
		r->rep_gbps[w] = win[w] * r->data_bytes / 1e9;
	/* the spread of the sub-windows; the figure is the whole window's */
	r->gbps = perf_summarise(r->rep_gbps, DMN_WINDOWS);
	r->gbps.median = (double)calls * r->data_bytes / (z.t - a.t) / 1e9;
	r->flagged = r->gbps.spread > SPREAD_FLAG;
	r->traffic_gbps = r->gbps.median * r->traffic_bytes / r->data_bytes;
	r->gops = r->gbps.median * r->gf_ops / r->data_bytes;
	r->intensity = r->gf_ops / r->traffic_bytes;
	r->cpu_s_per_gb = (z.cpu - a.cpu) / ((double)calls * r->data_bytes / 1e9);
	r->daemon.gpu_calls_per_s = (double)(z.st.gpu_calls - a.st.gpu_calls) / (z.t - a.t);
	/* calls that started before the window may finish inside it: never over 1 */
	r->daemon.gpu_call_share = (double)(z.st.gpu_calls - a.st.gpu_calls) / (double)calls;
	r->daemon.gpu_call_share = r->daemon.gpu_call_share > 1 ? 1 : r->daemon.gpu_call_share;
	r->on_gpu = z.st.gpu_calls > a.st.gpu_calls;
	/* a call that a resident kernel served reached the backend, but launched nothing */
	const double res = (double)(z.resident - a.resident);

	if (z.coalesced) { /* every launch went through the coalescer */
		double l = (double)(z.co.launches - a.co.launches) - res;
		const double stripes = (double)(z.co.stripes - a.co.stripes) - res;

		l = l > 0 ? l : 0;
		r->daemon.coalesce_us = (int)z.co.us;
		r->daemon.coalesce_slots = (int)z.co.slots;
		r->daemon.launches_per_s = l / (z.t - a.t);
		r->daemon.windows_per_s = (double)(z.co.windows - a.co.windows) / (z.t - a.t);
		r->daemon.stripes_per_launch = l > 0 ? stripes / l : 0;
		p99_bound(r, b);
	} else { /* one launch per GPU call, of the call's one stripe */
		const double l = (double)(z.st.gpu_calls - a.st.gpu_calls) - res;

		r->daemon.launches_per_s = (l > 0 ? l : 0) / (z.t - a.t);
		r->daemon.stripes_per_launch = l > 0 ? 1 : 0;
	}
	r->daemon.resident_per_s = res / (z.t - a.t);
	r->checked = check_row(p, op, callers);
	/* after the check: the XOR stream writes the outputs the check reads */
	{
		const int t = o->threads ? o->threads : b->cpus, threads = callers * t;
		/* a split codec's calls each ran on both: every one counts as a GPU call */
		const double share = strstr(r->engine, "(split)") && r->on_gpu
					     ? 0.5
					     : r->daemon.gpu_call_share;
		const int has_xd = share < 1 && daemon_xor(o, p, r, &xd) == 0;
		const int has_sc = share >= 1 && r->data == PERF_PAGEABLE &&
				   daemon_stage(o, p, r, b->cpus, &sc) == 0;

		r->daemon.staging_gbps = has_sc ? sc.gbps : 0;
		r->daemon.staging_threads = has_sc ? sc.threads : 0;
		row_bound(r, b, threads < b->cpus ? threads : b->cpus, share, has_xd ? &xd : NULL,
			  has_sc ? &sc : NULL);
	}
	ret = 0;
out_free:
	for (int i = 0; ran && i < callers; i++)
		free(x.c[i].lat);
	free(x.c);
	free(tid);
	return ret;
}

/* ------------------------------------------------------------------ output */

static void print_header(void)
{
	printf("%-6s %-9s %6s %-4s %-8s %4s %9s %9s %9s %8s %9s %5s %9s %5s %6s %7s %-5s %s\n",
	       "op", "code", "chunk", "bknd", "memory", "call", "data GB/s", "p50 us", "p99 us",
	       "cpu-s/GB", "GPU call/s", "GPU%", "launch/s", "str/l", "win us", "%ceil", "check",
	       "ceiling");
}

static void print_row(const struct perf_row *r)
{
	char code[24], size[16], win[16] = "-";

	snprintf(code, sizeof(code), "RS(%d,%d)", r->k, r->m);
	perf_fmt_size(size, sizeof(size), r->chunk);
	if (r->on_gpu && r->daemon.coalesce_slots)
		snprintf(win, sizeof(win), "s%d", r->daemon.coalesce_slots);
	else if (r->on_gpu && r->daemon.coalesce_us)
		snprintf(win, sizeof(win), "%d", r->daemon.coalesce_us);
	else if (r->on_gpu)
		snprintf(win, sizeof(win), "off");
	printf("%-6s %-9s %6s %-4s %-8s %4d %9.3f %9.1f %9.1f %8.3f %10.0f %4.0f%% %9.0f %5.1f %6s "
	       "%6.1f%% %-5s %s%s\n",
	       perf_op_names[r->op], code, size, r->backend, perf_data_names[r->data],
	       r->daemon.callers, r->gbps.median, r->p50, r->p99, r->cpu_s_per_gb,
	       r->daemon.gpu_calls_per_s, 100 * r->daemon.gpu_call_share,
	       r->daemon.launches_per_s, r->daemon.stripes_per_launch, win, r->pct,
	       r->checked == 1	 ? "ok"
	       : r->checked == 0 ? "FAIL"
				 : "n/a",
	       r->ceil_name, r->flagged ? " !spread" : "");
	fflush(stdout);
}

/* ------------------------------------------------------------------ the run */

struct dmn_run {
	const struct dmn_opts *o;
	const struct perf_ceilings *ce;
	const struct perf_xor_ceil *xor1; /* ce->xors' shapes on 1 thread */
	int cpus, status;
	struct perf_row *rows;
	int nrows, done, total; /* rows run (or not), of total: the progress bar */
};

/* The cpu or gpu row (backend @p be) of @p h's op, code, chunk and callers; NULL if none ran. */
static const struct perf_row *peer(const struct perf_row *rows, int nrows,
				   const struct perf_row *h, const char *be)
{
	const struct perf_row *best = NULL;

	for (int i = 0; i < nrows; i++) {
		const struct perf_row *r = &rows[i];

		if (strcmp(r->backend, be) || r->op != h->op || r->k != h->k || r->m != h->m ||
		    r->chunk != h->chunk || r->daemon.callers != h->daemon.callers)
			continue;
		/* the same memory, else (cpu rows are pageable only) any */
		if (!best || r->data == h->data)
			best = r;
	}
	return best;
}

/*
 * Issue 17's two figures for each hybrid row: its ratio to the better of the cpu and gpu rows of
 * the same shape and callers in this run, and to the host memory-traffic roofline: the memory
 * sweep on every CPU over the bytes each data byte makes the host read and write (k + m or
 * k + e per k: the call's own streams; the GPU share's staging copies of pageable memory come
 * on top, so for pageable rows the roofline is loose).
 */
static void hybrid_summary(const struct perf_row *rows, int nrows, double mem_t, int cpus)
{
	for (int i = 0; i < nrows; i++) {
		const struct perf_row *h = &rows[i], *c, *g;
		double better, roof;
		char size[16];

		if (strcmp(h->backend, "hybrid"))
			continue;
		c = peer(rows, nrows, h, "cpu");
		g = peer(rows, nrows, h, "gpu");
		better = c ? c->gbps.median : 0;
		better = g && g->gbps.median > better ? g->gbps.median : better;
		roof = mem_t / (h->traffic_bytes / h->data_bytes);
		perf_fmt_size(size, sizeof(size), h->chunk);
		printf("# hybrid %s RS(%d,%d) %s x%d %s: %.2f GB/s = ", perf_op_names[h->op], h->k,
		       h->m, size, h->daemon.callers, perf_data_names[h->data], h->gbps.median);
		if (better > 0)
			printf("%.2fx the better of cpu (%.2f) and gpu (%.2f)", h->gbps.median / better,
			       c ? c->gbps.median : 0, g ? g->gbps.median : 0);
		else
			printf("n/a x the better of cpu and gpu (neither row ran)");
		printf("; %.2fx the host memory-traffic roofline %.2f GB/s (%.1f GB/s on %d CPUs / "
		       "%.2f bytes per data byte)\n",
		       roof > 0 ? h->gbps.median / roof : 0, roof, mem_t, cpus,
		       h->traffic_bytes / h->data_bytes);
	}
}

/*
 * Issue 17's figures for the GPU rows: a pageable row against pinned H2D and against its staging
 * copies (daemon_stage), and the CPU seconds per GB of each GPU row against the cpu row of its
 * op, code, chunk and callers in this run.
 */
static void gpu_summary(const struct perf_row *rows, int nrows, double h2d)
{
	for (int i = 0; i < nrows; i++) {
		const struct perf_row *r = &rows[i], *c;
		char size[16];

		if (!r->on_gpu)
			continue;
		perf_fmt_size(size, sizeof(size), r->chunk);
		if (r->daemon.staging_gbps > 0)
			printf(
			    "# staged %s RS(%d,%d) %s x%d %s: %.2f GB/s = %.2fx pinned H2D (%.2f), "
			    "%.2fx the staging copies alone (%.2f GB/s on %d threads)\n",
			    perf_op_names[r->op], r->k, r->m, size, r->daemon.callers, r->backend,
			    r->gbps.median, h2d > 0 ? r->gbps.median / h2d : 0, h2d,
			    r->gbps.median / r->daemon.staging_gbps, r->daemon.staging_gbps,
			    r->daemon.staging_threads);
		c = peer(rows, nrows, r, "cpu");
		if (c && c->cpu_s_per_gb > 0)
			printf("# cpu-s/GB %s RS(%d,%d) %s x%d %s %s: %.4f = %.3fx the cpu row's "
			       "%.4f (%s)\n",
			       perf_op_names[r->op], r->k, r->m, size, r->daemon.callers,
			       r->backend, perf_data_names[r->data], r->cpu_s_per_gb,
			       r->cpu_s_per_gb / c->cpu_s_per_gb, c->cpu_s_per_gb,
			       perf_data_names[c->data]);
	}
}

/* Issue 17's P99 under coalescing: each coalesced GPU row's P99 against p99_bound()'s. */
static void p99_summary(const struct perf_row *rows, int nrows, const struct perf_ceilings *ce)
{
	for (int i = 0; i < nrows; i++) {
		const struct perf_row *r = &rows[i];
		char size[16], win[32];

		if (r->daemon.p99_bound_us <= 0)
			continue;
		perf_fmt_size(size, sizeof(size), r->chunk);
		if (r->daemon.coalesce_slots)
			snprintf(win, sizeof(win), "%d slots", r->daemon.coalesce_slots);
		else
			snprintf(win, sizeof(win), "%d us windows", r->daemon.coalesce_us);
		printf("# p99 %s RS(%d,%d) %s x%d %s (%s): %.0f us %s the bound %.0f us = %d us + 2 x "
		       "%.0f us (%.1f stripes a launch in at %.1f GB/s H2D, out at %.1f GB/s D2H)\n",
		       perf_op_names[r->op], r->k, r->m, size, r->daemon.callers,
		       perf_data_names[r->data], win, r->p99,
		       r->p99 <= r->daemon.p99_bound_us ? "within" : "OVER", r->daemon.p99_bound_us,
		       r->daemon.coalesce_us, r->daemon.window_us, r->daemon.stripes_per_launch,
		       ce->h2d, ce->d2h);
	}
}

/* Every op and caller count of one backend on the stripes @p p: rows appended to run->rows. */
static void run_backend(struct dmn_run *run, const struct dmn_pool *p, int be)
{
	const struct dmn_opts *o = run->o;
	const int k = p->k, m = p->m;
	char prof[160], err[256], size[16];
	gfec_codec *codec;

	perf_fmt_size(size, sizeof(size), p->chunk);
	snprintf(prof, sizeof(prof), "k=%d m=%d technique=cauchy backend=%s threads=%d", k, m,
		 dmn_backends[be], o->threads);
	if (gfec_codec_create(prof, &codec, err, sizeof(err))) {
		printf("# %s: not run (%s)\n", prof, err);
		for (int op = 0; op < 2; op++)
			run->done += (o->ops >> op & 1) ? o->ncallers : 0;
		return;
	}
	for (int op = 0; op < 2; op++)
		for (int cc = 0; (o->ops >> op & 1) && cc < o->ncallers; cc++) {
			struct perf_row *r = &run->rows[run->nrows];
			const int e = op == PERF_DECODE ? m : 0;
			char what[96];
			const struct perf_xor_ceil *xt =
			    perf_xor_ceil(run->ce, (enum perf_op)op, k, m, e, p->chunk);
			const struct dmn_bounds b = {run->ce->cpu_mem_1,
						     run->ce->cpu_mem_1_spread,
						     run->ce->cpu_mem_t,
						     run->ce->cpu_mem_t_spread,
						     run->ce->h2d,
						     run->ce->d2h,
						     xt ? &run->xor1[xt - run->ce->xors] : NULL,
						     xt,
						     run->cpus};

			snprintf(what, sizeof(what), "%s RS(%d,%d) %s %s x%d", perf_op_names[op], k,
				 m, size, dmn_backends[be], o->callers[cc]);
			perf_progress(run->done++, run->total, what);
			memset(r, 0, sizeof(*r));
			r->op = (enum perf_op)op, r->k = k, r->m = m, r->e = e;
			r->chunk = p->chunk, r->batch = 1, r->w = 8;
			r->data = p->pinned ? PERF_PINNED : PERF_PAGEABLE;
			snprintf(r->technique, sizeof(r->technique), "cauchy");
			snprintf(r->backend, sizeof(r->backend), "%s", dmn_backends[be]);
			snprintf(r->engine, sizeof(r->engine), "%s", gfec_codec_backend(codec));
			r->daemon.callers = o->callers[cc];
			r->daemon.codec_threads = o->threads;
			r->daemon.rotated_bytes = p->bytes;
			r->data_bytes = (double)k * (double)p->chunk;
			r->traffic_bytes = (double)p->chunk * (op == PERF_ENCODE ? k + m : k + e);
			r->gf_ops = (double)p->chunk * k * (op == PERF_ENCODE ? m : e);
			if (run_row(o, p, codec, (enum perf_op)op, o->callers[cc], &b, r)) {
				fprintf(stderr,
					"gfec-perf daemon: %s %s RS(%d,%d) %s %d callers: %s\n",
					perf_op_names[op], dmn_backends[be], k, m, size,
					o->callers[cc], r->skip);
				free(r->lat);
				free(r->rep_gbps);
				run->status = 1;
				continue;
			}
			print_row(r);
			run->status |= r->checked == 0;
			run->nrows++;
		}
	gfec_codec_free(codec);
}

int perf_daemon_main(int argc, char **argv)
{
	struct dmn_opts o;
	struct perf_opts po;
	struct perf_ceilings ce;
	struct perf_xor_ceil xor1[PERF_MAX_XOR];
	struct perf_row *rows = NULL;
	struct dmn_run run;
	char cmd[2048] = "gfec-perf ", cpu[128];
	const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nrows = 0, maxrows, status = 0, above, gpu = 0, ret, pool_rows[2];

	ret = parse_args(argc, argv, &o);
	if (ret) {
		if (ret > 0)
			perf_daemon_usage(stdout);
		return ret > 0 ? 0 : 2;
	}
	perf_command_line(argc, argv, cmd + strlen(cmd), sizeof(cmd) - strlen(cmd));
	perf_cpu_model(cpu, sizeof(cpu));
	printf("# reproduce: %s\n", cmd);

	/* the machine's own ceilings (memory, GPU copy, PCIe); the XOR streams per shape below */
	memset(&po, 0, sizeof(po));
	po.threads = (int)ncpu;
	po.quick = o.quick;
	po.w = 8;
	perf_measure_ceilings(&po, &ce);
	gpu = ce.gpu;
	if (!o.backends)
		o.backends = 1u << 0 | (gpu ? 1u << 1 | 1u << 2 | 1u << 3 : 0);
	if ((o.backends & DMN_GPU_BACKENDS) && !gpu) {
		fprintf(stderr, "gfec-perf daemon: -a %s: no usable GPU%s\n",
			o.backends & 1u << 1 ? "gpu" : "hybrid",
#ifdef GFEC_HAVE_CUDA
			""
#else
			" (built without CUDA)"
#endif
		);
		return 2;
	}
	if ((o.memory & 2u) && !gpu) {
		fprintf(stderr, "gfec-perf daemon: --memory pinned: no usable GPU to pin for\n");
		return 2;
	}
	/* the CPU rows' XOR-stream bound of every shape, on 1 thread and on every CPU */
	if (o.backends & ~(1u << 1))
		fprintf(stderr,
			"gfec-perf daemon: measuring the CPU XOR-stream bound of %d shapes\n",
			__builtin_popcount(o.ops) * o.ncodes * o.nsizes);
	if (o.backends & ~(1u << 1))
		for (int op = 0; op < 2; op++)
			for (int ci = 0; (o.ops >> op & 1) && ci < o.ncodes; ci++)
				for (int si = 0; si < o.nsizes && ce.nxor < PERF_MAX_XOR; si++) {
					struct perf_xor_ceil x = {(enum perf_op)op,
								  o.codes[ci].k,
								  o.codes[ci].m,
								  op == PERF_DECODE ? o.codes[ci].m
										    : 0,
								  o.sizes[si],
								  0,
								  0};

					xor1[ce.nxor] = x;
					ce.xors[ce.nxor] = x;
					perf_xor_measure(&po, 1, &xor1[ce.nxor]);
					perf_xor_measure(&po, (int)ncpu, &ce.xors[ce.nxor]);
					ce.nxor++;
				}

	printf("# gfec-perf daemon: %s, %ld online CPUs%s%s; gfec %s\n", cpu, ncpu,
	       gpu ? ", GPU " : "", gpu ? ce.gpu_name : "", gfec_version());
	printf("# N callers share ONE codec (technique=cauchy threads=%d per call), each looping "
	       "synchronous single-stripe calls on its own stripes; %.2f s per row after %d "
	       "warm-up calls per caller\n",
	       o.threads, o.seconds, o.warmup);
	printf("# stripes rotate over >= %zu MiB (4 x L3; x the most callers / CPUs where they "
	       "outnumber the CPUs) per code, chunk and memory, at least one per caller; decode "
	       "loses the first m data chunks\n",
	       perf_rotate_bytes(&po) >> 20);
	printf("# GB/s = 10^9 data bytes (k x chunk per stripe) per second over the row's window; "
	       "p50/p99 per call; cpu-s/GB: getrusage of the process over the window\n");
	printf(
	    "# GPU call/s and GPU%%: from gfec_codec_stats' gpu_calls (calls the GPU completed); "
	    "launch/s and str/l (stripes per launch): the codec's coalescer, whose window is "
	    "'win us' (gpu_coalesce_us; GFEC_GPU_COALESCE_US=0 turns it off; sN: launch slots, "
	    "gpu_coalesce_slots N), else one per GPU call; calls that kernels kept running served "
	    "(gpu_resident_us, gpu_resident_pinned) launch nothing: left out of both, counted in "
	    "the JSON's gpu_resident_per_s\n");
	printf("# bounds: CPU memory %.1f GB/s on 1 thread, %.1f GB/s on %d (read + written)%s",
	       ce.cpu_mem_1, ce.cpu_mem_t, (int)ncpu, gpu ? "" : "\n");
	if (gpu)
		printf("; pinned H2D %.1f GB/s (GPU calls; pageable ones: the lower of it and "
		       "their staging copies alone, measured after each row)\n",
		       ce.h2d);
	for (int i = 0; i < ce.nxor; i++) {
		char size[16];

		perf_fmt_size(size, sizeof(size), ce.xors[i].chunk);
		printf("# CPU XOR-stream %s RS(%d,%d) %s: %.1f GB/s on 1 thread, %.1f GB/s on %ld "
		       "(read + written)\n",
		       perf_op_names[ce.xors[i].op], ce.xors[i].k, ce.xors[i].m, size, xor1[i].gbps,
		       ce.xors[i].gbps, ncpu);
	}

	maxrows = 2 * o.ncodes * o.nsizes * o.ncallers * 4 * 2;
	rows = calloc((size_t)maxrows, sizeof(*rows));
	if (!rows)
		return 1;
	run = (struct dmn_run){.o = &o, .ce = &ce, .xor1 = xor1, .cpus = (int)ncpu, .rows = rows};
	/* the CPU reads pinned memory as any other: pinned stripes are for the GPU and auto */
	for (int mem = 0; mem < 2; mem++)
		pool_rows[mem] = (o.memory >> mem & 1) *
				 __builtin_popcount(o.backends & (mem ? 14u : 15u)) *
				 __builtin_popcount(o.ops) * o.ncallers;
	run.total = o.ncodes * o.nsizes * (pool_rows[0] + pool_rows[1]);
	print_header();
	for (int ci = 0; ci < o.ncodes; ci++)
		for (int si = 0; si < o.nsizes; si++)
			for (int mem = 0; mem < 2; mem++) {
				const int k = o.codes[ci].k, m = o.codes[ci].m;
				struct dmn_pool p;
				char why[160], size[16];

				if (!pool_rows[mem])
					continue;
				perf_fmt_size(size, sizeof(size), o.sizes[si]);
				if (pool_alloc(&p, k, m, o.sizes[si], mem, perf_rotate_bytes(&po),
					       o.max_callers, why, sizeof(why))) {
					printf("# RS(%d,%d) %s %s: not run (%s)\n", k, m, size,
					       perf_data_names[mem], why);
					run.done += pool_rows[mem];
					continue;
				}
				if (p.bytes < p.wanted)
					printf("# RS(%d,%d) %s %s: stripes rotate over %zu MiB, "
					       "not %zu (the cap)\n",
					       k, m, size, perf_data_names[mem], p.bytes >> 20,
					       p.wanted >> 20);
				if (pool_parity(&p)) {
					fprintf(stderr,
						"gfec-perf daemon: RS(%d,%d) %s: the CPU "
						"reference cannot encode\n",
						k, m, size);
					pool_free(&p);
					run.status = 1;
					run.done += pool_rows[mem];
					continue;
				}
				for (int be = 0; be < 4; be++)
					if ((o.backends >> be & 1) && !(be == 0 && mem == 1))
						run_backend(&run, &p, be);
				pool_free(&p);
			}
	perf_progress(run.total, run.total, "");
	nrows = run.nrows;
	hybrid_summary(rows, nrows, ce.cpu_mem_t, (int)ncpu);
	gpu_summary(rows, nrows, ce.h2d);
	p99_summary(rows, nrows, &ce);
	status = run.status;
	above = perf_self_check(rows, nrows, stderr);
	if (!above)
		printf("# self-check: every row is within its bound and the measured spread\n");
	if (o.json) {
		if (perf_write_json(o.json, cmd, &ce, rows, nrows)) {
			fprintf(stderr, "gfec-perf daemon: %s: cannot write the JSON\n", o.json);
			status = status ? status : 3;
		} else {
			printf("# wrote %s\n", o.json);
		}
	}
	if (o.svg) {
		if (perf_write_svgs(o.svg, &ce, rows, nrows)) {
			fprintf(stderr, "gfec-perf daemon: %s-*.svg: cannot write the charts\n",
				o.svg);
			status = status ? status : 3;
		} else {
			printf("# wrote %s-roofline.svg and %s-latency.svg\n", o.svg, o.svg);
		}
	}
	for (int i = 0; i < nrows; i++) {
		free(rows[i].lat);
		free(rows[i].rep_gbps);
	}
	free(rows);
	if (status)
		return status;
	if (!nrows)
		return 1;
	return above ? 4 : 0;
}

/* ------------------------------------------------------------------ for gfec tune */

int perf_daemon_rates(int k, int m, size_t chunk, size_t rotate, double seconds,
		      const char *const *profiles, int nprofiles, const int *callers,
		      int ncallers, double *gbps, char *why, size_t whylen)
{
	struct dmn_pool p;
	int most = 1, ret = 0;

	for (int c = 0; c < ncallers; c++)
		most = callers[c] > most ? callers[c] : most;
	if (pool_alloc(&p, k, m, chunk, 0, rotate, most, why, whylen))
		return -1;
	for (int b = 0; b < nprofiles && !ret; b++) {
		gfec_codec *codec;
		char err[256];

		if (gfec_codec_create(profiles[b], &codec, err, sizeof(err))) {
			snprintf(why, whylen, "%s: %s", profiles[b], err);
			ret = -1;
			break;
		}
		for (int c = 0; c < ncallers && !ret; c++) {
			struct dmn_row x = {.codec = codec, .pool = &p, .op = PERF_ENCODE,
					    .callers = callers[c], .warmup = 1};
			pthread_t *tid = calloc((size_t)callers[c], sizeof(*tid));
			double win[DMN_WINDOWS];
			struct dmn_snap a, z;
			unsigned long calls = 0;

			x.c = aligned_alloc(64, (size_t)callers[c] * sizeof(*x.c));
			if (!tid || !x.c || drive(&x, tid, seconds, win, &a, &z)) {
				snprintf(why, whylen, "%s: cannot run %d callers", profiles[b],
					 callers[c]);
				ret = -1;
			} else {
				for (int i = 0; i < callers[c]; i++) {
					calls += x.c[i].nlat;
					if (x.c[i].err && !ret) {
						snprintf(why, whylen, "%s: %s", profiles[b],
							 gfec_strerror(x.c[i].err));
						ret = -1;
					}
					free(x.c[i].lat);
				}
				gbps[b * ncallers + c] =
				    (double)calls * k * (double)chunk / (z.t - a.t) / 1e9;
			}
			free(x.c);
			free(tid);
		}
		gfec_codec_free(codec);
	}
	pool_free(&p);
	return ret;
}
