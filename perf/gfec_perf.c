/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_perf.c
 * gfec-perf: how close each gfec path comes to this machine's limits, measured here and now.
 *
 * First the ceilings (each only where the hardware is there): GPU device-to-device copy, the
 * XOR-stream bound for every requested (k,m) (read k chunks, write m, no GF work), pinned H2D and
 * D2H alone and together, CPU memory bandwidth on one core and on all, raw ISA-L ec_encode_data on
 * one thread and on all. Then the workloads through the public API (encode, decode with e
 * erasures, update) over the requested codes, chunk sizes, batch sizes, backends and data
 * locations. Every row is compared with its ceiling measured in the same process.
 *
 * Honesty rules: nothing is typed in (a ceilings cache is used only when asked for, and says so);
 * results are checked against the CPU reference unless -c 0; every call is synchronous and timed
 * with CLOCK_MONOTONIC; several buffer sets are rotated so that caches do not flatter; a row whose
 * repeats spread by more than 10% is flagged. GB/s = 10^9 bytes of DATA per second (k x chunk per
 * encoded stripe), "traffic" counts every byte read or written. A GF op is one GF(2^8)
 * multiply-add of one byte.
 *
 * `gfec-perf tune` sweeps the compiled GPU kernels and the CPU/GPU crossover, and writes the
 * winners to gfec.conf (perf_tune.c).
 */
#include <errno.h>
#include <getopt.h>
#include <isa-l/erasure_code.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <gfec/gfec.h>

#include "gfec_perf.h"
#include "perf_isal.h"
#include "perf_util.h"
#include "svg.h"
#ifdef GFEC_HAVE_CUDA
#include "perf_gpu.h"
#endif

#ifndef GFEC_PERF_ISAL_VERSION
#define GFEC_PERF_ISAL_VERSION "unknown"
#endif
#ifndef GFEC_PERF_GIT_REV
#define GFEC_PERF_GIT_REV "unknown"
#endif

#define SPREAD_FLAG 0.10
#define MAX_ROWS 4096
#define SEED 0x243f6a8885a308d3ull

static const char *const op_names[] = { "encode", "decode", "update" };
static const char *const data_names[] = { "pageable", "pinned", "gpu" };

/* ------------------------------------------------------------------ options */

void perf_usage(FILE *f)
{
	fprintf(f,
		"usage: gfec-perf [OPTIONS]\n"
		"       gfec-perf tune [OPTIONS]     (see gfec-perf tune --help)\n"
		"       gfec-perf isal [OPTIONS]     (see gfec-perf isal --help)\n"
		"\n"
		"Measures this machine's ceilings, then gfec's encode/decode/update throughput and\n"
		"latency against them. GB/s = 10^9 data bytes per second.\n"
		"\n"
		"  -k, --codes LIST      (k,m) pairs, e.g. \"10,4 4,2\"           [10,4]\n"
		"  -t, --technique T     cauchy, reed_sol_van, jerasure_reed_sol_van, cauchy_good\n"
		"                                                              [cauchy]\n"
		"  -o, --ops LIST        encode,decode,update                   [encode,decode]\n"
		"  -E, --erasures E      chunks lost per decode (0: m)          [0]\n"
		"  -b, --minbytes SIZE   smallest chunk size (K/M/G suffixes)   [1M]\n"
		"  -e, --maxbytes SIZE   largest chunk size                     [1M]\n"
		"  -f, --stepfactor F    chunk size multiplier per step         [4]\n"
		"  -B, --batch LIST      stripes per call, e.g. 1,64            [1]\n"
		"  -a, --backends LIST   cpu,gpu,auto                           [cpu, and gpu if present]\n"
		"  -K, --kernel NAME     GPU kernel (gfec info lists them)      [the default]\n"
		"  -d, --data WHERE      pageable, pinned or gpu                [pageable; gpu for the\n"
		"                                                               GPU backend if present]\n"
		"  -T, --threads N       CPU threads for the codec (0: all)     [0]\n"
		"  -w, --warmup N        untimed calls per row                  [2]\n"
		"  -n, --iters N         timed calls per repeat (0: ~0.2 s)     [0]\n"
		"  -r, --repeats N       repeats per row (spread, '!' > 10%%)    [5]\n"
		"  -c, --check 0|1       compare results with the CPU reference [1]\n"
		"  -j, --json FILE       every number, the machine and the command line\n"
		"  -s, --svg PREFIX      PREFIX-roofline.svg and PREFIX-latency.svg\n"
		"  -C, --ceilings-cache FILE  reuse ceilings measured on this machine (else measure\n"
		"                        and write them there)\n"
		"  -q, --quick           a ~10 s summary: RS(10,4), 1 MiB, encode+decode\n"
		"  -h, --help            this text\n");
}

