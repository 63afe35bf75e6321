// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file nc_encode.cu
 * The seeded network-coding encode on the GPU (gfec_gpu_nc_encode): the host side of
 * nc_encode.cuh's two launches. The fragments (and, with evenly spaced outputs and at most
 * kInlineSegs segments, the source and output pointers) made on the device, so nothing is
 * uploaded; one GEMM launch for every tile and segment; one synchronisation. Also the launch of
 * the batch decode's GEMM (nc_gemm_ra_launch, nc.h).
 *
 * The shape: the first of kShapes that fits n. Up to n = 128 the fragments stay in registers
 * (nc_gemm_ra, one block of 8 warps per SM: ra_p512x2, two accumulator sets at 244 registers,
 * where two 64 KiB stages fit; else ra_p256 at 180); past that nc_encode_bmma with R = the most
 * rows whose fragments fit in shared memory beside two stage buffers, at most kMaxTileRows.
 * Measured on the H200 (perf/results/nvidia-h200/rlcpipe-2026-11-24/, n = 128, B = 4 KiB, 1024
 * blocks per segment, in one run): 32 segments per call ra_p512x2 283.3 GB/s, ra_p512 (one
 * accumulator set) 276.1, ra_p256 274.9, w8_n4_p2 231.4; 64 segments 305.0, 294.3, 288.9, 250.7.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <limits.h>
#include <mutex>
#include <stdint.h>
#include <vector>

#include "gfec_gpu_nc.h"
#include "nc.h"
#include "nc_encode.h"
#include "stream_scratch.h"
#include "../kernel/nc_encode.cuh"

namespace gfec {

// Segments whose bases travel in the launch parameters of nc_encode_prep (1 KiB of them): past
// that the call uploads its pointers from pageable memory, which at 64 segments of n = 128 and
// 1024 outputs (590 KB) cost a few percent of the call on the H200.
constexpr int kInlineSegs = 128;

/** The pointer arrays of a call with regular outputs (out[i] = out0 + i * ostride), built on the
 *  device from the segments' bases: nothing is uploaded. */
struct NcEncPtrs {
	const uint8_t *seg[kInlineSegs];
	uint8_t *out0;
	size_t ostride;
	size_t B;
	size_t nsrc, nout; // pointers to write: nsrc sources (n per segment), then nout outputs
	uint32_t n;
};

/**
 * One thread per uint4 of the ntiles tiles' seeded fragments (nc_seed_frag), then, with p.nsrc +
 * p.nout > 0, one per pointer: ptrs[s * n + j] = seg[s] + j * B, ptrs[nsrc + i] = out0 + i *
 * ostride.
 */
__global__ void nc_encode_prep(uint4 *frags, int n, uint32_t count, int R, uint32_t seed0,
			       int zero_ok, size_t tile_frags, uint32_t ntiles,
			       const uint8_t **ptrs, NcEncPtrs p)
{
	const size_t nfrag = tile_frags * ntiles, total = nfrag + p.nsrc + p.nout;

	for (size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x; w < total;
	     w += (size_t)gridDim.x * blockDim.x) {
		if (w < nfrag) {
			const uint32_t tile = (uint32_t)(w / tile_frags);
			const size_t i = w % tile_frags;

			uint32_t r[4];

			for (int k = 0; k < 4; k++)
				r[k] = nc_seed_frag(n, count, R, seed0, zero_ok, tile, i, k);
			frags[w] = make_uint4(r[0], r[1], r[2], r[3]);
		} else if (w - nfrag < p.nsrc) {
			const size_t k = w - nfrag;

			ptrs[k] = p.seg[k / p.n] + (k % p.n) * p.B;
		} else {
			const size_t i = w - nfrag - p.nsrc;

			ptrs[p.nsrc + i] = p.out0 + i * p.ostride;
		}
	}
}

namespace {

constexpr int kMaxTileRows = 64;

struct EncShape {
	const char *name;
	int P, threads;
	bool ra; // nc_gemm_ra (fn[KS - 1], n <= 128, kNcTileRows rows); else nc_encode_bmma (fn[0])
	const void *fn[4];
};

#define GFEC_NC_RA(P, PIPE)                                                                        \
	{ (const void *)nc_gemm_ra<1, P, PIPE>, (const void *)nc_gemm_ra<2, P, PIPE>,              \
	  (const void *)nc_gemm_ra<3, P, PIPE>, (const void *)nc_gemm_ra<4, P, PIPE> }

// Preferred first (ra_p256: where 130 KiB of stages do not fit); the last, with the smallest
// stage buffers, for the widest n.
const EncShape kShapes[] = {
	{ "ra_p512x2", 512, 256, true, GFEC_NC_RA(512, true) },
	{ "ra_p256", 256, 256, true, GFEC_NC_RA(256, false) },
	{ "w8_n4_p2", 64, 256, false, { (const void *)nc_encode_bmma<8, 4, 2> } },
	{ "w4_n4_p1", 32, 128, false, { (const void *)nc_encode_bmma<4, 4, 1> } },
};
constexpr int kNumShapes = sizeof(kShapes) / sizeof(kShapes[0]);

// Whether shape c fits n; then *rows = its tile rows.
bool fits(const EncShape &c, const cudaDeviceProp &prop, int n, int *rows)
{
	const size_t stage = 2 * bmma_stage_bytes(n, c.P);

	if (c.ra) {
		*rows = kNcTileRows;
		return n <= 4 * kBmmaChunksPerStep && stage <= prop.sharedMemPerBlockOptin;
	}
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

// Launches shape c over a (units filled in here), one persistent block per slot of the device.
cudaError_t launch(const EncShape &c, const cudaDeviceProp &prop, NcGemmArgs &a, cudaStream_t st)
{
	const int n = a.g.cols;
	const void *fn = c.ra ? c.fn[bmma_nks(n) - 1] : c.fn[0];
	const size_t smem = c.ra ? nc_gemm_ra_smem(n, c.P) : nc_encode_smem(a.R, n, c.P);
	const size_t nseg = (size_t)a.g.nstripes;
	int per_sm = 0;

	a.units = (size_t)a.ntiles * nseg * ((a.g.len + c.P - 1) / c.P);
	cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
					     (int)prop.sharedMemPerBlockOptin);

	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, c.threads, smem);
	if (e != cudaSuccess)
		return e;
	const size_t full = (size_t)std::max(per_sm, 1) * prop.multiProcessorCount;
	void *params[] = { &a };

