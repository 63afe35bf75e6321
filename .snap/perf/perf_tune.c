/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_tune.c
 * `gfec-perf tune` (also `gfec tune`): finds from which chunk size this CPU's GFNI kernels should
 * store parity by non-temporal stores, this GPU's best compiled kernel for each (k,m) and chunk
 * size, and what backend=auto should do with host buffers, then writes them to gfec.conf:
 *
 *   [cpu]
 *   stream_min = N       # non-temporal parity stores from N-byte chunks (0: never)
 *   [gpu]
 *   min_bytes = N        # crossover: host calls with at least N data bytes go to the GPU
 *   [hybrid]
 *   auto_min_bytes = N   # from here the CPU+GPU split beat both sides (backend=auto splits)
 *   cpu_rate = R         # MB/s each side reached alone: where a split call's alpha starts
 *   gpu_rate = R
 *   [tune]
 *   rule = KERNEL k=K m=1-M chunk=LO-HI    # GB/s measured, date
 *   # host: the sweep behind the three decisions, one comment line per (chunk, callers)
 *
 * Kernels are timed on data in GPU memory (what they are for; PCIe would hide the differences),
 * 256 MiB of data per call, and each one's parity is checked against the CPU before it can win.
 * The host sweep is daemon-shaped (perf_daemon_rates): 1, 4, 16 and 64 callers share a codec of
 * each backend (cpu, gpu, hybrid) and encode single stripes of pageable memory, rotated over at
 * least 4 x L3 (cold: an earlier sweep timed one buffer that fit the 300 MiB L3 of the H200 host
 * and credited its CPU with 135 GB/s, above that host's memory bandwidth). A backend wins a size
 * only where it wins at every caller count, and from that size up. Without a GPU (or with
 * --cpu-only) only [cpu] stream_min is measured and written; [tune] is left as it is.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gfec/gfec.h>

#include "gfec_perf.h"
#include "internal.h" /* gfec_config_update(), gfec_conf_user_path() */
#include "perf_daemon.h"
#ifdef GFEC_HAVE_CUDA
#include "perf_gpu.h"
#endif

#define MAX_SIZES 32
#define MAX_KERNELS 64
#define NEVER (1ll << 50)
#define MAX_CALLERS 8
#define HYBRID_MARGIN 1.05 /* the split must beat the better side by 5% to be chosen */

/* One knob gfec tune writes: its value and the comment beside it. */
struct update {
	enum gfec_knob k;
	char value[32];
	char comment[256];
};

struct tune_opts {
	struct perf_opts p; /* codes and the -b/-e/-f sweep */
	const char *config;
	int dry_run, cpu_only;
	/* the host sweep */
	int callers[MAX_CALLERS], ncallers;
	double seconds;	 /* per (size, callers, backend) */
	size_t host_max; /* largest chunk */
	size_t rotate;	 /* 0: perf_rotate_bytes() (4 x L3) */
};

static void tune_usage(FILE *f)
{
	fprintf(f, "usage: gfec-perf tune [OPTIONS]     (gfec tune runs this)\n"
		   "\n"
		   "Measures from which chunk size this CPU's GFNI kernels store parity faster by\n"
		   "non-temporal stores ([cpu] stream_min: in cache and cold, one caller and one per\n"
		   "CPU). With a GPU, also times every compiled GPU kernel on data in GPU memory for\n"
		   "each (k,m) and chunk size and measures the CPU/GPU crossover for backend=auto on\n"
		   "host buffers. Writes the winners to the config file, commented, then prints what\n"
		   "changed. The host sweeps use the first -k code.\n"
		   "\n"
		   "  -k, --codes LIST      (k,m) pairs                           [10,4]\n"
		   "  -b, --minbytes SIZE   smallest chunk size                   [4K]\n"
		   "  -e, --maxbytes SIZE   largest chunk size                    [64M]\n"
		   "  -f, --stepfactor F    chunk size multiplier                 [4]\n"
		   "      --callers LIST    host sweep: concurrent callers        [1 4 16 64]\n"
		   "      --seconds S       host sweep: seconds per point         [0.3]\n"
		   "      --host-max SIZE   host sweep: largest chunk (from 4K, x4) [16M]\n"
		   "      --rotate SIZE     host sweep: bytes the stripes rotate over [4 x L3]\n"
		   "      --cpu-only        measure only [cpu] stream_min (the default without a GPU)\n"
		   "      --config FILE     the file to update   [~/.config/gfec/gfec.conf]\n"
		   "      --dry-run         print the new file instead of writing it\n"
		   "  -h, --help            this text\n");
}

static int tune_args(int argc, char **argv, struct tune_opts *t)
{
	char *pargv[64];
	int pargc = 0;
	char err[256];

	memset(t, 0, sizeof(*t));
	t->callers[0] = 1, t->callers[1] = 4, t->callers[2] = 16, t->callers[3] = 64;
	t->ncallers = 4;
	t->seconds = 0.3;
	t->host_max = (size_t)16 << 20;
	/* --config, --dry-run and the host sweep's are ours; the rest is gfec-perf's own parser */
	pargv[pargc++] = argv[0];
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
			t->config = argv[++i];
		} else if (strcmp(argv[i], "--callers") == 0 && i + 1 < argc) {
			char buf[128], *save = NULL;
			long v;

			snprintf(buf, sizeof(buf), "%s", argv[++i]);
			t->ncallers = 0;
			for (char *c = strtok_r(buf, ", ", &save); c; c = strtok_r(NULL, ", ", &save))
				if (t->ncallers == MAX_CALLERS || perf_parse_long(c, 1, 1024, &v)) {
					fprintf(stderr, "gfec-perf tune: --callers: bad value '%s' "
							"(up to %d counts in 1..1024)\n",
						argv[i], MAX_CALLERS);
					return -1;
				} else {
					t->callers[t->ncallers++] = (int)v;
				}
			if (!t->ncallers) {
				fprintf(stderr, "gfec-perf tune: --callers: empty\n");
				return -1;
			}
		} else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
			char *end;

			t->seconds = strtod(argv[++i], &end);
			if (*end || end == argv[i] || !(t->seconds >= 0.01 && t->seconds <= 60)) {
				fprintf(stderr, "gfec-perf tune: --seconds: bad value '%s' "
						"(0.01..60)\n",
					argv[i]);
				return -1;
			}
		} else if ((strcmp(argv[i], "--host-max") == 0 || strcmp(argv[i], "--rotate") == 0) &&
			   i + 1 < argc) {
			size_t *to = argv[i][2] == 'h' ? &t->host_max : &t->rotate;

			if (perf_parse_size(argv[i + 1], to) || *to < 4096 ||
			    *to > ((size_t)64 << 30)) {
				fprintf(stderr, "gfec-perf tune: %s: bad value '%s' (4K..64G)\n",
					argv[i], argv[i + 1]);
				return -1;
			}
			i++;
		} else if (strcmp(argv[i], "--dry-run") == 0) {
			t->dry_run = 1;
		} else if (strcmp(argv[i], "--cpu-only") == 0) {
			t->cpu_only = 1;
		} else if (pargc < 63) {
			pargv[pargc++] = argv[i];
		} else {
			fprintf(stderr, "gfec-perf tune: too many arguments\n");
			return -1;
		}
	}
	pargv[pargc] = NULL;
	if (perf_parse_args(pargc, pargv, &t->p, err, sizeof(err))) {
		fprintf(stderr, "gfec-perf tune: %s\n", err);
		return -1;
	}
	/* tune's own defaults for a sweep the user did not give */
	for (int i = 1; i < pargc; i++) {
		if (!strcmp(pargv[i], "-b") || !strncmp(pargv[i], "--minbytes", 10))
			goto sized;
	}
	t->p.minb = 4096;
	t->p.maxb = (size_t)64 << 20;
