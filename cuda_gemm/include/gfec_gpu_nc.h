/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_gpu_nc.h
 * Network coding (gfec_nc.h) on the GPU backend, for plugin/'s nc code: a seeded encode whose
 * coefficients are generated on the device (byte-identical to gfec_nc_prng_coef on the CPU), and
 * a batch decode that inverts many segments' coefficient matrices on the device (Gauss-Jordan,
 * one thread block per matrix, n up to 4096) and applies the inverses in batched binary
 * tensor-core GEMMs.
 *
 * @p ctx is a context made by gfec_gpu_backend()->init (gfec_gpu.h). Every payload buffer must be
 * device memory (cudaMalloc or managed); any size and alignment. A call runs alone on its device
 * (the backend's lock) and is synchronous. Every CUDA error, and gfec_backend_conf.fault, comes
 * back as GFEC_E_DEVICE: outputs are then unspecified and the caller redoes the call on the CPU,
 * which gives identical bytes.
 */
#ifndef GFEC_CUDA_GEMM_GFEC_GPU_NC_H
#define GFEC_CUDA_GEMM_GFEC_GPU_NC_H

#include <stddef.h>
#include <stdint.h>

#include "gfec/gfec_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * out[s * count + r] (B bytes) = sum_j c_rj * (block j of segs[s]), with c_rj =
 * gfec_nc_prng_coef(gfec_nc_prng_key(seed0 + r), j, zero_ok): the payloads of the seed-carrying
 * blocks seed0 .. seed0 + count - 1 of every segment. segs[s] holds n * B bytes (block j at
 * j * B). @returns 0; GFEC_E_INVAL (NULL, n < 1, B < 1, count < 1, nseg < 1, seed0 + count past
 * 2^32); GFEC_E_NOTSUP (a buffer is not device memory, or n too wide for one thread block's
 * shared memory); GFEC_E_DEVICE.
 */
int gfec_gpu_nc_encode(void *ctx, uint32_t n, size_t B, int zero_ok, uint32_t seed0,
		       uint32_t count, int nseg, const uint8_t *const *segs, uint8_t *const *out);

/** Largest n gfec_gpu_nc_decode_batch() runs on this context's device (0: none). */
int gfec_gpu_nc_max_decode_n(void *ctx);

/**
 * Batch decode of @p nseg segments: segment s received the n blocks in[s * n + r] (B bytes each,
 * device memory) with coefficient rows coefs + (s * n + r) * n (host or device memory: device
 * memory saves the upload, e.g. when the blocks' headers arrived on the GPU). When those rows are
 * independent, out[s * n + j] (B bytes) receives source block j and status[s] = 0; otherwise
 * status[s] = GFEC_E_TOOFEW and that segment's outputs are not touched.
 * @returns 0 when every segment decoded, GFEC_E_TOOFEW when some did not (see status);
 * GFEC_E_INVAL (NULL, n < 1, B < 1, nseg < 1); GFEC_E_NOTSUP (n > gfec_gpu_nc_max_decode_n, or
 * a buffer not in device memory); GFEC_E_NOMEM; GFEC_E_DEVICE.
 */
int gfec_gpu_nc_decode_batch(void *ctx, uint32_t n, size_t B, int nseg, const uint8_t *coefs,
			     const uint8_t *const *in, uint8_t *const *out, int *status);

/**
 * Batch decode of @p nseg segments from their blocks as received, headers and all: segment s's n
 * blocks are blocks[s * n + r], with lens[s * n + r] bytes readable at each (device memory; the
 * arrays are host memory). The device reads every header with nc_hdr.h's gfec_nc_hdr_parse
 * against (n, B, ids[s], zero_ok) and builds the coefficient rows itself, then decodes as
 * gfec_gpu_nc_decode_batch. status[s]: 0 and out[s * n + j] (B bytes) source block j; or
 * GFEC_E_TOOFEW (the rows are dependent) or GFEC_E_FORMAT (a block fails the header checks), and
 * that segment's outputs are not touched: the caller takes it on the CPU path, which tells the
 * exact error. @returns 0 when every segment decoded, GFEC_E_TOOFEW when some did not; else as
 * gfec_gpu_nc_decode_batch (GFEC_E_INVAL also for B >= 2^32).
 */
int gfec_gpu_nc_decode_blocks(void *ctx, uint32_t n, size_t B, int zero_ok, int nseg,
			      const uint64_t *ids, const uint8_t *const *blocks, const size_t *lens,
			      uint8_t *const *out, int *status);

/*
 * Memory for plugin/'s nc code (which includes no CUDA header): staging host buffers through the
 * device, and block headers into or out of device memory. Each holds the backend's lock, is
 * synchronous, and fails with GFEC_E_DEVICE under gfec_backend_conf.fault.
 */

/**
 * @p bytes of device memory on the context's device, from its stream-ordered pool: valid for the
 * calls below and the gfec_gpu_nc_* calls on the same context. 0 and *p; GFEC_E_NOMEM;
 * GFEC_E_DEVICE.
 */
int gfec_gpu_nc_alloc(void *ctx, size_t bytes, void **p);
/** Frees what gfec_gpu_nc_alloc() gave; NULL is accepted. */
void gfec_gpu_nc_free(void *ctx, void *p);
/** Copies @p bytes from @p src to @p dst, each host or device memory. 0 or GFEC_E_DEVICE. */
int gfec_gpu_nc_memcpy(void *ctx, void *dst, const void *src, size_t bytes);
/**
 * Copies @p height rows of @p width bytes, row r from src + r * spitch to dst + r * dpitch (each
 * host or device memory; pitches >= width): coded payloads into blocks that carry headers,
 * without a bounce buffer. 0 or GFEC_E_DEVICE.
 */
int gfec_gpu_nc_memcpy2d(void *ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
			 size_t width, size_t height);
/**
 * The headers of a seed-carrying encode's blocks, in one launch: block (s, j) (s < @p nseg,
 * j < @p count) gets the @p hlen bytes of template s (@p tmpl + s * hlen, host memory) with
 * seed0 + j, little-endian, in their 4 bytes at @p seed_off, at out + s * @p seg_stride + j *
 * @p stride (device memory). 0; GFEC_E_INVAL; GFEC_E_NOTSUP when out is not device memory;
 * GFEC_E_DEVICE.
 */
int gfec_gpu_nc_seed_headers(void *ctx, const uint8_t *tmpl, size_t hlen, size_t seed_off, int nseg,
			     uint32_t seed0, uint32_t count, uint8_t *out, size_t stride,
			     size_t seg_stride);
/**
 * Piece i: len[i] bytes from src[i] to dst[i], all device memory, in one launch (the arrays are
 * host memory). 0; GFEC_E_NOTSUP when src[0] or dst[0] is not device memory; GFEC_E_DEVICE.
 */
int gfec_gpu_nc_copy_pieces(void *ctx, size_t count, const uint8_t *const *src,
			    const size_t *len, uint8_t *const *dst);

#ifdef __cplusplus
}
#endif
#endif
