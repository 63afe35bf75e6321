// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file lt.cu
 * The batched LT encoder on the GPU (gfec_gpu_lt.h): the host side of lt_gpu.cuh's four
 * launches. One host round trip per call: after the degrees, the counts of multi-item blocks and
 * of their items come back to size the index, item and partial buffers and the grids of the
 * other launches.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <stdint.h>
#include <vector>

#include "gfec_gpu_lt.h"
#include "lt.h"
#include "nc.h"
#include "stream_scratch.h"
#include "../kernel/lt_gpu.cuh"

namespace gfec {
namespace {

// The events of LtStageMs, recorded on the call's stream when asked for.
struct LtEvents {
	cudaEvent_t e[6] = {};
	int on = 0;

	explicit LtEvents(int want)
	{
		on = want;
		for (int i = 0; i < 6 && on; i++)
			if (cudaEventCreate(&e[i]) != cudaSuccess)
				on = 0;
	}
	~LtEvents()
	{
		for (cudaEvent_t x : e)
			if (x)
				cudaEventDestroy(x);
	}
	cudaError_t mark(int i, cudaStream_t st)
	{
		return on ? cudaEventRecord(e[i], st) : cudaSuccess;
	}
	float ms(int a, int b)
	{
		float t = 0;

		if (on && cudaEventElapsedTime(&t, e[a], e[b]) != cudaSuccess)
			t = 0;
		return t;
	}
};

// Blocks of kLtWarps warps for @p warps warps, at most what the device holds at once (@p fn with
// @p smem bytes of dynamic shared memory): the kernels loop, so a second wave would only wait.
unsigned grid_for(size_t warps, const void *fn, size_t smem, int sms)
{
	const size_t blocks = (warps + kLtWarps - 1) / kLtWarps;
	int per_sm = 0;

	if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, kLtWarps * 32, smem) !=
		    cudaSuccess ||
	    per_sm < 1)
		per_sm = 1;
	return (unsigned)std::max<size_t>(1, std::min(blocks, (size_t)per_sm * sms));
}

} // namespace

