// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file gemm16.cu
 * GF(2^16) plans and launches for the GPU backend (issue 13): the fragment table is expanded from
 * A on the device (one thread per 16 bytes), so even a 32 GiB table costs one A upload and a
 * few milliseconds, then every call runs gf16_gemm_bmma over it.
 */
#include "gemm16.h"

#include <new>

#include "../kernel/gemm16_bmma.cuh"
#include "gemm.h"

namespace gfec
{

// Block: 4 quads x 2 position subtiles of warps (16 rows x 128 positions), K-chunks of 4 k-steps
// (64 input symbols), a ring of 3 stages of 49 KiB. Measured on the H200 against 2 x 4 subtiles,
// 8 quads x 1, chunks of 2 and 8 k-steps, 2 and 4 stages, A by the bulk-copy engine and a
// producer warp (perf/results/nvidia-h200/gf16-gpu-2026-11-24h): this one was the fastest.
constexpr int kWR = 4, kWP = 2, kKC = 4, kStages = 3;
constexpr size_t kSmem =
    (size_t)kStages * ((size_t)kWR * kKC * kG16StepUint4 * 16 +
		       (size_t)kKC * kG16SymsPerStep * (2 * kG16WarpPositions * kWP + 16));
constexpr int kThreads = kWR * kWP * 32;
constexpr int kMaxDim = 65536; // GFEC_MAX_CHUNKS_GF16
// Split K: k-steps per launch (2048 sources): a 128-position data tile's slab is 512 KiB, so a
// group of ~24 position tiles shares half of an H200's 50 MB L2, and each row tile's fragment
// slab (1 MiB) is read from memory once per group instead of once per position tile.
constexpr int kSlabSteps = 128;

struct Gemm16Plan {
	int rows = 0, cols = 0, nks = 0, nsub = 0; // nsub: padded to kWR
	uint4 *d_frag = nullptr;
	int per_sm = 1;
};

size_t gemm16_table_bytes(int rows, int cols)
{
	return (size_t)g16_nsub_padded(rows, kWR) * g16_nks(cols) * kG16StepUint4 * 16;
}

int gemm16_can_implement(int rows, int cols, size_t packetsize, size_t device_mem)
{
	if (rows < 1 || cols < 1 || rows > kMaxDim || cols > kMaxDim || packetsize)
		return GFEC_E_NOTSUP;
	return gemm16_table_bytes(rows, cols) > device_mem / 4 * 3 ? GFEC_E_NOTSUP : 0;
}

void gemm16_plan_free(Gemm16Plan *p)
{
	if (!p)
		return;
	cudaFree(p->d_frag);
	delete p;
}

int gemm16_plan_create(int rows, int cols, const uint16_t *a, Gemm16Plan **out)
{
	const size_t abytes = (size_t)rows * cols * 2, tbytes = gemm16_table_bytes(rows, cols);
	Gemm16Plan *p = new (std::nothrow) Gemm16Plan;
	uint16_t *d_a = nullptr;
	size_t freeb = 0, totalb = 0;
	int ret = GFEC_E_DEVICE;

	if (!p)
		return GFEC_E_NOMEM;
	p->rows = rows, p->cols = cols, p->nks = g16_nks(cols),
	p->nsub = g16_nsub_padded(rows, kWR);
	if (cudaMemGetInfo(&freeb, &totalb) != cudaSuccess)
		goto fail;
	if (abytes + tbytes > freeb) {
		ret = GFEC_E_NOMEM;
		goto fail;
	}
	if (cudaFuncSetAttribute(gf16_gemm_bmma<kWR, kWP, kKC, kStages>,
				 cudaFuncAttributeMaxDynamicSharedMemorySize,
				 (int)kSmem) != cudaSuccess ||
	    cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		&p->per_sm, gf16_gemm_bmma<kWR, kWP, kKC, kStages>, kThreads, kSmem) != cudaSuccess)
		goto fail;
	p->per_sm = p->per_sm < 1 ? 1 : p->per_sm;
	if (cudaMalloc(&p->d_frag, tbytes) != cudaSuccess ||
	    cudaMalloc(&d_a, abytes) != cudaSuccess ||
	    cudaMemcpy(d_a, a, abytes, cudaMemcpyHostToDevice) != cudaSuccess)
		goto fail;
	{
		const size_t n = tbytes / 16;
		const size_t want = (n + 255) / 256;
		const int grid = (int)(want < 65536 ? want : 65536);

		g16_expand<<<grid, 256>>>(d_a, rows, cols, p->nks, n, p->d_frag);
	}
	if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
		goto fail;
	cudaFree(d_a);
	*out = p;
	return 0;
fail:
	cudaGetLastError();
	cudaFree(d_a);
	gemm16_plan_free(p);
	return ret;
}

cudaError_t gemm16_launch(const Gemm16Plan *p, int col, const uint8_t *const *d_src,
			  uint8_t *const *d_dst, int nstripes, size_t len, int vec, int sms,
			  size_t l2, cudaStream_t st)
{
	constexpr int PB = kG16WarpPositions * kWP;
	G16Args args{};

	args.src = d_src;
	args.dst = d_dst;
	args.sub_stride = (size_t)p->nks * kG16StepUint4;
	args.frag = p->d_frag + (col < 0 ? 0 : (size_t)(col / kG16SymsPerStep) * kG16StepUint4);
	args.nks = col < 0 ? p->nks : 1;
	args.cols = col < 0 ? p->cols : 1;
	args.col0 = col < 0 ? 0 : col % kG16SymsPerStep;
	args.rows = p->rows;
	args.nstripes = nstripes;
	args.len = len;
	args.vec = vec;
	args.nrt = p->nsub / kWR;
	args.npt = (len / 2 + PB - 1) / PB;
	// Position tiles per group: their data slabs (kSlabSteps k-steps each) take half the L2.
	const size_t slab =
	    (size_t)(args.nks < kSlabSteps ? args.nks : kSlabSteps) * kG16SymsPerStep * PB * 2;
	const size_t gmax = l2 / 2 / slab ? l2 / 2 / slab : 1;
	const size_t ng = (args.npt + gmax - 1) / gmax;

	args.gp = (args.npt + ng - 1) / ng;
	const size_t total = (size_t)nstripes * ng * args.nrt * args.gp;
	const size_t full = (size_t)p->per_sm * (size_t)sms;
	const int grid = (int)(total < full ? (total ? total : 1) : full);
	const int nks = args.nks;
	const uint4 *frag = args.frag;

	for (int ks0 = 0; ks0 < nks; ks0 += kSlabSteps) { // split K: one slab per launch
		args.frag = frag + (size_t)ks0 * kG16StepUint4;
		args.nks = nks - ks0 < kSlabSteps ? nks - ks0 : kSlabSteps;
		args.j0 = ks0 * kG16SymsPerStep;
		args.acc = col >= 0 || ks0 > 0;
		gf16_gemm_bmma<kWR, kWP, kKC, kStages><<<grid, kThreads, kSmem, st>>>(args);
		const cudaError_t e = cudaGetLastError();

		if (e != cudaSuccess)
			return e;
	}
	return cudaSuccess;
}

const char *gemm16_kernel_name()
{
	return "bmma16_ring_q4_p2_k4_s3";
}

} // namespace gfec