void perf_isal_usage(FILE *f)
{
	fprintf(f,
		"usage: gfec-perf isal [OPTIONS]\n"
		"\n"
		"gfec_encode on the CPU backend (technique=cauchy) against raw ISA-L ec_encode_data on\n"
		"the same data and matrix, on 1 thread and on T, parity checked equal first.\n"
		"GB/s = 10^9 data bytes per second.\n"
		"\n"
		"  -k, --codes LIST      (k,m) pairs, e.g. \"10,4 4,2\"           [10,4]\n"
		"  -b, --minbytes SIZE   smallest chunk size (K/M/G suffixes)   [1M]\n"
		"  -e, --maxbytes SIZE   largest chunk size                     [1M]\n"
		"  -f, --stepfactor F    chunk size multiplier per step         [4]\n"
		"  -T, --threads T       the second thread count (0: all CPUs)  [0]\n"
		"  -w, --warmup N        untimed encodes per implementation     [2]\n"
		"  -n, --iters N         timed encodes per repeat (0: ~0.2 s)   [0]\n"
		"  -r, --repeats N       repeats per row (spread, '!' > 10%%)    [5]\n"
		"      --hot             one stripe set: in-cache numbers       [DRAM: >= max(256 MiB,\n"
		"                                                               4 x L3) rotated]\n"
		"      --isal-lib PATH   also time this libisal.so.2's raw ec_encode_data (dlopened,\n"
		"                        RTLD_DEEPBIND), e.g. an upstream ISA-L build\n"
		"  -j, --json FILE       every number, the machine and the command line\n"
		"  -h, --help            this text\n");
}

static int parse_list(const char *s, int *out, int max, int *n)
{
	char buf[256], *save = NULL, *tok;
	long v;

	*n = 0;
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		if (*n == max || perf_parse_long(tok, 1, 1 << 24, &v))
			return -1;
		out[(*n)++] = (int)v;
	}
	return *n ? 0 : -1;
}

static int parse_codes(const char *s, struct perf_opts *o)
{
	char buf[256], *save = NULL, *tok;

	o->ncodes = 0;
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, " ;", &save); tok; tok = strtok_r(NULL, " ;", &save)) {
		int k, m;
		char extra;

		if (o->ncodes == PERF_MAX_CODES || sscanf(tok, "%d,%d%c", &k, &m, &extra) != 2 ||
		    k < 2 || m < 1 || m > k || k + m > 256)
			return -1;
		o->codes[o->ncodes].k = k;
		o->codes[o->ncodes++].m = m;
	}
	return o->ncodes ? 0 : -1;
}

static int parse_names(const char *s, const char *const *names, int nnames, unsigned *mask)
{
	char buf[128], *save = NULL, *tok;

	*mask = 0;
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		int i = 0;

		while (i < nnames && strcmp(tok, names[i]) != 0)
			i++;
		if (i == nnames)
			return -1;
		*mask |= 1u << i;
	}
	return *mask ? 0 : -1;
}

static const char *const backend_names[] = { "cpu", "gpu", "auto" };

