// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file stream_scratch.h
 * What the device entry points that run a call on one stream share (nc.cu, nc_encode.cu, lt.cu):
 * the way out after a CUDA error, and the call's scratch allocations from a stream-ordered pool
 * that keeps memory mapped between calls.
 */
#ifndef GFEC_CUDA_GEMM_STREAM_SCRATCH_H
#define GFEC_CUDA_GEMM_STREAM_SCRATCH_H

#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "gfec/gfec_errors.h"

namespace gfec {

// After a CUDA error in a call on @p st: lets the stream drain and clears the error state, so the
// next call starts clean. Always GFEC_E_DEVICE.
inline int stream_fail(cudaStream_t st)
{
	cudaGetLastError();
	cudaStreamSynchronize(st);
	cudaGetLastError();
	return GFEC_E_DEVICE;
}

// Devices with a scratch pool of their own (device ids past this use the default pool).
constexpr int kScratchPools = 64;

// The current device's scratch pool: a stream-ordered pool made on first use and kept for the
// process, which keeps up to min(512 MiB, 1/16 of the device's memory) mapped between calls. The
// default pool's release threshold is 0: every synchronisation unmaps what was freed, and the next
// call maps it again (at 10^6 LT blocks per call, hundreds of MiB per call). nullptr when no pool
// could be made: the default pool then serves.
inline cudaMemPool_t scratch_pool()
{
	static std::mutex lock;
	static cudaMemPool_t pools[kScratchPools];
	static bool tried[kScratchPools];
	int dev;

	if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kScratchPools)
		return nullptr;
	std::lock_guard<std::mutex> g(lock);
	if (!tried[dev]) {
		cudaMemPoolProps props = {};
		size_t free_b = 0, total_b = 0;
		cudaMemPool_t pool;

		tried[dev] = true;
		props.allocType = cudaMemAllocationTypePinned;
		props.location.type = cudaMemLocationTypeDevice;
		props.location.id = dev;
		if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess ||
		    cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
			cudaGetLastError();
			return nullptr;
		}
		uint64_t keep = std::min<uint64_t>((uint64_t)512 << 20, total_b / 16);

		if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) !=
		    cudaSuccess) {
			cudaGetLastError();
			cudaMemPoolDestroy(pool);
			return nullptr;
		}
		pools[dev] = pool;
	}
	return pools[dev];
}

// A call's scratch allocations, given back to the pool on every way out.
struct StreamScratch {
	cudaStream_t st;
	std::vector<void *> p;

	template <class T> cudaError_t alloc(T **out, size_t bytes)
	{
		cudaMemPool_t pool = scratch_pool();
		cudaError_t e = pool ? cudaMallocFromPoolAsync((void **)out, bytes ? bytes : 1, pool, st)
				     : cudaMallocAsync((void **)out, bytes ? bytes : 1, st);

		if (e == cudaSuccess)
			p.push_back((void *)*out);
		return e;
	}
	~StreamScratch()
	{
		for (void *x : p)
			cudaFreeAsync(x, st);
		cudaStreamSynchronize(st);
		cudaGetLastError();
	}
};

} // namespace gfec

#endif
