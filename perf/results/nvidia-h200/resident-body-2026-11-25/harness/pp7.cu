// Launched small-call kernel, one RS(10,4) stripe of 4 KiB chunks in device memory: launch + sync
// P50 of an empty kernel, of the small-call body (16-byte units) and of the resident kernel's
// word body as a plain grid (issue 17 experiment).
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <algorithm>
#include <vector>
#include "gemm_nibble.cuh"
using namespace gfec;

struct P { GemmArgs args; uint8_t *ptrs[16]; };

__global__ void empty() {}
template <int T> __global__ void __launch_bounds__(T) small16(const __grid_constant__ P p)
{
	nibble_small_body<1, StripeTable, LoadLaunch, T>(p.args, StripeTable{ p.ptrs, p.ptrs + p.args.cols });
}
template <int T> __global__ void __launch_bounds__(T) words(const __grid_constant__ P p)
{
	nibble_word_body<1, LoadLaunch, T>(p.args, p.ptrs, p.ptrs + p.args.cols, blockIdx.x, gridDim.x);
}
static double now_us(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}
template <class F> static void run(const char *name, F f)
{
	std::vector<double> t;
	for (int i = 0; i < 200; i++) f(i);
	for (int i = 0; i < 5000; i++) { double a = now_us(); f(i); t.push_back(now_us() - a); }
	std::sort(t.begin(), t.end());
	printf("%-40s P50 %6.2f P99 %6.2f us\n", name, t[t.size() / 2], t[t.size() * 99 / 100]);
}
int main()
{
	const int NS = 4096, K = 10, M = 4; const size_t L = 4096;
	uint8_t *buf; cudaMalloc(&buf, (size_t)NS * (K + M) * L); cudaMemset(buf, 7, (size_t)NS * (K + M) * L);
	uint32_t *tab; cudaMalloc(&tab, K * 32 * 4); cudaMemset(tab, 3, K * 32 * 4);
	cudaStream_t st; cudaStreamCreate(&st);
	cudaDeviceSynchronize();
	auto mk = [&](int i) { P p{}; const int x = (int)(i * 2654435761u % NS);
		p.args.rows = M; p.args.cols = K; p.args.nstripes = 1; p.args.len = L; p.args.units = L / 16; p.args.vec = 1; p.args.lda = K; p.args.tables = tab;
		for (int j = 0; j < K + M; j++) p.ptrs[j] = buf + ((size_t)x * (K + M) + j) * L; return p; };
	for (int round = 0; round < 2; round++) {
		run("empty kernel", [&](int) { empty<<<1, 32, 0, st>>>(); cudaStreamSynchronize(st); });
		run("16-byte units, 4 x 64 (the small kernel)", [&](int i) { small16<64><<<4, 64, 0, st>>>(mk(i)); cudaStreamSynchronize(st); });
		run("16-byte units, 1 x 256", [&](int i) { small16<256><<<1, 256, 0, st>>>(mk(i)); cudaStreamSynchronize(st); });
		run("words, 16 x 64", [&](int i) { words<64><<<16, 64, 0, st>>>(mk(i)); cudaStreamSynchronize(st); });
		run("words, 8 x 128", [&](int i) { words<128><<<8, 128, 0, st>>>(mk(i)); cudaStreamSynchronize(st); });
		run("words, 32 x 32", [&](int i) { words<32><<<32, 32, 0, st>>>(mk(i)); cudaStreamSynchronize(st); });
		run("words, 4 x 256", [&](int i) { words<256><<<4, 256, 0, st>>>(mk(i)); cudaStreamSynchronize(st); });
	}
	printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
