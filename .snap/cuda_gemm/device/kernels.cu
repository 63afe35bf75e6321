// SPDX-License-Identifier: BSD-3-Clause
/** @file kernels.cu  The instantiation list, table builders and launch of every GEMM kernel. */
#include "kernels.h"

#include <stdio.h>
#include <string.h>

#include "../kernel/gemm_bitmatrix.cuh"
#include "../kernel/gemm_bmma.cuh"
#include "../kernel/gemm_nibble.cuh"
#include "../kernel/gemm_seed.cuh"
#include "gemm.h"
#include "gf8.h"

namespace gfec {

#define NIBBLE(rg, t) { "nibble_rg" #rg "_t" #t, KernelKind::Nibble, rg, t, (const void *)gf_gemm_nibble<rg, t>, \
			(const void *)gf_gemm_nibble_inline<rg, t>, nullptr, \
			(const void *)gf_gemm_nibble_stride<rg, t> }
#define SMALL(rg) { "nibble_small_rg" #rg, KernelKind::NibbleSmall, rg, kSmallThreads, \
		    (const void *)gf_gemm_nibble_small<rg>, \
		    (const void *)gf_gemm_nibble_small_inline<rg, kInlinePtrs>, \
		    (const void *)gf_gemm_nibble_small_inline<rg, kInlineSmallPtrs>, \
		    (const void *)gf_gemm_nibble_small_stride<rg> }
#define SEED(t) { "seed_t" #t, KernelKind::Seed, t, t * t, (const void *)gf_gemm_seed<t>, nullptr, nullptr, nullptr }
#define BMMA(w, nn, pt) { "bmma_w" #w "_n" #nn "_p" #pt, KernelKind::Bmma, 8 * nn * pt, 32 * w, (const void *)gf_gemm_bmma<w, nn, pt>, nullptr, nullptr, nullptr }
#define BITMATRIX(t, w) { "bitmatrix_t" #t "_w" #w, KernelKind::Bitmatrix, w, t, (const void *)gf_gemm_bitmatrix<t, w>, nullptr, nullptr, nullptr }

// The compiled shapes. Adding one here is all it takes to make it selectable by name.
static const KernelInfo kKernels[] = {
	NIBBLE(1, 128), NIBBLE(1, 256), NIBBLE(1, 512),
	NIBBLE(2, 128), NIBBLE(2, 256), NIBBLE(2, 512),
	NIBBLE(3, 256), NIBBLE(4, 256),
	SMALL(1), SMALL(2),
	SEED(8), SEED(16), SEED(32),
	BMMA(4, 8, 1), BMMA(4, 4, 1), BMMA(8, 4, 2),
	BITMATRIX(64, 16), BITMATRIX(128, 8), BITMATRIX(128, 16),
};

#undef NIBBLE
#undef SMALL
#undef SEED
#undef BMMA
#undef BITMATRIX

static constexpr int kNumKernels = sizeof(kKernels) / sizeof(kKernels[0]);

const KernelInfo *kernel_list(int *n)
{
	*n = kNumKernels;
	return kKernels;
}

const KernelInfo *kernel_find(const char *name)
{
	for (const KernelInfo &k : kKernels)
		if (strcmp(k.name, name) == 0)
			return &k;
	return nullptr;
}

const char *kernel_names()
{
	static char names[512];

	if (!names[0]) {
		size_t used = 0;

		for (const KernelInfo &k : kKernels)
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
						 used ? ", " : "", k.name);
	}
	return names;
}

static int row_groups(int rows)
{
	return (rows + 3) / 4;
}

/* The bitmatrix kernel's lists: rowptr[8 rows + 1] and at most 64 rows cols entries. */
static size_t list_words(int rows, int cols)
{
	return (size_t)8 * rows + 1 + (size_t)64 * rows * cols;
}

int kernel_can_implement(const KernelInfo *k, const Shape &sh, size_t smem_optin)
{
	if (sh.rows < 1 || sh.cols < 1 || sh.rows > 255 || sh.cols > 255)
		return GFEC_E_NOTSUP;
	if ((k->kind == KernelKind::Bitmatrix) != (sh.packetsize > 0))
		return GFEC_E_NOTSUP;
	if (k->kind == KernelKind::Bitmatrix && sh.packetsize % k->tile)
		return GFEC_E_NOTSUP;
	if (k->kind == KernelKind::Nibble &&
	    (row_groups(sh.rows) > k->tile || sh.cols * k->tile > kNibbleMaxTables))
		return GFEC_E_NOTSUP;
	if (k->kind == KernelKind::NibbleSmall &&
	    (row_groups(sh.rows) > k->tile || sh.cols > kSmallMaxCols))
		return GFEC_E_NOTSUP;
	return kernel_smem(k, sh) > smem_optin ? GFEC_E_NOTSUP : 0;
}

