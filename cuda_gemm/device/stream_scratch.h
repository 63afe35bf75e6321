// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file stream_scratch.h
 * What the device entry points that run a call on one stream share (nc.cu, lt.cu): the way out
 * after a CUDA error, and the call's scratch allocations from the stream-ordered pool.
 */
#ifndef GFEC_CUDA_GEMM_STREAM_SCRATCH_H
#define GFEC_CUDA_GEMM_STREAM_SCRATCH_H

#include <cuda_runtime.h>

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

// A call's scratch allocations, given back to the pool on every way out.
struct StreamScratch {
	cudaStream_t st;
	std::vector<void *> p;

	template <class T> cudaError_t alloc(T **out, size_t bytes)
	{
		cudaError_t e = cudaMallocAsync((void **)out, bytes ? bytes : 1, st);

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
