// Ping-pong floor of a resident kernel fed through pinned host memory (issue 17 experiment).
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <algorithm>
#include <vector>

struct alignas(64) Line { volatile uint64_t v; uint64_t pad[7]; };
struct Box { Line seq; Line done; Line extra[8]; };

__device__ __forceinline__ uint64_t ld_acq(const volatile uint64_t *p){uint64_t v;asm volatile("ld.acquire.sys.global.u64 %0,[%1];":"=l"(v):"l"(p):"memory");return v;}
__device__ __forceinline__ uint64_t ld_rlx(const volatile uint64_t *p){uint64_t v;asm volatile("ld.relaxed.sys.global.u64 %0,[%1];":"=l"(v):"l"(p):"memory");return v;}
__device__ __forceinline__ void st_rel(volatile uint64_t *p,uint64_t v){asm volatile("st.release.sys.global.u64 [%0],%1;"::"l"(p),"l"(v):"memory");}
__device__ __forceinline__ void st_rlx(volatile uint64_t *p,uint64_t v){asm volatile("st.relaxed.sys.global.u64 [%0],%1;"::"l"(p),"l"(v):"memory");}

// mode: 0 one poller, release store; 1 one poller, relaxed store; 2 + __threadfence before;
// 3 + one more dependent read of host memory after detection (one RTT); 4 nw warps polling
__global__ void pp(Box *b, int mode, int nw, uint64_t n)
{
	__shared__ volatile uint64_t seen;
	const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
	uint64_t last = 0;
	if (threadIdx.x == 0) seen = 0;
	__syncthreads();
	while (last < n) {
		if (mode == 4) {
			if (lane == 0 && warp < nw) {
				if (warp) __nanosleep(warp * 2000 / nw);
				for (;;) {
					uint64_t s = ld_acq(&b->seq.v);
					if (s != last) { seen = s; break; }
					if (seen != last) break;
				}
			}
			__syncthreads();
			last = seen;
			if (threadIdx.x == 0) st_rel(&b->done.v, last);
			__syncthreads();
			continue;
		}
		if (threadIdx.x == 0) {
			uint64_t s;
			while ((s = ld_acq(&b->seq.v)) == last) ;
			if (mode == 3) s += ld_rlx(&b->extra[0].v) * 0;
			if (mode == 2) __threadfence();
			if (mode == 1) st_rlx(&b->done.v, s); else st_rel(&b->done.v, s);
			last = s;
		}
		__syncthreads();
		if (threadIdx.x == 0) seen = last;
		__syncthreads();
		last = seen;
	}
}

static double now_us(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}

int main()
{
	Box *h, *d;
	cudaSetDeviceFlags(cudaDeviceMapHost);
	cudaHostAlloc(&h, sizeof(Box), cudaHostAllocMapped);
	cudaHostGetDevicePointer(&d, h, 0);
	cudaStream_t st; cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
	const uint64_t N = 20000;
	const char *names[] = {"one poller, st.release.sys", "one poller, st.relaxed.sys", "one poller, threadfence + release", "one poller, + a dependent read (1 RTT)"};
	for (int round = 0; round < 2; round++)
	for (int mode = 0; mode < 8; mode++) {
		int m = mode < 4 ? mode : 4, nw = mode < 4 ? 1 : (mode == 4 ? 1 : mode == 5 ? 2 : mode == 6 ? 4 : 8);
		h->seq.v = 0; h->done.v = 0;
		pp<<<1, 256, 0, st>>>(d, m, nw, N);
		std::vector<double> lat;
		for (uint64_t s = 1; s <= N; s++) {
			double t0 = now_us();
			__atomic_store_n(&h->seq.v, s, __ATOMIC_SEQ_CST);
			while (__atomic_load_n(&h->done.v, __ATOMIC_ACQUIRE) != s) __builtin_ia32_pause();
			lat.push_back(now_us() - t0);
			double t1 = now_us(); while (now_us() - t1 < (s % 7) * 0.3) ; // vary the phase
		}
		cudaStreamSynchronize(st);
		std::sort(lat.begin(), lat.end());
		if (m < 4) printf("%-45s P50 %.2f P10 %.2f P99 %.2f us\n", names[m], lat[N/2], lat[N/10], lat[N*99/100]);
		else printf("%d warps polling, release                      P50 %.2f P10 %.2f P99 %.2f us\n", nw, lat[N/2], lat[N/10], lat[N*99/100]);
	}
	// host-side costs
	cuInit(0);
	for (int k = 0; k < 3; k++) {
		const int R = 20000; double t0 = now_us();
		for (int i = 0; i < R; i++) {
			if (k == 0) cudaStreamQuery(cudaStreamLegacy);
			else if (k == 1) cuStreamQuery(CU_STREAM_LEGACY);
			else cudaStreamQuery(st);
		}
		printf("%s: %.3f us\n", k == 0 ? "cudaStreamQuery(cudaStreamLegacy)" : k == 1 ? "cuStreamQuery(CU_STREAM_LEGACY)" : "cudaStreamQuery(non-blocking stream, idle)", (now_us() - t0) / R);
	}
	printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
	return 0;
}
