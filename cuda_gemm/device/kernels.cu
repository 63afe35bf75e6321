// SPDX-License-Identifier: BSD-3-Clause
/** @file kernels.cu  The instantiation list, table builders and launch of every GEMM kernel. */
#include "kernels.h"

#include <stdio.h>
#include <string.h>

#include "../kernel/gemm_nibble.cuh"
#include "../kernel/gemm_seed.cuh"
#include "gemm.h"
#include "gf8.h"

namespace gfec {

#define NIBBLE(rg, t) { "nibble_rg" #rg "_t" #t, KernelKind::Nibble, rg, t, (const void *)gf_gemm_nibble<rg, t> }
#define SEED(t) { "seed_t" #t, KernelKind::Seed, t, t * t, (const void *)gf_gemm_seed<t> }

// The compiled shapes. Adding one here is all it takes to make it selectable by name.
static const KernelInfo kKernels[] = {
	NIBBLE(1, 128), NIBBLE(1, 256), NIBBLE(1, 512),
	NIBBLE(2, 128), NIBBLE(2, 256), NIBBLE(2, 512),
	NIBBLE(3, 256), NIBBLE(4, 256),
	SEED(8), SEED(16), SEED(32),
};

#undef NIBBLE
#undef SEED

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

int kernel_can_implement(const KernelInfo *k, int rows, int cols, size_t smem_optin)
{
	if (rows < 1 || cols < 1 || rows > 255 || cols > 255)
		return GFEC_E_NOTSUP;
	if (k->kind == KernelKind::Nibble) {
		if (row_groups(rows) > k->tile || cols * k->tile > kNibbleMaxTables ||
		    kernel_smem(k, rows, cols) > smem_optin)
			return GFEC_E_NOTSUP;
	}
	return 0;
}

const KernelInfo *kernel_default(int rows, int cols)
{
	const int rg = row_groups(rows);

	for (const KernelInfo &k : kKernels)
		if (k.kind == KernelKind::Nibble && k.tile == rg && k.threads == 256 &&
		    cols * rg <= kNibbleMaxTables)
			return &k;
	return kernel_find("seed_t16");
}

size_t kernel_smem(const KernelInfo *k, int rows, int cols)
{
	(void)rows;
	return k->kind == KernelKind::Nibble ? (size_t)cols * k->tile * kNibbleTableBytes : 0;
}

size_t kernel_table_words(const KernelInfo *k, int rows, int cols)
{
	(void)rows;
	return k->kind == KernelKind::Nibble ? (size_t)cols * k->tile * 32 : 0;
}

void kernel_build_tables(const KernelInfo *k, const uint8_t *a, int rows, int cols,
			 uint32_t *out)
{
	if (k->kind != KernelKind::Nibble)
		return;
	gfec_gf8_init();
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

cudaError_t kernel_grid(const KernelInfo *k, const GemmArgs &args, size_t smem, int sm_count,
			int *grid)
{
	int per_sm = 0;
	cudaError_t err;

	if (smem > 48 * 1024) {
		err = cudaFuncSetAttribute(k->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
					   (int)smem);
		if (err != cudaSuccess)
			return err;
	}
	err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k->fn, k->threads, smem);
	if (err != cudaSuccess)
		return err;
	if (per_sm < 1)
		per_sm = 1;
	// Work items: a seed block takes T words of one stripe, a nibble thread one 16-byte unit.
	size_t need;

	if (k->kind == KernelKind::Seed) {
		const size_t words = (args.len + 3) / 4;

		need = (size_t)args.nstripes * ((words + k->tile - 1) / k->tile);
	} else {
		need = ((size_t)args.nstripes * args.units + k->threads - 1) / k->threads;
	}
	size_t full = (size_t)per_sm * (size_t)sm_count;

	*grid = (int)(need < full ? (need ? need : 1) : full);
	return cudaSuccess;
}

cudaError_t kernel_launch(const KernelInfo *k, const GemmArgs &args, int grid, size_t smem,
			  const uint8_t *logexp, cudaStream_t stream)
{
	switch (k->kind) {
	case KernelKind::Nibble: {
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

void kernel_logexp(uint8_t out[768])
{
	gfec_gf8_init();
	memcpy(out, gfec_gf8_tab.log, 256);
	memcpy(out + 256, gfec_gf8_tab.exp, 512);
}

} // namespace gfec