int perf_parse_args(int argc, char **argv, struct perf_opts *o, char *err, size_t errlen)
{
	enum { OPT_ISAL_LIB = 256, OPT_HOT };
	/* the short flags gfec-perf isal does not take */
	static const char main_only[] = "toEBaKdcsCq";
	static const struct option lopts[] = {
		{ "codes", required_argument, NULL, 'k' },
		{ "technique", required_argument, NULL, 't' },
		{ "ops", required_argument, NULL, 'o' },
		{ "erasures", required_argument, NULL, 'E' },
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "batch", required_argument, NULL, 'B' },
		{ "backends", required_argument, NULL, 'a' },
		{ "kernel", required_argument, NULL, 'K' },
		{ "data", required_argument, NULL, 'd' },
		{ "threads", required_argument, NULL, 'T' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "iters", required_argument, NULL, 'n' },
		{ "repeats", required_argument, NULL, 'r' },
		{ "check", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, 's' },
		{ "ceilings-cache", required_argument, NULL, 'C' },
		{ "quick", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "isal-lib", required_argument, NULL, OPT_ISAL_LIB },
		{ "hot", no_argument, NULL, OPT_HOT },
		{ NULL, 0, NULL, 0 },
	};
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->codes[0].k = 10, o->codes[0].m = 4, o->ncodes = 1;
	o->technique = "cauchy";
	o->ops = 1u << PERF_ENCODE | 1u << PERF_DECODE;
	o->minb = o->maxb = 1 << 20;
	o->factor = 4;
	o->batches[0] = 1, o->nbatches = 1;
	o->data = -1;
	o->warmup = 2;
	o->repeats = 5;
	o->check = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":k:t:o:E:b:e:f:B:a:K:d:T:w:n:r:c:j:s:C:qh", lopts,
				NULL)) != -1) {
		if (c > 0 && c < 256 && strchr(main_only, c) && !o->main_only)
			o->main_only = c;
		if ((c == OPT_ISAL_LIB || c == OPT_HOT) && !o->isal_only)
			o->isal_only = c == OPT_HOT ? "--hot" : "--isal-lib";
		switch (c) {
		case 'k':
			if (parse_codes(optarg, o))
				goto bad;
			break;
		case 't':
			o->technique = optarg;
			break;
		case 'o':
			if (parse_names(optarg, op_names, 3, &o->ops))
				goto bad;
			break;
		case 'E':
			if (perf_parse_long(optarg, 0, 255, &v))
				goto bad;
			o->erasures = (int)v;
			break;
		case 'b':
			if (perf_parse_size(optarg, &o->minb))
				goto bad;
			break;
		case 'e':
			if (perf_parse_size(optarg, &o->maxb))
				goto bad;
			break;
		case 'f':
			if (perf_parse_long(optarg, 2, 1024, &v))
				goto bad;
			o->factor = (int)v;
			break;
		case 'B':
			if (parse_list(optarg, o->batches, PERF_MAX_LIST, &o->nbatches))
				goto bad;
			break;
		case 'a':
			if (parse_names(optarg, backend_names, 3, &o->backends))
				goto bad;
			break;
		case 'K':
			o->kernel = optarg;
			break;
		case 'd': {
			unsigned m;

			if (parse_names(optarg, data_names, 3, &m) || (m & (m - 1)))
				goto bad;
			o->data = __builtin_ctz(m);
			break;
		}
		case 'T':
			if (perf_parse_long(optarg, 0, 1024, &v))
				goto bad;
			o->threads = (int)v;
			break;
		case 'w':
			if (perf_parse_long(optarg, 0, 1000000, &v))
				goto bad;
			o->warmup = (int)v;
			break;
		case 'n':
			if (perf_parse_long(optarg, 0, 100000000, &v))
				goto bad;
			o->iters = v;
			break;
		case 'r':
			if (perf_parse_long(optarg, 1, 1000, &v))
				goto bad;
			o->repeats = (int)v;
			break;
		case 'c':
			if (perf_parse_long(optarg, 0, 1, &v))
				goto bad;
			o->check = (int)v;
			break;
		case 'j':
			o->json = optarg;
			break;
		case 's':
			o->svg = optarg;
			break;
		case 'C':
			o->ceilings_cache = optarg;
			break;
		case 'q':
			o->quick = 1;
			break;
		case OPT_ISAL_LIB:
			o->isal_lib = optarg;
			break;
		case OPT_HOT:
			o->hot = 1;
			break;
		case 'h':
			o->help = 1;
			return 0;
		case ':':
			snprintf(err, errlen, "option %s needs a value", argv[optind - 1]);
			return -1;
		default:
			snprintf(err, errlen, "unknown option %s", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (o->minb > o->maxb) {
		snprintf(err, errlen, "-b %zu is larger than -e %zu", o->minb, o->maxb);
		return -1;
	}
	if (o->quick) {
		o->repeats = o->repeats > 3 ? 3 : o->repeats;
		o->warmup = 1;
	}
	return 0;
bad:
	snprintf(err, errlen, "%s: bad value '%s' (see --help)", argv[optind - 1], optarg);
	return -1;
}

int perf_check_mode(const struct perf_opts *o, enum perf_mode mode, char *err, size_t errlen)
{
	if (mode == PERF_MODE_ISAL && o->main_only) {
		snprintf(err, errlen, "-%c is not a flag of gfec-perf isal (see --help)", o->main_only);
		return -1;
	}
	if (mode == PERF_MODE_MAIN && o->isal_only) {
		snprintf(err, errlen, "%s goes with gfec-perf isal (see gfec-perf isal --help)",
			 o->isal_only);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ machine and ceilings */

static void machine_id(char *buf, size_t len, const struct perf_ceilings *c)
{
	struct utsname u;
	char cpu[128];

	perf_cpu_model(cpu, sizeof(cpu));
	if (uname(&u) != 0)
		snprintf(u.nodename, sizeof(u.nodename), "unknown");
	snprintf(buf, len, "%s|%s|%ld cpus|%s", u.nodename, cpu, sysconf(_SC_NPROCESSORS_ONLN),
		 c->gpu_name[0] ? c->gpu_name : "no gpu");
}

struct copy_job {
	uint8_t *src, *dst;
	size_t n;
	int reps;
	pthread_barrier_t *start;
};

static void *copy_worker(void *arg)
{
	struct copy_job *j = arg;

	pthread_barrier_wait(j->start);
	for (int r = 0; r < j->reps; r++)
		memcpy(j->dst, j->src, j->n);
	return NULL;
}

/* memcpy bandwidth (bytes read + written per second) on @p threads threads, each its own part. */
static double cpu_mem_bw(size_t bytes, int threads)
{
	uint8_t *src = malloc(bytes), *dst = malloc(bytes);
	pthread_t tid[1024];
	struct copy_job jobs[1024];
	pthread_barrier_t start;
	double best = 0;

	if (!src || !dst || threads < 1 || threads > 1024) {
		free(src);
		free(dst);
		return 0;
	}
	perf_fill_random(src, bytes, SEED);
	memset(dst, 1, bytes);
	for (int trial = 0; trial < 3; trial++) {
		double t0, t;
		int started = 0;

		pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
		for (int i = 0; i < threads; i++) {
			size_t part = bytes / (size_t)threads / 64 * 64;

			jobs[i] = (struct copy_job){ src + part * i, dst + part * i, part, 1, &start };
			if (pthread_create(&tid[i], NULL, copy_worker, &jobs[i]) != 0)
				break;
			started++;
		}
		if (started < threads) {
			/* release what started, then give up on this figure */
			pthread_barrier_destroy(&start);
			best = 0;
			break;
		}
		pthread_barrier_wait(&start);
		t0 = perf_now();
		for (int i = 0; i < threads; i++)
			pthread_join(tid[i], NULL);
		t = perf_now() - t0;
		pthread_barrier_destroy(&start);
		{
			double bw = 2.0 * (double)(bytes / (size_t)threads / 64 * 64) * threads / t;

			best = bw > best ? bw : best;
		}
	}
	free(src);
	free(dst);
	return best / 1e9;
}

static int load_ceilings(const char *path, struct perf_ceilings *c, const char *id)
{
	FILE *f = fopen(path, "r");
	char line[512], key[64];
	int ok = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct perf_code_ceil *pc;

		if (sscanf(line, "%63s", key) != 1)
			continue;
		if (strcmp(key, "machine") == 0) {
			line[strcspn(line, "\n")] = '\0';
			ok = strcmp(line + 8, id) == 0;
		} else if (strcmp(key, "cpu") == 0) {
			sscanf(line, "cpu %d %lf %lf", &c->cpus, &c->cpu_mem_1, &c->cpu_mem_all);
		} else if (strcmp(key, "gpu") == 0) {
			sscanf(line, "gpu %lf %lf %lf %lf", &c->d2d, &c->h2d, &c->d2h, &c->both);
		} else if (strcmp(key, "code") == 0 && c->ncodes < PERF_MAX_CODES) {
			pc = &c->codes[c->ncodes];
			if (sscanf(line, "code %d %d %lf %lf %lf", &pc->k, &pc->m, &pc->isal_1,
				   &pc->isal_all, &pc->xor_gpu) == 5)
				c->ncodes++;
		}
	}
	fclose(f);
	return ok ? 0 : -1;
}

static void save_ceilings(const char *path, const struct perf_ceilings *c, const char *id)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "gfec-perf: %s: cannot write the ceilings cache: %s\n", path,
			strerror(errno));
		return;
	}
	fprintf(f, "machine %s\n", id);
	fprintf(f, "cpu %d %.6f %.6f\n", c->cpus, c->cpu_mem_1, c->cpu_mem_all);
	fprintf(f, "gpu %.6f %.6f %.6f %.6f\n", c->d2d, c->h2d, c->d2h, c->both);
	for (int i = 0; i < c->ncodes; i++)
		fprintf(f, "code %d %d %.6f %.6f %.6f\n", c->codes[i].k, c->codes[i].m,
			c->codes[i].isal_1, c->codes[i].isal_all, c->codes[i].xor_gpu);
	fclose(f);
}

