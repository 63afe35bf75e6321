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
#include <new>
#include <stdint.h>
#include <time.h>
#include <type_traits>
#include <vector>

#include "../kernel/gemm_nibble.cuh"
#include "fifo_gate.h"
#include "gfec/gfec_errors.h"
#include "poll.h"
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
// A pinned engine: a cluster of kHostBlocks, which leaves after kHostIdleUs without a request.
// On the H200, RS(10,4) 64 KiB from 1 / 16 callers: 4.6 / 46 GB/s on 32 engines of one block,
// 8.7 / 48 on 16 of 8 blocks (all 132 multiprocessors but 4), 8.3 / 47 on 16 of 4 (call 14);
// a launch per call 8.8 / 37.
constexpr int kHostBlocks = 4;
constexpr long long kHostIdleUs = 1000;

struct Request {
	GemmArgs args;
	int rg;
	uint8_t *ptrs[kResidentPtrs]; // args.cols inputs, then args.rows outputs
};

constexpr int kReqWords = (int)((sizeof(Request) + 7) / 8);

// Pinned host memory, mapped; the host and the GPU each write their own 64-byte lines. Request s
// is req[s % kResidentQueue]; the kernel serves them in order, one after the other.
struct Box {
	alignas(64) uint64_t seq; // host: the last request posted (kLeave: stop)
	alignas(64) uint64_t done; // GPU: the last request served
	uint32_t running;	   // GPU (host when it launches): a kernel polls seq
	alignas(64) Request req[kResidentQueue]; // host
};

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
 * Thread 0's look at the box: the request to serve (the one after @p last), kIdle, or kLeave
 * (stopped, or past its time with nothing posted: see the top of the file for the last look).
 */
__device__ uint64_t next_request(Box *box, uint64_t last, uint64_t t0, uint64_t tidle,
				 uint64_t idle_ns, uint64_t life_ns)
{
	uint64_t s = ld_acquire_sys(&box->seq);

	if (s == kLeave)
		return kLeave;
	if (s != last)
		return last + 1;
	const uint64_t t = now_ns();

	if (t - tidle < idle_ns && t - t0 < life_ns)
		return kIdle;
	st_running(&box->running, 0);
	asm volatile("fence.sc.sys;" ::: "memory");
	s = ld_acquire_sys(&box->seq);
	if (s == kLeave || s == last)
		return kLeave;
	st_running(&box->running, 1);
	return last + 1;
}

/*
 * L = LoadL2: device memory (gpu_resident_us); LoadSys: the mapped addresses of pinned host
 * memory (gpu_resident_pinned's engines), whose outputs the host reads: fenced at system scope.
 */
template <class L, int B>
__global__ void __cluster_dims__(B, 1, 1) __launch_bounds__(kThreads)
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
			}
			__syncthreads();
			if (cmd != kLeave) {
				const uint64_t *src =
					reinterpret_cast<const uint64_t *>(&box->req[cmd % kResidentQueue]);

				for (int i = threadIdx.x; i < kReqWords; i += kThreads)
					raw[i] = ld_relaxed_sys(src + i);
			}
		}
		cluster.sync();
		const uint64_t s = *cluster.map_shared_rank(&cmd, 0);

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
			nibble_word_body<1, L, kThreads>(r.args, in, r.ptrs + r.args.cols, rank, B);
		else
			nibble_word_body<2, L, kThreads>(r.args, in, r.ptrs + r.args.cols, rank, B);
		// this thread's outputs, before the cluster's "done"
		if (std::is_same<L, LoadSys>::value)
			__threadfence_system();
		else
			__threadfence();
		cluster.sync();
		if (rank == 0 && threadIdx.x == 0) {
			last = s;
			*(volatile uint64_t *)served = s;
			st_release_sys(&box->done, s); // after every block's outputs and served
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
	bool host = false;   // a pinned engine (gf_resident<LoadSys>)
	// a pinned engine: its recent latency per byte moved, in ps (atomic: a guide for the naps)
	uint64_t est_ps = 0;
	uint64_t queued = 0; // a pinned engine: the bytes of the requests posted and not returned (atomic)
	int inside = 0;	     // a pinned engine: its requests not given back (pool lock)
	uint64_t used = 0;   // a pinned engine: when it was chosen last (pool lock)
};

