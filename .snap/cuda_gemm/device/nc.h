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

struct NcGemmArgs; // kernel/nc_encode.cuh

/** Whether nc_gemm_ra_launch takes n columns on this device (n <= 128). */
int nc_gemm_ra_fits(const cudaDeviceProp &prop, int n);
/**
 * Launches nc_gemm_ra (nc_encode.cuh) over @p a, whose every field but units is set (it is set
 * here), on @p st, with the encode's shape (nc_encode.h) for its n.
 */
cudaError_t nc_gemm_ra_launch(const cudaDeviceProp &prop, NcGemmArgs &a, cudaStream_t st);

/**
 * Stage times of the last batch decode, for gfec-nc-gpu-bench: when nc_decode_times points
 * somewhere, each decode records events on its stream and writes, after its synchronisation, the
 * milliseconds of the header parse (gfec_gpu_nc_decode_blocks only, else 0), the inversion (with
 * the status read back), and everything after it (pointer upload, payload gathering or staging,
 * the GEMM). Single-threaded use only.
 */
struct NcDecodeTimes {
	float parse, invert, gemm;
};
extern NcDecodeTimes *nc_decode_times;

/** The view of a context made by gfec_gpu_backend()->init. */
CtxView ctx_view(void *ctx);
/** 1 when @p p is device (or managed) memory. */
int ctx_is_device(const void *p);

} // namespace gfec
