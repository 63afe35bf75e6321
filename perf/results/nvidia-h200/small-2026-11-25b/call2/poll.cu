// Experiment: how fast warps polling a word of mapped pinned host memory see the host's writes.
#include <cuda_runtime.h>
#include <stdio.h>
#include <time.h>
#include <vector>
#include <algorithm>
static double now_us() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
__device__ __forceinline__ unsigned long long ld_sys(const unsigned long long *p) { unsigned long long v; asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ unsigned long long ld_vol(const unsigned long long *p) { return *(const volatile unsigned long long *)p; }
// mode 0: every thread polls; 1: lane 0 of each warp; 2: thread 0 of each block then barrier
template <int MODE, int VOL>
__global__ void poll(const unsigned long long *w, unsigned long long target, int sleep_ns, unsigned int *reads)
{
	unsigned int n = 0;
	__shared__ unsigned long long seen;
	bool me = MODE == 0 || (MODE == 1 && (threadIdx.x & 31) == 0) || (MODE == 2 && threadIdx.x == 0);
	if (me) {
		unsigned long long v = VOL ? ld_vol(w) : ld_sys(w); n++;
		while (v < target) { if (sleep_ns) __nanosleep(sleep_ns); v = VOL ? ld_vol(w) : ld_sys(w); n++; }
		if (MODE == 2) seen = v;
	}
	if (MODE == 2) __syncthreads();
	if (MODE == 1) __syncwarp();
	if (me) atomicAdd(reads, n);
}
int main()
{
	unsigned long long *h, *d; unsigned int *reads, *hreads;
	cudaHostAlloc((void **)&h, 64, cudaHostAllocMapped); cudaHostGetDevicePointer((void **)&d, h, 0);
	cudaMalloc(&reads, 4); cudaMallocHost(&hreads, 4);
	cudaStream_t st; cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
	const int grid = 264, threads = 512;
	for (int mode = 0; mode < 3; mode++)
	for (int vol = 0; vol < 2; vol++)
	for (int sl : { 0, 256, 1000 })
	for (double delay : { 0.0, 20.0 }) {
		std::vector<double> lat, tot; std::vector<unsigned> rd;
		for (int it = 0; it < 30; it++) {
			*(volatile unsigned long long *)h = 0;
			cudaMemsetAsync(reads, 0, 4, st);
			cudaStreamSynchronize(st);
			double t0 = now_us();
			if (mode == 0) { if (vol) poll<0,1><<<grid, threads, 0, st>>>(d, 1, sl, reads); else poll<0,0><<<grid, threads, 0, st>>>(d, 1, sl, reads); }
			if (mode == 1) { if (vol) poll<1,1><<<grid, threads, 0, st>>>(d, 1, sl, reads); else poll<1,0><<<grid, threads, 0, st>>>(d, 1, sl, reads); }
			if (mode == 2) { if (vol) poll<2,1><<<grid, threads, 0, st>>>(d, 1, sl, reads); else poll<2,0><<<grid, threads, 0, st>>>(d, 1, sl, reads); }
			double t1 = now_us();
			while (now_us() < t1 + delay) ;
			double tw = now_us();
			__atomic_store_n(h, 1ull, __ATOMIC_RELEASE);
			cudaStreamSynchronize(st);
			double t2 = now_us();
			cudaMemcpy(hreads, reads, 4, cudaMemcpyDeviceToHost);
			lat.push_back(t2 - tw); tot.push_back(t2 - t0); rd.push_back(*hreads);
		}
		std::sort(lat.begin(), lat.end()); std::sort(tot.begin(), tot.end()); std::sort(rd.begin(), rd.end());
		printf("mode %d (%s) %s sleep %4d delay %4.0f: write->sync P50 %8.2f us max %8.2f, total P50 %8.2f, reads P50 %u\n",
		       mode, mode == 0 ? "thread" : mode == 1 ? "warp" : "block", vol ? "volatile" : "relaxed.sys", sl, delay,
		       lat[lat.size() / 2], lat.back(), tot[tot.size() / 2], rd[rd.size() / 2]);
	}
	// empty launch + sync for reference
	std::vector<double> e;
	for (int it = 0; it < 30; it++) { *(volatile unsigned long long *)h = 1; double t0 = now_us(); poll<2,0><<<grid, threads, 0, st>>>(d, 1, 0, reads); cudaStreamSynchronize(st); e.push_back(now_us() - t0); }
	std::sort(e.begin(), e.end());
	printf("already set: launch + sync P50 %.2f us\n", e[e.size() / 2]);
	return 0;
}