static const struct perf_code_ceil *code_ceil(const struct perf_ceilings *c, int k, int m)
{
	for (int i = 0; i < c->ncodes; i++)
		if (c->codes[i].k == k && c->codes[i].m == m)
			return &c->codes[i];
	return NULL;
}

void perf_measure_ceilings(const struct perf_opts *o, struct perf_ceilings *c)
{
	const size_t bytes = o->quick ? (size_t)64 << 20 : (size_t)256 << 20;
	/* memory, not cache: the copy covers at least 4 x L3 (a 16-core host's L3 holds ~100 MB) */
	const size_t copy_bytes = 4 * perf_l3_bytes() > bytes ? 4 * perf_l3_bytes() : bytes;
	char id[512];

	memset(c, 0, sizeof(*c));
#ifdef GFEC_HAVE_CUDA
	{
		struct perf_gpu_info g;

		if (perf_gpu_query(&g) == 0) {
			c->gpu = 1;
			snprintf(c->gpu_name, sizeof(c->gpu_name), "%s", g.name);
			c->gpu_sms = g.sms;
			c->gpu_sm_clock = g.sm_clock_mhz;
			c->gpu_mem_clock = g.mem_clock_mhz;
		}
	}
#endif
	machine_id(id, sizeof(id), c);
	if (o->ceilings_cache && load_ceilings(o->ceilings_cache, c, id) == 0) {
		int all = 1;

		for (int i = 0; i < o->ncodes; i++)
			all &= code_ceil(c, o->codes[i].k, o->codes[i].m) != NULL;
		if (all) {
			c->from_cache = 1;
			fprintf(stderr, "gfec-perf: ceilings from the cache %s (measured earlier on "
					"this machine)\n",
				o->ceilings_cache);
			return;
		}
	}
	{
		/* a cache for another machine or other codes is not used: measure everything */
		int gpu = c->gpu, sms = c->gpu_sms, clk = c->gpu_sm_clock, mclk = c->gpu_mem_clock;
		char name[128];

		snprintf(name, sizeof(name), "%s", c->gpu_name);
		memset(c, 0, sizeof(*c));
		c->gpu = gpu, c->gpu_sms = sms, c->gpu_sm_clock = clk, c->gpu_mem_clock = mclk;
		snprintf(c->gpu_name, sizeof(c->gpu_name), "%s", name);
	}
	c->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	fprintf(stderr, "gfec-perf: measuring ceilings (CPU memory, raw ISA-L%s)...\n",
		c->gpu ? ", GPU copy, XOR bound, PCIe" : "");
	c->cpu_mem_1 = cpu_mem_bw(copy_bytes, 1);
	c->cpu_mem_all = cpu_mem_bw(copy_bytes, c->cpus);
#ifdef GFEC_HAVE_CUDA
	if (c->gpu) {
		c->d2d = perf_gpu_d2d(o->quick ? (size_t)1 << 30 : (size_t)4 << 30);
		perf_gpu_pinned(o->quick ? (size_t)256 << 20 : (size_t)1 << 30, &c->h2d, &c->d2h,
				&c->both);
	}
#endif
	for (int i = 0; i < o->ncodes; i++) {
		struct perf_code_ceil *pc = &c->codes[c->ncodes++];

		pc->k = o->codes[i].k;
		pc->m = o->codes[i].m;
		pc->isal_1 = perf_isal_raw_gbps(pc->k, pc->m, 1, copy_bytes);
		pc->isal_all = perf_isal_raw_gbps(pc->k, pc->m, c->cpus, copy_bytes);
#ifdef GFEC_HAVE_CUDA
		if (c->gpu) {
			/* 256 MiB of data per launch, whatever the (k,m) */
			size_t chunk = (o->quick ? (size_t)64 << 20 : (size_t)256 << 20) /
				       (size_t)pc->k;

			pc->xor_gpu = perf_gpu_xor_bound(pc->k, pc->m, chunk / 256 * 256, 1);
		}
#endif
	}
	if (o->ceilings_cache)
		save_ceilings(o->ceilings_cache, c, id);
}

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

