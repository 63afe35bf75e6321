// Where the resident kernel's time goes (issue 17 experiment): its flow, stamped by globaltimer.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <algorithm>
#include <vector>
#include "gemm_nibble.cuh"
using namespace gfec;

struct Request { GemmArgs args; int rg; uint8_t *ptrs[24]; };
constexpr int kReqWords = sizeof(Request) / 8;
struct Box {
	alignas(64) uint64_t seq;
	alignas(64) uint64_t done;
	alignas(64) Request req;
	alignas(64) uint64_t wire[sizeof(Request) / 4];
};
constexpr int kWire = sizeof(Request) / 4;
__device__ __forceinline__ uint64_t ld_acq(const uint64_t *p){uint64_t v;asm volatile("ld.acquire.sys.global.u64 %0,[%1];":"=l"(v):"l"(p):"memory");return v;}
__device__ __forceinline__ uint64_t ld_rlx(const uint64_t *p){uint64_t v;asm volatile("ld.relaxed.sys.global.u64 %0,[%1];":"=l"(v):"l"(p):"memory");return v;}
__device__ __forceinline__ void st_rel(uint64_t *p,uint64_t v){asm volatile("st.release.sys.global.u64 [%0],%1;"::"l"(p),"l"(v):"memory");}
__device__ __forceinline__ uint64_t gt(){uint64_t t;asm volatile("mov.u64 %0, %%globaltimer;":"=l"(t));return t;}

// mode bit 1: skip the body; bit 2: skip the fence
__global__ void __launch_bounds__(256) res(Box *box, uint64_t n, int mode, uint64_t *stamps)
{
	__shared__ uint64_t cmd, raw[kReqWords];
	uint64_t last = 0;
	while (last < n) {
		uint64_t t0 = 0, t1, t2, t3, t4;
		if (mode & 4) {
			if (threadIdx.x < 32) {
				const int lane = threadIdx.x;
				for (;;) {
					uint64_t w[3], s = lane == 0 ? ld_acq(&box->seq) : 0;
					for (int k = 0; k < 3; k++) if (lane + 32 * k < kWire) w[k] = ld_rlx(&box->wire[lane + 32 * k]);
					s = __shfl_sync(~0u, s, 0);
					if (s == last) continue;
					bool ok = true;
					for (int k = 0; k < 3; k++) if (lane + 32 * k < kWire) { ok &= (uint32_t)(w[k] >> 32) == (uint32_t)s; reinterpret_cast<uint32_t *>(raw)[lane + 32 * k] = (uint32_t)w[k]; }
					if (__all_sync(~0u, ok)) { if (lane == 0) { cmd = s; t0 = gt(); } break; }
				}
			}
			__syncthreads();
		} else {
		if (threadIdx.x == 0) {
			uint64_t s;
			while ((s = ld_acq(&box->seq)) == last) ;
			cmd = s;
			t0 = gt();
		}
		__syncthreads();
		for (int i = threadIdx.x; i < kReqWords; i += 256)
			raw[i] = ld_rlx(reinterpret_cast<const uint64_t *>(&box->req) + i);
		__syncthreads();
		}
		const uint64_t s = cmd;
		t1 = gt();
		const Request &r = *reinterpret_cast<const Request *>(raw);
		if (!(mode & 1))
			nibble_small_body<1, StripeTable, LoadL2, 256>(r.args, StripeTable{ r.ptrs, r.ptrs + r.args.cols });
		t2 = gt();
		if (!(mode & 2))
			__threadfence();
		__syncthreads();
		t3 = gt();
		if (threadIdx.x == 0) {
			st_rel(&box->done, s);
			t4 = gt();
			uint64_t *o = stamps + (s - 1) * 4;
			o[0] = t1 - t0; o[1] = t2 - t1; o[2] = t3 - t2; o[3] = t4 - t3;
		}
		last = s;
		__syncthreads();
	}
}

static double now_us(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}
static double med(std::vector<double> v){std::sort(v.begin(),v.end());return v[v.size()/2];}

int main()
{
	const int NS = 4096, K = 10, M = 4; const size_t L = 4096; const uint64_t N = 20000;
	Box *h, *d; cudaHostAlloc(&h, sizeof(Box), cudaHostAllocMapped); cudaHostGetDevicePointer(&d, h, 0);
	uint8_t *buf; cudaMalloc(&buf, (size_t)NS * (K + M) * L); cudaMemset(buf, 7, (size_t)NS * (K + M) * L);
	uint32_t *tab; cudaMalloc(&tab, K * 32 * 4); cudaMemset(tab, 3, K * 32 * 4);
	uint64_t *stamps; cudaMalloc(&stamps, N * 4 * 8);
	cudaStream_t st; cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
	cudaDeviceSynchronize();
	const char *names[] = {"body + fence", "no body, fence", "body, no fence", "no body, no fence", "LL: body + fence", "LL: no body, fence"};
	for (int round = 0; round < 2; round++)
	for (int hot = 0; hot < 2; hot++)
	for (int mode : {0, 4, 1, 5}) {
		if (hot) continue;
		memset(h, 0, sizeof(Box));
		res<<<1, 256, 0, st>>>(d, N, mode, stamps);
		std::vector<double> lat;
		for (uint64_t s = 1; s <= N; s++) {
			const int x = hot ? 0 : (int)(s * 2654435761u % NS);
			double t0 = now_us();
			Request &q = h->req;
			memset(&q.args, 0, sizeof q.args);
			q.args.rows = M; q.args.cols = K; q.args.nstripes = 1; q.args.len = L; q.args.units = L / 16;
			q.args.vec = 1; q.args.lda = K; q.args.tables = tab; q.rg = 1;
			for (int j = 0; j < K + M; j++) q.ptrs[j] = buf + ((size_t)x * (K + M) + j) * L;
			if (mode & 4) { uint32_t pc[kWire]; memcpy(pc, &q, sizeof q); for (int i = 0; i < kWire; i++) __atomic_store_n(&h->wire[i], (uint64_t)(uint32_t)s << 32 | pc[i], __ATOMIC_RELAXED); }
			__atomic_store_n(&h->seq, s, __ATOMIC_SEQ_CST);
			while (__atomic_load_n(&h->done, __ATOMIC_ACQUIRE) != s) __builtin_ia32_pause();
			lat.push_back(now_us() - t0);
		}
		cudaStreamSynchronize(st);
		std::vector<uint64_t> sv(N * 4); cudaMemcpy(sv.data(), stamps, N * 32, cudaMemcpyDeviceToHost);
		std::vector<double> a[4]; for (uint64_t i = 0; i < N; i++) for (int k = 0; k < 4; k++) a[k].push_back(sv[i*4+k] * 1e-3);
		std::sort(lat.begin(), lat.end());
		printf("%-18s %-4s host P50 %5.2f P99 %5.2f us | GPU P50: detect->request %.2f, body %.2f, fence+sync %.2f, release store %.2f\n",
		       names[mode], hot ? "hot" : "cold", lat[N/2], lat[N*99/100], med(a[0]), med(a[1]), med(a[2]), med(a[3]));
	}
	printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
