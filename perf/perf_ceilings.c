/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_ceilings.c
 * The machine's limits, measured in the same process as the rows they bound (or read back from a
 * --ceilings-cache written on this machine): CPU memory bandwidth, raw ISA-L (perf_isal.c), and
 * where there is a GPU its copy bandwidth, XOR-stream bound and pinned PCIe.
 */
#include <errno.h>
#include <pthread.h>
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
			sscanf(line, "cpu %d %d %lf %lf", &c->cpus, &c->threads, &c->cpu_mem_1,
			       &c->cpu_mem_all);
		} else if (strcmp(key, "gpu") == 0) {
			sscanf(line, "gpu %lf %lf %lf %lf", &c->d2d, &c->h2d, &c->d2h, &c->both);
		} else if (strcmp(key, "code") == 0 && c->ncodes < PERF_MAX_CODES) {
			pc = &c->codes[c->ncodes];
			if (sscanf(line, "code %d %d %lf %lf %lf %lf %lf %lf %lf", &pc->k, &pc->m,
				   &pc->isal_1, &pc->isal_all, &pc->xor_gpu, &pc->stream_1,
				   &pc->stream_1_spread, &pc->stream_t, &pc->stream_t_spread) == 9)
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
	fprintf(f, "cpu %d %d %.6f %.6f\n", c->cpus, c->threads, c->cpu_mem_1, c->cpu_mem_all);
	fprintf(f, "gpu %.6f %.6f %.6f %.6f\n", c->d2d, c->h2d, c->d2h, c->both);
	for (int i = 0; i < c->ncodes; i++)
		fprintf(f, "code %d %d %.6f %.6f %.6f %.6f %.6f %.6f %.6f\n", c->codes[i].k,
			c->codes[i].m, c->codes[i].isal_1, c->codes[i].isal_all, c->codes[i].xor_gpu,
			c->codes[i].stream_1, c->codes[i].stream_1_spread, c->codes[i].stream_t,
			c->codes[i].stream_t_spread);
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
	struct perf_isal_api isal, stream = { perf_stream_init, perf_stream_encode, NULL };
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
		struct perf_stripes s;
		double spread;

		pc->k = o->codes[i].k;
		pc->m = o->codes[i].m;
		/* one set of 1 MiB stripes from DRAM for all four figures */
		if (perf_stripes_alloc(&s, pc->k, pc->m, (size_t)1 << 20, copy_bytes, 8, SEED) == 0) {
			pc->isal_1 = perf_isal_gbps(&isal, &s, 1, &spread);
			pc->isal_all = perf_isal_gbps(&isal, &s, c->cpus, &spread);
			pc->stream_1 = perf_isal_gbps(&stream, &s, 1, &pc->stream_1_spread);
			pc->stream_t = perf_isal_gbps(&stream, &s, threads, &pc->stream_t_spread);
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