static int bufs_alloc(struct bufs *b, int k, int m, int e, int batch, size_t chunk,
		      enum perf_data data, size_t rotate)
{
	const int n = k + m;
	uint8_t *host;

	memset(b, 0, sizeof(*b));
	b->k = k, b->m = m, b->e = e, b->batch = batch, b->chunk = chunk, b->data = data;
	b->pitch = (chunk + 255) / 256 * 256;
	/* per stripe: k+m chunks, e decode outputs, one delta */
	b->set_bytes = b->pitch * (size_t)(n + e + 1) * (size_t)batch;
	b->nsets = (int)((rotate + b->set_bytes - 1) / b->set_bytes);
	b->nsets = b->nsets < 2 ? 2 : b->nsets > 64 ? 64 : b->nsets;
	while (b->nsets > 1 && b->set_bytes * (size_t)b->nsets > ((size_t)3 << 30))
		b->nsets--;
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
static int check_row(gfec_codec *c, enum perf_op op, const struct bufs *b, const char *tech)
{
	const struct set *st = &b->sets[0];
	const int k = b->k, m = b->m, n = k + m;
	char prof[128];
	gfec_codec *ref;
	int ok = -1;

	snprintf(prof, sizeof(prof), "k=%d m=%d technique=%s backend=cpu", k, m, tech);
	if (gfec_codec_create(prof, &ref, NULL, 0))
		return -1;
	/* one stripe is enough to catch a wrong kernel or pipeline: the first */
	uint8_t *data = fetch(b->data, st->enc_in, k, b->chunk);
	uint8_t *par = fetch(b->data, (const uint8_t *const *)st->enc_out, m, b->chunk);
	uint8_t *want = malloc((size_t)n * b->chunk + 1);
	const uint8_t *dp[256];
	uint8_t *wp[256];

	if (!data || !par || !want)
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
	const int e = op == PERF_DECODE ? (o->erasures && o->erasures <= m ? o->erasures : m) : 0;
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
	snprintf(prof, sizeof(prof), "k=%d m=%d technique=%s backend=%s threads=%d%s%s", k, m,
		 o->technique, backend, o->threads, o->kernel ? " gpu_kernel=" : "",
		 o->kernel ? o->kernel : "");
	if (gfec_codec_create(prof, &c, r->skip, sizeof(r->skip)))
		return -1;
	snprintf(r->engine, sizeof(r->engine), "%s", gfec_codec_backend(c));
	if (bufs_alloc(&b, k, m, e, batch, chunk, data,
		       o->quick ? (size_t)64 << 20 : (size_t)256 << 20)) {
		snprintf(r->skip, sizeof(r->skip), "cannot allocate %s buffers", data_names[data]);
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
			snprintf(r->skip, sizeof(r->skip), "%s failed", op_names[op]);
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
	r->gf_ops = (double)chunk * batch *
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
					 op_names[op]);
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

	/* The ceiling that bounds this row. */
	{
		const struct perf_code_ceil *pc = code_ceil(ce, k, m);

		if (r->on_gpu && data == PERF_GPU && pc && pc->xor_gpu > 0) {
			r->ceil_name = "GPU XOR-stream bound";
			r->ceil_gbps = pc->xor_gpu;
		} else if (r->on_gpu && ce->h2d > 0) {
			r->ceil_name = "pinned H2D";
			r->ceil_gbps = ce->h2d;
		} else if (pc) {
			r->ceil_name = o->threads == 1 ? "raw ISA-L, 1 thread" : "raw ISA-L, all cores";
			r->ceil_gbps = o->threads == 1 ? pc->isal_1 : pc->isal_all;
		}
		r->pct = pct_of(r->gbps.median, r->ceil_gbps);
	}
	r->checked = o->check ? check_row(c, op, &b, o->technique) : -2;
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

/* ------------------------------------------------------------------ output */

static void print_header(void)
{
	printf("%-6s %-8s %-6s %6s %5s %-4s %-8s %9s %9s %9s %6s %7s %9s %9s %7s %5s %s\n", "op",
	       "code", "tech", "chunk", "batch", "bknd", "data", "data GB/s", "trafGB/s",
	       "GF-op/s", "intens", "%ceil", "p50 us", "p99 us", "cpu-s/GB", "check", "ceiling");
}

static void print_row(const struct perf_row *r)
{
	char code[32], size[16], gops[32];

	snprintf(code, sizeof(code), "RS(%d,%d)", r->k, r->m);
	perf_fmt_size(size, sizeof(size), r->chunk);
	snprintf(gops, sizeof(gops), "%.3gG", r->gops);
	printf("%-6s %-8s %-6.6s %6s %5d %-4s %-8s %9.2f %9.2f %9s %6.2f %6.1f%% %9.1f %9.1f %7.3f "
	       "%5s %s%s\n",
	       op_names[r->op], code, r->technique, size, r->batch, r->backend, data_names[r->data],
	       r->gbps.median, r->traffic_gbps, gops, r->intensity, r->pct, r->p50, r->p99,
	       r->cpu_s_per_gb,
	       r->checked == 1	  ? "ok"
	       : r->checked == 0  ? "FAIL"
	       : r->checked == -2 ? "off"
				  : "n/a",
	       r->ceil_name ? r->ceil_name : "-", r->flagged ? " !spread" : "");
	fflush(stdout);
}

static void progress(int done, int total, const char *what)
{
	const int width = 30;
	int fill = total ? done * width / total : width;

	if (!isatty(2))
		return;
	fprintf(stderr, "\r[%.*s%*s] %d/%d %-40.40s", fill, "##############################",
		width - fill, "", done, total, what);
	if (done == total)
		fprintf(stderr, "\r%*s\r", width + 50, "");
}

static void json_machine(FILE *f, const struct perf_ceilings *c)
{
	char cpu[128];
	struct utsname u;

	perf_cpu_model(cpu, sizeof(cpu));
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	fprintf(f, "\"machine\":{\"cpu_model\":");
	perf_json_str(f, cpu);
	fprintf(f, ",\"cpus\":%d,\"l3_bytes\":%zu,\"kernel\":", c->cpus, perf_l3_bytes());
	perf_json_str(f, u.release);
	fprintf(f, ",\"gpu\":");
	if (c->gpu) {
		fprintf(f, "{\"name\":");
		perf_json_str(f, c->gpu_name);
		fprintf(f, ",\"sms\":%d,\"sm_clock_mhz\":%d,\"mem_clock_mhz\":%d}", c->gpu_sms,
			c->gpu_sm_clock, c->gpu_mem_clock);
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\"gfec_version\":");
	perf_json_str(f, gfec_version());
	fprintf(f, ",\"isal_version\":");
	perf_json_str(f, GFEC_PERF_ISAL_VERSION);
	fprintf(f, ",\"git_revision\":");
	perf_json_str(f, GFEC_PERF_GIT_REV);
	fprintf(f, "}");
}

int perf_write_json(const char *path, const char *cmdline, const struct perf_ceilings *c,
		    const struct perf_row *rows, int nrows)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "{\"schema\":\"gfec-perf/1\",\"units\":{\"GBps\":\"1e9 data bytes per second\","
		   "\"traffic_GBps\":\"1e9 bytes read or written per second\",\"gf_op\":\"one "
		   "GF(2^8) multiply-add of one byte\",\"latency\":\"microseconds per call\"},\n"
		   "\"command\":");
	perf_json_str(f, cmdline);
	fprintf(f, ",\n");
	json_machine(f, c);
	fprintf(f, ",\n\"ceilings\":{\"from_cache\":%s,\"cpu_mem_1core_GBps\":%.4f,"
		   "\"cpu_mem_all_GBps\":%.4f,\"gpu_d2d_GBps\":%.4f,\"pinned_h2d_GBps\":%.4f,"
		   "\"pinned_d2h_GBps\":%.4f,\"pinned_both_GBps\":%.4f,\"codes\":[",
		c->from_cache ? "true" : "false", c->cpu_mem_1, c->cpu_mem_all, c->d2d, c->h2d,
		c->d2h, c->both);
	for (int i = 0; i < c->ncodes; i++)
		fprintf(f, "%s{\"k\":%d,\"m\":%d,\"isal_1thread_GBps\":%.4f,\"isal_all_GBps\":%.4f,"
			   "\"gpu_xor_bound_GBps\":%.4f}",
			i ? "," : "", c->codes[i].k, c->codes[i].m, c->codes[i].isal_1,
			c->codes[i].isal_all, c->codes[i].xor_gpu);
	fprintf(f, "]},\n\"results\":[");
	for (int i = 0; i < nrows; i++) {
		const struct perf_row *r = &rows[i];

		fprintf(f, "%s\n{\"op\":\"%s\",\"k\":%d,\"m\":%d,\"erasures\":%d,\"technique\":",
			i ? "," : "", op_names[r->op], r->k, r->m, r->e);
		perf_json_str(f, r->technique);
		fprintf(f, ",\"chunk\":%zu,\"batch\":%d,\"backend\":\"%s\",\"engine\":", r->chunk,
			r->batch, r->backend);
		perf_json_str(f, r->engine);
		fprintf(f, ",\"on_gpu\":%s,\"data\":\"%s\",\"calls\":%ld,\"repeats\":%d,"
			   "\"data_bytes_per_call\":%.0f,\"traffic_bytes_per_call\":%.0f,"
			   "\"seconds_per_call_median\":%.9f,\"GBps\":%.4f,\"GBps_min\":%.4f,"
			   "\"GBps_max\":%.4f,\"spread\":%.4f,\"flagged\":%s,\"traffic_GBps\":%.4f,"
			   "\"gf_ops_per_s\":%.6g,\"intensity\":%.4f,\"ceiling\":",
			r->on_gpu ? "true" : "false", data_names[r->data], r->n, r->repeats,
			r->data_bytes, r->traffic_bytes, r->p50 * 1e-6, r->gbps.median, r->gbps.min,
			r->gbps.max, r->gbps.spread, r->flagged ? "true" : "false", r->traffic_gbps,
			r->gops * 1e9, r->intensity);
		perf_json_str(f, r->ceil_name ? r->ceil_name : "");
		fprintf(f, ",\"ceiling_GBps\":%.4f,\"pct_of_ceiling\":%.3f,\"latency_us\":{\"p50\":"
			   "%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f},\"cpu_seconds_per_GB\":%.6f,"
			   "\"checked\":%s}",
			r->ceil_gbps, r->pct, r->p50, r->p90, r->p99, r->p999, r->cpu_s_per_gb,
			r->checked == 1 ? "true" : r->checked == 0 ? "false" : "null");
	}
	fprintf(f, "\n]}\n");
	return fclose(f) ? -errno : 0;
}