namespace {

cudaError_t create(long long idle_us, bool host, Resident **out)
{
	Resident *r = new (std::nothrow) Resident;
	cudaError_t e;

	*out = nullptr;
	if (!r)
		return cudaErrorMemoryAllocation;
	r->host = host;
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

} // namespace

cudaError_t resident_create(long long idle_us, Resident **out)
{
	return create(idle_us, false, out);
}

void resident_destroy(Resident *r)
{
	if (!r)
		return;
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
	if (r->host)
		gf_resident<LoadSys, kHostBlocks><<<kHostBlocks, kThreads, 0, r->st>>>(
			r->dbox, r->served, r->idle_ns, r->life_ns);
	else
		gf_resident<LoadL2, kBlocks><<<kBlocks, kThreads, 0, r->st>>>(r->dbox, r->served,
									      r->idle_ns, r->life_ns);
	return cudaGetLastError();
}

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/*
 * Held while an engine is turned off (fail) or launched again (still_running), so that no kernel
 * starts on it after fail(): a pinned engine's lock, which its callers post under; none for a
 * device-memory one, whose only caller holds the lock throughout resident_run.
 */
std::unique_lock<std::mutex> engine_lock(Resident *r)
{
	return r->host ? std::unique_lock<std::mutex>(r->lock) : std::unique_lock<std::mutex>();
}

/*
 * A CUDA error while request @p s waits: the engine is off, and once the stream has drained no
 * kernel can serve the request any more; 1 if one did (an update must not be redone), else
 * GFEC_E_DEVICE.
 */
int fail(Resident *r, uint64_t s)
{
	{
		const std::unique_lock<std::mutex> g = engine_lock(r);

		__atomic_store_n(&r->broken, true, __ATOMIC_RELAXED);
	}
	cudaGetLastError();
	cudaStreamSynchronize(r->st);
	cudaGetLastError();
	return __atomic_load_n(&r->box->done, __ATOMIC_ACQUIRE) >= s ? 1 : GFEC_E_DEVICE;
}

/*
 * Whether the caller's work queued on the legacy stream is done (a launch on a blocking stream
 * would wait for it; a resident kernel does not): if not, a call on device memory is launched
 * instead. Calls on pinned host memory do not ask: host buffers are read when the call is made,
 * on every backend (gfec.h).
 */
bool legacy_idle()
{
	const cudaError_t q = cudaStreamQuery(cudaStreamLegacy);

	if (q != cudaSuccess && q != cudaErrorNotReady)
		cudaGetLastError();
	return q == cudaSuccess;
}

// Writes the request and posts it as *s (see the top of the file), launching a kernel if none runs
// (*launched, where given).
cudaError_t post(Resident *r, const GemmArgs &args, int rg, const uint8_t *const *src,
		 uint8_t *const *dst, uint64_t *s, bool *launched = nullptr)
{
	Request &req = r->box->req[(r->seq + 1) % kResidentQueue];

	req.args = args;
	req.rg = rg;
	for (int j = 0; j < args.cols; j++)
		req.ptrs[j] = const_cast<uint8_t *>(src[j]);
	for (int i = 0; i < args.rows; i++)
		req.ptrs[args.cols + i] = dst[i];
	*s = ++r->seq;
	__atomic_store_n(&r->box->seq, *s, __ATOMIC_SEQ_CST);
	const bool launch = !__atomic_load_n(&r->box->running, __ATOMIC_SEQ_CST);

	if (launched)
		*launched = launch;
	return launch ? launch_resident(r) : cudaSuccess;
}

// Whether request @p s is served (requests are served in order).
bool served(const Resident *r, uint64_t s)
{
	return __atomic_load_n(&r->box->done, __ATOMIC_ACQUIRE) >= s;
}

/*
 * A waiting host's look at the kernel's stream: false after a CUDA error; a stream with no
 * kernel left, and request @p s not served, gets a kernel again, unless fail() has turned the
 * engine off: a kernel launched after another caller's fail() found its request unserved could
 * still serve it while that call is redone on the CPU (an update's delta applied twice).
 */
bool still_running(Resident *r, uint64_t s)
{
	const cudaError_t e = cudaStreamQuery(r->st);

	if (e == cudaErrorNotReady)
		return true;
	if (e != cudaSuccess)
		return false;
	if (served(r, s))
		return true;
	const std::unique_lock<std::mutex> g = engine_lock(r);

	return !__atomic_load_n(&r->broken, __ATOMIC_RELAXED) && launch_resident(r) == cudaSuccess;
}

uint64_t now_host_ns()
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

} // namespace