sized:
	return 0;
}

/*
 * [cpu] stream_min: RS(k,m) on CPU codecs that store parity by ordinary stores (cpu_stream_min=0)
 * and by non-temporal ones at every size (=1), chunks of 4K x 4^i up to min(--host-max, 4M): one
 * caller on one stripe (in cache), then one caller and one per CPU on stripes rotated over 4 x
 * L3 (cold). stream_min is the threshold (one of the sizes, or 0: never) under which the sweep's
 * points, each with the store kind the threshold gives its size, have the highest geometric mean:
 * one threshold fitted to all of them, so that one noisy point does not decide it; into @p u,
 * commented and dated @p date. 1 with nothing measured when the codec's CPU path has no
 * non-temporal stores (only the GFNI paths do); -1 on failure.
 */
static int store_sweep(const struct tune_opts *t, int k, int m, const char *date,
		       struct update *u)
{
	const size_t rotate = t->rotate ? t->rotate : perf_rotate_bytes(&t->p);
	const size_t top = t->host_max < ((size_t)4 << 20) ? t->host_max : (size_t)4 << 20;
	const int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	const int callers[2] = { 1, cpus > 1 ? cpus : 1 }, ncold = cpus > 1 ? 2 : 1;
	char profiles[2][96], why[256], path[64];
	const char *pp[2] = { profiles[0], profiles[1] };
	size_t chunk[MAX_SIZES];
	/* log GB/s per size, store kind (0 ordinary, 1 non-temporal), summed over the conditions */
	double logsum[MAX_SIZES][2] = { { 0 } }, best = -INFINITY;
	int n = 0, from;
	gfec_codec *c;
	char who[32];

