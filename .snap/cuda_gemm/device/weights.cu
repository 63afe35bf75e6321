// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file weights.cu
 * The pair histogram of weight enumeration on the GPU (gfec_gpu_weights.h).
 *
 * The sorted codewords are cut into chunks of at most C codewords that never straddle a weight
 * group, so every pair of a tile (chunk p, chunk q), p <= q, has the same (wt u, wt v) and only
 * a = |u AND v| varies: the block counts a over the tile and adds each nonzero bin to the global
 * 64-bit histogram with one atomicAdd. A thread holds KR codewords u of chunk p and runs over
 * every v of chunk q (the same v across the warp: one broadcast load); it counts into its own
 * column of the shared histogram, h[(a - lo) * (threads + 1) + thread], so that an increment is
 * a plain load and store with no atomics and no bank conflicts (the + 1 spreads the flush's row
 * sums over the banks). lo = max(0, wt u + wt v - n) and span = min(wt u, wt v) - lo + 1 bound a.
 * Tiles are numbered q(q+1)/2 + p and dealt to a grid of resident blocks, grid-stride; when
 * the caller wants progress, in kSlices launches over consecutive tile ranges, reported after each.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <vector>

#include "gfec_gpu_weights.h"

namespace
{

constexpr int kR = 4;		  // codewords u per thread
constexpr size_t kShared = 49152; // the histogram's budget: no opt-in needed
constexpr int kSlices = 64;	  // launches when progress is reported

template <int W>
__global__ void wt_pairs(const uint64_t *__restrict__ cw, const unsigned long long *__restrict__ cs,
			 const int *__restrict__ cl, const int *__restrict__ cwt,
			 unsigned long long t0, unsigned long long t1, int n,
			 unsigned long long *__restrict__ jh)
{
	extern __shared__ uint32_t h[];
	const int nt = blockDim.x, stride = nt + 1, tid = threadIdx.x;
	const size_t s = (size_t)n + 1;

	for (unsigned long long t = t0 + blockIdx.x; t < t1; t += gridDim.x) {
		unsigned long long q =
		    (unsigned long long)((sqrt(8.0 * (double)t + 1.0) - 1.0) / 2.0);
		while (q * (q + 1) / 2 > t)
			q--;
		while ((q + 1) * (q + 2) / 2 <= t)
			q++;
		const unsigned long long p = t - q * (q + 1) / 2;
		const int wu = cwt[p], wv = cwt[q], lu = cl[p], lv = cl[q];
		const int lo = max(0, wu + wv - n), span = min(wu, wv) - lo + 1;

		for (int i = tid; i < span * stride; i += nt)
			h[i] = 0;
		__syncthreads();
		const uint64_t *v0 = cw + cs[q] * W;
		uint32_t *hh = h + tid - lo * stride;
		for (int r = 0; r < kR; r++) {
			const int iu = tid + r * nt;
			if (iu >= lu)
				break;
			uint64_t u[W];
#pragma unroll
			for (int x = 0; x < W; x++)
				u[x] = cw[(cs[p] + iu) * W + x];
#pragma unroll 4
			for (int j = p == q ? iu + 1 : 0; j < lv; j++) {
				const uint64_t *v = v0 + (size_t)j * W;
				int a = 0;
#pragma unroll
				for (int x = 0; x < W; x++)
					a += __popcll(u[x] & __ldg(v + x));
				hh[a * stride]++;
			}
		}
		__syncthreads();
		for (int b = tid; b < span; b += nt) {
			const uint32_t *row = h + b * stride;
			unsigned long long sum = 0;
			for (int x = 0; x < nt; x++)
				sum += row[x];
			if (sum) {
				const int a = b + lo;
				atomicAdd(jh + ((size_t)a * s + (size_t)(wu - a)) * s +
					      (size_t)(wv - a),
					  sum);
			}
		}
		__syncthreads();
	}
}

template <int W>
int wt_launch(int blocks, int nt, size_t shm, const uint64_t *cw, const unsigned long long *cs,
	      const int *cl, const int *cwt, unsigned long long t0, unsigned long long t1, int n,
	      unsigned long long *jh, cudaStream_t st)
{
	int per_sm = 0;
	if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, wt_pairs<W>, nt, shm) !=
		cudaSuccess ||
	    per_sm < 1)
		return GFEC_E_DEVICE;
	const unsigned long long want = (unsigned long long)blocks * (unsigned)per_sm * 4;
	const unsigned grid = (unsigned)std::min(t1 - t0, want);
	wt_pairs<W><<<grid, nt, shm, st>>>(cw, cs, cl, cwt, t0, t1, n, jh);
	return cudaGetLastError() == cudaSuccess ? 0 : GFEC_E_DEVICE;
}

int wt_launch_words(int words, int blocks, int nt, size_t shm, const uint64_t *cw,
		    const unsigned long long *cs, const int *cl, const int *cwt,
		    unsigned long long t0, unsigned long long t1, int n, unsigned long long *jh,
		    cudaStream_t st)
{
	switch (words) {
	case 1:
		return wt_launch<1>(blocks, nt, shm, cw, cs, cl, cwt, t0, t1, n, jh, st);
	case 2:
		return wt_launch<2>(blocks, nt, shm, cw, cs, cl, cwt, t0, t1, n, jh, st);
	case 3:
		return wt_launch<3>(blocks, nt, shm, cw, cs, cl, cwt, t0, t1, n, jh, st);
	default:
		return wt_launch<4>(blocks, nt, shm, cw, cs, cl, cwt, t0, t1, n, jh, st);
	}
}

