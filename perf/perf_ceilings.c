/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_ceilings.c
 * The machine's limits, measured in the same process as the rows they bound (or read back from a
 * --ceilings-cache written on this machine): CPU memory bandwidth, the CPU XOR-stream bound of
 * every CPU row's shape (perf_run.c), raw ISA-L (perf_isal.c), and where there is a GPU its copy
 * bandwidth, XOR-stream bound and pinned PCIe.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <gfec/gfec_limits.h>

#include "gfec_perf.h"
#include "perf_isal.h"
#include "perf_util.h"
#ifdef GFEC_HAVE_CUDA
#include "perf_gpu.h"
#endif

#define SEED 0x243f6a8885a308d3ull

void perf_ceilings_key(char *buf, size_t len, const struct perf_opts *o,
		       const struct perf_ceilings *c, int threads)
{
	struct utsname u;
	char cpu[128];

	perf_cpu_model(cpu, sizeof(cpu));
	if (uname(&u) != 0)
		snprintf(u.nodename, sizeof(u.nodename), "unknown");
	snprintf(buf, len, "%s|%s|%ld cpus|%s|threads %d|rotate %zu|%s", u.nodename, cpu,
		 sysconf(_SC_NPROCESSORS_ONLN), c->gpu_name[0] ? c->gpu_name : "no gpu", threads,
		 perf_rotate_bytes(o), o->quick ? "quick" : "full");
}

/* the sweeps: a copy, and reads or in-place updates of 1 or MEM_STREAMS streams per thread */
enum mem_pattern { MEM_COPY, MEM_READ, MEM_RMW };
#define MEM_STREAMS 8
static const struct {
	enum mem_pattern pattern;
	int streams;
} mem_sweeps[] = {
	{ MEM_COPY, 1 }, { MEM_READ, 1 }, { MEM_RMW, 1 }, { MEM_READ, MEM_STREAMS },
	{ MEM_RMW, MEM_STREAMS },
};

struct mem_job {
	enum mem_pattern pattern;
	int streams;
	uint8_t *src, *dst; /* dst: MEM_COPY only */
	size_t n;
	int passes;
	uint64_t sink;
	atomic_int *go; /* 0 wait, 1 run, -1 give up */
};

static void *mem_worker(void *arg)
{
	struct mem_job *j = arg;
	int go;

	while ((go = atomic_load(j->go)) == 0)
		sched_yield();
	if (go < 0)
		return NULL;
	for (int r = 0; r < j->passes; r++)
		if (j->pattern == MEM_COPY)
			memcpy(j->dst, j->src, j->n);
		else if (j->pattern == MEM_READ)
			j->sink ^= perf_mem_read(j->src, j->n, j->streams);
		else
			perf_mem_rmw(j->src, j->n, j->streams);
	return NULL;
}

/* @p passes sweeps over @p bytes on @p threads threads, each its own contiguous part: GB/s read
 * + written, 0 if the threads could not be started. */
static double mem_sweep(enum mem_pattern pattern, int streams, uint8_t *src, uint8_t *dst,
			size_t bytes, int threads, int passes)
{
	/* a multiple of MEM_STREAMS blocks, so the streamed sweeps cover every byte counted */
	const size_t part = bytes / (size_t)threads / (64 * MEM_STREAMS) * (64 * MEM_STREAMS);
	struct mem_job jobs[1024];
	pthread_t tid[1024];
	atomic_int go = 0;
	int started = 0;
	double t0, t;

	for (; started < threads; started++) {
		jobs[started] = (struct mem_job){ pattern, streams, src + part * (size_t)started,
						  dst + part * (size_t)started, part, passes, 0, &go };
		if (pthread_create(&tid[started], NULL, mem_worker, &jobs[started]) != 0)
			break;
	}
	atomic_store(&go, started == threads ? 1 : -1);
	t0 = perf_now();
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	t = perf_now() - t0;
	return started == threads ? (pattern == MEM_READ ? 1.0 : 2.0) * passes * (double)part *
					    threads / t / 1e9
				  : 0;
}