int resident_run(Resident *r, const GemmArgs &args, int rg, const uint8_t *const *src,
		 uint8_t *const *dst)
{
	std::unique_lock<std::mutex> g(r->lock, std::try_to_lock);
	uint64_t s;

	if (!g.owns_lock() || r->broken || args.cols + args.rows > kResidentPtrs ||
	    args.units > kResidentMaxUnits || !legacy_idle())
		return 0;
	if (post(r, args, rg, src, dst, &s) != cudaSuccess)
		return fail(r, s);
	for (unsigned spin = 1; !served(r, s); spin++) {
		cpu_relax();
		if (spin % kQueryEvery == 0 && !still_running(r, s))
			return fail(r, s);
	}
	return 1;
}

/*
 * Callers enter in arrival order, a unit of the gate for each piece they may have posted at once,
 * while fewer than kResidentQueue requests per engine are inside (fifo_gate.h: a mutex alone let
 * new callers overtake waiting ones, P99 10-12 ms from 64 callers on 16 engines), and each piece
 * is posted to the engine with
 * the fewest requests, of those the one chosen last, so that one or a few callers keep the same
 * kernels running (taken in turn, one caller's calls reached each of 16 engines after its kernel
 * had left: 4.1 GB/s where a launch per call made 9.0, H200 call 15). A caller behind others on
 * its engine sleeps through their requests as well as its own: waiting at the gate for an idle
 * engine (a futex sleep and its wake) cost 9.9 us of CPU a call from 64 callers on 16 engines
 * (cpu-threads-2026-11-26, call 4).
 */
struct ResidentPool {
	std::vector<Resident *> engines;
	struct gfec_fifo_gate gate;
	bool gate_made = false;
	std::mutex lock;    // the engines' inside and used
	uint64_t clock = 0; // choices made (lock)
};

cudaError_t resident_pool_create(int engines, ResidentPool **out)
{
	ResidentPool *p = new (std::nothrow) ResidentPool;
	cudaError_t e = cudaSuccess;

	*out = nullptr;
	if (!p)
		return cudaErrorMemoryAllocation;
	if (engines < 1 || engines > kResidentPoolMax)
		e = cudaErrorInvalidValue;
	else if (gfec_fifo_gate_init(&p->gate, (uint64_t)engines * kResidentQueue))
		e = cudaErrorMemoryAllocation;
	else
		p->gate_made = true;
	try {
		p->engines.reserve((size_t)engines);
	} catch (const std::bad_alloc &) {
		e = cudaErrorMemoryAllocation;
	}
	for (int i = 0; e == cudaSuccess && i < engines; i++) {
		Resident *r;

		if ((e = create(kHostIdleUs, true, &r)) == cudaSuccess)
			p->engines.push_back(r); // reserved: cannot throw
	}
	if (e != cudaSuccess) {
		resident_pool_destroy(p);
		return e;
	}
	*out = p;
	return cudaSuccess;
}

bool resident_pool_working(const ResidentPool *p)
{
	for (const Resident *r : p->engines)
		if (!__atomic_load_n(&r->broken, __ATOMIC_RELAXED))
			return true;
	return false;
}

void resident_pool_destroy(ResidentPool *p)
{
	if (!p)
		return;
	for (Resident *r : p->engines)
		resident_destroy(r);
	if (p->gate_made)
		gfec_fifo_gate_destroy(&p->gate);
	delete p;
}