// Device buffers and the stream of one call, released on every path.
struct WtDev {
	uint64_t *cw = nullptr;
	unsigned long long *cs = nullptr, *jh = nullptr;
	int *cl = nullptr, *cwt = nullptr;
	cudaStream_t st = nullptr;
	~WtDev()
	{
		cudaFree(cw);
		cudaFree(cs);
		cudaFree(jh);
		cudaFree(cl);
		cudaFree(cwt);
		if (st)
			cudaStreamDestroy(st);
	}
};

int wt_pairs_host(const uint64_t *cw, int words, int n, const int *gw, const size_t *gs, int ng,
		  void (*tick)(void *, uint64_t), void *arg, uint64_t *jh)
{
	// The widest a-range of any pair of groups sizes the histogram, hence the block.
	int span = 1;
	for (int g = 0; g < ng; g++)
		for (int e = g; e < ng; e++)
			span = std::max(span, std::min(gw[g], gw[e]) -
						  std::max(0, gw[g] + gw[e] - n) + 1);
	int nt = 256;
	while (nt > 32 && (size_t)span * (nt + 1) * sizeof(uint32_t) > kShared)
		nt /= 2;
	const size_t shm = (size_t)span * (nt + 1) * sizeof(uint32_t);
	const size_t chunk = (size_t)nt * kR, count = gs[ng], s = (size_t)n + 1;

	std::vector<unsigned long long> cs;
	std::vector<int> cl, cwt;
	for (int g = 0; g < ng; g++)
		for (size_t i = gs[g]; i < gs[g + 1]; i += chunk) {
			cs.push_back(i);
			cl.push_back((int)std::min(chunk, gs[g + 1] - i));
			cwt.push_back(gw[g]);
		}
	if (cs.empty())
		return 0;
	const unsigned long long nc = cs.size(), ntiles = nc * (nc + 1) / 2;

	WtDev d;
	int dev = 0, sms = 0;
	const size_t jbytes = s * s * s * sizeof(uint64_t);
	if (cudaGetDevice(&dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
	    cudaStreamCreateWithFlags(&d.st, cudaStreamNonBlocking) != cudaSuccess ||
	    cudaMalloc(&d.cw, count * words * sizeof(uint64_t)) != cudaSuccess ||
	    cudaMalloc(&d.cs, nc * sizeof(unsigned long long)) != cudaSuccess ||
	    cudaMalloc(&d.cl, nc * sizeof(int)) != cudaSuccess ||
	    cudaMalloc(&d.cwt, nc * sizeof(int)) != cudaSuccess ||
	    cudaMalloc(&d.jh, jbytes) != cudaSuccess)
		return GFEC_E_DEVICE;
	if (cudaMemcpyAsync(d.cw, cw, count * words * sizeof(uint64_t), cudaMemcpyHostToDevice,
			    d.st) != cudaSuccess ||
	    cudaMemcpyAsync(d.cs, cs.data(), nc * sizeof(unsigned long long),
			    cudaMemcpyHostToDevice, d.st) != cudaSuccess ||
	    cudaMemcpyAsync(d.cl, cl.data(), nc * sizeof(int), cudaMemcpyHostToDevice, d.st) !=
		cudaSuccess ||
	    cudaMemcpyAsync(d.cwt, cwt.data(), nc * sizeof(int), cudaMemcpyHostToDevice, d.st) !=
		cudaSuccess ||
	    cudaMemsetAsync(d.jh, 0, jbytes, d.st) != cudaSuccess)
		return GFEC_E_DEVICE;
	// Tile t = q(q+1)/2 + p pairs chunk p with chunk q (p <= q): its pair count, for progress.
	unsigned long long p = 0, q = 0;
	const unsigned long long slices = tick ? kSlices : 1;
	for (unsigned long long i = 0; i < slices; i++) {
		const unsigned long long t0 = ntiles * i / slices, t1 = ntiles * (i + 1) / slices;
		if (t0 == t1)
			continue;
		int rc = wt_launch_words(words, sms, nt, shm, d.cw, d.cs, d.cl, d.cwt, t0, t1, n,
					 d.jh, d.st);
		if (rc)
			return rc;
		if (!tick)
			continue;
		if (cudaStreamSynchronize(d.st) != cudaSuccess)
			return GFEC_E_DEVICE;
		uint64_t pairs = 0;
		for (unsigned long long t = t0; t < t1; t++) {
			const uint64_t lp = (uint64_t)cl[p], lq = (uint64_t)cl[q];
			pairs += p == q ? lp * (lp - 1) / 2 : lp * lq;
			if (++p > q)
				p = 0, q++;
		}
		tick(arg, pairs);
	}
	std::vector<uint64_t> out(s * s * s);
	if (cudaMemcpyAsync(out.data(), d.jh, jbytes, cudaMemcpyDeviceToHost, d.st) !=
		cudaSuccess ||
	    cudaStreamSynchronize(d.st) != cudaSuccess)
		return GFEC_E_DEVICE;
	for (size_t i = 0; i < s * s * s; i++)
		jh[i] += out[i];
	return 0;
}

} // namespace

extern "C" int gfec_gpu_weights_pairs(const uint64_t *cw, int words, int n, const int *gw,
				      const size_t *gs, int ng, void (*tick)(void *arg, uint64_t pairs),
				      void *arg, uint64_t *jh)
{
	if (!cw || !gw || !gs || !jh || words < 1 || words > 4 || n < 1 || n > 64 * words || ng < 1)
		return GFEC_E_INVAL;
	try {
		return wt_pairs_host(cw, words, n, gw, gs, ng, tick, arg, jh);
	} catch (...) { // std::bad_alloc from the host-side vectors
		return GFEC_E_NOMEM;
	}
}
