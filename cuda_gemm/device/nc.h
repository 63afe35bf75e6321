// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file nc.h
 * What the network-coding entry points (nc.cu) see of a GPU backend context (backend.cu).
 * C++ only; plugin/ sees gfec_gpu_nc.h.
 */
#pragma once

#include <cuda_runtime.h>
#include <mutex>
#include <stdint.h>

namespace gfec {

struct CtxView {
	int dev;
	const cudaDeviceProp *prop;
	int fault;	    // GFEC_FAULT=cuda: every device call fails
	std::mutex *lock;   // one request at a time per device
	const uint8_t *logexp; // device: log[256], exp[512]
	cudaStream_t stream;
};

/** The view of a context made by gfec_gpu_backend()->init. */
CtxView ctx_view(void *ctx);
/** 1 when @p p is device (or managed) memory. */
int ctx_is_device(const void *p);

} // namespace gfec