/*
 * Memory bandwidth on @p threads threads, GB/s read + written: the best of a copy, a read-only
 * sweep and an in-place read-modify-write sweep (the mixes of an encode, a read-heavy decode and
 * an update), the last two over 1 and MEM_STREAMS streams per thread at once, each thread on its
 * own part of @p bytes (>= 4 x L3, so from DRAM), perf_sweep_passes() passes each. The best of
 * perf_sweep_trials() runs of each; the spread of the winning sweep's runs in @p spread.
 */
static double cpu_mem_bw(const struct perf_opts *o, size_t bytes, int threads, double *spread)
{
	uint8_t *src = malloc(bytes), *dst = malloc(bytes);
	const int trials = perf_sweep_trials(o), passes = perf_sweep_passes(o);
	double best = 0;

	*spread = 0;
	if (src && dst && threads >= 1 && threads <= 1024) {
		perf_fill_random(src, bytes, SEED);
		memset(dst, 1, bytes);
		for (size_t p = 0; p < sizeof(mem_sweeps) / sizeof(mem_sweeps[0]); p++) {
			double g[PERF_SWEEP_TRIALS_MAX];
			struct perf_summary s;

			for (int trial = 0; trial < trials; trial++)
				g[trial] = mem_sweep(mem_sweeps[p].pattern, mem_sweeps[p].streams, src,
						     dst, bytes, threads, passes);
			s = perf_summarise(g, trials);
			if (s.max > best)
				best = s.max, *spread = s.spread;
		}
	}
	free(src);
	free(dst);
	return best;
}

/* 1 when sscanf's %n left @p end at the line's newline: no field missing, none extra. */
static int at_eol(const char *line, int end)
{
	return end > 0 && strcmp(line + end, "\n") == 0;
}

/* An xor line: a known op, a (k,m) gfec-perf takes, e erasures for a decode only, figures >= 0. */
static int load_xor(const char *line, struct perf_ceilings *c)
{
	struct perf_xor_ceil *x = &c->xors[c->nxor];
	char op[16];
	int end = -1;

	if (c->nxor >= PERF_MAX_XOR ||
	    sscanf(line, "xor %15s %d %d %d %zu %lf %lf%n", op, &x->k, &x->m, &x->e, &x->chunk,
		   &x->gbps, &x->spread, &end) != 7 ||
	    !at_eol(line, end) || x->k < 1 || x->m < 1 || x->k + x->m > GFEC_MAX_CHUNKS_GF16 ||
	    x->chunk < 1 || !(x->gbps >= 0) || !(x->spread >= 0))
		return 0;
	for (int i = 0; i < 3; i++)
		if (strcmp(op, perf_op_names[i]) == 0) {
			x->op = (enum perf_op)i;
			if (x->op == PERF_DECODE ? x->e < 1 || x->e > x->m : x->e != 0)
				return 0;
			c->nxor++;
			return 1;
		}
	return 0;
}

/* One line after the first two: 1 when it is a well-formed cpu, gpu, code or xor line. */
static int load_line(const char *line, struct perf_ceilings *c, int *have_cpu, int *have_gpu)
{
	struct perf_code_ceil *pc = &c->codes[c->ncodes];
	int end = -1;

	if (strncmp(line, "xor ", 4) == 0)
		return load_xor(line, c);

	if (strncmp(line, "cpu ", 4) == 0)
		return !(*have_cpu)++ &&
		       sscanf(line, "cpu %d %d %lf %lf %lf %lf%n", &c->cpus, &c->threads,
			      &c->cpu_mem_1, &c->cpu_mem_1_spread, &c->cpu_mem_t,
			      &c->cpu_mem_t_spread, &end) == 6 &&
		       at_eol(line, end);
	if (strncmp(line, "gpu ", 4) == 0)
		return !(*have_gpu)++ &&
		       sscanf(line, "gpu %lf %lf %lf %lf%n", &c->d2d, &c->h2d, &c->d2h, &c->both,
			      &end) == 4 &&
		       at_eol(line, end);
	if (strncmp(line, "code ", 5) != 0 || c->ncodes >= PERF_MAX_CODES ||
	    sscanf(line, "code %d %d %lf %lf %lf%n", &pc->k, &pc->m, &pc->isal_1, &pc->isal_all,
		   &pc->xor_gpu, &end) != 5 ||
	    !at_eol(line, end))
		return 0;
	c->ncodes++;
	return 1;
}

