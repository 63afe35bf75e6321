// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file kernels.h
 * The compiled GF GEMM kernels and how to launch them (CUTLASS's sequence: can_implement ->
 * workspace (tables) -> launch). C++ only; plugin/ sees none of this, only gfec_gpu.h.
 *
 * Every kernel instantiation has a name that carries its configuration ("nibble_rg1_t256",
 * "seed_t16"); the tile config file names kernels this way, and an unknown name is an error that
 * lists the compiled ones.
 */
#pragma once

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "../kernel/gemm_args.cuh"

namespace gfec {

enum class KernelKind { Seed, Nibble, Bmma, Bitmatrix, NibbleSmall };

/** What a kernel is asked to run: A's shape and the layout (packetsize > 0: CRS packets). */
struct Shape {
	int rows, cols;
	size_t packetsize;
};

struct KernelInfo {
	const char *name;
	KernelKind kind;
	int tile;    // seed: T (block T x T); nibble, nibble_small: row groups RG (4 rows each);
		     // bmma: positions per block tile P (8 * N-tiles per warp * subtiles);
		     // bitmatrix: bytes per word (16 or 8)
	int threads; // threads per block
	const void *fn;
	const void *fn_inline; // the same kernel taking GemmArgsInline, or nullptr (nibble only)
	const void *fn_inline_small; // the same with GemmArgsInlineN<kInlineSmallPtrs>, or nullptr
	const void *fn_stride; // the same taking GemmArgsStride (evenly spaced stripes), or nullptr
};

/** All compiled kernels, and their count. */
const KernelInfo *kernel_list(int *n);
/** The kernel of that name, or nullptr. */
const KernelInfo *kernel_find(const char *name);
/** Comma-separated names of every compiled kernel (static storage), for error messages. */
const char *kernel_names();
/**
 * The default kernel for a shape, from the measured runs in perf/results/: CRS packets go to the
 * bitmatrix kernel; byte symbols to the narrowest nibble kernel whose tables fit, else the binary
 * tensor-core kernel, else the seed one.
 */
const KernelInfo *kernel_default(const Shape &sh, size_t smem_optin);

/** 0 when @p k runs that shape on a device with @p smem_optin bytes of shared memory per block. */
int kernel_can_implement(const KernelInfo *k, const Shape &sh, size_t smem_optin);

/** Dynamic shared memory the kernel needs for that shape (an upper bound). */
size_t kernel_smem(const KernelInfo *k, const Shape &sh);

/** Words of the kernel's expanded tables for A, column slices included (0: takes none). */
size_t kernel_table_words(const KernelInfo *k, const Shape &sh);
/** Builds those tables on the host from A (rows x cols, row-major). */
void kernel_build_tables(const KernelInfo *k, const Shape &sh, const uint8_t *a, uint32_t *out);
/** Where the tables of column @p col alone start (for updates, run with cols = 1). */
size_t kernel_column_tables(const KernelInfo *k, const Shape &sh, int col);

/**
 * Blocks of @p k that fit on one multiprocessor with @p smem bytes of dynamic shared memory. Also
 * raises the kernel's shared-memory limit, so call it once per kernel and size, before launching.
 */
cudaError_t kernel_occupancy(const KernelInfo *k, size_t smem, int *per_sm);

/** Blocks for a persistent grid: all that fit at once, but no more than @p args' work needs. */
int kernel_grid(const KernelInfo *k, const GemmArgs &args, int per_sm, int sm_count);

/** Launches. @p logexp is the seed kernel's 768-byte log/exp table in device memory. */
cudaError_t kernel_launch(const KernelInfo *k, const GemmArgs &args, int grid, size_t smem,
			  const uint8_t *logexp, cudaStream_t stream);

/**
 * Launches @p k's inline variant (k->fn_inline must be set) with the pointer table in the launch
 * parameters: @p nsrc input pointers then @p ndst output pointers, nsrc + ndst <= kInlinePtrs
 * (the short variant, fn_inline_small, where they fit in kInlineSmallPtrs); args.src and
 * args.dst are not read.
 */
cudaError_t kernel_launch_inline(const KernelInfo *k, const GemmArgs &args,
				 const uint8_t *const *src, size_t nsrc, uint8_t *const *dst,
				 size_t ndst, int grid, size_t smem, cudaStream_t stream);

/**
 * Launches @p k's strided variant (k->fn_stride must be set) on evenly spaced stripes: the first
 * stripe's @p src (args.cols) and @p dst (args.rows) pointers, stripe s at @p src_step and
 * @p dst_step bytes times s from them (cols + rows <= kStridePtrs); args.src and args.dst are not
 * read.
 */
cudaError_t kernel_launch_stride(const KernelInfo *k, const GemmArgs &args,
				 const uint8_t *const *src, ptrdiff_t src_step, uint8_t *const *dst,
				 ptrdiff_t dst_step, int grid, size_t smem, cudaStream_t stream);

/** Host copy of the seed kernel's table: log[256] then exp[512]. */
void kernel_logexp(uint8_t out[768]);

} // namespace gfec