namespace {

/*
 * The engine a caller inside the gate posts a piece to (see ResidentPool), counted in its inside;
 * nullptr when every engine that works holds kResidentQueue requests (some are off after an
 * error): a request slot is reused only once its request is served, which kResidentQueue requests
 * at most on an engine guarantees (requests are served in order, and a caller gives a slot back
 * once its request is).
 */
Resident *choose(ResidentPool *p)
{
	std::lock_guard<std::mutex> g(p->lock);
	Resident *best = nullptr;

	for (Resident *r : p->engines)
		if (!__atomic_load_n(&r->broken, __ATOMIC_RELAXED) && r->inside < kResidentQueue &&
		    (!best || r->inside < best->inside ||
		     (r->inside == best->inside && r->used > best->used)))
			best = r;
	if (best) {
		best->inside++;
		best->used = ++p->clock;
	}
	return best;
}

// A request slot of @p r given back.
void give_back(ResidentPool *p, Resident *r)
{
	std::lock_guard<std::mutex> g(p->lock);

	r->inside--;
}

// A piece from its post on an engine to its end (post_pinned, wait_pinned).
struct Ticket {
	Resident *r;
	uint64_t s;
	uint64_t bytes;	 // its inputs and outputs
	uint64_t ahead;	 // the engine's bytes queued with it, its own included
	uint64_t t0;	 // posted (now_host_ns)
	uint64_t first;	 // its first look, ns after t0
	bool launched;	 // its post started a kernel
	cudaError_t e;	 // of the post
};

// Piece @p pc on engine @p r, behind the requests its other callers posted; t->s 0: not posted,
// the engine having been turned off since choose().
void post_pinned(Resident *r, const ResidentPiece &pc, int rg, const unsigned *pollers, Ticket *t)
{
	t->r = r;
	t->bytes = (uint64_t)(pc.args.cols + pc.args.rows) * pc.args.len;
	t->ahead = 0;
	{
		std::lock_guard<std::mutex> g(r->lock);

		if (__atomic_load_n(&r->broken, __ATOMIC_RELAXED)) // off since choose(): see fail()
			t->s = 0;				   // not posted
		else if ((t->e = post(r, pc.args, rg, pc.src, pc.dst, &t->s, &t->launched)) ==
			 cudaSuccess)
			t->ahead = __atomic_add_fetch(&r->queued, t->bytes, __ATOMIC_RELAXED);
		else // no other caller chooses it while this one's wait is behind its others
			__atomic_store_n(&r->broken, true, __ATOMIC_RELAXED);
	}
	// The first look after 3/4 of the latency the engine's recent calls had for the bytes of
	// the requests ahead and this one, or 5/4 while other callers poll, at most kPollMaxNs. A
	// look before the end costs another sleep (4-6 us of CPU on the H200 host): from 16-64
	// callers 5/4 took 1.2-1.3 sleeps a call where 3/4 took 1.5, and from one caller cost 14%
	// of its GB/s (cpu-threads-2026-11-26, call 4); 64 KiB RS(10,4) from 16 / 64 callers went
	// from 0.026-0.030 / 0.039-0.054 CPU-s/GB to 0.025-0.026 / 0.038-0.042, P99 from 286-292 /
	// 992-1014 us to 276-278 / 970-982 (call 6).
	t->t0 = now_host_ns();
	const double share = __atomic_load_n(pollers, __ATOMIC_RELAXED) ? 1.25e-3 : 0.75e-3;
	const double want = share * (double)__atomic_load_n(&r->est_ps, __ATOMIC_RELAXED) *
			    (double)t->ahead; // ns

	t->first = want < (double)kPollMaxNs ? (uint64_t)want : (uint64_t)kPollMaxNs;
}

/*
 * Sleeps until the piece of @p t is done (its first look as post_pinned planned it, unless its
 * caller comes later), then updates the engine's latency: a piece found done at a first look
 * made when planned counts as half of its wait (its latency is only known to be shorter); one
 * found done at a later first look (its caller busy with its next pieces), or that started a
 * kernel, does not count. 1, or as fail().
 */
int wait_pinned(const Ticket &t, unsigned *pollers)
{
	Resident *r = t.r;

	if (t.e != cudaSuccess)
		return fail(r, t.s);
	const uint64_t gone = now_host_ns() - t.t0;
	const bool late = gone >= t.first;

	if (!late) {
		const struct timespec nap = { 0, (long)(t.first - gone) };

		nanosleep(&nap, nullptr);
	}
	const unsigned looks = poll_until(
		pollers, [&] { return served(r, t.s); }, [&] { return still_running(r, t.s); });
	const int ret = looks ? 1 : fail(r, t.s);

	__atomic_sub_fetch(&r->queued, t.bytes, __ATOMIC_RELAXED);
	if (!t.launched && t.ahead && !(late && looks == 1)) {
		const uint64_t lat = t.first && looks == 1 ? t.first / 2 : now_host_ns() - t.t0;
		const uint64_t ps = lat * 1000 / t.ahead;
		const uint64_t est = __atomic_load_n(&r->est_ps, __ATOMIC_RELAXED);

		__atomic_store_n(&r->est_ps, est ? (est * 7 + ps) / 8 : ps, __ATOMIC_RELAXED);
	}
	return ret;
}

} // namespace

