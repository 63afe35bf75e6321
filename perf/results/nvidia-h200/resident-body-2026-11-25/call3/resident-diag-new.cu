// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file resident.cu
 * The resident small-call kernel and its host side (resident.h).
 *
 * Who runs a request: the host posts it (seq), then looks whether a kernel is running; a kernel
 * about to leave says so (running = 0), then looks at seq once more. Each side stores before it
 * loads, with a full fence between, so at least one of them sees the other: the kernel serves the
 * request, or the host launches a kernel that will (both may happen: a kernel serves a request
 * only once, by the count `served` that it keeps in device memory across launches). Should a
 * request still wait with no kernel left, the waiting host finds that out by querying the stream
 * now and then, and launches again.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <mutex>
#include <vector>
#include <algorithm>
#include <stdio.h>
#include <time.h>
#include <new>
#include <stdint.h>

#include "../kernel/gemm_nibble.cuh"
#include "gfec/gfec_errors.h"
#include "resident.h"

namespace gfec {
namespace {

namespace cg = cooperative_groups;

// A cluster of kBlocks blocks of kThreads (nibble_word_body: a 16 KiB chunk is one word a thread
// over two passes); block 0 polls and shares the request through distributed shared memory.
constexpr int kThreads = 256;
constexpr int kBlocks = 8;
constexpr uint64_t kIdle = 0;	      // the kernel's "nothing new" (requests count from 1)
constexpr uint64_t kLeave = ~0ull; // box.seq: the host stops the kernel; the kernel's "leave"
// Spins of a waiting host between two queries of the kernel's stream (each ~0.1 us).
constexpr unsigned kQueryEvery = 1u << 12;

struct Request {
	GemmArgs args;
	int rg;
	uint8_t *ptrs[kResidentPtrs]; // args.cols inputs, then args.rows outputs
};

constexpr int kReqWords = (int)((sizeof(Request) + 7) / 8);

// Pinned host memory, mapped; the host and the GPU each write their own 64-byte lines.
struct Box {
	alignas(64) uint64_t seq; // host: the last request posted (kLeave: stop)
	alignas(64) uint64_t done; // GPU: the last request served
	uint32_t running;	   // GPU (host when it launches): a kernel polls seq
	alignas(64) Request req;  // host: the request seq names
	alignas(64) uint64_t posted; // DIAG: host realtime ns at the post
};
constexpr int kDiag = 1 << 14;
__device__ uint64_t g_diag[kDiag][6];

__device__ __forceinline__ uint64_t ld_acquire_sys(const uint64_t *p)
{
	uint64_t v;

	asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}

__device__ __forceinline__ uint64_t ld_relaxed_sys(const uint64_t *p)
{
	uint64_t v;

	asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}

__device__ __forceinline__ void st_running(uint32_t *p, uint32_t v)
{
	asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ void st_release_sys(uint64_t *p, uint64_t v)
{
	asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ uint64_t now_ns()
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/*
 * Thread 0's look at the box: a request to serve, kIdle, or kLeave (stopped, or past its time
 * with nothing posted: see the top of the file for the last look).
 */
__device__ uint64_t next_request(Box *box, uint64_t last, uint64_t t0, uint64_t tidle,
				 uint64_t idle_ns, uint64_t life_ns)
{
	uint64_t s = ld_acquire_sys(&box->seq);

	if (s == kLeave)
		return kLeave;
	if (s != last)
		return s;
	const uint64_t t = now_ns();

	if (t - tidle < idle_ns && t - t0 < life_ns)
		return kIdle;
	st_running(&box->running, 0);
	asm volatile("fence.sc.sys;" ::: "memory");
	s = ld_acquire_sys(&box->seq);
	if (s == kLeave || s == last)
		return kLeave;
	st_running(&box->running, 1);
	return s;
}

__global__ void __cluster_dims__(kBlocks, 1, 1) __launch_bounds__(kThreads)
	gf_resident(Box *box, uint64_t *served, uint64_t idle_ns, uint64_t life_ns)
{
	// Block 0's thread 0 polls alone, in a tight loop, while the other blocks wait at the cluster
	// barrier; block 0 rewrites cmd and raw only after the next barrier, by which every block
	// has read them.
	__shared__ uint64_t cmd;
	__shared__ uint64_t raw[kReqWords];
	const cg::cluster_group cluster = cg::this_cluster();
	const unsigned rank = cluster.block_rank();
	uint64_t last = 0, t0 = 0, tidle = 0;

	if (rank == 0 && threadIdx.x == 0) {
		last = *(volatile uint64_t *)served;
		t0 = tidle = now_ns();
		st_running(&box->running, 1);
	}
	for (;;) {
		if (rank == 0) {
			if (threadIdx.x == 0) {
				uint64_t c;

				while ((c = next_request(box, last, t0, tidle, idle_ns, life_ns)) == kIdle)
					;
				cmd = c;
				if (c != kLeave) { g_diag[c % kDiag][0] = now_ns(); g_diag[c % kDiag][5] = *(volatile uint64_t *)&box->posted; }
			}
			__syncthreads();
			if (cmd != kLeave) {
				const uint64_t *src = reinterpret_cast<const uint64_t *>(&box->req);

				for (int i = threadIdx.x; i < kReqWords; i += kThreads)
					raw[i] = ld_relaxed_sys(src + i);
			}
		}
		cluster.sync();
		const uint64_t s = *cluster.map_shared_rank(&cmd, 0);
		if (rank == 0 && threadIdx.x == 0 && s != kLeave) g_diag[s % kDiag][1] = now_ns();

		if (s == kLeave) {
			cluster.sync(); // no block reads block 0's shared memory once it has left
			return;
		}
		if (rank != 0) {
			const uint64_t *r0 = cluster.map_shared_rank(raw, 0);

			for (int i = threadIdx.x; i < kReqWords; i += kThreads)
				raw[i] = r0[i];
			__syncthreads();
		}
		const Request &r = *reinterpret_cast<const Request *>(raw);
		const uint8_t *const *in = r.ptrs;

		if (r.rg == 1)
			nibble_word_body<1, LoadL2, kThreads>(r.args, in, r.ptrs + r.args.cols, rank,
							      kBlocks);
		else
			nibble_word_body<2, LoadL2, kThreads>(r.args, in, r.ptrs + r.args.cols, rank,
							      kBlocks);
		if (rank == 0 && threadIdx.x == 0) g_diag[s % kDiag][2] = now_ns();
		__threadfence(); // this thread's outputs, before the cluster's "done"
		cluster.sync();
		if (rank == 0 && threadIdx.x == 0) {
			g_diag[s % kDiag][3] = now_ns();
			last = s;
			*(volatile uint64_t *)served = s;
			st_release_sys(&box->done, s); // after every block's outputs and served
			g_diag[s % kDiag][4] = now_ns();
			tidle = now_ns();
		}
	}
}

} // namespace

struct Resident {
	std::mutex lock; // one request at a time (try_lock: a caller that finds it taken launches)
	cudaStream_t st = nullptr; // non-blocking: see resident.h
	Box *box = nullptr, *dbox = nullptr; // host and device addresses of the box
	uint64_t *served = nullptr;	     // device memory
	uint64_t seq = 0;		     // the last request posted
	uint64_t idle_ns = 0, life_ns = 0;
	bool broken = false; // a CUDA error: never taken again
};

cudaError_t resident_create(long long idle_us, Resident **out)
{
	Resident *r = new (std::nothrow) Resident;
	cudaError_t e;

	*out = nullptr;
	if (!r)
		return cudaErrorMemoryAllocation;
	r->idle_ns = (uint64_t)idle_us * 1000;
	r->life_ns = (uint64_t)(idle_us > kLifeUs ? idle_us : kLifeUs) * 1000;
	if ((e = cudaStreamCreateWithFlags(&r->st, cudaStreamNonBlocking)) != cudaSuccess ||
	    (e = cudaHostAlloc(&r->box, sizeof(Box), cudaHostAllocMapped)) != cudaSuccess ||
	    (e = cudaHostGetDevicePointer(&r->dbox, r->box, 0)) != cudaSuccess ||
	    (e = cudaMalloc(&r->served, sizeof(uint64_t))) != cudaSuccess ||
	    (e = cudaMemsetAsync(r->served, 0, sizeof(uint64_t), r->st)) != cudaSuccess) {
		cudaGetLastError();
		resident_destroy(r);
		return e;
	}
	new (r->box) Box{};
	*out = r;
	return cudaSuccess;
}

void resident_destroy(Resident *r)
{
	if (!r)
		return;
	if (r->box && r->seq > 100) {
		__atomic_store_n(&r->box->seq, kLeave, __ATOMIC_SEQ_CST);
		if (r->st) cudaStreamSynchronize(r->st);
		static uint64_t h[kDiag][6];
		cudaMemcpyFromSymbol(h, g_diag, sizeof h);
		const uint64_t n = r->seq < kDiag ? r->seq : kDiag;
		std::vector<double> d[6];
		for (uint64_t i = 1; i < n; i++) {
			if (!h[i][4]) continue;
			d[0].push_back((double)((int64_t)(h[i][0] - h[i][5])) * 1e-3);
			for (int k = 1; k < 5; k++) d[k].push_back((double)(h[i][k] - h[i][k - 1]) * 1e-3);
		}
		for (auto &v : d) std::sort(v.begin(), v.end());
		if (!d[1].empty())
			fprintf(stderr, "DIAG %zu requests, P50 us: post->detect %.2f, detect->A (request read + cluster) %.2f, body %.2f, fence+C %.2f, release %.2f\n",
				d[1].size(), d[0][d[0].size() / 2], d[1][d[1].size() / 2], d[2][d[2].size() / 2], d[3][d[3].size() / 2], d[4][d[4].size() / 2]);
	}
	if (r->box) {
		__atomic_store_n(&r->box->seq, kLeave, __ATOMIC_SEQ_CST);
		if (r->st)
			cudaStreamSynchronize(r->st);
	}
	if (r->st)
		cudaStreamDestroy(r->st);
	cudaFreeHost(r->box);
	cudaFree(r->served);
	cudaGetLastError();
	delete r;
}

namespace {

cudaError_t launch_resident(Resident *r)
{
	__atomic_store_n(&r->box->running, 1u, __ATOMIC_SEQ_CST);
	gf_resident<<<kBlocks, kThreads, 0, r->st>>>(r->dbox, r->served, r->idle_ns, r->life_ns);
	return cudaGetLastError();
}

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/*
 * A CUDA error while request @p s waits: the engine is off, and once the stream has drained no
 * kernel can serve the request any more; 1 if one did (an update must not be redone), else
 * GFEC_E_DEVICE.
 */
int fail(Resident *r, uint64_t s)
{
	r->broken = true;
	cudaGetLastError();
	cudaStreamSynchronize(r->st);
	cudaGetLastError();
	return __atomic_load_n(&r->box->done, __ATOMIC_ACQUIRE) == s ? 1 : GFEC_E_DEVICE;
}

} // namespace

int resident_run(Resident *r, const GemmArgs &args, int rg, const uint8_t *const *src,
		 uint8_t *const *dst)
{
	std::unique_lock<std::mutex> g(r->lock, std::try_to_lock);

	if (!g.owns_lock() || r->broken || args.cols + args.rows > kResidentPtrs ||
	    args.units > kResidentMaxUnits)
		return 0;
	// the caller's work queued on the legacy stream first (a launch on a blocking stream would
	// wait for it; the resident kernel does not)
	const cudaError_t q = cudaStreamQuery(cudaStreamLegacy);

	if (q != cudaSuccess) {
		if (q != cudaErrorNotReady)
			cudaGetLastError();
		return 0;
	}
	Request &req = r->box->req;

	req.args = args;
	req.rg = rg;
	for (int j = 0; j < args.cols; j++)
		req.ptrs[j] = const_cast<uint8_t *>(src[j]);
	for (int i = 0; i < args.rows; i++)
		req.ptrs[args.cols + i] = dst[i];
	const uint64_t s = ++r->seq;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	r->box->posted = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	__atomic_store_n(&r->box->seq, s, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&r->box->running, __ATOMIC_SEQ_CST) &&
	    launch_resident(r) != cudaSuccess)
		return fail(r, s);
	for (unsigned spin = 1;; spin++) {
		if (__atomic_load_n(&r->box->done, __ATOMIC_ACQUIRE) == s)
			return 1;
		cpu_relax();
		if (spin % kQueryEvery)
			continue;
		const cudaError_t e = cudaStreamQuery(r->st);

		if (e == cudaErrorNotReady)
			continue;
		if (e != cudaSuccess)
			return fail(r, s);
		// no kernel in the stream: the last one left without seeing the request
		if (__atomic_load_n(&r->box->done, __ATOMIC_ACQUIRE) != s &&
		    launch_resident(r) != cudaSuccess)
			return fail(r, s);
	}
}

} // namespace gfec