int perf_write_svgs(const char *prefix, const struct perf_ceilings *c, const struct perf_row *rows,
		      int nrows)
{
	struct perf_roof roofs[8];
	struct perf_point *pts = calloc((size_t)nrows + 1, sizeof(*pts));
	struct perf_cdf *cdf = calloc((size_t)nrows + 1, sizeof(*cdf));
	char (*labels)[64] = calloc((size_t)nrows + 1, sizeof(*labels));
	char path[1024], note[512], cpu[96];
	int nroofs = 0, ret;

	if (!pts || !cdf || !labels) {
		ret = -ENOMEM;
		goto out;
	}
	if (c->cpu_mem_all > 0)
		roofs[nroofs++] = (struct perf_roof){ "CPU memory, all cores", PERF_ROOF_BANDWIDTH,
						      c->cpu_mem_all * 1e9 };
	if (c->cpu_mem_1 > 0)
		roofs[nroofs++] = (struct perf_roof){ "CPU memory, 1 core", PERF_ROOF_BANDWIDTH,
						      c->cpu_mem_1 * 1e9 };
	if (c->d2d > 0)
		roofs[nroofs++] = (struct perf_roof){ "GPU copy (HBM)", PERF_ROOF_BANDWIDTH,
						      c->d2d * 1e9 };
	if (c->h2d > 0)
		roofs[nroofs++] = (struct perf_roof){ "PCIe pinned H2D", PERF_ROOF_BANDWIDTH,
						      c->h2d * 1e9 };
	if (c->ncodes && c->codes[0].isal_all > 0)
		/* raw ISA-L does m GF ops per data byte */
		roofs[nroofs++] = (struct perf_roof){ "raw ISA-L, all cores", PERF_ROOF_COMPUTE,
						      c->codes[0].isal_all * 1e9 * c->codes[0].m };
	if (c->ncodes && c->codes[0].isal_1 > 0)
		roofs[nroofs++] = (struct perf_roof){ "raw ISA-L, 1 thread", PERF_ROOF_COMPUTE,
						      c->codes[0].isal_1 * 1e9 * c->codes[0].m };
	for (int i = 0; i < nrows; i++) {
		char size[16];

		perf_fmt_size(size, sizeof(size), rows[i].chunk);
		snprintf(labels[i], sizeof(labels[i]), "%s RS(%d,%d) %s %s/%s", op_names[rows[i].op],
			 rows[i].k, rows[i].m, size, rows[i].backend, data_names[rows[i].data]);
		pts[i] = (struct perf_point){ labels[i], rows[i].intensity, rows[i].gops * 1e9,
					      rows[i].flagged };
		cdf[i] = (struct perf_cdf){ labels[i], rows[i].lat, rows[i].nlat };
	}
	perf_cpu_model(cpu, sizeof(cpu));
	snprintf(note, sizeof(note), "measured by gfec-perf on %s%s%s; roofs from this run%s", cpu,
		 c->gpu ? " + " : "", c->gpu ? c->gpu_name : "",
		 c->from_cache ? " (ceilings cache)" : "");
	snprintf(path, sizeof(path), "%s-roofline.svg", prefix);
	ret = perf_svg_roofline(path, "gfec roofline (GF ops/s vs GF ops per byte of traffic)", note,
				roofs, nroofs, pts, nrows);
	if (ret == 0) {
		snprintf(path, sizeof(path), "%s-latency.svg", prefix);
		ret = perf_svg_latency_cdf(path, "gfec latency per call (CDF)", cdf, nrows);
	}
out:
	free(pts);
	free(cdf);
	free(labels);
	return ret;
}

