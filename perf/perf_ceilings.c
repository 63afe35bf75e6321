/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_ceilings.c
 * The machine's limits, measured in the same process as the rows they bound (or read back from a
 * --ceilings-cache written on this machine): CPU memory bandwidth, raw ISA-L (perf_isal.c), and
 * where there is a GPU its copy bandwidth, XOR-stream bound and pinned PCIe.
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

#include "gfec_perf.h"
#include "perf_isal.h"
#include "perf_util.h"
#ifdef GFEC_HAVE_CUDA
#include "perf_gpu.h"
#endif

#define SEED 0x243f6a8885a308d3ull
/* passes over its part per thread and sweep: long enough that starting the threads is noise */
#define MEM_PASSES 4
/* sweeps per pattern, the best kept: a ceiling is what the machine can do, even when shared */
#define MEM_TRIALS 5

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

enum mem_pattern { MEM_COPY, MEM_READ, MEM_RMW, MEM_NPATTERNS };

struct mem_job {
	enum mem_pattern pattern;
	uint8_t *src, *dst; /* dst: MEM_COPY only */
	size_t n;
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
	for (int r = 0; r < MEM_PASSES; r++)
		if (j->pattern == MEM_COPY)
			memcpy(j->dst, j->src, j->n);
		else if (j->pattern == MEM_READ)
			j->sink ^= perf_mem_read(j->src, j->n);
		else
			perf_mem_rmw(j->src, j->n);
	return NULL;
}

/* MEM_PASSES sweeps over @p bytes on @p threads threads, each its own contiguous part: GB/s read
 * + written, 0 if the threads could not be started. */
static double mem_sweep(enum mem_pattern pattern, uint8_t *src, uint8_t *dst, size_t bytes,
			int threads)
{
	const size_t part = bytes / (size_t)threads / 64 * 64;
	struct mem_job jobs[1024];
	pthread_t tid[1024];
	atomic_int go = 0;
	int started = 0;
	double t0, t;

	for (; started < threads; started++) {
		jobs[started] = (struct mem_job){ pattern, src + part * (size_t)started,
						  dst + part * (size_t)started, part, 0, &go };
		if (pthread_create(&tid[started], NULL, mem_worker, &jobs[started]) != 0)
			break;
	}
	atomic_store(&go, started == threads ? 1 : -1);
	t0 = perf_now();
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	t = perf_now() - t0;
	return started == threads
		       ? (pattern == MEM_READ ? 1.0 : 2.0) * MEM_PASSES * (double)part * threads / t /
				 1e9
		       : 0;
}

/*
 * Memory bandwidth on @p threads threads, GB/s read + written: the best of a copy, a read-only
 * sweep and an in-place read-modify-write sweep (the mixes of an encode, a read-heavy decode and
 * an update), each thread on its own part of @p bytes (>= 4 x L3, so from DRAM). The best of MEM_TRIALS runs of each; the spread of the
 * winning pattern's runs in @p spread.
 */
static double cpu_mem_bw(size_t bytes, int threads, double *spread)
{
	uint8_t *src = malloc(bytes), *dst = malloc(bytes);
	double best = 0;

	*spread = 0;
	if (src && dst && threads >= 1 && threads <= 1024) {
		perf_fill_random(src, bytes, SEED);
		memset(dst, 1, bytes);
		for (int p = 0; p < MEM_NPATTERNS; p++) {
			double g[MEM_TRIALS];
			struct perf_summary s;

			for (int trial = 0; trial < MEM_TRIALS; trial++)
				g[trial] = mem_sweep((enum mem_pattern)p, src, dst, bytes, threads);
			s = perf_summarise(g, MEM_TRIALS);
			if (s.max > best)
				best = s.max, *spread = s.spread;
		}
	}
	free(src);
	free(dst);
	return best;
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
			sscanf(line, "cpu %d %d %lf %lf %lf %lf", &c->cpus, &c->threads, &c->cpu_mem_1,
			       &c->cpu_mem_1_spread, &c->cpu_mem_t, &c->cpu_mem_t_spread);
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
	fprintf(f, "cpu %d %d %.6f %.6f %.6f %.6f\n", c->cpus, c->threads, c->cpu_mem_1,
		c->cpu_mem_1_spread, c->cpu_mem_t, c->cpu_mem_t_spread);
	fprintf(f, "gpu %.6f %.6f %.6f %.6f\n", c->d2d, c->h2d, c->d2h, c->both);
	for (int i = 0; i < c->ncodes; i++)
		fprintf(f, "code %d %d %.6f %.6f %.6f\n", c->codes[i].k, c->codes[i].m,
			c->codes[i].isal_1, c->codes[i].isal_all, c->codes[i].xor_gpu);
	fclose(f);
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

void perf_measure_ceilings(const struct perf_opts *o, struct perf_ceilings *c)
{
	/* memory, not cache: every CPU figure rotates over at least 4 x L3 */
	const size_t copy_bytes = perf_rotate_bytes(o);
	const int threads = o->threads ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct perf_isal_api isal;
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
			all &= perf_code_ceil(c, o->codes[i].k, o->codes[i].m) != NULL;
		all &= c->threads == threads;
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
	c->threads = threads;
	perf_isal_linked(&isal);
	fprintf(stderr, "gfec-perf: measuring ceilings (CPU memory, raw ISA-L%s)...\n",
		c->gpu ? ", GPU copy, XOR bound, PCIe" : "");
	c->cpu_mem_1 = cpu_mem_bw(copy_bytes, 1, &c->cpu_mem_1_spread);
	c->cpu_mem_t = cpu_mem_bw(copy_bytes, threads, &c->cpu_mem_t_spread);
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
		/* one set of 1 MiB stripes from DRAM for both figures */
		if (perf_stripes_alloc(&s, pc->k, pc->m, (size_t)1 << 20, copy_bytes, 8, SEED) == 0) {
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
	if (o->ceilings_cache)
		save_ceilings(o->ceilings_cache, c, id);
}
