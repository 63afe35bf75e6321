// The resident flow on a cluster of blocks (issue 17 experiment): one block polls, the cluster
// shares the request through distributed shared memory, every block runs a share of the units.
#include <cooperative_groups.h>
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
namespace cg = cooperative_groups;

struct Request { GemmArgs args; int rg; uint8_t *ptrs[24]; };
constexpr int kReqWords = sizeof(Request) / 8;
struct Box {
	alignas(64) uint64_t seq;
	alignas(64) uint64_t done;
	alignas(64) Request req;
};
__device__ __forceinline__ uint64_t ld_acq(const uint64_t *p){uint64_t v;asm volatile("ld.acquire.sys.global.u64 %0,[%1];":"=l"(v):"l"(p):"memory");return v;}
__device__ __forceinline__ uint64_t ld_rlx(const uint64_t *p){uint64_t v;asm volatile("ld.relaxed.sys.global.u64 %0,[%1];":"=l"(v):"l"(p):"memory");return v;}
__device__ __forceinline__ void st_rel(uint64_t *p,uint64_t v){asm volatile("st.release.sys.global.u64 [%0],%1;"::"l"(p),"l"(v):"memory");}
__device__ __forceinline__ uint64_t gt(){uint64_t t;asm volatile("mov.u64 %0, %%globaltimer;":"=l"(t));return t;}

template <int T>
__global__ void __launch_bounds__(T) res(Box *box, uint64_t n, uint64_t *stamps)
{
	cg::cluster_group cl = cg::this_cluster();
	__shared__ uint64_t cmd, raw[kReqWords];
	const unsigned rank = cl.block_rank();
	uint64_t last = 0;
	while (last < n) {
		uint64_t t0 = 0, t1, t2, t3, t4;
		if (rank == 0) {
			if (threadIdx.x == 0) {
				uint64_t s;
				while ((s = ld_acq(&box->seq)) == last) ;
				cmd = s;
				t0 = gt();
			}
			__syncthreads();
			for (int i = threadIdx.x; i < kReqWords; i += T)
				raw[i] = ld_rlx(reinterpret_cast<const uint64_t *>(&box->req) + i);
		}
		cl.sync();
		if (rank != 0) {
			const uint64_t *r0 = cl.map_shared_rank(raw, 0);
			for (int i = threadIdx.x; i < kReqWords; i += T)
				raw[i] = r0[i];
			if (threadIdx.x == 0)
				cmd = *cl.map_shared_rank(&cmd, 0);
			__syncthreads();
		}
		t1 = gt();
		const uint64_t s = cmd;
		const Request &r = *reinterpret_cast<const Request *>(raw);
		nibble_small_body<1, StripeTable, LoadL2, T>(r.args, StripeTable{ r.ptrs, r.ptrs + r.args.cols });
		t2 = gt();
		__threadfence();
		cl.sync();
		t3 = gt();
		if (rank == 0 && threadIdx.x == 0) {
			st_rel(&box->done, s);
			t4 = gt();
			uint64_t *o = stamps + (s - 1) * 4;
			o[0] = t1 - t0; o[1] = t2 - t1; o[2] = t3 - t2; o[3] = t4 - t3;
		}
		last = s;
	}
}

static double now_us(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}
static double med(std::vector<double> v){std::sort(v.begin(),v.end());return v[v.size()/2];}

template <int T> cudaError_t launch(int nb, cudaStream_t st, Box *d, uint64_t N, uint64_t *stamps)
{
	cudaLaunchConfig_t c = {};
	cudaLaunchAttribute a[1];
	c.gridDim = dim3(nb); c.blockDim = dim3(T); c.stream = st;
	a[0].id = cudaLaunchAttributeClusterDimension; a[0].val.clusterDim.x = nb; a[0].val.clusterDim.y = 1; a[0].val.clusterDim.z = 1;
	c.attrs = a; c.numAttrs = 1;
	if (nb > 8) cudaFuncSetAttribute(res<T>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
	return cudaLaunchKernelEx(&c, res<T>, d, N, stamps);
}

int main(int argc, char **argv)
{
	const int NS = 4096, K = 10, M = 4; const uint64_t N = 20000;
	Box *h, *d; cudaHostAlloc(&h, sizeof(Box), cudaHostAllocMapped); cudaHostGetDevicePointer(&d, h, 0);
	const size_t LMAX = 16384;
	uint8_t *buf; cudaMalloc(&buf, (size_t)NS * (K + M) * LMAX); cudaMemset(buf, 7, (size_t)NS * (K + M) * LMAX);
	uint32_t *tab; cudaMalloc(&tab, K * 32 * 4); cudaMemset(tab, 3, K * 32 * 4);
	uint64_t *stamps; cudaMalloc(&stamps, N * 4 * 8);
	cudaStream_t st; cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
	cudaDeviceSynchronize();
	const int cfg[][2] = {{1, 256}, {2, 128}, {4, 64}, {8, 32}, {8, 64}, {16, 32}};
	for (int round = 0; round < 2; round++)
	for (size_t L : {(size_t)4096, (size_t)16384})
	for (auto &cf : cfg) {
		const int nb = cf[0], T = cf[1];
		memset(h, 0, sizeof(Box));
		cudaError_t e = T == 256 ? launch<256>(nb, st, d, N, stamps) : T == 128 ? launch<128>(nb, st, d, N, stamps) :
				T == 64 ? launch<64>(nb, st, d, N, stamps) : launch<32>(nb, st, d, N, stamps);
		if (e != cudaSuccess) { printf("%d x %d: %s\n", nb, T, cudaGetErrorString(e)); cudaGetLastError(); continue; }
		std::vector<double> lat;
		for (uint64_t s = 1; s <= N; s++) {
			const int x = (int)(s * 2654435761u % NS);
			double t0 = now_us();
			Request &q = h->req;
			memset(&q.args, 0, sizeof q.args);
			q.args.rows = M; q.args.cols = K; q.args.nstripes = 1; q.args.len = L; q.args.units = L / 16;
			q.args.vec = 1; q.args.lda = K; q.args.tables = tab; q.rg = 1;
			for (int j = 0; j < K + M; j++) q.ptrs[j] = buf + ((size_t)x * (K + M) + j) * LMAX;
			__atomic_store_n(&h->seq, s, __ATOMIC_SEQ_CST);
			while (__atomic_load_n(&h->done, __ATOMIC_ACQUIRE) != s) __builtin_ia32_pause();
			lat.push_back(now_us() - t0);
		}
		cudaStreamSynchronize(st);
		std::vector<uint64_t> sv(N * 4); cudaMemcpy(sv.data(), stamps, N * 32, cudaMemcpyDeviceToHost);
		std::vector<double> a[4]; for (uint64_t i = 0; i < N; i++) for (int k = 0; k < 4; k++) a[k].push_back(sv[i*4+k] * 1e-3);
		std::sort(lat.begin(), lat.end());
		printf("%5zu B chunks, %2d blocks x %3d: host P50 %5.2f P99 %5.2f us | GPU P50: detect->shared %.2f, body %.2f, fence+cluster sync %.2f, release %.2f\n",
		       L, nb, T, lat[N/2], lat[N*99/100], med(a[0]), med(a[1]), med(a[2]), med(a[3]));
	}
	printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