/* ------------------------------------------------------------------ main */

int perf_main(int argc, char **argv)
{
	struct perf_opts o;
	struct perf_ceilings ce;
	struct perf_row *rows;
	char err[256], cmd[2048];
	int nrows = 0, total = 0, done = 0, failed = 0;
	size_t sizes[64];
	int nsizes = 0;

	if (perf_parse_args(argc, argv, &o, err, sizeof(err)) ||
	    perf_check_mode(&o, PERF_MODE_MAIN, err, sizeof(err))) {
		fprintf(stderr, "gfec-perf: %s\n", err);
		return 2;
	}
	if (o.help) {
		perf_usage(stdout);
		return 0;
	}
	perf_command_line(argc, argv, cmd, sizeof(cmd));
	perf_measure_ceilings(&o, &ce);
	if (!o.backends)
		o.backends = 1u << 0 | (ce.gpu ? 1u << 1 : 0);
	for (size_t s = o.minb; s <= o.maxb && nsizes < 64; s *= (size_t)o.factor)
		sizes[nsizes++] = s;

	printf("# reproduce: %s\n", cmd);
	printf("# gfec %s, CPU: %d cpus, memory %.1f GB/s (1 core) / %.1f GB/s (all)%s\n",
	       gfec_version(), ce.cpus, ce.cpu_mem_1, ce.cpu_mem_all,
	       ce.from_cache ? " [ceilings from cache]" : "");
	for (int i = 0; i < ce.ncodes; i++)
		printf("# raw ISA-L RS(%d,%d) 1 MiB chunks: %.2f GB/s (1 thread), %.2f GB/s (all "
		       "cores)%s\n",
		       ce.codes[i].k, ce.codes[i].m, ce.codes[i].isal_1, ce.codes[i].isal_all, "");
	if (ce.gpu) {
		printf("# GPU %s: copy %.0f GB/s (read+write), pinned H2D %.1f / D2H %.1f / both "
		       "%.1f GB/s\n",
		       ce.gpu_name, ce.d2d, ce.h2d, ce.d2h, ce.both);
		for (int i = 0; i < ce.ncodes; i++)
			printf("# GPU XOR-stream bound RS(%d,%d): %.0f GB/s of data\n", ce.codes[i].k,
			       ce.codes[i].m, ce.codes[i].xor_gpu);
	}
	printf("# GB/s = 10^9 data bytes/s; GF-op = one GF(2^8) multiply-add of a byte; '!spread' = "
	       "repeats differ by > 10%%\n");

	for (int op = 0; op < 3; op++)
		for (int b = 0; b < 3; b++)
			if ((o.ops >> op & 1) && (o.backends >> b & 1))
				total += o.ncodes * nsizes * o.nbatches;
	rows = calloc(MAX_ROWS, sizeof(*rows));
	if (!rows)
		return 1;
	print_header();
	for (int op = 0; op < 3; op++) {
		if (!(o.ops >> op & 1))
			continue;
		for (int ci = 0; ci < o.ncodes; ci++)
			for (int si = 0; si < nsizes; si++)
				for (int bi = 0; bi < o.nbatches; bi++)
					for (int be = 0; be < 3; be++) {
						struct perf_row *r = &rows[nrows];
						enum perf_data data;
						char what[96];

						if (!(o.backends >> be & 1) || nrows == MAX_ROWS)
							continue;
						data = o.data >= 0 ? (enum perf_data)o.data
						       : be != 0 && ce.gpu ? PERF_GPU
									   : PERF_PAGEABLE;
						snprintf(what, sizeof(what), "%s RS(%d,%d) %zu B %s",
							 op_names[op], o.codes[ci].k, o.codes[ci].m,
							 sizes[si], backend_names[be]);
						progress(done, total, what);
						/* the CPU cannot read device memory; without a GPU
						 * there is no pinned or device memory to be had */
						if ((be == 0 && data == PERF_GPU) ||
						    (data != PERF_PAGEABLE && !ce.gpu)) {
							done++;
							continue;
						}
						if (perf_run_row(&o, &ce, (enum perf_op)op,
								 o.codes[ci].k, o.codes[ci].m,
								 sizes[si], o.batches[bi],
								 backend_names[be], data, r)) {
							fprintf(stderr, "gfec-perf: %s: skipped: %s\n",
								what, r->skip);
						} else {
							print_row(r);
							failed += r->checked == 0;
							nrows++;
						}
						done++;
					}
	}
	progress(total, total, "");
	if (o.json) {
		int ret = perf_write_json(o.json, cmd, &ce, rows, nrows);

		if (ret)
			fprintf(stderr, "gfec-perf: %s: %s\n", o.json, strerror(-ret));
		else
			printf("# wrote %s\n", o.json);
	}
	if (o.svg) {
		int ret = perf_write_svgs(o.svg, &ce, rows, nrows);

		if (ret)
			fprintf(stderr, "gfec-perf: %s-*.svg: %s\n", o.svg, strerror(-ret));
		else
			printf("# wrote %s-roofline.svg and %s-latency.svg\n", o.svg, o.svg);
	}
	for (int i = 0; i < nrows; i++) {
		free(rows[i].lat);
		free(rows[i].rep_gbps);
	}
	free(rows);
	if (failed) {
		fprintf(stderr, "gfec-perf: %d row(s) FAILED the check against the CPU reference\n",
			failed);
		return 1;
	}
	return nrows ? 0 : 1;
}