int resident_pool_pipe(ResidentPool *p, ResidentPieces &pc, int rg, unsigned *pollers)
{
	const int n = pc.n, w = n < kResidentPieces ? n : kResidentPieces;
	Ticket t[kResidentPieces]; // piece i's: t[i % w]
	int posted = 0, ended = 0, held = w, ret = 1;
	bool error = false; // a post failed
	// the oldest piece posted: waited for, its slot given back (and, with @p leave, its unit of
	// the gate: no more pieces come), handed over
	const auto end_one = [&](bool leave) {
		const Ticket &tk = t[ended % w];
		const int r = wait_pinned(tk, pollers);

		give_back(p, tk.r);
		if (leave) {
			gfec_fifo_gate_leave(&p->gate, 1);
			held--;
		}
		if (r <= 0)
			ret = r;
		else if (ret > 0)
			pc.done(ended);
		ended++;
	};

	if (n < 1)
		return 0;
	// piece 0 is filled before the gate, which its copies would hold up
	ResidentPiece next = pc.ready(0);

	gfec_fifo_gate_enter(&p->gate, (uint64_t)w);
	while (posted < n && ret > 0 && !error) {
		if (posted - ended == w) // piece posted - w's buffers serve this one
			end_one(false);
		if (ret <= 0)
			break;
		if (posted > 0)
			next = pc.ready(posted);
		Resident *r;

		for (;;) {
			// no working engine has a free slot (some off): wait for this call's own
			while (!(r = choose(p)) && ended < posted)
				end_one(false);
			if (r && ret <= 0)
				give_back(p, r);
			if (!r || ret <= 0)
				break;
			post_pinned(r, next, rg, pollers, &t[posted % w]);
			if (t[posted % w].s) // posted, or its post failed (then its wait fails)
				break;
			give_back(p, r); // turned off since choose(): another engine
		}
		if (!r || ret <= 0)
			break;
		error = t[posted++ % w].e != cudaSuccess;
	}
	while (ended < posted)
		end_one(true);
	gfec_fifo_gate_leave(&p->gate, (uint64_t)held);
	if (ret > 0 && ended < n)
		ret = error ? GFEC_E_DEVICE : 0;
	return ret;
}

int resident_pool_run(ResidentPool *p, const GemmArgs &args, int rg, const uint8_t *const *src,
		      uint8_t *const *dst, unsigned *pollers)
{
	struct One final : ResidentPieces {
		ResidentPiece piece;
		ResidentPiece ready(int) override { return piece; }
		void done(int) override {}
	} one;

	if (args.cols + args.rows > kResidentPtrs)
		return 0;
	one.n = 1;
	one.piece = { args, src, dst };
	return resident_pool_pipe(p, one, rg, pollers);
}

} // namespace gfec