int perf_ceilings_load(const char *path, const char *key, struct perf_ceilings *c, char *why,
		       size_t len)
{
	FILE *f = fopen(path, "r");
	char line[1024], want[600];
	int lineno = 0, have_cpu = 0, have_gpu = 0, ok = 1;

	if (!f) {
		snprintf(why, len, "%s", strerror(errno));
		return errno == ENOENT ? 1 : -1;
	}
	snprintf(want, sizeof(want), "machine %s\n", key);
	c->ncodes = c->nxor = 0;
	while (ok && fgets(line, sizeof(line), f)) {
		lineno++;
		if (lineno == 1 && strcmp(line, PERF_CEILINGS_VERSION "\n") != 0)
			snprintf(why, len, "not a \"%s\" file", PERF_CEILINGS_VERSION), ok = 0;
		else if (lineno == 2 && strcmp(line, want) != 0)
			snprintf(why, len, "written for another machine or other options"), ok = 0;
		else if (lineno > 2 && !load_line(line, c, &have_cpu, &have_gpu))
			snprintf(why, len, "line %d is malformed", lineno), ok = 0;
	}
	if (ok && ferror(f))
		snprintf(why, len, "read error"), ok = 0;
	else if (ok && (!have_cpu || !have_gpu))
		snprintf(why, len, "incomplete"), ok = 0;
	fclose(f);
	return ok ? 0 : -1;
}

