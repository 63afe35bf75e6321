/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_tune.c
 * `gfec-perf tune` (also `gfec tune`): finds this GPU's best compiled kernel for each (k,m) and
 * chunk size, and the CPU/GPU crossover for backend=auto, then writes them to gfec.conf:
 *
 *   [gpu]
 *   min_bytes = N      # crossover: host calls with at least N data bytes go to the GPU
 *   [tune]
 *   rule = KERNEL k=K m=1-M chunk=LO-HI    # GB/s measured, date
 *
 * Kernels are timed on data in GPU memory (what they are for; PCIe would hide the differences),
 * 256 MiB of data per call, and each one's parity is checked against the CPU before it can win.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <gfec/gfec.h>

#include "gfec_perf.h"
#include "internal.h" /* gfec_config_update(), gfec_conf_user_path() */
#ifdef GFEC_HAVE_CUDA
#include "perf_gpu.h"
#endif

#define MAX_SIZES 32
#define MAX_KERNELS 64
#define NEVER (1ll << 50)

struct tune_opts {
	struct perf_opts p; /* codes and the -b/-e/-f sweep */
	const char *config;
	int dry_run;
};

static void tune_usage(FILE *f)
{
	fprintf(f, "usage: gfec-perf tune [OPTIONS]     (gfec tune runs this)\n"
		   "\n"
		   "Times every compiled GPU kernel on data in GPU memory for each (k,m) and chunk\n"
		   "size, measures the CPU/GPU crossover for backend=auto on host buffers, and writes\n"
		   "the winners to the config file, one commented rule each, then prints what changed.\n"
		   "\n"
		   "  -k, --codes LIST      (k,m) pairs                           [10,4]\n"
		   "  -b, --minbytes SIZE   smallest chunk size                   [4K]\n"
		   "  -e, --maxbytes SIZE   largest chunk size                    [64M]\n"
		   "  -f, --stepfactor F    chunk size multiplier                 [4]\n"
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
	/* --config and --dry-run are ours; the rest is gfec-perf's own parser */
	pargv[pargc++] = argv[0];
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
			t->config = argv[++i];
		} else if (strcmp(argv[i], "--dry-run") == 0) {
			t->dry_run = 1;
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

/* Smallest data bytes per host call from which the GPU beats the CPU at every larger size. */
static long long crossover(int k, int m, long long *largest)
{
	char p1[96], p2[96];
	gfec_codec *cpu, *gpu;
	long long cross = NEVER;

	snprintf(p1, sizeof(p1), "k=%d m=%d backend=cpu", k, m);
	snprintf(p2, sizeof(p2), "k=%d m=%d backend=gpu", k, m);
	if (gfec_codec_create(p1, &cpu, NULL, 0))
		return NEVER;
	if (gfec_codec_create(p2, &gpu, NULL, 0)) {
		gfec_codec_free(cpu);
		return NEVER;
	}
	for (size_t chunk = 4096; chunk <= ((size_t)16 << 20); chunk *= 4) {
		uint8_t *mem = gfec_alloc((size_t)(k + m) * chunk);
		const uint8_t *d[256];
		uint8_t *p[256];
		double tc, tg;

		if (!mem)
			break;
		perf_fill_random(mem, (size_t)k * chunk, 7);
		for (int j = 0; j < k; j++)
			d[j] = mem + (size_t)j * chunk;
		for (int i = 0; i < m; i++)
			p[i] = mem + (size_t)(k + i) * chunk;
		tc = time_encode(cpu, 1, d, p, chunk);
		tg = time_encode(gpu, 1, d, p, chunk);
		gfec_free(mem);
		*largest = (long long)chunk * k;
		fprintf(stderr, "  crossover: %10zu data bytes: CPU %8.1f us, GPU %8.1f us\n",
			chunk * (size_t)k, tc * 1e6, tg * 1e6);
		if (tg > 0 && tc > 0 && tg < tc) {
			if (cross == NEVER)
				cross = (long long)chunk * k;
		} else {
			cross = NEVER;
		}
	}
	gfec_codec_free(cpu);
	gfec_codec_free(gpu);
	return cross;
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

#endif /* GFEC_HAVE_CUDA */

int perf_tune_main(int argc, char **argv)
{
	struct tune_opts t;
	char path[1024];

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
#ifndef GFEC_HAVE_CUDA
	fprintf(stderr, "gfec-perf tune: this build has no GPU backend: nothing to tune\n");
	return 1;
#else
	const char *kernels = gfec_gpu_kernels();
	struct perf_gpu_info gi;
	char tune[16384], min_value[32], min_comment[256], date[32];
	size_t used = 0;
	time_t now = time(NULL);
	long long largest = 0, cross;
	char *old, *merged;

	if (!kernels[0] || perf_gpu_query(&gi) != 0) {
		fprintf(stderr, "gfec-perf tune: no usable GPU\n");
		return 1;
	}
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
	used += (size_t)snprintf(tune + used, sizeof(tune) - used,
				 "[tune]\n# gfec-perf tune on %s, %s: data in GPU memory, 256 MiB "
				 "per call, GB/s = 1e9 data bytes/s\n",
				 gi.name, date);
	for (int ci = 0; ci < t.p.ncodes; ci++) {
		const int k = t.p.codes[ci].k, m = t.p.codes[ci].m;
		struct winner w[MAX_SIZES];
		size_t sizes[MAX_SIZES];
		int n = 0;

		for (size_t s = t.p.minb; s <= t.p.maxb && n < MAX_SIZES; s *= (size_t)t.p.factor)
			sizes[n++] = s;
		for (int i = 0; i < n; i++) {
			fprintf(stderr, "RS(%d,%d), %zu-byte chunks:\n", k, m, sizes[i]);
			if (tune_point(k, m, sizes[i], kernels, &w[i])) {
				fprintf(stderr, "gfec-perf tune: no kernel ran RS(%d,%d) %zu B\n", k, m,
					sizes[i]);
				return 1;
			}
		}
		/* one rule per run of sizes with the same winner; ranges meet between sizes */
		for (int i = 0, j; i < n; i = j) {
			double best = w[i].gbps;

			for (j = i + 1; j < n && !strcmp(w[j].kernel, w[i].kernel); j++)
				best = w[j].gbps > best ? w[j].gbps : best;
			used += (size_t)snprintf(
				tune + used, sizeof(tune) - used,
				"rule = %s k=%d m=1-%d chunk=%zu-%lld   # up to %.1f GB/s, %s\n",
				w[i].kernel, k, m, i ? sizes[i] : 0,
				j < n ? (long long)sizes[j] - 1 : NEVER, best, date);
		}
	}
	cross = crossover(t.p.codes[0].k, t.p.codes[0].m, &largest);
	snprintf(min_value, sizeof(min_value), "%lld", cross);
	if (cross == NEVER)
		snprintf(min_comment, sizeof(min_comment),
			 "host buffers: the CPU was faster at every size up to %lld data bytes (%s)",
			 largest, date);
	else
		snprintf(min_comment, sizeof(min_comment),
			 "host buffers: the GPU is faster from here up (%s)", date);

	/* the file is rewritten by the registry's writer, which knows its sections and keys */
	old = read_all(path);
	merged = old ? gfec_config_update(old, GFEC_KNOB_GPU_MIN_BYTES, min_value, min_comment,
					  tune)
		     : NULL;
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
#endif
}
