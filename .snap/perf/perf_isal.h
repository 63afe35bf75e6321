/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_isal.h
 * Raw ISA-L, the baseline gfec's CPU path is measured against, defined once: the ceilings of
 * `gfec-perf` and the side-by-side runs of `gfec-perf isal` both use this pool.
 *
 * "Raw ISA-L on T threads": ec_init_tables() once, then per stripe ec_encode_data() on T threads
 * (T - 1 persistent pthreads plus the caller), each on one contiguous 64-byte-aligned range of
 * the chunk length; one barrier starts a stripe and one ends it. That is the work one
 * gfec_encode() call on T threads does, with nothing of gfec in between.
 */
#ifndef GFEC_PERF_ISAL_H
#define GFEC_PERF_ISAL_H

#include <stddef.h>
#include <stdint.h>

/** The two ISA-L entry points timed: the linked ones, or another libisal.so.2's. */
struct perf_isal_api {
	void (*init_tables)(int k, int rows, unsigned char *a, unsigned char *gftbls);
	void (*encode)(int len, int k, int rows, unsigned char *gftbls, unsigned char **data,
		       unsigned char **coding);
	void *handle; /* dlopen handle; NULL for the linked ISA-L */
};

/** The ISA-L gfec links (Debian's). */
void perf_isal_linked(struct perf_isal_api *api);
/**
 * Another libisal.so.2 by path, loaded RTLD_LOCAL|RTLD_DEEPBIND so that its symbols resolve inside
 * it and not to the linked ISA-L. 0, or -1 with a one-line reason in @p err.
 */
int perf_isal_load(const char *path, struct perf_isal_api *api, char *err, size_t errlen);
void perf_isal_unload(struct perf_isal_api *api);

/**
 * Stripe sets of k data + m parity chunks (64-byte aligned, random data), enough of them to cover
 * @p min_bytes (and at least @p min_sets), taken in turn so that data comes from DRAM.
 * Set s, chunk i is ptr[s * (k + m) + i].
 */
struct perf_stripes {
	int k, m, nsets, next;
	size_t chunk, stride, bytes;
	uint8_t *mem;
	uint8_t **ptr;
};

int perf_stripes_alloc(struct perf_stripes *s, int k, int m, size_t chunk, size_t min_bytes,
		       int min_sets, uint64_t seed);
void perf_stripes_free(struct perf_stripes *s);
/** The next set in rotation (k data pointers, then m parity pointers). */
uint8_t **perf_stripes_next(struct perf_stripes *s);

struct perf_isal_pool;

/** Raw ISA-L RS(k,m) with gf_gen_cauchy1_matrix's matrix on @p threads threads. 0 or -1. */
int perf_isal_pool_create(struct perf_isal_pool **p, const struct perf_isal_api *api, int k, int m,
			  size_t len, int threads);
/** Encodes one stripe: set[0..k-1] data, set[k..k+m-1] parity, each pool->len bytes. */
void perf_isal_pool_encode(struct perf_isal_pool *p, uint8_t **set);
void perf_isal_pool_free(struct perf_isal_pool *p);

/**
 * What the ceilings measure with this pool: @p api's RS(s->k, s->m) on @p threads threads over the
 * stripe sets @p s; data GB/s, the best of three ~0.1 s runs, and their spread ((max - min) /
 * median) in @p spread. 0 if it could not run.
 */
double perf_isal_gbps(const struct perf_isal_api *api, struct perf_stripes *s, int threads,
		      double *spread);



/** `gfec-perf isal ...` (argv[0] is "isal"): gfec's CPU path against raw ISA-L. Exit status. */
int perf_isal_main(int argc, char **argv);

#endif
