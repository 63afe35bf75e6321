/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ab.c: a measurement record, not part of the build (build.sh builds it). RS(k,m) encodes of len
 * bytes on one thread, rotating over >= 256 MiB of contiguous stripe sets as gfec-perf isal lays
 * them out (or one set: argument 6 = 0 MiB, in cache): upstream ISA-L 2.32.1's ec_encode_data
 * (dlopened, RTLD_DEEPBIND), gfec_encode() of the tree ("gfec_now"), gfec_encode() of another
 * build renamed n_* ("gfec_old"), the AVX2 kernel alone and through gfec_cpu_avx2_apply, and
 * kernel variants (kernel_variants.py). Repeats interleaved, the order rotating; thread CPU time
 * and wall time; "vs upstream" is the median over repeats of upstream's time / this one's.
 * Usage: ab k m len iters [repeats [rotation MiB]]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gfec/gfec.h>
typedef void (*enc_t)(int, int, int, unsigned char *, unsigned char **, unsigned char **);
typedef void (*init_t)(int, int, unsigned char *, unsigned char *);
typedef void (*gen_t)(unsigned char *, int, int);
void gfec_cpu_avx2_apply(size_t, int, int, const uint8_t *, int, const uint8_t *const *, uint8_t *const *);
void gfec_cpu_gemm_avx2(size_t, int, int, const uint8_t *, const uint8_t *const *,
			uint8_t *const *, int);
int n_gfec_codec_create(const char *, gfec_codec **, char *, size_t);
int n_gfec_encode(gfec_codec *, const uint8_t *const *, uint8_t *const *, size_t);
#ifdef VARIANTS
VARIANTS
#endif
static double now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}
static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}
int main(int argc, char **argv)
{
	int k = atoi(argv[1]), m = atoi(argv[2]);
	size_t len = strtoul(argv[3], 0, 0);
	long iters = atol(argv[4]);
	int reps = argc > 5 ? atoi(argv[5]) : 11;
	size_t rot = argc > 6 ? strtoul(argv[6], 0, 0) << 20 : (size_t)256 << 20;
	const char *lib = getenv("UP") ? getenv("UP") : "/tmp/isa-l-2.32.1-i16/bin/libisal.so.2";
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
	if (!h) { puts(dlerror()); return 1; }
	enc_t enc = (enc_t)dlsym(h, "ec_encode_data");
	init_t init = (init_t)dlsym(h, "ec_init_tables");
	gen_t gen = (gen_t)dlsym(h, "gf_gen_cauchy1_matrix");
	unsigned char *a = malloc((k + m) * k), *t = malloc(32 * k * m);
	gen(a, k + m, k);
	init(k, m, a + k * k, t);
	size_t set = (size_t)(k + m) * len;
	int nsets = (int)((rot + set - 1) / set);
	if (nsets < 1) nsets = 1;
	uint8_t *mem;
	if (posix_memalign((void **)&mem, 64, nsets * set)) return 1;
	for (size_t i = 0; i < nsets * set; i++) mem[i] = (uint8_t)(i * 2654435761u >> 13);
	uint8_t **ptr = malloc(sizeof(*ptr) * nsets * (k + m));
	for (size_t i = 0; i < (size_t)nsets * (k + m); i++) ptr[i] = mem + i * len;
	char prof[128], err[256];
	gfec_codec *c;
	snprintf(prof, sizeof prof, "k=%d m=%d technique=cauchy backend=cpu threads=1", k, m);
	if (gfec_codec_create(prof, &c, err, sizeof err)) { puts(err); return 1; }
	gfec_codec *c2;
	if (n_gfec_codec_create(prof, &c2, err, sizeof err)) { puts(err); return 1; }
	const char *names[] = { "upstream", "gfec_now", "kernel", "gfec_old", "apply" NAMES };
	const int nimpl = sizeof(names) / sizeof(names[0]);
	/* parity check on set 0 */
	uint8_t *want = malloc(m * len), *got = malloc(m * len);
	for (int v = 0; v < nimpl; v++) {
		uint8_t **s = ptr, *par[256];
		for (int i = 0; i < m; i++) par[i] = (v ? got : want) + i * len, memset(par[i], v + 1, len);
		if (v == 0) enc(len, k, m, t, s, par);
		else if (v == 1) gfec_encode(c, (const uint8_t *const *)s, par, len);
		else if (v == 2) gfec_cpu_gemm_avx2(len, k, m, t, (const uint8_t *const *)s, par, 0);
		else if (v == 3) n_gfec_encode(c2, (const uint8_t *const *)s, par, len);
		else if (v == 4) gfec_cpu_avx2_apply(len, k, m, t, -1, (const uint8_t *const *)s, par);
#ifdef CALLS
		CALLS
#endif
		if (v && memcmp(want, got, m * len)) { printf("MISMATCH %s\n", names[v]); return 1; }
	}
	double *cpu = calloc(nimpl * reps, sizeof(double)), *wall = calloc(nimpl * reps, sizeof(double));
	int next = 0;
	for (int r = 0; r < reps; r++)
		for (int j = 0; j < nimpl; j++) {
			int v = (j + r) % nimpl;
			double c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
			for (long it = 0; it < iters; it++) {
				uint8_t **s = ptr + (size_t)next * (k + m);
				uint8_t *const *par = s + k;
				if (++next == nsets) next = 0;
				if (v == 0) enc(len, k, m, t, s, (unsigned char **)par);
				else if (v == 1) gfec_encode(c, (const uint8_t *const *)s, par, len);
				else if (v == 2) gfec_cpu_gemm_avx2(len, k, m, t, (const uint8_t *const *)s, par, 0);
		else if (v == 3) n_gfec_encode(c2, (const uint8_t *const *)s, par, len);
		else if (v == 4) gfec_cpu_avx2_apply(len, k, m, t, -1, (const uint8_t *const *)s, par);
#ifdef CALLS
				CALLS
#endif
			}
			cpu[v * reps + r] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
			wall[v * reps + r] = now(CLOCK_MONOTONIC) - w0;
		}
	double gb = (double)k * len * iters / 1e9;
	printf("RS(%d,%d) %zu B, %d sets, %ld iters x %d reps; GB/s (data) best / median, cpu-time | wall; ratio = upstream time / impl time (medians of per-rep pairs)\n",
	       k, m, len, nsets, iters, reps);
	for (int v = 0; v < nimpl; v++) {
		double c2[1000], w2[1000], rc[1000], rw[1000];
		for (int r = 0; r < reps; r++) {
			c2[r] = cpu[v * reps + r], w2[r] = wall[v * reps + r];
			rc[r] = cpu[r] / cpu[v * reps + r], rw[r] = wall[r] / wall[v * reps + r];
		}
		qsort(c2, reps, 8, cmpd); qsort(w2, reps, 8, cmpd); qsort(rc, reps, 8, cmpd); qsort(rw, reps, 8, cmpd);
		printf("  %-14s cpu %6.2f / %6.2f  wall %6.2f / %6.2f   vs upstream: cpu %.3f wall %.3f\n", names[v],
		       gb / c2[0], gb / c2[reps / 2], gb / w2[0], gb / w2[reps / 2], rc[reps / 2], rw[reps / 2]);
	}
	return 0;
}