	e = cudaLaunchKernel(fn, dim3((unsigned)std::min(a.units, full)), dim3(c.threads), params,
			     smem, st);
	return e == cudaSuccess ? cudaGetLastError() : e;
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

int nc_gemm_ra_fits(const cudaDeviceProp &prop, int n)
{
	int rows;
	const EncShape *c = pick(prop, -1, n, &rows);

	return c && c->ra;
}

cudaError_t nc_gemm_ra_launch(const cudaDeviceProp &prop, NcGemmArgs &a, cudaStream_t st)
{
	int rows;
	const EncShape *c = pick(prop, -1, a.g.cols, &rows);

	return c && c->ra ? launch(*c, prop, a, st) : cudaErrorInvalidValue;
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
	if (!c || count > INT32_MAX || !ctx_is_device(segs[0]) || !ctx_is_device(out[0]))
		return GFEC_E_NOTSUP;
	if (cudaSetDevice(v.dev) != cudaSuccess)
		return stream_fail(v.stream);

	// Every segment's n source blocks, then the outputs as given (segment-major). With few
	// segments and evenly spaced outputs, the prep kernel writes them on the device; else they
	// are uploaded (from pageable memory: a synchronous copy of 8 bytes per block).
	const size_t nsrc = (size_t)nseg * n, nout = (size_t)nseg * count;
	const uintptr_t ostride = nout > 1 ? (uintptr_t)out[1] - (uintptr_t)out[0] : 0;
	bool regular = nseg <= kInlineSegs;
	int vec = B % 16 == 0 || n == 1;

	for (size_t i = 2; i < nout && regular; i++)
		regular = (uintptr_t)out[i] == (uintptr_t)out[0] + i * ostride;
	for (int s = 0; s < nseg; s++) // the loads' fast path needs aligned sources
		vec = vec && (uintptr_t)segs[s] % 16 == 0;

	const uint32_t ntiles = (count + R - 1) / R;
	const size_t tile_frags = nc_tile_frags(R, (int)n);
	const uint8_t **d_ptrs = nullptr;
	uint4 *d_frags = nullptr;
	cudaStream_t st = v.stream;
	StreamScratch sc{ st, {} };
	NcEncPtrs p{};

	if (sc.alloc(&d_ptrs, (nsrc + nout) * sizeof(void *)) != cudaSuccess ||
	    sc.alloc(&d_frags, tile_frags * ntiles * 16) != cudaSuccess)
		return stream_fail(st);
	if (regular) {
		for (int s = 0; s < nseg; s++)
			p.seg[s] = segs[s];
		p.out0 = out[0];
		p.ostride = ostride;
		p.B = B;
		p.nsrc = nsrc;
		p.nout = nout;
		p.n = n;
	} else {
		std::vector<const uint8_t *> ptrs(nsrc + nout);

		for (size_t s = 0; s < (size_t)nseg; s++)
			for (size_t j = 0; j < n; j++)
				ptrs[s * n + j] = segs[s] + j * B;
		for (size_t i = 0; i < nout; i++)
			ptrs[nsrc + i] = out[i];
		if (cudaMemcpyAsync(d_ptrs, ptrs.data(), ptrs.size() * sizeof(void *),
				    cudaMemcpyHostToDevice, st) != cudaSuccess)
			return stream_fail(st);
	}
	const size_t prep = tile_frags * ntiles + p.nsrc + p.nout;

	nc_encode_prep<<<(unsigned)std::min<size_t>((prep + 255) / 256, 65536), 256, 0, st>>>(
		d_frags, (int)n, count, R, seed0, zero_ok, tile_frags, ntiles, d_ptrs, p);

	NcGemmArgs a{};

	a.g.src = d_ptrs;
	a.g.dst = (uint8_t *const *)(d_ptrs + nsrc);
	a.g.cols = (int)n;
	a.g.lda = (int)n;
	a.g.rows = (int)count;
	a.g.len = B;
	a.g.units = (B + 15) / 16;
	a.g.vec = vec; // the stores check their own alignment
	a.g.nstripes = nseg;
	a.frags = d_frags;
	a.tile_frags = tile_frags;
	a.ntiles = ntiles;
	a.R = R;
	if (cudaGetLastError() != cudaSuccess || launch(*c, *v.prop, a, st) != cudaSuccess ||
	    cudaStreamSynchronize(st) != cudaSuccess)
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
