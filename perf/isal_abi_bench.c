/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file isal_abi_bench.c
 * ec_encode_data() through the drop-in against the real ISA-L, the way HDFS calls it: pageable
 * buffers, RS(10,4) from ISA-L's Cauchy matrix, one table, and one caller thread or several
 * (-t: HDFS's coder threads, each encoding its own stripes with the shared table). Per chunk
 * size, three figures: the real library called directly, the drop-in with the GPU off (what
 * forwarding costs), and the drop-in with every call on the GPU (GFEC_ISAL_GPU_MIN=0; --no-gpu
 * leaves it out). The drop-in reads its knobs once per load, and pins itself once the GPU has
 * started, so the GPU-off runs come first, from a load that is closed before the GPU load.
 * Buffers rotate through 512 MiB (-s) so that the data comes from DRAM, as in a storage server;
 * -s 0 gives each caller one stripe, in its cache. GB/s counts data bytes (k * len per call), as
 * everywhere in gfec, over all callers. Both drop-in routes' parity is checked against the
 * real library's.
 *
 * The real library is $GFEC_ISAL_LIB, as for the drop-in, else Debian's.
 */
#include <dlfcn.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gfec/gfec_config.h"
#include "registry.h"

#define REAL_PATH "/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30"
#define K 10
#define M 4
#define WORKING_SET ((size_t)512 << 20) /* the default of -s, and its largest */
#define MAXLENS 16
#define MAXTHREADS 256

typedef void (*init_fn)(int, int, unsigned char *, unsigned char *);
typedef void (*encode_fn)(int, int, int, unsigned char *, unsigned char **, unsigned char **);
typedef void (*gen_fn)(unsigned char *, int, int);

struct lib {
	void *h;
	init_fn init;
	encode_fn encode;
	gen_fn gen;
};

/* nsets stripes of k sources and m outputs, len bytes each. */
struct sets {
	size_t len;
	int n;
	unsigned char **src[WORKING_SET / (K + M) / 4096 + MAXTHREADS];
	unsigned char **dst[WORKING_SET / (K + M) / 4096 + MAXTHREADS];
};

static int lib_open(struct lib *l, const char *path, const char *gpu_min)
{
	if (gpu_min)
		setenv("GFEC_ISAL_GPU_MIN", gpu_min, 1);
	l->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!l->h) {
		fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
		return -1;
	}
	*(void **)&l->init = dlsym(l->h, "ec_init_tables");
	*(void **)&l->encode = dlsym(l->h, "ec_encode_data");
	*(void **)&l->gen = dlsym(l->h, "gf_gen_cauchy1_matrix");
	return l->init && l->encode && l->gen ? 0 : -1;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Stripes over @p ws bytes, at least one per caller of @p threads. */
static int sets_make(struct sets *s, size_t len, size_t ws, int threads)
{
	s->len = len;
	s->n = (int)(ws / ((K + M) * len));
	s->n = s->n < threads ? threads : s->n;
	for (int i = 0; i < s->n; i++) {
		s->src[i] = calloc(K, sizeof(*s->src[i]));
		s->dst[i] = calloc(M, sizeof(*s->dst[i]));
		if (!s->src[i] || !s->dst[i])
			return -1;
		for (int j = 0; j < K; j++) {
			if (!(s->src[i][j] = malloc(len)))
				return -1;
			for (size_t b = 0; b < len; b++)
				s->src[i][j][b] = (unsigned char)(b * 31 + j * 7 + i);
		}
		for (int j = 0; j < M; j++)
			if (!(s->dst[i][j] = calloc(1, len)))
				return -1;
	}
	return 0;
}

static void sets_free(struct sets *s)
{
	for (int i = 0; i < s->n; i++) {
		for (int j = 0; s->src[i] && j < K; j++)
			free(s->src[i][j]);
		for (int j = 0; s->dst[i] && j < M; j++)
			free(s->dst[i][j]);
		free(s->src[i]);
		free(s->dst[i]);
	}
}

/* One caller: the stripes i, i + threads, ... in turn, from the common start, for a second. */
struct caller {
	const struct lib *l;
	const struct sets *s;
	unsigned char *tbls;
	int i, threads;
	pthread_barrier_t *start;
	long calls;
	double t;
};

static void *caller_run(void *arg)
{
	struct caller *c = arg;
	const int per = (c->s->n - c->i + c->threads - 1) / c->threads; /* this caller's stripes */
	const long every = c->s->len < 65536 ? 64 : 1; /* calls between clock reads */
	double t0;

	pthread_barrier_wait(c->start);
	t0 = now();
	do {
		const int x = c->i + (int)(c->calls % per) * c->threads;

		c->l->encode((int)c->s->len, K, M, c->tbls, c->s->src[x], c->s->dst[x]);
		if (++c->calls % every == 0)
			c->t = now() - t0;
	} while (c->t < 1.0 || c->calls < 3);
	return NULL;
}

/* GB/s of data for ec_encode_data from @p threads callers sharing one table. */
static double run(const struct lib *l, const struct sets *s, int threads)
{
	unsigned char a[(K + M) * K], tbls[32 * K * M];
	struct caller c[MAXTHREADS];
	pthread_t tid[MAXTHREADS];
	pthread_barrier_t start;
	double calls = 0, t = 0;

	l->gen(a, K + M, K);
	l->init(K, M, a + K * K, tbls);
	l->encode((int)s->len, K, M, tbls, s->src[0], s->dst[0]); /* first-call setup, GPU start */
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	for (int i = 0; i < threads; i++) {
		c[i] = (struct caller){
		    .l = l, .s = s, .tbls = tbls, .i = i, .threads = threads, .start = &start};
		if (i > 0 && pthread_create(&tid[i], NULL, caller_run, &c[i]) != 0) {
			fprintf(stderr, "cannot start caller thread %d\n", i);
			exit(1); /* those started wait at the barrier for ever */
		}
	}
	caller_run(&c[0]);
	for (int i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&start);
	for (int i = 0; i < threads; i++) {
		calls += (double)c[i].calls;
		t = c[i].t > t ? c[i].t : t;
	}
	return calls * K * (double)s->len / t / 1e9;
}

/* 0 when stripe 0's parity (written by the route just timed) equals the real library's. */
static int check(const struct lib *real, const struct sets *s)
{
	unsigned char a[(K + M) * K], tbls[32 * K * M], *want[M];
	int bad = 0;

	real->gen(a, K + M, K);
	real->init(K, M, a + K * K, tbls);
	for (int j = 0; j < M; j++)
		if (!(want[j] = malloc(s->len)))
			return -1;
	real->encode((int)s->len, K, M, tbls, s->src[0], want);
	for (int j = 0; j < M; j++) {
		bad |= memcmp(want[j], s->dst[0][j], s->len) != 0;
		free(want[j]);
	}
	return bad;
}

/* A chunk size in 4K..2^31-1 (gfec's number syntax), or 0. */
static size_t parse_len(const char *s)
{
	long long v;

	return gfec_parse_number(s, 4096, INT32_MAX, &v) ? 0 : (size_t)v;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(
	    f,
	    "usage: %s [OPTIONS] path/to/gfec/libisal.so.2 [len ...]\n"
	    "\n"
	    "ec_encode_data, RS(%d,%d) Cauchy, through the real ISA-L ($GFEC_ISAL_LIB, else\n"
	    "Debian's), the drop-in with the GPU off and the drop-in with every call on the GPU.\n"
	    "GB/s = 10^9 data bytes per second, all callers together.\n"
	    "\n"
	    "  len               bytes per buffer, K/M/G suffixes, 4K..2047M  [1M 64M]\n"
	    "  -t, --threads N   caller threads sharing one table, 1..%d      [1]\n"
	    "  -s, --set SIZE    bytes of stripes the callers rotate through;\n"
	    "                    0: one stripe per caller (in cache)           [512M]\n"
	    "      --no-gpu      leave out the drop-in's GPU route\n"
	    "  -h, --help        this text\n"
	    "\n"
	    "Exit status: 0 ok; 1 a drop-in route's parity differs from the real library's, or a\n"
	    "run failed; 2 bad arguments.\n",
	    prog, K, M, MAXTHREADS);
}

int main(int argc, char **argv)
{
	static const char *const def[] = { "1M", "64M" };
	static const struct option opts[] = {{"threads", required_argument, NULL, 't'},
					     {"set", required_argument, NULL, 's'},
					     {"no-gpu", no_argument, NULL, 'G'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	static struct sets s;
	const char *const *lens;
	struct gfec_settings set; /* GFEC_ISAL_LIB, read as the drop-in reads it */
	char err[256];
	const char *real_path;
	double g_real[MAXLENS], g_off[MAXLENS], g_gpu[MAXLENS];
	int bad[MAXLENS] = {0}, ret = 0, nlens, threads = 1, gpus = 2, o;
	long long v, ws = (long long)WORKING_SET;
	struct lib real, ours;

	while ((o = getopt_long(argc, argv, "t:s:h", opts, NULL)) != -1) {
		switch (o) {
		case 't':
			if (gfec_parse_number(optarg, 1, MAXTHREADS, &v)) {
				fprintf(stderr, "--threads %s: from 1 to %d\n", optarg, MAXTHREADS);
				return 2;
			}
			threads = (int)v;
			break;
		case 's':
			if (gfec_parse_number(optarg, 0, (long long)WORKING_SET, &ws)) {
				fprintf(stderr, "--set %s: from 0 to 512M\n", optarg);
				return 2;
			}
			break;
		case 'G':
			gpus = 1;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	nlens = argc - optind - 1;
	lens = nlens > 0 ? (const char *const *)argv + optind + 1 : def;
	nlens = nlens > 0 ? nlens : 2;
	if (optind >= argc || nlens > MAXLENS) {
		usage(stderr, argv[0]);
		return 2;
	}
	for (int i = 0; i < nlens; i++)
		if (!parse_len(lens[i])) {
			fprintf(stderr, "len %s: from 4K to 2047M\n", lens[i]);
			return 2;
		}
	gfec_settings_defaults(&set);
	if (gfec_settings_env(&set, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	real_path = set.v[GFEC_KNOB_ISAL_LIB].text[0] ? set.v[GFEC_KNOB_ISAL_LIB].text : REAL_PATH;
	if (lib_open(&real, real_path, NULL))
		return 1;
	for (int gpu = 0; gpu < gpus; gpu++) {
		if (lib_open(&ours, argv[optind], gpu ? "0" : "off"))
			return 1;
		for (int i = 0; i < nlens; i++) {
			if (sets_make(&s, parse_len(lens[i]), (size_t)ws, threads)) {
				fprintf(stderr, "out of memory\n");
				return 1;
			}
			if (gpu) {
				g_gpu[i] = run(&ours, &s, threads);
				bad[i] |= check(&real, &s) << 1;
			} else {
				g_real[i] = run(&real, &s, threads);
				g_off[i] = run(&ours, &s, threads);
				bad[i] = check(&real, &s);
			}
			sets_free(&s);
		}
		dlclose(ours.h);
	}
	printf("# %s: RS(%d,%d) Cauchy, %d caller thread%s, one table, pageable memory, %s; "
	       "GB/s of data\n",
	       argv[0], K, M, threads, threads > 1 ? "s" : "",
	       ws ? "stripes rotated through the set" : "one stripe per caller");
	for (int i = 0; i < nlens; i++) {
		printf("ec_encode_data k=%d m=%d len=%-5s real ISA-L %6.2f | drop-in, GPU off "
		       "%6.2f (%.2fx)%s",
		       K, M, lens[i], g_real[i], g_off[i], g_off[i] / g_real[i],
		       bad[i] & 1 ? "  PARITY DIFFERS" : "");
		if (gpus > 1)
			printf(" | drop-in, GPU %6.2f (%.2fx ISA-L)%s", g_gpu[i],
			       g_gpu[i] / g_real[i], bad[i] & 2 ? "  PARITY DIFFERS" : "");
		printf("\n");
		ret |= bad[i] != 0;
	}
	dlclose(real.h);
	return ret;
}
