// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file lt.cu
 * The batched LT encoder on the GPU (gfec_gpu_lt.h): the host side of lt_gpu.cuh's four
 * launches. One host round trip per call: after the degrees and their scan, the item count comes
 * back to size the index, item and partial buffers and the grids of the other launches.
 */
#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

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

unsigned grid_for(size_t warps, int sms)
{
	const size_t blocks = (warps + kLtWarps - 1) / kLtWarps, cap = (size_t)sms * 32;

	return (unsigned)std::max<size_t>(1, std::min(blocks, cap));
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

	int vec = B % 16 == 0 && stride % 16 == 0 && (uintptr_t)out % 16 == 0;
	for (int s = 0; s < nseg; s++)
		vec &= (uintptr_t)segs[s] % 16 == 0;
	const int sms = v.prop->multiProcessorCount;
	cudaStream_t st = v.stream;
	StreamScratch sc{ st, {} };
	LtEvents ev(ms != nullptr);
	const uint32_t *d_cdf = cdf;
	uint32_t *d_cdf_copy = nullptr, *d_deg = nullptr, *d_nitems = nullptr, *d_ioff = nullptr;
	uint32_t *d_big = nullptr, *d_nbig = nullptr;
	const uint8_t **d_segs = nullptr;
	void *d_tmp = nullptr;
	size_t tmp_bytes = 0;
	uint32_t last[2];

	if (len && !ctx_is_device(cdf)) {
		if (sc.alloc(&d_cdf_copy, (size_t)len * 4) != cudaSuccess ||
		    cudaMemcpyAsync(d_cdf_copy, cdf, (size_t)len * 4, cudaMemcpyHostToDevice, st) !=
			    cudaSuccess)
			return stream_fail(st);
		d_cdf = d_cdf_copy;
	}
	if (sc.alloc(&d_deg, (size_t)count * 4) != cudaSuccess ||
	    sc.alloc(&d_nitems, (size_t)count * 4) != cudaSuccess ||
	    sc.alloc(&d_ioff, (size_t)count * 4) != cudaSuccess ||
	    sc.alloc(&d_big, (size_t)count * 4) != cudaSuccess || sc.alloc(&d_nbig, 4) != cudaSuccess ||
	    cudaMemsetAsync(d_nbig, 0, 4, st) != cudaSuccess ||
	    sc.alloc(&d_segs, sizeof(void *) * nseg) != cudaSuccess ||
	    cudaMemcpyAsync(d_segs, segs, sizeof(void *) * nseg, cudaMemcpyHostToDevice, st) !=
		    cudaSuccess ||
	    cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, d_nitems, d_ioff, (int)count, st) !=
		    cudaSuccess ||
	    sc.alloc(&d_tmp, tmp_bytes) != cudaSuccess || ev.mark(0, st) != cudaSuccess)
		return stream_fail(st);
	lt_degrees<<<grid_for(((size_t)count + 31) / 32, sms), kLtWarps * 32, 0, st>>>(
		d_cdf, len, seed0, count, d_deg, d_nitems, d_big, d_nbig);
	// The item counts and their sum fit in 32 bits: count * lt_items(n) <= 2^31 was checked.
	if (cudaGetLastError() != cudaSuccess ||
	    cub::DeviceScan::ExclusiveSum(d_tmp, tmp_bytes, d_nitems, d_ioff, (int)count, st) !=
		    cudaSuccess ||
	    ev.mark(1, st) != cudaSuccess ||
	    cudaMemcpyAsync(&last[0], d_ioff + count - 1, 4, cudaMemcpyDeviceToHost, st) !=
		    cudaSuccess ||
	    cudaMemcpyAsync(&last[1], d_nitems + count - 1, 4, cudaMemcpyDeviceToHost, st) !=
		    cudaSuccess ||
	    cudaStreamSynchronize(st) != cudaSuccess)
		return stream_fail(st);
	const uint64_t items = (uint64_t)last[0] + last[1];
	uint32_t *d_idx = nullptr;
	LtPair *d_item = nullptr;
	uint8_t *d_part = nullptr;
	const size_t bm_bytes = (size_t)kLtWarps * ((n + 31) / 32) * 4;

	if (sc.alloc(&d_idx, (size_t)items * kLtItem * 4) != cudaSuccess ||
	    sc.alloc(&d_item, (size_t)items * sizeof(LtPair)) != cudaSuccess ||
	    sc.alloc(&d_part, (size_t)(items - count) * B * nseg) != cudaSuccess ||
	    ev.mark(2, st) != cudaSuccess)
		return stream_fail(st);
	lt_indices<<<grid_for(count, sms), kLtWarps * 32, bm_bytes, st>>>(
		n, seed0, count, d_deg, d_ioff, d_big, d_nbig, d_idx, d_item);
	LtArgs a{};

	a.segs = d_segs, a.out = out, a.partial = d_part, a.deg = d_deg, a.ioff = d_ioff;
	a.idx = d_idx, a.item = d_item, a.B = B, a.stride = stride, a.units = B / 16;
	a.count = count, a.items = (uint32_t)items, a.nseg = nseg, a.vec = vec;
	if (cudaGetLastError() != cudaSuccess || ev.mark(3, st) != cudaSuccess)
		return stream_fail(st);
	lt_xor<<<grid_for((size_t)items * nseg, sms), kLtWarps * 32, 0, st>>>(a);
	if (cudaGetLastError() != cudaSuccess || ev.mark(4, st) != cudaSuccess)
		return stream_fail(st);
	if (items > count) {
		lt_combine<<<grid_for((size_t)count * nseg, sms), kLtWarps * 32, 0, st>>>(a);
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
