/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file isal_abi_bench.c
 * ec_encode_data() through the drop-in against the real ISA-L, the way HDFS calls it: one
 * caller thread, pageable buffers, RS(10,4) from ISA-L's Cauchy matrix. Per chunk size, three
 * figures: the real library called directly, the drop-in with the GPU off (what forwarding
 * costs), and the drop-in with every call on the GPU (GFEC_ISAL_GPU_MIN=0). The drop-in reads
 * its knobs once per load, and pins itself once the GPU has started, so the GPU-off runs come
 * first, from a load that is closed before the GPU load. Buffers rotate through 512 MiB so that
 * the data comes from DRAM, as in a storage server. GB/s counts data bytes (k * len per call),
 * as everywhere in gfec. The GPU route's parity is checked against the real library's.
 *
 * usage: gfec-isal-bench path/to/gfec/libisal.so.2 [len ...]  (len with K, M or G; default 1M 64M)
 * The real library is $GFEC_ISAL_LIB, as for the drop-in, else Debian's.
 */
#include <dlfcn.h>
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
#define WORKING_SET ((size_t)512 << 20)
#define MAXLENS 16

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
	unsigned char **src[WORKING_SET / (K + M) / 4096], **dst[WORKING_SET / (K + M) / 4096];
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

static int sets_make(struct sets *s, size_t len)
{
	s->len = len;
	s->n = (int)(WORKING_SET / ((K + M) * len));
	s->n = s->n < 1 ? 1 : s->n;
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

/* GB/s of data for ec_encode_data over the stripes in turn, for at least a second. */
static double run(const struct lib *l, const struct sets *s)
{
	unsigned char a[(K + M) * K], tbls[32 * K * M];
	double t0, t;
	long calls = 0;

	l->gen(a, K + M, K);
	l->init(K, M, a + K * K, tbls);
	l->encode((int)s->len, K, M, tbls, s->src[0], s->dst[0]); /* first-call setup, GPU start */
	t0 = now();
	do {
		l->encode((int)s->len, K, M, tbls, s->src[calls % s->n], s->dst[calls % s->n]);
		calls++;
		t = now() - t0;
	} while (t < 1.0 || calls < 3);
	return (double)calls * K * (double)s->len / t / 1e9;
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

int main(int argc, char **argv)
{
	static const char *const def[] = { "1M", "64M" };
	static struct sets s;
	const char *const *lens = argc > 2 ? (const char *const *)argv + 2 : def;
	const int nlens = argc > 2 ? argc - 2 : 2;
	struct gfec_settings set; /* GFEC_ISAL_LIB, read as the drop-in reads it */
	char err[256];
	const char *real_path;
	double g_real[MAXLENS], g_off[MAXLENS], g_gpu[MAXLENS];
	int bad[MAXLENS] = { 0 }, ret = 0;
	struct lib real, ours;

	if (argc < 2 || nlens > MAXLENS) {
		fprintf(stderr, "usage: %s path/to/gfec/libisal.so.2 [len ...] (at most %d)\n",
			argv[0], MAXLENS);
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
	for (int gpu = 0; gpu < 2; gpu++) {
		if (lib_open(&ours, argv[1], gpu ? "0" : "off"))
			return 1;
		for (int i = 0; i < nlens; i++) {
			if (sets_make(&s, parse_len(lens[i]))) {
				fprintf(stderr, "out of memory\n");
				return 1;
			}
			if (gpu) {
				g_gpu[i] = run(&ours, &s);
				bad[i] = check(&real, &s);
			} else {
				g_real[i] = run(&real, &s);
				g_off[i] = run(&ours, &s);
			}
			sets_free(&s);
		}
		dlclose(ours.h);
	}
	printf("# %s: RS(%d,%d) Cauchy, one caller thread, pageable memory; GB/s of data\n",
	       argv[0], K, M);
	for (int i = 0; i < nlens; i++) {
		printf("ec_encode_data k=%d m=%d len=%-5s real ISA-L %6.2f | drop-in, GPU off "
		       "%6.2f | drop-in, GPU %6.2f (%.2fx ISA-L)%s\n",
		       K, M, lens[i], g_real[i], g_off[i], g_gpu[i], g_gpu[i] / g_real[i],
		       bad[i] ? "  PARITY DIFFERS" : "");
		ret |= bad[i];
	}
	dlclose(real.h);
	return ret;
}
