// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file dmabuf.cu
 * Device memory that a NIC can write into: cudaMalloc on a chosen GPU, exported as a dma-buf
 * file descriptor (gfec_gpu.h). The two driver calls the runtime has no wrapper for come through
 * cudaGetDriverEntryPointByVersion, so nothing links libcuda and a host without a driver only
 * gets a reason back.
 */
#include <cuda.h>
#include <cuda_runtime.h>

#include <stdio.h>

#include "gfec_gpu.h"

typedef CUresult (*attr_fn)(int *, CUdevice_attribute, CUdevice);
typedef CUresult (*handle_fn)(void *, CUdeviceptr, size_t, CUmemRangeHandleType,
			      unsigned long long);

/* A driver entry point as of CUDA 12.0's ABI, or NULL. */
static void *driver_fn(const char *name)
{
	cudaDriverEntryPointQueryResult q;
	void *fn = nullptr;

	if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) !=
		cudaSuccess ||
	    q != cudaDriverEntryPointSuccess)
		return nullptr;
	return fn;
}

extern "C" int gfec_gpu_dmabuf_alloc(int device, size_t len, void **ptr, int *fd, char *why,
				     size_t whylen)
{
	int n = 0, ok = 0;
	void *p = nullptr;
	cudaError_t err = cudaGetDeviceCount(&n);

	*ptr = nullptr;
	*fd = -1;
	if (err == cudaErrorInsufficientDriver) {
		snprintf(why, whylen, "no CUDA driver (or one older than gfec's CUDA runtime)");
		return GFEC_E_NOBACKEND;
	}
	if (err != cudaSuccess && err != cudaErrorNoDevice) {
		snprintf(why, whylen, "the CUDA runtime cannot start: %s", cudaGetErrorString(err));
		return GFEC_E_NOBACKEND;
	}
	if (n == 0) {
		snprintf(why, whylen, "no CUDA device");
		return GFEC_E_NOBACKEND;
	}
	if (device < 0 || device >= n) {
		snprintf(why, whylen, "no GPU %d (this host has %d)", device, n);
		return GFEC_E_NOBACKEND;
	}
	attr_fn attr = (attr_fn)driver_fn("cuDeviceGetAttribute");
	handle_fn handle = (handle_fn)driver_fn("cuMemGetHandleForAddressRange");
	if (!attr || !handle) {
		snprintf(why, whylen, "the CUDA driver has no dma-buf export");
		return GFEC_E_NOTSUP;
	}
	if (attr(&ok, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, device) != CUDA_SUCCESS || !ok) {
		snprintf(why, whylen, "GPU %d cannot export dma-buf", device);
		return GFEC_E_NOTSUP;
	}
	if (cudaSetDevice(device) != cudaSuccess || cudaMalloc(&p, len) != cudaSuccess) {
		snprintf(why, whylen, "cannot allocate GPU memory on GPU %d", device);
		return GFEC_E_NOMEM;
	}
	if (handle(fd, (CUdeviceptr)(uintptr_t)p, len, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0) !=
	    CUDA_SUCCESS) {
		cudaFree(p);
		*fd = -1;
		snprintf(why, whylen, "the CUDA driver cannot export this memory as dma-buf");
		return GFEC_E_DEVICE;
	}
	*ptr = p;
	return 0;
}

extern "C" void gfec_gpu_dmabuf_free(int device, void *ptr)
{
	/* Any thread may free it: select the device it was allocated on first. */
	if (ptr && cudaSetDevice(device) == cudaSuccess)
		cudaFree(ptr);
}
