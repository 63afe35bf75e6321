/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file stride.h
 * Whether a batch's stripes are evenly spaced: plain C, no CUDA, so that CI tests it on any host
 * (tests/cuda_gemm/test_gpu_stride.c).
 *
 * A batch's pointer array holds one row of @p per pointers a stripe (src[s * cols + j]). When
 * every row is the row before it moved by one number of bytes, the step, the kernels need only
 * the first row and the step (gemm_args.cuh, GemmArgsStride): no table in device memory, no
 * upload. That is the layout of a batch cut from one allocation at one pitch.
 */
#ifndef GFEC_CUDA_GEMM_STRIDE_H
#define GFEC_CUDA_GEMM_STRIDE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * 1 when each row r of @p p (p[r * per] .. p[r * per + per - 1]) with max(@p r0, 1) <= r < @p r1
 * is row r - 1 moved by @p step bytes, pointer by pointer; else 0 (also when @p per is 0).
 * Addresses are compared as unsigned integers modulo 2^64, as the kernels form them. Reads every
 * pointer of those rows and the row before them, in blocks; a block that fails ends the pass.
 */
int gfec_gpu_rows_step(const void *const *p, size_t per, size_t r0, size_t r1, ptrdiff_t step);

/**
 * For rows 0 .. @p rows - 1 of @p p that gfec_gpu_rows_step has found evenly spaced by @p step:
 * 1 when none of their pointers is NULL, read off the first row alone (each column of pointers
 * an arithmetic run from there that stays inside 1 .. 2^64 - 1), else 0 (a NULL, or a run that
 * wraps around zero: then look at every pointer). @p rows >= 1.
 */
int gfec_gpu_rows_nonnull(const void *const *p, size_t per, size_t rows, ptrdiff_t step);

#ifdef __cplusplus
}
#endif
#endif
