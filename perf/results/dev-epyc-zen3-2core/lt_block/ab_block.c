/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ab_block.c: a measurement record (../lt_block.txt). Two builds of gfmatrix/lt.c, each a shared
 * object with its own robust soliton table (n = 10240, the defaults), draw the neighbours of the
 * blocks with seeds 0..M-1 (gfec_lt_block) in turns in one process: per rep, thread CPU time of
 * all M blocks; the two builds' lists are compared for every block first.
 * usage: ab_block A.so B.so REPS [M (10244)]
 * build (repository root): gcc -O3 -o /tmp/ab_block ab_block.c -Igfmatrix -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
struct gfec_lt_dist;
typedef int (*dc_t)(uint32_t, double, double, struct gfec_lt_dist **);
typedef uint32_t (*bl_t)(const struct gfec_lt_dist *, uint32_t, uint32_t *);
static double cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}
static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}
int main(int argc, char **argv)
{
	const uint32_t n = 10240;
	int reps = argc > 3 ? atoi(argv[3]) : 0;
	uint32_t m = argc > 4 ? (uint32_t)atoi(argv[4]) : 10244;
	struct gfec_lt_dist *d[2];
	bl_t bl[2];
	uint32_t *a = malloc(n * 4), *b = malloc(n * 4), *idx = malloc((size_t)m * n * 4);
	double *t[2];
	size_t edges = 0;

	if (reps < 1 || m < 1 || !a || !b || !idx) {
		fprintf(stderr, "usage: ab_block A.so B.so REPS [M]\n");
		return 2;
	}
	for (int i = 0; i < 2; i++) {
		void *h = dlopen(argv[1 + i], RTLD_NOW | RTLD_LOCAL);
		dc_t dc = h ? (dc_t)dlsym(h, "gfec_lt_dist_create") : NULL;

		bl[i] = h ? (bl_t)dlsym(h, "gfec_lt_block") : NULL;
		if (!dc || !bl[i] || dc(n, 0.03, 0.05, &d[i])) {
			fprintf(stderr, "%s: %s\n", argv[1 + i], h ? "no symbols" : dlerror());
			return 1;
		}
		t[i] = malloc(reps * sizeof(double));
	}
	for (uint32_t s = 0; s < m; s++) {
		uint32_t x = bl[0](d[0], s, a), y = bl[1](d[1], s, b);

		if (x != y || memcmp(a, b, x * 4)) {
			printf("DIFFERENT lists at seed %u\n", s);
			return 1;
		}
		edges += x;
	}
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < 2; i++) {
			double t0 = cpu();
			size_t e = 0;

			for (uint32_t s = 0; s < m; s++)
				e += bl[i](d[i], s, idx + e);
			t[i][r] = cpu() - t0;
		}
	for (int i = 0; i < 2; i++) {
		qsort(t[i], reps, sizeof(double), cmpd);
		printf("%-24s %u blocks, %zu edges: best %.3f median %.3f ms\n", argv[1 + i], m, edges,
		       t[i][0] * 1e3, t[i][reps / 2] * 1e3);
	}
	return 0;
}
