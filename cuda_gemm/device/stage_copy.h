/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file stage_copy.h
 * The GPU backend's staging copies of pageable chunks (issue 17): plain C, no CUDA, so that CI
 * tests it on any host (tests/cuda_gemm/test_stage_copy.c) and gfec-perf's daemon measures the
 * staging path's bound with the same copies (perf_daemon.c: daemon_stage).
 *
 * A pageable stripe reaches the GPU only through the CPU: its chunks are copied into pinned
 * memory (a stage) and its outputs copied back. memcpy does one chunk after the other, and one
 * core reads one stream from DRAM at about half the rate it reads ten at once, as the encode
 * kernels read their sources. These copies go through all the chunks at once, 256 bytes of each
 * in turn, the sources prefetched 1 KiB ahead; chunks of GFEC_STAGE_STREAM_MIN bytes or more go
 * back into the caller's buffers by non-temporal stores. On the development Xeon (2 vCPUs), ten
 * 64 KiB chunks into a stage and four back from cold buffers ran at 7.4 GB/s of data a core by
 * memcpy, 12.1 so with AVX-512 and 11.4 with SSE2, 1.5-1.65x memcpy from 1 and 2 threads and
 * 64 KiB to 1 MiB chunks (gfec-stage-copy-bench;
 * perf/results/dev-xeon-2core/stage-copy-2026-11-26).
 */
#ifndef GFEC_CUDA_GEMM_STAGE_COPY_H
#define GFEC_CUDA_GEMM_STAGE_COPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Copies back into a caller's buffers of at least this many bytes a chunk go by non-temporal
 * stores (the CPU path's cpu_stream_min on Intel); smaller ones stay in the cache for a caller
 * that reads them.
 */
#define GFEC_STAGE_STREAM_MIN ((size_t)64 << 10)

/** A stage: the pinned buffer a pageable stripe's piece (inputs and outputs) is copied into. */
#define GFEC_STAGE_BYTES ((size_t)1 << 20)

/** How the copies go: the best the CPU has (auto), or one way (tests, measurements). */
enum gfec_stage_path {
	GFEC_STAGE_AUTO = -1,
	GFEC_STAGE_MEMCPY = 0, /* memcpy, one chunk after the other */
	GFEC_STAGE_SSE2 = 1,   /* x86-64's baseline: 16-byte loads and stores */
	GFEC_STAGE_AVX512 = 2, /* 64-byte loads and stores */
};

/**
 * Copies @p len bytes from src[i] to dst[i] for each i < @p n, all the chunks at once; by
 * non-temporal stores where @p stream (then fenced: the stores are done when it returns).
 * Chunks may be at any address; none may overlap another or its source.
 */
void gfec_stage_copy(uint8_t *const *dst, const uint8_t *const *src, int n, size_t len, int stream);

/**
 * The same by @p path: 0, or -1 (nothing copied) where this CPU or build lacks it. AUTO is what
 * gfec_stage_copy() takes.
 */
int gfec_stage_copy_path(enum gfec_stage_path path, uint8_t *const *dst, const uint8_t *const *src,
			 int n, size_t len, int stream);

/**
 * A stripe's staging copies by @p path with no GPU work, as gfec-perf times them: @p n sources of
 * @p len bytes into @p stage (GFEC_STAGE_BYTES) a piece at a time, as many 256-byte units of each
 * as fit with @p m outputs beside them, and each piece's outputs copied from the stage into
 * @p dst. 0, or -1 (nothing copied) where this CPU or build lacks @p path.
 */
int gfec_stage_stripe(enum gfec_stage_path path, uint8_t *stage, const uint8_t *const *src, int n,
		      uint8_t *const *dst, int m, size_t len);

#ifdef __cplusplus
}
#endif

#endif
