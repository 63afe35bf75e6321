/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file cpu_backend.h
 * The CPU backend: ISA-L's ec_init_tables/ec_encode_data/ec_encode_data_update, threaded over
 * slices of the buffers, with a portable plain-C twin (the "_base" path) that the tests use as
 * the reference and that GFEC_CPU_PATH=base (or the backend conf) can force.
 */
#ifndef GFEC_CPU_BACKEND_H
#define GFEC_CPU_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest rows or cols of a matrix the CPU backend runs (a codec has k, m < 256). */
#define GFEC_MAX_CHUNKS_CPU 256

/** The CPU backend's table of operations (every entry is implemented). */
const struct gfec_backend_ops *gfec_cpu_backend(void);

/**
 * Reference GF(2^8) product, one byte at a time through the product table:
 * dst[i][b] = sum_j a[i*cols+j] * src[j][b]. No alignment requirement, any len.
 */
void gfec_cpu_gemm_base(size_t len, int cols, int rows, const uint8_t *a,
			const uint8_t *const *src, uint8_t *const *dst);

/**
 * Reference CRS product (gfec_gemm_matrix.packetsize = P): @p bits is the 8rows x 8cols bitmatrix
 * (one 0/1 byte per bit, gfec_matrix_to_bitmatrix's layout); len is a multiple of 8 * P. With
 * @p col >= 0 only that input column is applied and the result is XORed into dst (the update);
 * src then has one entry. Works on 64-bit words; no alignment requirement.
 */
void gfec_cpu_bitmatrix_base(size_t len, int cols, int rows, int col, const uint8_t *bits,
			     size_t packetsize, const uint8_t *const *src, uint8_t *const *dst);

/** Reference update: dst[i][b] ^= a[i*cols+col] * src[b] for every row i. */
void gfec_cpu_update_base(size_t len, int cols, int rows, int col, const uint8_t *a,
			  const uint8_t *src, uint8_t *const *dst);

#ifdef __cplusplus
}
#endif
#endif