	if (t->p.w == 16 || k + m > 256) { /* GF(2^16) has no non-temporal stores */
		fprintf(stderr, "GF(2^16) stores parity by ordinary stores only: [cpu] stream_min not "
				"measured\n");
		return 1;
	}
	snprintf(profiles[0], sizeof(profiles[0]), "k=%d m=%d technique=cauchy backend=cpu", k, m);
	if (gfec_codec_create(profiles[0], &c, why, sizeof(why))) {
		fprintf(stderr, "gfec-perf tune: %s: %s\n", profiles[0], why);
		return -1;
	}
	snprintf(path, sizeof(path), "%s", gfec_codec_backend(c));
	gfec_codec_free(c);
	if (!strstr(path, "gfni")) {
		fprintf(stderr, "CPU path %s stores parity by ordinary stores only: [cpu] stream_min "
				"not measured\n", path);
		return 1;
	}
	for (int s = 0; s < 2; s++)
		snprintf(profiles[s], sizeof(profiles[s]),
			 "k=%d m=%d technique=cauchy backend=cpu cpu_stream_min=%d", k, m, s);
	for (size_t sz = 4096; sz <= top && n < MAX_SIZES; sz *= 4)
		chunk[n++] = sz;
	fprintf(stderr, "CPU parity stores (%s), RS(%d,%d), %.2f s a point, data GB/s "
			"ordinary / non-temporal:\n", path, k, m, t->seconds);
	for (int i = 0; i < n; i++) {
		double hot[2], cold[4];

		if (perf_daemon_rates(k, m, chunk[i], 1, t->seconds, pp, 2, callers, 1, hot, why,
				      sizeof(why)) ||
		    perf_daemon_rates(k, m, chunk[i], rotate, t->seconds, pp, 2, callers, ncold,
				      cold, why, sizeof(why))) {
			/* e.g. one caller per CPU of 4 MiB chunks over the memory cap: the sizes
			 * measured so far decide */
			fprintf(stderr, "gfec-perf tune: RS(%d,%d) %zu B store sweep: %s%s\n", k, m,
				chunk[i], why, i ? "; the sweep ends at the size before" : "");
			if (!i)
				return -1;
			n = i;
			break;
		}
		for (int s = 0; s < 2; s++) {
			logsum[i][s] = log(hot[s]);
			for (int j = 0; j < ncold; j++)
				logsum[i][s] += log(cold[s * ncold + j]);
		}
		fprintf(stderr, "  chunk %8zu: in cache x1 %7.2f / %7.2f   cold x1 %7.2f / %7.2f",
			chunk[i], hot[0], hot[1], cold[0], cold[ncold]);
		if (ncold > 1)
			fprintf(stderr, "   cold x%d %7.2f / %7.2f", callers[1], cold[1],
				cold[ncold + 1]);
		fprintf(stderr, "\n");
	}
	/* threshold n: never (also where no score is a number); i < n: non-temporal from chunk[i] */
	from = n;
	for (int th = n; th >= 0; th--) {
		double score = 0;

		for (int i = 0; i < n; i++)
			score += logsum[i][i >= th];
		if (score > best)
			best = score, from = th;
	}
	if (ncold > 1)
		snprintf(who, sizeof(who), "1 and %d callers", callers[1]);
	else
		snprintf(who, sizeof(who), "1 caller");
	u->k = GFEC_KNOB_CPU_STREAM_MIN;
	snprintf(u->value, sizeof(u->value), "%zu", from == n ? 0 : chunk[from]);
	snprintf(u->comment, sizeof(u->comment),
		 "%s, RS(%d,%d), %zu to %zu-byte chunks in cache and cold, %s: the fastest threshold "
		 "(%s)",
		 path, k, m, chunk[0], chunk[n - 1], who, date);
	return 0;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return strdup("");
	buf = malloc(256 * 1024 + 1);
	n = buf ? fread(buf, 1, 256 * 1024, f) : 0;
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

#ifdef GFEC_HAVE_CUDA

/* Median seconds of 5 timed batch encodes after 2 warm-ups; < 0 on failure. */
static double time_encode(gfec_codec *c, int batch, const uint8_t *const *d, uint8_t *const *p,
			  size_t len)
{
	double t[5];

	for (int i = 0; i < 2; i++)
		if (gfec_encode_batch(c, batch, d, p, len))
			return -1;
	for (int i = 0; i < 5; i++) {
		double t0 = perf_now();

		if (gfec_encode_batch(c, batch, d, p, len))
			return -1;
		t[i] = perf_now() - t0;
	}
	qsort(t, 5, sizeof(double), perf_cmp_double);
	return t[2];
}

struct winner {
	char kernel[32];
	double gbps;
};

/* Every kernel for one (k,m) and chunk size; the fastest one that gives the CPU's bytes. */
static int tune_point(int k, int m, size_t chunk, const char *kernels, struct winner *w)
{
	const size_t want = (size_t)256 << 20;
	int batch = (int)(want / ((size_t)k * chunk));
	uint8_t *dev, *host, *ref;
	const uint8_t **dp;
	uint8_t **pp;
	char list[1024], *save = NULL, *name;
	gfec_codec *cpu;
	char prof[128];
	int ret = -1;

	batch = batch < 1 ? 1 : batch > 65536 ? 65536 : batch;
	dev = perf_gpu_malloc((size_t)batch * (k + m) * chunk);
	host = malloc((size_t)(k + m) * chunk);
	ref = malloc((size_t)m * chunk);
	dp = malloc(sizeof(*dp) * (size_t)batch * k);
	pp = malloc(sizeof(*pp) * (size_t)batch * m);
	snprintf(prof, sizeof(prof), "k=%d m=%d backend=cpu", k, m);
	if (!dev || !host || !ref || !dp || !pp || gfec_codec_create(prof, &cpu, NULL, 0))
		goto out;
	for (int s = 0; s < batch; s++) {
		for (int j = 0; j < k; j++)
			dp[(size_t)s * k + j] = dev + ((size_t)s * (k + m) + j) * chunk;
		for (int i = 0; i < m; i++)
			pp[(size_t)s * m + i] = dev + ((size_t)s * (k + m) + k + i) * chunk;
	}
	/* stripe 0 is the one checked; every stripe holds the same random data */
	perf_fill_random(host, (size_t)k * chunk, 0x5eed);
	for (int s = 0; s < batch; s++)
		if (perf_gpu_copy((void *)dp[(size_t)s * k], host, (size_t)k * chunk))
			goto free_cpu;
	{
		const uint8_t *hd[256];
		uint8_t *hp[256];

		for (int j = 0; j < k; j++)
			hd[j] = host + (size_t)j * chunk;
		for (int i = 0; i < m; i++)
			hp[i] = ref + (size_t)i * chunk;
		if (gfec_encode(cpu, hd, hp, chunk))
			goto free_cpu;
	}
	w->gbps = 0;
	snprintf(list, sizeof(list), "%s", kernels);
	for (name = strtok_r(list, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
		gfec_codec *g;
		double t;

		snprintf(prof, sizeof(prof), "k=%d m=%d backend=gpu gpu_kernel=%s", k, m, name);
		if (gfec_codec_create(prof, &g, NULL, 0))
			continue; /* this kernel cannot run this shape */
		t = time_encode(g, batch, dp, pp, chunk);
		if (t > 0) {
			double gbps = (double)k * chunk * batch / t / 1e9;
			int same = 1;

			if (perf_gpu_copy(host + (size_t)k * chunk, pp[0], (size_t)m * chunk) ||
			    memcmp(host + (size_t)k * chunk, ref, (size_t)m * chunk) != 0)
				same = 0;
			fprintf(stderr, "  %-20s %9.1f GB/s%s\n", name, gbps,
				same ? "" : "  WRONG RESULT: not eligible");
			if (same && gbps > w->gbps) {
				w->gbps = gbps;
				snprintf(w->kernel, sizeof(w->kernel), "%s", name);
			}
		}
		gfec_codec_free(g);
	}
	ret = w->gbps > 0 ? 0 : -1;
free_cpu:
	gfec_codec_free(cpu);
out:
	perf_gpu_free(dev);
	free(host);
	free(ref);
	free(dp);
	free(pp);
	return ret;
}

/* The host sweep's backends: what a backend=auto codec could do with a host call. */
enum { H_CPU, H_GPU, H_HYBRID, H_N };
static const char *const host_names[H_N] = { "cpu", "gpu", "hybrid" };

struct host_sweep {
	int n;				  /* sizes */
	size_t chunk[MAX_SIZES];
	double gbps[MAX_SIZES][H_N][MAX_CALLERS];
	long long gpu_min, hybrid_min;	  /* data bytes per call, NEVER: not at any size */
	double cpu_rate, gpu_rate;	  /* bytes/s of one caller on the largest chunk */
};

/* 1 when backend @p b beats @p than (scaled by @p margin) at size i at every caller count. */
static int wins(const struct host_sweep *h, const struct tune_opts *t, int i, int b, int than,
		double margin)
{
	for (int c = 0; c < t->ncallers; c++)
		if (!(h->gbps[i][b][c] > margin * h->gbps[i][than][c]))
			return 0;
	return 1;
}

/*
 * RS(k,m) host calls, chunks of 4K x 4^i up to --host-max, each backend at each caller count
 * (perf_daemon_rates): the smallest data bytes from which the GPU beats the CPU, and the split
 * beats both by HYBRID_MARGIN, at every caller count and every larger size; the table into
 * @p table as "# host: ..." comment lines.
 */
static int host_sweep(const struct tune_opts *t, int k, int m, struct host_sweep *h, char *table,
		      size_t tablelen)
{
	const size_t rotate = t->rotate ? t->rotate : perf_rotate_bytes(&t->p);
	char profiles[H_N][96], why[256];
	const char *pp[H_N];
	size_t used = 0;

	for (int b = 0; b < H_N; b++) {
		snprintf(profiles[b], sizeof(profiles[b]), "k=%d m=%d technique=cauchy backend=%s%s",
			 k, m, host_names[b], b == H_HYBRID ? " hybrid_min_bytes=0" : "");
		pp[b] = profiles[b];
	}
	memset(h, 0, sizeof(*h));
	for (size_t chunk = 4096; chunk <= t->host_max && h->n < MAX_SIZES; chunk *= 4)
		h->chunk[h->n++] = chunk;
	fprintf(stderr,
		"host buffers, RS(%d,%d), stripes rotated over >= %zu MiB, %.2f s a point:\n", k, m,
		rotate >> 20, t->seconds);
	for (int i = 0; i < h->n; i++) {
		double g[H_N * MAX_CALLERS];

		if (perf_daemon_rates(k, m, h->chunk[i], rotate, t->seconds, pp, H_N, t->callers,
				      t->ncallers, g, why, sizeof(why))) {
			/* e.g. 64 callers' stripes of 16 MiB chunks over the memory cap: the sizes
			 * measured so far decide */
			fprintf(stderr, "gfec-perf tune: RS(%d,%d) %zu B host sweep: %s%s\n", k, m,
				h->chunk[i], why, i ? "; the sweep ends at the size before" : "");
			if (!i)
				return -1;
			h->n = i;
			break;
		}
		for (int c = 0; c < t->ncallers; c++) {
			char line[160];

			for (int b = 0; b < H_N; b++)
				h->gbps[i][b][c] = g[b * t->ncallers + c];
			snprintf(line, sizeof(line),
				 "# host: chunk %9zu x%-3d callers: cpu %7.2f  gpu %7.2f  hybrid %7.2f "
				 "GB/s\n",
				 h->chunk[i], t->callers[c], h->gbps[i][H_CPU][c], h->gbps[i][H_GPU][c],
				 h->gbps[i][H_HYBRID][c]);
			fputs(line + 2, stderr);
			if (used + strlen(line) < tablelen)
				used += (size_t)snprintf(table + used, tablelen - used, "%s", line);
		}
	}
	h->gpu_min = h->hybrid_min = NEVER;
	for (int i = h->n - 1; i >= 0 && wins(h, t, i, H_GPU, H_CPU, 1); i--)
		h->gpu_min = (long long)h->chunk[i] * k;
	for (int i = h->n - 1; i >= 0 && wins(h, t, i, H_HYBRID, H_CPU, HYBRID_MARGIN) &&
			       wins(h, t, i, H_HYBRID, H_GPU, HYBRID_MARGIN);
	     i--)
		h->hybrid_min = (long long)h->chunk[i] * k;
	h->cpu_rate = 1e9 * h->gbps[h->n - 1][H_CPU][0];
	h->gpu_rate = 1e9 * h->gbps[h->n - 1][H_GPU][0];
	return 0;
}

/*
 * The GPU's part: the [tune] rules into @p tune, and gpu_min_bytes, hybrid_auto_bytes and the two
 * hybrid rates into u[0..3]. 0; 1 without a usable GPU; -1 on failure (said on stderr).
 */
static int gpu_tune(const struct tune_opts *t, const char *date, char *tune, size_t tunelen,
		    struct update *u)
{
	const char *kernels = gfec_gpu_kernels();
	struct perf_gpu_info gi;
	size_t used = 0;
	struct host_sweep *hs = malloc(sizeof(*hs));
	char table[8192];
	struct update *gmin = &u[0], *hyb = &u[1], *rate = &u[2];

	if (!hs)
		return -1;
	if (!kernels[0] || perf_gpu_query(&gi) != 0) {
		free(hs);
		return 1;
	}
	used += (size_t)snprintf(tune + used, tunelen - used,
				 "[tune]\n# gfec-perf tune on %s, %s: data in GPU memory, 256 MiB "
				 "per call, GB/s = 1e9 data bytes/s\n",
				 gi.name, date);
	for (int ci = 0; ci < t->p.ncodes; ci++) {
		const int k = t->p.codes[ci].k, m = t->p.codes[ci].m;
		struct winner w[MAX_SIZES];
		size_t sizes[MAX_SIZES];
		int n = 0;

		for (size_t s = t->p.minb; s <= t->p.maxb && n < MAX_SIZES; s *= (size_t)t->p.factor)
			sizes[n++] = s;
		for (int i = 0; i < n; i++) {
			fprintf(stderr, "RS(%d,%d), %zu-byte chunks:\n", k, m, sizes[i]);
			if (tune_point(k, m, sizes[i], kernels, &w[i])) {
				fprintf(stderr, "gfec-perf tune: no kernel ran RS(%d,%d) %zu B\n", k, m,
					sizes[i]);
				free(hs);
				return -1;
			}
		}
		/* one rule per run of sizes with the same winner; ranges meet between sizes */
		for (int i = 0, j; i < n; i = j) {
			double best = w[i].gbps;

			for (j = i + 1; j < n && !strcmp(w[j].kernel, w[i].kernel); j++)
				best = w[j].gbps > best ? w[j].gbps : best;
			used += (size_t)snprintf(
				tune + used, tunelen - used,
				"rule = %s k=%d m=1-%d chunk=%zu-%lld   # up to %.1f GB/s, %s\n",
				w[i].kernel, k, m, i ? sizes[i] : 0,
				j < n ? (long long)sizes[j] - 1 : NEVER, best, date);
		}
	}
	if (host_sweep(t, t->p.codes[0].k, t->p.codes[0].m, hs, table, sizeof(table))) {
		free(hs);
		return -1;
	}
	used += (size_t)snprintf(tune + used, tunelen - used,
				 "# host: RS(%d,%d) pageable, daemon-shaped, cold (%s):\n%s",
				 t->p.codes[0].k, t->p.codes[0].m, date, table);
	{
		const long long largest = (long long)hs->chunk[hs->n - 1] * t->p.codes[0].k;

		snprintf(gmin->value, sizeof(gmin->value), "%lld", hs->gpu_min);
		snprintf(hyb->value, sizeof(hyb->value), "%lld", hs->hybrid_min);
		if (hs->gpu_min == NEVER)
			snprintf(gmin->comment, sizeof(gmin->comment),
				 "host buffers: the GPU did not beat the CPU at every caller count "
				 "up to %lld data bytes (%s)",
				 largest, date);
		else
			snprintf(gmin->comment, sizeof(gmin->comment),
				 "host buffers: the GPU beats the CPU from here up, at every caller "
				 "count (%s)",
				 date);
		if (hs->hybrid_min == NEVER)
			snprintf(hyb->comment, sizeof(hyb->comment),
				 "the CPU+GPU split did not beat both by %.0f%% at every caller count "
				 "up to %lld data bytes (%s)",
				 100 * (HYBRID_MARGIN - 1), largest, date);
		else
			snprintf(hyb->comment, sizeof(hyb->comment),
				 "the CPU+GPU split beats both by %.0f%% from here up, at every "
				 "caller count (%s)",
				 100 * (HYBRID_MARGIN - 1), date);
		snprintf(rate[0].value, sizeof(rate[0].value), "%.0f", hs->cpu_rate / 1e6);
		snprintf(rate[1].value, sizeof(rate[1].value), "%.0f", hs->gpu_rate / 1e6);
		snprintf(rate[0].comment, sizeof(rate[0].comment),
			 "MB/s, one caller, %zu-byte chunks, cold (%s)", hs->chunk[hs->n - 1], date);
		snprintf(rate[1].comment, sizeof(rate[1].comment), "%s", rate[0].comment);
	}
	fprintf(stderr, "backend=auto: GPU from %s data bytes, split from %s; split starts from "
			"CPU %s MB/s, GPU %s MB/s\n",
		gmin->value, hyb->value, rate[0].value, rate[1].value);

	gmin->k = GFEC_KNOB_GPU_MIN_BYTES;
	hyb->k = GFEC_KNOB_HYBRID_AUTO_BYTES;
	rate[0].k = GFEC_KNOB_HYBRID_CPU_RATE;
	rate[1].k = GFEC_KNOB_HYBRID_GPU_RATE;
	free(hs);
	return 0;
}
#endif /* GFEC_HAVE_CUDA */

int perf_tune_main(int argc, char **argv)
{
	struct tune_opts t;
	char path[1024], date[32], tune[16384];
	struct update u[1 + 4]; /* store_sweep's, gpu_tune's */
	int nu = 0, keep_tune = 1, ret;
	time_t now = time(NULL);
	char *old, *merged;

	if (tune_args(argc, argv, &t))
		return 2;
	if (t.p.help) {
		tune_usage(stdout);
		return 0;
	}
	if (t.config) {
		snprintf(path, sizeof(path), "%s", t.config);
	} else {
		if (gfec_conf_user_path(path, sizeof(path))) {
			fprintf(stderr, "gfec-perf tune: HOME is not set; use --config FILE\n");
			return 2;
		}
		*strrchr(path, '/') = '\0'; /* ~/.config/gfec */
		mkdir(path, 0755);
		gfec_conf_user_path(path, sizeof(path));
	}
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
	ret = store_sweep(&t, t.p.codes[0].k, t.p.codes[0].m, date, &u[0]);
	if (ret < 0)
		return 1;
	if (ret == 0) {
		fprintf(stderr, "[cpu] stream_min = %s\n", u[0].value);
		nu = 1;
	}
#ifdef GFEC_HAVE_CUDA
	if (!t.cpu_only) {
		ret = gpu_tune(&t, date, tune, sizeof(tune), u + nu);
		if (ret < 0)
			return 1;
		if (ret == 0)
			nu += 4, keep_tune = 0;
		else
			fprintf(stderr, "no usable GPU: the GPU's settings and [tune] rules are "
					"left as they are\n");
	}
#else
	if (!t.cpu_only)
		fprintf(stderr, "this build has no GPU backend: the GPU's settings and [tune] rules "
				"are left as they are\n");
#endif
	if (!nu) {
		fprintf(stderr, "gfec-perf tune: nothing to measure on this machine\n");
		return 1;
	}

	/* the file is rewritten by the registry's writer, which knows its sections and keys */
	old = read_all(path);
	merged = old ? strdup(old) : NULL;
	for (int i = 0; i < nu && merged; i++) {
		char *next = gfec_config_update(merged, u[i].k, u[i].value, u[i].comment,
						keep_tune ? NULL : tune);

		free(merged);
		merged = next;
	}
	if (!merged) {
		fprintf(stderr, "gfec-perf tune: %s: cannot be read or updated (is it valid?)\n",
			path);
		free(old);
		return 1;
	}
	printf("# was (%s):\n%s%s# now:\n%s", path, old, old[0] ? "" : "# (no file)\n", merged);
	if (!t.dry_run) {
		char tmp[1100];
		FILE *f;

		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		f = fopen(tmp, "w");
		if (!f || fputs(merged, f) < 0 || fclose(f) || rename(tmp, path)) {
			fprintf(stderr, "gfec-perf tune: %s: %s\n", path, strerror(errno));
			free(old);
			free(merged);
			return 1;
		}
		printf("# wrote %s\n", path);
	}
	free(old);
	free(merged);
	return 0;
}
