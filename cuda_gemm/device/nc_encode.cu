// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file nc_encode.cu
 * The seeded network-coding encode on the GPU (gfec_gpu_nc_encode): the host side of
 * nc_encode.cuh's two launches. One upload (the source and output pointers), the fragments drawn
 * on the device, one GEMM launch for every tile and segment, one synchronisation.
 *
 * The shape: the first of kShapes whose two stage buffers and the fragments of at least 8 rows fit
 * the device's shared memory, with R = the most rows that fit, at most kMaxTileRows. At n = 128,
 * 64 rows take 64 KiB of fragments + 18 KiB of stages with w8_n4_p2: two blocks per SM. Measured
 * on the H200 (perf/results/nvidia-h200/gpuenc-2026-11-24/): w8_n4_p2 as here, 214 GB/s at
 * n = 128, B = 4 KiB; a version with three stage buffers and one barrier per unit ran 200-205 GB/s
 * there with w8_n4_p2 and w4_n8_p1 (8 N-tiles per warp: half the A-fragment reads per MMA) alike,
 * and lost a quarter at n = 512 (fewer rows per tile beside the third buffer): not kept.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <stdint.h>
#include <vector>

#include "gfec_gpu_nc.h"
#include "nc.h"
#include "nc_encode.h"
#include "stream_scratch.h"
#include "../kernel/nc_encode.cuh"

namespace gfec {
namespace {

constexpr int kMaxTileRows = 64;

struct EncShape {
	const char *name;
	int P, threads;
	const void *fn;
};

// Preferred first; the last, with the smallest stage buffers, for the widest n.
const EncShape kShapes[] = {
	{ "w8_n4_p2", 64, 256, (const void *)nc_encode_bmma<8, 4, 2> },
	{ "w4_n4_p1", 32, 128, (const void *)nc_encode_bmma<4, 4, 1> },
};
constexpr int kNumShapes = sizeof(kShapes) / sizeof(kShapes[0]);

// Whether shape c fits n; then *rows = its tile rows.
bool fits(const EncShape &c, const cudaDeviceProp &prop, int n, int *rows)
{
	const size_t stage = 2 * bmma_stage_bytes(n, c.P);
	const size_t frag = nc_tile_frags(8, n) * 16;

	if (stage + frag > prop.sharedMemPerBlockOptin)
		return false;
	const size_t nsub = (prop.sharedMemPerBlockOptin - stage) / frag;

	*rows = nsub * 8 < (size_t)kMaxTileRows ? (int)nsub * 8 : kMaxTileRows;
	return true;
}

const EncShape *pick(const cudaDeviceProp &prop, int shape, int n, int *rows)
{
	if (shape >= 0)
		return shape < kNumShapes && fits(kShapes[shape], prop, n, rows) ? &kShapes[shape]
										 : nullptr;
	for (const EncShape &c : kShapes)
		if (fits(c, prop, n, rows))
			return &c;
	return nullptr;
}

} // namespace

int nc_encode_shapes()
{
	return kNumShapes;
}

const char *nc_encode_shape_name(int i)
{
	return i >= 0 && i < kNumShapes ? kShapes[i].name : nullptr;
}

int nc_encode(void *ctx, int shape, uint32_t n, size_t B, int zero_ok, uint32_t seed0,
	      uint32_t count, int nseg, const uint8_t *const *segs, uint8_t *const *out)
{
	if (!ctx || !segs || !out || n < 1 || n > 1u << 20 || B < 1 || count < 1 || nseg < 1 ||
	    (uint64_t)seed0 + count - 1 > UINT32_MAX)
		return GFEC_E_INVAL;
	const CtxView v = ctx_view(ctx);
	std::lock_guard<std::mutex> g(*v.lock);
	int R;
	const EncShape *c = pick(*v.prop, shape, (int)n, &R);

	if (v.fault)
		return GFEC_E_DEVICE;
	if (!c || !ctx_is_device(segs[0]) || !ctx_is_device(out[0]))
		return GFEC_E_NOTSUP;
	if (cudaSetDevice(v.dev) != cudaSuccess)
		return stream_fail(v.stream);

	// Every segment's n source blocks, then the outputs as given (segment-major).
	const size_t nsrc = (size_t)nseg * n, nout = (size_t)nseg * count;
	std::vector<const uint8_t *> ptrs(nsrc + nout);
	int vec = B % 16 == 0;

	for (size_t s = 0; s < (size_t)nseg; s++)
		for (size_t j = 0; j < n; j++)
			ptrs[s * n + j] = segs[s] + j * B;
	for (size_t i = 0; i < nout; i++)
		ptrs[nsrc + i] = out[i];
	for (size_t i = 0; i < ptrs.size() && vec; i++)
		vec = (uintptr_t)ptrs[i] % 16 == 0;

	const uint32_t ntiles = (count + R - 1) / R;
	const size_t tile_frags = nc_tile_frags(R, (int)n), P = (size_t)c->P;
	const size_t smem = nc_encode_smem(R, (int)n, c->P);
	const uint8_t **d_ptrs = nullptr;
	uint4 *d_frags = nullptr;
	int per_sm = 0;
	cudaStream_t st = v.stream;
	StreamScratch sc{ st, {} };

	if (sc.alloc(&d_ptrs, ptrs.size() * sizeof(void *)) != cudaSuccess ||
	    cudaMemcpyAsync(d_ptrs, ptrs.data(), ptrs.size() * sizeof(void *),
			    cudaMemcpyHostToDevice, st) != cudaSuccess ||
	    sc.alloc(&d_frags, tile_frags * ntiles * 16) != cudaSuccess)
		return stream_fail(st);
	nc_seed_frags<<<(unsigned)std::min<size_t>((tile_frags * ntiles + 255) / 256, 65536), 256, 0,
			st>>>(d_frags, (int)n, count, R, seed0, zero_ok, tile_frags, ntiles);

	NcEncArgs a{};

	a.g.src = d_ptrs;
	a.g.cols = (int)n;
	a.g.lda = (int)n;
	a.g.rows = R;
	a.g.len = B;
	a.g.units = (B + 15) / 16;
	a.g.vec = vec;
	a.g.nstripes = nseg;
	a.dst = (uint8_t *const *)(d_ptrs + nsrc);
	a.frags = d_frags;
	a.tile_frags = tile_frags;
	a.units = (size_t)ntiles * nseg * ((B + P - 1) / P);
	a.count = count;
	a.R = R;
	if (cudaGetLastError() != cudaSuccess ||
	    cudaFuncSetAttribute(c->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
				 (int)v.prop->sharedMemPerBlockOptin) != cudaSuccess ||
	    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, c->fn, c->threads, smem) !=
		    cudaSuccess)
		return stream_fail(st);
	const size_t full = (size_t)std::max(per_sm, 1) * v.prop->multiProcessorCount;
	void *params[] = { &a };

	if (cudaLaunchKernel(c->fn, dim3((unsigned)std::min(a.units, full)), dim3(c->threads),
			     params, smem, st) != cudaSuccess ||
	    cudaGetLastError() != cudaSuccess || cudaStreamSynchronize(st) != cudaSuccess)
		return stream_fail(st);
	return 0;
}

} // namespace gfec

extern "C" int gfec_gpu_nc_encode(void *ctx, uint32_t n, size_t B, int zero_ok, uint32_t seed0,
				  uint32_t count, int nseg, const uint8_t *const *segs,
				  uint8_t *const *out)
{
	return gfec::nc_encode(ctx, -1, n, B, zero_ok, seed0, count, nseg, segs, out);
}
