// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file perf_gpu_util.h
 * What the GPU benches that name a failed CUDA call by its place (gfec-gpu-bench,
 * gfec-gf16-gpu-bench, gfec-fft16-gpu-bench) share: CK, a seeded xorshift64* for their fill data
 * (each bench keeps its own seed, so its data is what it always was) and median_s, which
 * gfec-multigpu-bench takes too.
 */
#ifndef GFEC_PERF_GPU_UTIL_H
#define GFEC_PERF_GPU_UTIL_H

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#include "perf_util.h"

/* A failed CUDA call: "file:line: call: error" on stderr, then exit status 2. */
#define CK(call)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
				cudaGetErrorString(e_));                                           \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

/* static PerfRng rnd{SEED}; then rnd() draws the next 64 bits (perf_xorshift). */
struct PerfRng {
	uint64_t state;

	uint64_t operator()()
	{
		return perf_xorshift(&state);
	}
};

/* Seconds: the median of iters timings of f() after one untimed warm-up call. */
template <class F> static double median_s(F f, int iters)
{
	std::vector<double> t;

	f(); // warm-up
	for (int i = 0; i < iters; i++) {
		const double t0 = perf_now();

		f();
		t.push_back(perf_now() - t0);
	}
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

#endif