const KernelInfo *kernel_default(const Shape &sh, size_t smem_optin)
{
	// Measured on the H200 (perf/results/nvidia-h200/): 512 threads lead the nibble kernel
	// (RS(10,4): 0.91x the XOR bound, against 0.86x for 256), bmma_w8_n4_p2 the big shapes,
	// bitmatrix_t128_w8 the CRS ones (run c). Packet sizes that only divide by 8 take w8.
	static const char *const order[] = {
		"bitmatrix_t128_w8", "bitmatrix_t64_w16", "nibble_rg1_t512", "nibble_rg2_t512",
		"nibble_rg3_t256",   "nibble_rg4_t256",	  "bmma_w8_n4_p2",   "bmma_w4_n4_p1",
		"seed_t16",
	};

	for (const char *name : order) {
		const KernelInfo *k = kernel_find(name);

		if (k && !kernel_can_implement(k, sh, smem_optin))
			return k;
	}
	return nullptr;
}

size_t kernel_smem(const KernelInfo *k, const Shape &sh)
{
	switch (k->kind) {
	case KernelKind::Bmma:
		return bmma_smem_bytes(sh.rows, sh.cols, k->tile);
	case KernelKind::Nibble:
		return (size_t)sh.cols * k->tile * kNibbleTableBytes;
	case KernelKind::Bitmatrix:
		return bitmatrix_list_bytes(sh.rows, list_words(sh.rows, sh.cols) - 8 * sh.rows - 1) +
		       (size_t)8 * sh.cols * k->threads * k->tile;
	case KernelKind::Seed:
	case KernelKind::NibbleSmall: // no shared memory
		break;
	}
	return 0;
}

size_t kernel_table_words(const KernelInfo *k, const Shape &sh)
{
	switch (k->kind) {
	case KernelKind::Bmma: // column-major: column col alone is at col * words(rows, 1)
		return bmma_table_words(sh.rows, sh.cols);
	case KernelKind::Nibble:
	case KernelKind::NibbleSmall: // the same compact tables
		return (size_t)sh.cols * k->tile * 32;
	case KernelKind::Bitmatrix: // the whole matrix's lists, then one list set per column
		return list_words(sh.rows, sh.cols) + (size_t)sh.cols * list_words(sh.rows, 1);
	case KernelKind::Seed:
		break;
	}
	return 0;
}

size_t kernel_column_tables(const KernelInfo *k, const Shape &sh, int col)
{
	const Shape one = { sh.rows, 1, sh.packetsize };

	if (k->kind == KernelKind::Bitmatrix)
		return list_words(sh.rows, sh.cols) + (size_t)col * list_words(sh.rows, 1);
	return (size_t)col * kernel_table_words(k, one);
}

/* Row lists of the bitmatrix of A's columns [j0, j1): entry q = 8 (j - j0) + x. */
static void bitmatrix_lists(const uint8_t *a, int rows, int cols, int j0, int j1, uint32_t *out)
{
	uint32_t *rowptr = out, *ent = out + 8 * rows + 1;
	uint32_t n = 0;

	for (int i = 0; i < rows; i++)
		for (int l = 0; l < 8; l++) {
			rowptr[i * 8 + l] = n;
			for (int j = j0; j < j1; j++) {
				uint8_t e = a[i * cols + j];

				for (int x = 0; x < 8; x++) {
					if ((e >> l) & 1)
						ent[n++] = (uint32_t)(8 * (j - j0) + x);
					e = gfec_gf8_mul(e, 2);
				}
			}
		}
	rowptr[8 * rows] = n;
}

void kernel_build_tables(const KernelInfo *k, const Shape &sh, const uint8_t *a, uint32_t *out)
{
	const int rows = sh.rows, cols = sh.cols;

	gfec_gf8_init();
	if (k->kind == KernelKind::Bmma) {
		bmma_build_table(a, cols, rows, cols, gfec_gf8_tab.mul, out);
		return;
	}
	if (k->kind == KernelKind::Bitmatrix) {
		bitmatrix_lists(a, rows, cols, 0, cols, out);
		for (int j = 0; j < cols; j++)
			bitmatrix_lists(a, rows, cols, j, j + 1,
					out + kernel_column_tables(k, sh, j));
		return;
	}
	if (k->kind != KernelKind::Nibble && k->kind != KernelKind::NibbleSmall)
		return;
	for (int j = 0; j < cols; j++)
		for (int g = 0; g < k->tile; g++)
			for (int half = 0; half < 2; half++)
				for (int n = 0; n < 16; n++) {
					const uint8_t x = (uint8_t)(half ? n << 4 : n);
					uint32_t w = 0;

					for (int r = 0; r < 4; r++) {
						const int row = 4 * g + r;

						if (row < rows)
							w |= (uint32_t)gfec_gf8_mul(a[row * cols + j], x)
							     << (8 * r);
					}
					out[(j * k->tile + g) * 32 + half * 16 + n] = w;
				}
}

