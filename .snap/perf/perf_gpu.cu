// SPDX-License-Identifier: BSD-3-Clause
/** @file perf_gpu.cu  GPU facts and ceilings for gfec-perf, timed with CUDA events. */
#include "perf_gpu.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdio.h>
#include <string.h>
#include <vector>

#include "kernel/gemm_nibble.cuh"

namespace {

// Median of @p reps timings (ms) of fn() after one warm-up; -1 on a CUDA error.
template <class F> double median_ms(F fn, int reps = 7)
{
	cudaEvent_t a, b;
	std::vector<float> t;

	if (cudaEventCreate(&a) != cudaSuccess || cudaEventCreate(&b) != cudaSuccess)
		return -1;
	fn();
	for (int i = 0; i < reps; i++) {
		float ms = 0;

		cudaEventRecord(a);
		fn();
		cudaEventRecord(b);
		if (cudaEventSynchronize(b) != cudaSuccess)
			break;
		cudaEventElapsedTime(&ms, a, b);
		t.push_back(ms);
	}
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	if (cudaGetLastError() != cudaSuccess || t.empty())
		return -1;
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

} // namespace

extern "C" int perf_gpu_query(struct perf_gpu_info *info)
{
	cudaDeviceProp p;
	int n = 0, clk = 0, mclk = 0;

	memset(info, 0, sizeof(*info));
	if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1 ||
	    cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
		cudaGetLastError();
		return -1;
	}
	info->present = 1;
	snprintf(info->name, sizeof(info->name), "%.127s", p.name);
	info->sms = p.multiProcessorCount;
	cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
	cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, 0);
	info->sm_clock_mhz = clk / 1000;
	info->mem_clock_mhz = mclk / 1000;
	info->mem_gib = (double)p.totalGlobalMem / (1 << 30);
	cudaDriverGetVersion(&info->driver);
	cudaRuntimeGetVersion(&info->runtime);
	return 0;
}

extern "C" double perf_gpu_d2d(size_t bytes)
{
	void *a = nullptr, *b = nullptr;
	double ms = -1;

	if (cudaMalloc(&a, bytes) == cudaSuccess && cudaMalloc(&b, bytes) == cudaSuccess &&
	    cudaMemset(a, 0x5a, bytes) == cudaSuccess)
		ms = median_ms([&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice); });
	cudaFree(a);
	cudaFree(b);
	cudaGetLastError();
	return ms > 0 ? 2.0 * bytes / ms / 1e6 : 0;
}

extern "C" double perf_gpu_xor_bound(int k, int m, size_t chunk, int stripes)
{
	const size_t n = (size_t)(k + m) * stripes;
	std::vector<uint8_t *> host(n);
	uint8_t *mem = nullptr, **ptrs = nullptr;
	const size_t pitch = (chunk + 255) / 256 * 256;
	double ms = -1;
	cudaDeviceProp p;
	int dev = 0;

	if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess ||
	    cudaMalloc(&mem, pitch * n) != cudaSuccess ||
	    cudaMalloc(&ptrs, n * sizeof(void *)) != cudaSuccess)
		goto out;
	// src pointers (stripes x k) first, then dst (stripes x m), as GemmArgs wants them.
	for (int s = 0; s < stripes; s++) {
		for (int j = 0; j < k; j++)
			host[(size_t)s * k + j] = mem + ((size_t)s * (k + m) + j) * pitch;
		for (int i = 0; i < m; i++)
			host[(size_t)stripes * k + (size_t)s * m + i] =
				mem + ((size_t)s * (k + m) + k + i) * pitch;
	}
	if (cudaMemset(mem, 0x3c, pitch * n) != cudaSuccess ||
	    cudaMemcpy(ptrs, host.data(), n * sizeof(void *), cudaMemcpyHostToDevice) !=
		    cudaSuccess)
		goto out;
	{
		gfec::GemmArgs a{};

		a.src = ptrs;
		a.dst = ptrs + (size_t)stripes * k;
		a.rows = m, a.cols = k, a.nstripes = stripes, a.len = chunk;
		a.units = (chunk + 15) / 16, a.vec = 1, a.lda = k;
		ms = median_ms([&] {
			gfec::xor_stream<256><<<p.multiProcessorCount * 4, 256>>>(a);
		});
	}
out:
	cudaFree(mem);
	cudaFree(ptrs);
	cudaGetLastError();
	return ms > 0 ? (double)k * chunk * stripes / ms / 1e6 : 0;
}

extern "C" int perf_gpu_pinned(size_t bytes, double *h2d, double *d2h, double *both)
{
	void *h1 = nullptr, *h2 = nullptr, *d1 = nullptr, *d2 = nullptr;
	cudaStream_t s1 = nullptr, s2 = nullptr;
	double a = -1, b = -1, c = -1;

	if (cudaMallocHost(&h1, bytes) == cudaSuccess && cudaMallocHost(&h2, bytes) == cudaSuccess &&
	    cudaMalloc(&d1, bytes) == cudaSuccess && cudaMalloc(&d2, bytes) == cudaSuccess &&
	    cudaStreamCreate(&s1) == cudaSuccess && cudaStreamCreate(&s2) == cudaSuccess) {
		memset(h1, 0x11, bytes);
		a = median_ms([&] { cudaMemcpyAsync(d1, h1, bytes, cudaMemcpyHostToDevice); }, 5);
		b = median_ms([&] { cudaMemcpyAsync(h2, d2, bytes, cudaMemcpyDeviceToHost); }, 5);
		// Both directions at once, on two streams; the legacy stream's events bracket both.
		c = median_ms(
			[&] {
				cudaMemcpyAsync(d1, h1, bytes, cudaMemcpyHostToDevice, s1);
				cudaMemcpyAsync(h2, d2, bytes, cudaMemcpyDeviceToHost, s2);
				cudaStreamSynchronize(s1);
				cudaStreamSynchronize(s2);
			},
			5);
	}
	cudaStreamDestroy(s1);
	cudaStreamDestroy(s2);
	cudaFreeHost(h1);
	cudaFreeHost(h2);
	cudaFree(d1);
	cudaFree(d2);
	cudaGetLastError();
	*h2d = a > 0 ? bytes / a / 1e6 : 0;
	*d2h = b > 0 ? bytes / b / 1e6 : 0;
	*both = c > 0 ? 2.0 * bytes / c / 1e6 : 0;
	return a > 0 && b > 0 && c > 0 ? 0 : -1;
}

extern "C" int perf_gpu_use(int ordinal)
{
	if (cudaSetDevice(ordinal) != cudaSuccess) {
		cudaGetLastError();
		return -1;
	}
	return 0;
}

extern "C" void *perf_gpu_malloc(size_t n)
{
	void *p = nullptr;

	if (cudaMalloc(&p, n ? n : 1) != cudaSuccess) {
		cudaGetLastError();
		return nullptr;
	}
	return p;
}

extern "C" void perf_gpu_free(void *p)
{
	cudaFree(p);
}

extern "C" int perf_gpu_copy(void *dst, const void *src, size_t n)
{
	if (cudaMemcpy(dst, src, n, cudaMemcpyDefault) != cudaSuccess) {
		cudaGetLastError();
		return -1;
	}
	return 0;
}

extern "C" void *perf_pinned_malloc(size_t n)
{
	void *p = nullptr;

	if (cudaMallocHost(&p, n ? n : 1) != cudaSuccess) {
		cudaGetLastError();
		return nullptr;
	}
	return p;
}

extern "C" void perf_pinned_free(void *p)
{
	cudaFreeHost(p);
}
