/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file cuda_runtime_api.h
 * Test nc_gpu_mock only: host-memory stand-ins (mock.c) for the four CUDA runtime calls
 * test_nc_backend.c makes, so that its GPU mode runs on any host against mock.c's GPU.
 */
#ifndef GFEC_TEST_NC_GPU_MOCK_CUDA_H
#define GFEC_TEST_NC_GPU_MOCK_CUDA_H

#include <stddef.h>

typedef enum { cudaSuccess = 0 } cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };

cudaError_t cudaMalloc(void **p, size_t n);
cudaError_t cudaFree(void *p);
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k);
cudaError_t cudaMemset(void *d, int v, size_t n);

#endif
