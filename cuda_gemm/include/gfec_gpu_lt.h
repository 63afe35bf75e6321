/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_gpu_lt.h
 * LT (fountain) codes on the GPU backend: the batched encoder (issue 14). Every coded block's
 * degree and neighbours are drawn on the device from its seed by gfmatrix/base/lt_dist.h's
 * functions, so its bytes equal gfmatrix/lt.c's gfec_lt_encode() for the same table and seed.
 *
 * @p ctx is a context made by gfec_gpu_backend()->init (gfec_gpu.h). The call runs alone on its
 * device (the backend's lock) and is synchronous. Every CUDA error, and gfec_backend_conf.fault,
 * comes back as GFEC_E_DEVICE: outputs are then unspecified and the caller redoes the call on the
 * CPU (gfec_lt_encode), which gives identical bytes.
 */
#ifndef GFEC_CUDA_GEMM_GFEC_GPU_LT_H
#define GFEC_CUDA_GEMM_GFEC_GPU_LT_H

#include <stddef.h>
#include <stdint.h>

#include "gfec/gfec_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Encodes the coded blocks with seeds @p seed0 .. @p seed0 + @p count - 1 of each of @p nseg
 * segments: block r of segment s (B bytes) goes to out + (s * count + r) * @p stride, and is the
 * XOR of the source blocks gfec_lt_block() names for seed0 + r (block j of segs[s] at j * B).
 *
 * @param cdf   the degree table of gfec_lt_dist_create(n, c, delta) (struct gfec_lt_dist's cdf),
 *              @p len entries (its len, n - 1), in host or device memory (device memory saves
 *              the upload of 4 * len bytes per call)
 * @param segs  @p nseg pointers (a host array) to n * B bytes of device memory each
 * @param out   device memory, (nseg * count - 1) * stride + B bytes; stride >= B
 *
 * Any B, alignment and stride. The vector path runs where B is a multiple of 16, the segments are
 * 16-byte aligned and out and stride are multiples of 4 (of 16: one store per 16 bytes, else
 * four); anything else takes the byte path. Scratch memory (264 bytes per 64 neighbours or part of
 * them of each coded block, and per segment B bytes per 64 neighbours past a block's first 64)
 * comes from the stream-ordered pool.
 *
 * @returns 0; GFEC_E_INVAL (NULL, n < 1 or > 65536, len >= n, B < 1, stride < B, count < 1,
 * nseg < 1, seed0 + count past 2^32, count * ceil(n / 64) past 2^31); GFEC_E_NOTSUP (a segment
 * or the output not in device memory); GFEC_E_DEVICE (a CUDA error, the scratch allocations
 * included).
 */
int gfec_gpu_lt_encode(void *ctx, uint32_t n, size_t B, const uint32_t *cdf, uint32_t len,
		       uint32_t seed0, uint32_t count, int nseg, const uint8_t *const *segs,
		       uint8_t *out, size_t stride);

#ifdef __cplusplus
}
#endif
#endif