cudaError_t kernel_occupancy(const KernelInfo *k, size_t smem, int *per_sm)
{
	cudaError_t err;

	if (smem > 48 * 1024) {
		err = cudaFuncSetAttribute(k->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
					   (int)smem);
		if (err == cudaSuccess && k->fn_inline)
			err = cudaFuncSetAttribute(k->fn_inline,
						   cudaFuncAttributeMaxDynamicSharedMemorySize,
						   (int)smem);
		if (err == cudaSuccess && k->fn_stride)
			err = cudaFuncSetAttribute(k->fn_stride,
						   cudaFuncAttributeMaxDynamicSharedMemorySize,
						   (int)smem);
		if (err != cudaSuccess)
			return err;
	}
	err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, k->fn, k->threads, smem);
	if (err == cudaSuccess && *per_sm < 1)
		*per_sm = 1;
	return err;
}

int kernel_grid(const KernelInfo *k, const GemmArgs &args, int per_sm, int sm_count)
{
	// Work items: a seed block takes T words of one stripe, a nibble thread one 16-byte unit.
	size_t need;

	if (k->kind == KernelKind::Seed) {
		const size_t words = (args.len + 3) / 4;

		need = (size_t)args.nstripes * ((words + k->tile - 1) / k->tile);
	} else if (k->kind == KernelKind::Bmma) {
		// One block per (stripe, P positions) item.
		need = (size_t)args.nstripes * ((args.len + k->tile - 1) / k->tile);
	} else if (k->kind == KernelKind::Bitmatrix) {
		// One block per (stripe, CRS block, tile of words) item.
		const size_t words = args.packetsize / k->tile;

		need = (size_t)args.nstripes * (args.len / (8 * args.packetsize)) *
		       ((words + k->threads - 1) / k->threads);
	} else { // nibble, nibble_small: one 16-byte unit per thread
		need = ((size_t)args.nstripes * args.units + k->threads - 1) / k->threads;
	}
	const size_t full = (size_t)per_sm * (size_t)sm_count;

	return (int)(need < full ? (need ? need : 1) : full);
}

cudaError_t kernel_launch(const KernelInfo *k, const GemmArgs &args, int grid, size_t smem,
			  const uint8_t *logexp, cudaStream_t stream)
{
	switch (k->kind) {
	case KernelKind::Nibble:
	case KernelKind::NibbleSmall:
	case KernelKind::Bmma:
	case KernelKind::Bitmatrix: {
		void *params[] = { (void *)&args };

		return cudaLaunchKernel(k->fn, dim3(grid), dim3(k->threads), params, smem, stream);
	}
	case KernelKind::Seed: {
		void *params[] = { (void *)&args, (void *)&logexp };

		return cudaLaunchKernel(k->fn, dim3(grid), dim3(k->tile, k->tile), params, 0,
					stream);
	}
	}
	return cudaErrorInvalidValue;
}

cudaError_t kernel_launch_inline(const KernelInfo *k, const GemmArgs &args,
				 const uint8_t *const *src, size_t nsrc, uint8_t *const *dst,
				 size_t ndst, int grid, size_t smem, cudaStream_t stream)
{
	if (k->fn_inline_small && nsrc + ndst <= (size_t)kInlineSmallPtrs) {
		GemmArgsInlineN<kInlineSmallPtrs> p;
		void *params[] = { (void *)&p };

		p.args = args;
		p.args.src = nullptr;
		p.args.dst = nullptr;
		memcpy(p.ptrs, src, nsrc * sizeof(void *));
		memcpy(p.ptrs + nsrc, dst, ndst * sizeof(void *));
		return cudaLaunchKernel(k->fn_inline_small, dim3(grid), dim3(k->threads), params,
					smem, stream);
	}
	GemmArgsInline p;
	void *params[] = { (void *)&p };

	if (!k->fn_inline || nsrc + ndst > (size_t)kInlinePtrs)
		return cudaErrorInvalidValue;
	p.args = args;
	p.args.src = nullptr;
	p.args.dst = nullptr;
	memcpy(p.ptrs, src, nsrc * sizeof(void *));
	memcpy(p.ptrs + nsrc, dst, ndst * sizeof(void *));
	return cudaLaunchKernel(k->fn_inline, dim3(grid), dim3(k->threads), params, smem, stream);
}

cudaError_t kernel_launch_stride(const KernelInfo *k, const GemmArgs &args,
				 const uint8_t *const *src, ptrdiff_t src_step, uint8_t *const *dst,
				 ptrdiff_t dst_step, int grid, size_t smem, cudaStream_t stream)
{
	GemmArgsStride p;
	void *params[] = { (void *)&p };

	if (!k->fn_stride || args.cols + args.rows > kStridePtrs)
		return cudaErrorInvalidValue;
	p.args = args;
	p.args.src = nullptr;
	p.args.dst = nullptr;
	p.src_step = src_step;
	p.dst_step = dst_step;
	memcpy(p.ptrs, src, (size_t)args.cols * sizeof(void *));
	memcpy(p.ptrs + args.cols, dst, (size_t)args.rows * sizeof(void *));
	return cudaLaunchKernel(k->fn_stride, dim3(grid), dim3(k->threads), params, smem, stream);
}

void kernel_logexp(uint8_t out[768])
{
	gfec_gf8_init();
	memcpy(out, gfec_gf8_tab.log, 256);
	memcpy(out + 256, gfec_gf8_tab.exp, 512);
}

} // namespace gfec