int perf_ceilings_save(const char *path, const char *key, const struct perf_ceilings *c)
{
	char tmp[4096];
	FILE *f;
	int ok;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
		return -1;
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	ok = fprintf(f, "%s\nmachine %s\n", PERF_CEILINGS_VERSION, key) > 0;
	ok = ok && fprintf(f, "cpu %d %d %.6f %.6f %.6f %.6f\n", c->cpus, c->threads,
			   c->cpu_mem_1, c->cpu_mem_1_spread, c->cpu_mem_t,
			   c->cpu_mem_t_spread) > 0;
	ok = ok && fprintf(f, "gpu %.6f %.6f %.6f %.6f\n", c->d2d, c->h2d, c->d2h, c->both) > 0;
	for (int i = 0; ok && i < c->ncodes; i++)
		ok = fprintf(f, "code %d %d %.6f %.6f %.6f\n", c->codes[i].k, c->codes[i].m,
			     c->codes[i].isal_1, c->codes[i].isal_all, c->codes[i].xor_gpu) > 0;
	for (int i = 0; ok && i < c->nxor; i++) {
		const struct perf_xor_ceil *x = &c->xors[i];

		ok = fprintf(f, "xor %s %d %d %d %zu %.6f %.6f\n", perf_op_names[x->op], x->k, x->m,
			     x->e, x->chunk, x->gbps, x->spread) > 0;
	}
	ok = ok && fflush(f) == 0 && !ferror(f);
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, path) != 0) {
		int e = errno;

		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

size_t perf_rotate_bytes(const struct perf_opts *o)
{
	const size_t floor = o->quick ? (size_t)64 << 20 : (size_t)256 << 20;

	return 4 * perf_l3_bytes() > floor ? 4 * perf_l3_bytes() : floor;
}

const struct perf_code_ceil *perf_code_ceil(const struct perf_ceilings *c, int k, int m)
{
	for (int i = 0; i < c->ncodes; i++)
		if (c->codes[i].k == k && c->codes[i].m == m)
			return &c->codes[i];
	return NULL;
}

int perf_xor_shapes(const struct perf_opts *o, struct perf_xor_ceil *out)
{
	size_t sizes[64];
	const int nsizes = perf_sizes(o, sizes);
	int n = 0;

	/* CPU rows run on the cpu backend, or on auto where it keeps them there, from host memory */
	if ((o->backends && !(o->backends & (1u << 0 | 1u << 2))) || o->data > PERF_PAGEABLE)
		return 0;
	for (int op = 0; op < 3; op++)
		for (int ci = 0; (o->ops >> op & 1) && ci < o->ncodes; ci++)
			for (int si = 0; si < nsizes && n < PERF_MAX_XOR; si++)
				out[n++] = (struct perf_xor_ceil){
					(enum perf_op)op, o->codes[ci].k, o->codes[ci].m,
					perf_erasures(o, (enum perf_op)op, o->codes[ci].m), sizes[si],
					0, 0
				};
	return n;
}

const struct perf_xor_ceil *perf_xor_ceil(const struct perf_ceilings *c, enum perf_op op, int k,
					  int m, int e, size_t chunk)
{
	for (int i = 0; i < c->nxor; i++) {
		const struct perf_xor_ceil *x = &c->xors[i];

		if (x->op == op && x->k == k && x->m == m && x->e == e && x->chunk == chunk)
			return x;
	}
	return NULL;
}

void perf_gpu_contexts_measure(struct perf_gpu_ctx *x, int n, int quick)
{
#ifdef GFEC_HAVE_CUDA
	const size_t bytes = quick ? (size_t)64 << 20 : (size_t)256 << 20;
	double both;

	for (int i = 0; i < n; i++) {
		int j = 0;

		while (j < i && x[j].d.ordinal != x[i].d.ordinal)
			j++;
		if (j < i) { /* another context on that GPU: its figures */
			x[i].copy = x[j].copy, x[i].xor_bound = x[j].xor_bound;
			x[i].h2d = x[j].h2d, x[i].d2h = x[j].d2h;
			continue;
		}
		if (perf_gpu_use(x[i].d.ordinal))
			continue;
		x[i].copy = perf_gpu_d2d(bytes);
		x[i].xor_bound = perf_gpu_xor_bound(10, 4, (size_t)1 << 20, 64);
		perf_gpu_pinned(bytes, &x[i].h2d, &x[i].d2h, &both);
	}
	if (n > 0)
		perf_gpu_use(x[0].d.ordinal);
#else
	(void)quick;
	for (int i = 0; i < n; i++)
		x[i].copy = x[i].xor_bound = x[i].h2d = x[i].d2h = 0;
#endif
}

void perf_measure_ceilings(const struct perf_opts *o, struct perf_ceilings *c)
{
	/* memory, not cache: every CPU figure rotates over at least 4 x L3 */
	const size_t copy_bytes = perf_rotate_bytes(o);
	const int threads = o->threads ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct perf_xor_ceil shapes[PERF_MAX_XOR];
	const int nshapes = perf_xor_shapes(o, shapes);
	struct perf_isal_api isal;
	char id[512], why[128];

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
	perf_ceilings_key(id, sizeof(id), o, c, threads);
	if (o->ceilings_cache) {
		int r = perf_ceilings_load(o->ceilings_cache, id, c, why, sizeof(why)), all = 1;

		for (int i = 0; r == 0 && i < o->ncodes; i++)
			all &= perf_code_ceil(c, o->codes[i].k, o->codes[i].m) != NULL;
		for (int i = 0; r == 0 && i < nshapes; i++)
			all &= perf_xor_ceil(c, shapes[i].op, shapes[i].k, shapes[i].m, shapes[i].e,
					     shapes[i].chunk) != NULL;
		all &= c->threads == threads;
		if (r < 0)
			fprintf(stderr, "gfec-perf: %s: not used (%s); measuring the ceilings and "
					"rewriting it\n",
				o->ceilings_cache, why);
		else if (r == 0 && !all)
			fprintf(stderr, "gfec-perf: %s: lacks some of these codes or shapes; "
					"measuring the ceilings and rewriting it\n",
				o->ceilings_cache);
		if (r == 0 && all) {
			c->from_cache = 1;
			fprintf(stderr, "gfec-perf: ceilings from the cache %s (measured earlier on "
					"this machine)\n",
				o->ceilings_cache);
			return;
		}
	}
	{
		/* a cache for another machine, other options or other codes: measure everything */
		int gpu = c->gpu, sms = c->gpu_sms, clk = c->gpu_sm_clock, mclk = c->gpu_mem_clock;
		char name[128];

		snprintf(name, sizeof(name), "%s", c->gpu_name);
		memset(c, 0, sizeof(*c));
		c->gpu = gpu, c->gpu_sms = sms, c->gpu_sm_clock = clk, c->gpu_mem_clock = mclk;
		snprintf(c->gpu_name, sizeof(c->gpu_name), "%s", name);
	}
	c->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	c->threads = threads;
	perf_isal_linked(&isal);
	fprintf(stderr, "gfec-perf: measuring ceilings (CPU memory%s%s%s)...\n",
		nshapes ? ", CPU XOR-stream" : "", o->ncodes ? ", raw ISA-L" : "",
		c->gpu ? ", GPU copy, XOR bound, PCIe" : "");
	c->cpu_mem_1 = cpu_mem_bw(o, copy_bytes, 1, &c->cpu_mem_1_spread);
	c->cpu_mem_t = cpu_mem_bw(o, copy_bytes, threads, &c->cpu_mem_t_spread);
	/* a shape whose buffers cannot be had keeps 0: its rows fall back on the memory ceiling */
	memcpy(c->xors, shapes, (size_t)nshapes * sizeof(shapes[0]));
	c->nxor = nshapes;
	for (int i = 0; i < c->nxor; i++)
		perf_xor_measure(o, threads, &c->xors[i]);
#ifdef GFEC_HAVE_CUDA
	if (c->gpu) {
		c->d2d = perf_gpu_d2d(o->quick ? (size_t)1 << 30 : (size_t)4 << 30);
		perf_gpu_pinned(o->quick ? (size_t)256 << 20 : (size_t)1 << 30, &c->h2d, &c->d2h,
				&c->both);
	}
#endif
	for (int i = 0; i < o->ncodes; i++) {
		struct perf_code_ceil *pc = &c->codes[c->ncodes++];
		struct perf_stripes s;
		double spread;

		pc->k = o->codes[i].k;
		pc->m = o->codes[i].m;
		/* one set of 1 MiB stripes from DRAM for both figures; raw ISA-L is GF(2^8):
		 * wider codes (w = 16) keep 0, no ISA-L ceiling */
		if (pc->k + pc->m <= GFEC_MAX_CHUNKS &&
		    perf_stripes_alloc(&s, pc->k, pc->m, (size_t)1 << 20, copy_bytes, 8, SEED) == 0) {
			pc->isal_1 = perf_isal_gbps(&isal, &s, 1, &spread);
			pc->isal_all = perf_isal_gbps(&isal, &s, c->cpus, &spread);
			perf_stripes_free(&s);
		}
#ifdef GFEC_HAVE_CUDA
		if (c->gpu) {
			/* 256 MiB of data per launch, whatever the (k,m) */
			size_t chunk = (o->quick ? (size_t)64 << 20 : (size_t)256 << 20) /
				       (size_t)pc->k;

			pc->xor_gpu = perf_gpu_xor_bound(pc->k, pc->m, chunk / 256 * 256, 1);
		}
#endif
	}
	if (o->ceilings_cache && perf_ceilings_save(o->ceilings_cache, id, c))
		fprintf(stderr, "gfec-perf: %s: cannot write the ceilings cache: %s\n",
			o->ceilings_cache, strerror(errno));
}
