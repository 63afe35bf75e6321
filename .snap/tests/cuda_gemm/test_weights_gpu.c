/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU pair histogram of weight enumeration (cuda_gemm/device/weights.cu) against the CPU
 * kernel: random codes (t <= 14 rows, n from 7 to 256, every word count) and the (127,22) BCH
 * subcodes t = 12..16 (the all-ones reduction as plugin/weights.c applies it), count for count;
 * then gfec_weights_enumerate with the GPU backend against the CPU one. The GPU entry point is
 * called directly, so a device error fails the test instead of falling back.
 * Exits 77 (ctest: skipped) without a usable GPU.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gfec/gfec_weights.h"
#include "gfec_gpu_weights.h"
#include "threadpool.h"
#include "weights.h"
#include "weights_cpu.h"

static int failures;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* The GPU's progress reports, summed (they come from the calling thread). */
static void tick(void *arg, uint64_t pairs)
{
	*(uint64_t *)arg += pairs;
}

/* Pair histograms of the k rows of m (packed, rref) on the CPU and the GPU: 0 when equal. */
static void compare(struct gfec_cpu_pool *pool, const uint64_t *m, int k, int n, const char *what)
{
	int words = gfec_wt_words(n), ng = 0;
	size_t count = (size_t)1 << k, s = (size_t)n + 1;
	uint64_t *cw = malloc(count * words * sizeof(uint64_t));
	int *gw = malloc((s + 1) * sizeof(int));
	size_t *gs = malloc((s + 1) * sizeof(size_t));
	uint64_t *jc = calloc(s * s * s, sizeof(uint64_t)),
		 *jg = calloc(s * s * s, sizeof(uint64_t));
	if (!cw || !gw || !gs || !jc || !jg || gfec_wt_codewords(m, k, words, cw, gw, gs, &ng) ||
	    gfec_cpu_weights_pairs(pool, cw, words, n, gw, gs, ng, GFEC_CPU_WT_BEST, NULL, NULL,
				   jc)) {
		fprintf(stderr, "%s: out of memory\n", what);
		exit(1);
	}
	uint64_t ticked = 0;
	int rc = gfec_gpu_weights_pairs(cw, words, n, gw, gs, ng, tick, &ticked, jg);
	uint64_t sum = 0;
	for (size_t i = 0; i < s * s * s; i++)
		sum += jg[i];
	if (rc) {
		fprintf(stderr, "FAIL %s: gfec_gpu_weights_pairs: %s\n", what, gfec_strerror(rc));
		failures++;
	} else if (memcmp(jc, jg, s * s * s * sizeof(uint64_t)) ||
		   sum != (uint64_t)count * (count - 1) / 2 || ticked != sum) {
		fprintf(stderr, "FAIL %s: GPU histogram (or its progress total) differs from the CPU's\n",
			what);
		failures++;
	} else {
		printf("ok %s (n=%d k=%d, %zu weights)\n", what, n, k, (size_t)ng);
	}
	free(cw);
	free(gw);
	free(gs);
	free(jc);
	free(jg);
}

static void random_codes(struct gfec_cpu_pool *pool)
{
	static const int ns[] = {7, 31, 64, 127, 130, 200, 256};
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (int t = 1; t <= 14; t += (t < 4 ? 1 : 5)) {
			int n = ns[i], words = gfec_wt_words(n);
			uint64_t m[14 * 4] = {0};
			for (int r = 0; r < t; r++)
				for (int x = 0; x < words; x++) {
					int bits = n - 64 * x < 64 ? n - 64 * x : 64;
					m[r * words + x] =
					    rng() & (bits == 64 ? ~0ull : (1ull << bits) - 1);
				}
			/* sparse rows too: low weights, so that weight groups are many and small */
			if (t % 2 == 0)
				for (int r = 0; r < t; r++)
					for (int x = 0; x < words; x++)
						m[r * words + x] &= rng() & rng();
			int k = gfec_wt_rref(m, t, words);
			char what[64];
			snprintf(what, sizeof(what), "random n=%d t=%d", n, t);
			compare(pool, m, k, n, what);
		}
}

/* The (127,22) subcodes, reduced by the all-ones word as gfec_weights_enumerate does. */
static void bch_subcodes(struct gfec_cpu_pool *pool)
{
	for (int t = 12; t <= 16; t++) {
		uint8_t gen[22 * 127];
		uint64_t m[22 * 2] = {0};
		int delta;
		if (gfec_weights_bch(127, 22, gen, &delta) ||
		    gfec_weights_subcode(gen, 22, 127, t)) {
			fprintf(stderr, "FAIL: the (127,22) subcode t=%d\n", t);
			failures++;
			continue;
		}
		for (int r = 0; r < t; r++)
			for (int j = 0; j < 127; j++)
				m[r * 2 + j / 64] |= (uint64_t)gen[r * 127 + j] << (j % 64);
		int k = gfec_wt_rref(m, t, 2);
		int ones = gfec_wt_ones_last(m, k, 127);
		char what[64];
		snprintf(what, sizeof(what), "BCH(127,22) t=%d%s", t, ones ? " C'" : "");
		compare(pool, m, ones ? k - 1 : k, 127, what);
	}
}

/* End to end: the GPU backend's A and J equal the CPU backend's, at t = 16. */
static void enumerate_gpu(void)
{
	uint8_t gen[22 * 127];
	int delta;
	struct gfec_weights wc, wg;
	size_t s = 128;
	if (gfec_weights_bch(127, 22, gen, &delta) || gfec_weights_subcode(gen, 22, 127, 16) ||
	    gfec_weights_enumerate(gen, 16, 127, GFEC_WEIGHTS_CPU, 0, 0, &wc) ||
	    gfec_weights_enumerate(gen, 16, 127, GFEC_WEIGHTS_GPU, 0, 0, &wg)) {
		fprintf(stderr, "FAIL: gfec_weights_enumerate at t=16\n");
		failures++;
		return;
	}
	if (memcmp(wc.A, wg.A, s * sizeof(uint64_t)) ||
	    memcmp(wc.J, wg.J, s * s * s * sizeof(uint64_t))) {
		fprintf(stderr, "FAIL: gfec_weights_enumerate: GPU and CPU differ at t=16\n");
		failures++;
	} else {
		printf("ok gfec_weights_enumerate GPU = CPU at t=16\n");
	}
	gfec_weights_free(&wc);
	gfec_weights_free(&wg);
}

int main(void)
{
	int devices = 0;
	if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
		fprintf(stderr, "# no usable GPU: skipped\n");
		return 77;
	}
	struct gfec_cpu_pool *pool;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (gfec_cpu_pool_create(cpus > 0 && cpus < 256 ? (int)cpus : 1, &pool)) {
		fprintf(stderr, "cannot start the CPU pool\n");
		return 1;
	}
	random_codes(pool);
	bch_subcodes(pool);
	gfec_cpu_pool_destroy(pool);
	enumerate_gpu();
	printf("%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