int lt_encode(void *ctx, uint32_t n, size_t B, const uint32_t *cdf, uint32_t len, uint32_t seed0,
	      uint32_t count, int nseg, const uint8_t *const *segs, uint8_t *out, size_t stride,
	      LtStageMs *ms)
{
	if (!ctx || !cdf || !segs || !out || n < 1 || n > kLtMaxN || len >= n || B < 1 ||
	    stride < B || count < 1 || nseg < 1 || (uint64_t)seed0 + count - 1 > UINT32_MAX ||
	    (uint64_t)count * lt_items(n) > (1u << 31))
		return GFEC_E_INVAL;
	for (int s = 0; s < nseg; s++)
		if (!segs[s])
			return GFEC_E_INVAL;
	const CtxView v = ctx_view(ctx);
	std::lock_guard<std::mutex> g(*v.lock);

	if (v.fault)
		return GFEC_E_DEVICE;
	for (int s = 0; s < nseg; s++)
		if (!ctx_is_device(segs[s]))
			return GFEC_E_NOTSUP;
	if (!ctx_is_device(out))
		return GFEC_E_NOTSUP;
	if (cudaSetDevice(v.dev) != cudaSuccess)
		return stream_fail(v.stream);

	int vec, out16;

	lt_paths(B, segs, nseg, out, stride, &vec, &out16);
	const int sms = v.prop->multiProcessorCount;
	cudaStream_t st = v.stream;
	StreamScratch sc{ st, {} };
	LtEvents ev(ms != nullptr);
	const uint32_t *d_cdf = cdf;
	uint32_t *d_cdf_copy = nullptr, *d_deg = nullptr, *d_ioff = nullptr, *d_multi = nullptr;
	uint32_t *d_cnt = nullptr;
	const uint8_t **d_segs = nullptr;
	uint32_t cnt[2];

	if (len && !ctx_is_device(cdf)) {
		if (sc.alloc(&d_cdf_copy, (size_t)len * 4) != cudaSuccess ||
		    cudaMemcpyAsync(d_cdf_copy, cdf, (size_t)len * 4, cudaMemcpyHostToDevice, st) !=
			    cudaSuccess)
			return stream_fail(st);
		d_cdf = d_cdf_copy;
	}
	if (sc.alloc(&d_deg, (size_t)count * 4) != cudaSuccess ||
	    sc.alloc(&d_ioff, (size_t)count * 4) != cudaSuccess ||
	    sc.alloc(&d_multi, (size_t)count * 4) != cudaSuccess || sc.alloc(&d_cnt, 8) != cudaSuccess ||
	    cudaMemsetAsync(d_cnt, 0, 8, st) != cudaSuccess ||
	    sc.alloc(&d_segs, sizeof(void *) * nseg) != cudaSuccess ||
	    cudaMemcpyAsync(d_segs, segs, sizeof(void *) * nseg, cudaMemcpyHostToDevice, st) !=
		    cudaSuccess ||
	    ev.mark(0, st) != cudaSuccess)
		return stream_fail(st);
	lt_degrees<<<(unsigned)std::min<size_t>(((size_t)count + 127) / 128, (size_t)sms * 16), 128,
		     0, st>>>(d_cdf, len, seed0, count, d_deg, d_ioff, d_multi, d_cnt);
	// The item count fits in 32 bits: count * lt_items(n) <= 2^31 was checked.
	if (cudaGetLastError() != cudaSuccess || ev.mark(1, st) != cudaSuccess ||
	    cudaMemcpyAsync(cnt, d_cnt, 8, cudaMemcpyDeviceToHost, st) != cudaSuccess ||
	    cudaStreamSynchronize(st) != cudaSuccess)
		return stream_fail(st);
	const uint32_t nmulti = cnt[0], items = cnt[1];
	uint32_t *d_idx = nullptr;
	LtPair *d_item = nullptr;
	uint8_t *d_part = nullptr;
	const size_t nwords = (n + 31) / 32;
	const size_t bm_bytes = (size_t)kLtWarps * nwords * 4;
	const size_t xor_smem = (size_t)kLtWarps * (nwords + kLtItem) * 4;

	if (sc.alloc(&d_idx, (size_t)items * kLtItem * 4) != cudaSuccess ||
	    sc.alloc(&d_item, (size_t)items * sizeof(LtPair)) != cudaSuccess ||
	    sc.alloc(&d_part, (size_t)items * B * nseg) != cudaSuccess ||
	    cudaFuncSetAttribute(lt_indices, cudaFuncAttributeMaxDynamicSharedMemorySize,
				 (int)bm_bytes) != cudaSuccess ||
	    cudaFuncSetAttribute(lt_xor, cudaFuncAttributeMaxDynamicSharedMemorySize,
				 (int)xor_smem) != cudaSuccess ||
	    ev.mark(2, st) != cudaSuccess)
		return stream_fail(st);
	if (nmulti)
		lt_indices<<<grid_for(nmulti, (const void *)lt_indices, bm_bytes, sms), kLtWarps * 32,
			     bm_bytes, st>>>(n, seed0, d_deg, d_ioff, d_multi, nmulti, d_idx, d_item);
	LtArgs a{};

	a.segs = d_segs, a.out = out, a.partial = d_part, a.deg = d_deg, a.ioff = d_ioff;
	a.idx = d_idx, a.item = d_item, a.B = B, a.stride = stride, a.units = B / 16;
	a.count = count, a.items = items, a.n = n, a.seed0 = seed0, a.nseg = nseg, a.vec = vec;
	a.out16 = out16;
	if (cudaGetLastError() != cudaSuccess || ev.mark(3, st) != cudaSuccess)
		return stream_fail(st);
	lt_xor<<<grid_for((size_t)count + items, (const void *)lt_xor, xor_smem, sms),
		 kLtWarps * 32, xor_smem, st>>>(a);
	if (cudaGetLastError() != cudaSuccess || ev.mark(4, st) != cudaSuccess)
		return stream_fail(st);
	if (nmulti) {
		lt_combine<<<grid_for(nmulti, (const void *)lt_combine, 0, sms), kLtWarps * 32, 0,
			     st>>>(a, d_multi, nmulti);
		if (cudaGetLastError() != cudaSuccess)
			return stream_fail(st);
	}
	if (ev.mark(5, st) != cudaSuccess || cudaStreamSynchronize(st) != cudaSuccess)
		return stream_fail(st);
	if (ms)
		*ms = { ev.ms(0, 1), ev.ms(1, 2), ev.ms(2, 3), ev.ms(3, 4), ev.ms(4, 5) };
	return 0;
}

} // namespace gfec

extern "C" int gfec_gpu_lt_encode(void *ctx, uint32_t n, size_t B, const uint32_t *cdf,
				  uint32_t len, uint32_t seed0, uint32_t count, int nseg,
				  const uint8_t *const *segs, uint8_t *out, size_t stride)
{
	return gfec::lt_encode(ctx, n, B, cdf, len, seed0, count, nseg, segs, out, stride, nullptr);
}
