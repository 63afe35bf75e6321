// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file backend.cu
 * The GPU behind the backend table: plans (A and its tables on the device), the host-buffer
 * pipeline, device-pointer calls, fault injection and counters.
 *
 * Host pipeline, one slot per stream (default 2), pieces taken in turn:
 *
 *   slot 0:  [stage in][H2D][kernel][D2H]                [copy out]
 *   slot 1:            [stage in][H2D][kernel][D2H]                [copy out]
 *   slot 2:                      [stage in][H2D][kernel][D2H]               ...
 *
 * A piece of at most kInPlacePiece bytes (inputs and outputs) skips the H2D and D2H: its kernel
 * reads and writes the pinned staging buffers in place through their mapped addresses, so that
 * with its pointers in the launch's parameters (launch_piece) it costs one CUDA call instead of
 * four. On the H200 host 16 callers of 64 KiB pageable RS(10,4) stripes spent 63-98 us of CPU a
 * call in those four, behind the driver's locks; read in place they used 15-20% less CPU at the
 * same rate. Larger pieces keep the copy engines: read in place from many lanes at once, 1 MiB
 * stripes ran 18% slower (perf/results/nvidia-h200/staged-2026-11-25). A piece that moves
 * kPollBytes or more ends as a large pinned call does (below): 16-64 callers of 1 MiB pageable
 * stripes went from 0.76-0.87x to 0.90-0.92x pinned H2D, of 64 KiB from 0.17-0.22x to
 * 0.24-0.26x at a quarter less CPU (perf/results/nvidia-h200/poll-2026-11-26, call 6).
 * A piece is a byte range of one stripe (long chunks) or several whole stripes (short chunks,
 * e.g. Ceph's 4 KiB), so small stripes still reach the GPU in large transfers and one launch.
 * Each staged request holds a *lane* (its own slots, streams and staging buffers) from a pool of
 * `lanes` per device (gpu_lanes), so that concurrent callers' pieces overlap: one's copies, H2D
 * and D2H beside another's. A caller past the pool waits for a lane (the engine's gate in front
 * of the backend hands them out in arrival order, plugin/engine.c). With gpu_resident_pinned, a
 * stripe on the engines' shapes holds no lane: run_stage copies it into stages in byte ranges
 * that each fit one (kInPlacePiece), at most kResidentPieces in flight, engines serve them (no
 * launch), and the gate lets it past (holds_lane). A stripe of several pieces does so only while
 * more staged calls than lanes are in flight (stage_calls): it copies its pieces on its own
 * thread, where a lane's copies are shared out over the pool. Pageable RS(10,4) stripes from 16 /
 * 64 callers went from 0.24x pinned H2D to 0.64x / 0.78-0.95x at 64 KiB
 * (perf/results/nvidia-h200/staged-engines-2026-11-26); with every stripe in stages, from
 * 0.65-0.70x to 0.83-0.88x at 256 KiB and from 0.46-0.50x to 0.84-0.88x at 4-16 MiB from 16,
 * while 1 MiB moved from 0.90-0.91x to 0.85-0.88x, and one caller's 1-16 MiB fell from 8.6-19.9
 * to 5.4-6.6 GB/s (stage-pieces-2026-11-26, calls 2 and 5).
 *
 * Pinned host buffers (gpu_pinned=map, the default) skip the pipeline: the kernels read and write
 * them in place through their mapped addresses, a call of host memory then running as a call of
 * device memory does (below), with no staging, no copy engine and no lane. Updates, and calls with
 * any pageable buffer, are staged. Their bytes in flight per device are capped (gpu_map_bytes):
 * past the cap a call waits in arrival order for earlier ones to finish, so that many callers'
 * large calls do not all read across PCIe at once. Their callers sleep till the end: a call that
 * moves kPollBytes or more has the GPU write a word of pinned memory behind its kernels and looks
 * at it between sleeps (done_mark, done_wait), which on the H200 host took 1 MiB RS(10,4) calls
 * from 16-64 callers from 0.83-0.85x to 0.86-0.88x pinned H2D and one caller's from 23-26 to 33-34
 * GB/s; smaller calls are done before the first look (~55 us at Linux's default timer slack) and
 * sleep on a blocking-sync event (perf/results/nvidia-h200/poll-2026-11-26).
 *
 * Device buffers take no lock: each call borrows a stream of its own from a pool (DevStream) and
 * gives it back at the end, so concurrent callers run side by side. Their pointer tables:
 *
 *   up to kInlinePtrs pointers, nibble kernels:  in the launch's parameters (no copy, one launch)
 *   more:   pieces (growing, capped)  [copy ptrs][H2D]  [copy ptrs][H2D]  ...  (upload stream)
 *                                               [kernel 0        ]          (kernel stream 0)
 *                                                         [kernel 1      ]  (kernel stream 1)
 *
 * The host's pass over the caller's pointers (copy to pinned memory, alignment) of piece i+1 and
 * its upload run while piece i's kernel does; the first piece is small so that the GPU starts
 * early. Pieces alternate between two kernel streams, so a piece whose table is up starts on the
 * multiprocessors the previous one leaves (its last wave, or a first piece too small to fill the
 * GPU) instead of after it: on the H200 a launch of 1..64 stripes took 11-13 us and one of 292
 * stripes 17 us, against 17 ns per stripe in a large one (run smallbatch-2026-11-24). One
 * synchronisation per kernel stream, at the end.
 *
 * A batch of evenly spaced stripes (one allocation at one pitch: stride.h) needs no table: the
 * host checks the spacing over every pointer, then launches once with the first stripe's pointers
 * and the step between stripes (even_head). Where the spacing breaks, the rest goes up by
 * tables as above. On the H200 (4096 RS(10,4) stripes of 4 KiB) the check took 8.6-11.7 us and the
 * kernel 75-77; launching pieces of growing size while checking the next one cost more in their
 * launches and prologues than it hid (96.8 us a call against 87.9-92.0), and letting the kernel
 * start at once and wait on a word in mapped host memory for the check is no way on this host:
 * the GPU's reads of that word are served one at a time, about 1 us each (264 blocks reading it
 * once: 258 us; small-2026-11-25b, call 2).
 *
 * No NULL pointer gets past a device-buffer call before anything runs (the codec leaves that check
 * to this backend: checks_device_ptrs in gemm.h): the evenly spaced head's follows from its first
 * row (stride.h), the rest's are read one by one.
 *
 * Launches of few 16-byte units (kSmallMaxUnits, all stripes together) that the default nibble
 * kernel would take run the small-call kernel instead (gemm_nibble.cuh: no table prologue, one
 * unit per thread, every load issued before the first product), on host and device buffers alike;
 * its pointers travel in a short parameter block when they fit (kInlineSmallPtrs). With
 * gpu_resident_us, a device-memory call of one such stripe goes instead to a kernel kept running
 * (resident.h), with no launch.
 */
#include <cuda.h> // CUstream, CUdeviceptr: the types of cuStreamWriteValue32 (no libcuda link)
#include <cuda_runtime.h>

#include <algorithm>
#include <condition_variable>
#include <limits.h>
#include <mutex>
#include <new>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <time.h>
#include <vector>

#include "bfly16.h"
#include "fifo_gate.h"
#include "gemm16.h"
#include "gfec_gpu.h"
#include "kernels.h"
#include "nc.h"
#include "poll.h"
#include "ptrs.h"
#include "resident.h"
#include "stage_copy.h"
#include "stride.h"
#include "threadpool.h"

namespace gfec {
namespace {

// From the pinned sweep on the H200 (perf/results/nvidia-h200/gpu_bench_2026-11-22d.log):
// 32 MiB pieces on 2 streams moved RS(10,4) at 0.90x pinned H2D; 16 MiB pieces 0.85-0.86x.
constexpr int kDefaultStreams = 2;
constexpr size_t kDefaultSegment = (size_t)32 << 20; // staging bytes per slot (inputs)
constexpr size_t kMaxPtrs = 1 << 20;		      // pointer-array entries per piece
constexpr size_t kPitchAlign = 256;

// A staged chunk's room in its staging buffer: its length rounded up to kPitchAlign.
constexpr size_t pitch_of(size_t len)
{
	return (len + kPitchAlign - 1) / kPitchAlign * kPitchAlign;
}
// Device-buffer calls: the first piece's pointers, the growth of the next ones and their cap (see
// the top). On the H200 host the pass over the pointers (45 us for 57344) outran the kernel (78 us
// for their 4096 RS(10,4) stripes of 4 KiB), but with growth 4 the last piece (2636 stripes) waited
// for 29 us of that pass while the GPU had 1168 stripes to run (integration run g): pieces stop
// growing once the host is ahead, so the last one is short.
constexpr size_t kFirstPiecePtrs = 4096;
constexpr size_t kPieceGrowth = 2;
constexpr size_t kMaxPiecePtrs = 16384;
// Evenly spaced stripes: the pointers checked at a time (where the spacing breaks, the chunk
// goes up by tables with the rest: even_head).
constexpr size_t kStepChunkPtrs = 4096;

constexpr int kMaxLanes = 16;
constexpr size_t kInPlacePiece = GFEC_STAGE_BYTES; // see the top of the file
// A stripe cut in byte ranges (pieces) whose @p chunks chunks (inputs and outputs), kPitchAlign
// apart, each fit kInPlacePiece bytes (a stage, run_stage; or as much of the caller's pinned
// memory, pinned_pieces): how many for chunks of @p len bytes (chunks <= kResidentPtrs: pieces
// of 42 KiB chunks at least), and the bytes of each piece but the last.
constexpr size_t pieces_of(size_t len, int chunks)
{
	const size_t most = kInPlacePiece / (size_t)chunks / kPitchAlign * kPitchAlign;

	return (len + most - 1) / most;
}
constexpr size_t piece_step(size_t len, size_t n)
{
	return n > 1 ? pitch_of((len + n - 1) / n) : len;
}
// How a caller waits for a host-memory call read in place, or for a staged piece (Done): work
// that moves at least kPollBytes polls a word the GPU writes (poll.h: the gaps between looks, and
// a stream query now and then, since a failed kernel never writes the word). Less sleeps on a
// blocking-sync event.
constexpr size_t kPollBytes = (size_t)256 << 10;
// Pinned calls that the resident engines take (gpu_resident_pinned): fewer source bytes than
// this, which is where gpu_coalesce_slot_min's launch slots start by default. On the H200 host
// (perf/results/nvidia-h200/resident-pinned-2026-11-26, call 5) RS(10,4) 64 KiB stripes from
// 16-64 callers went from 0.67x pinned H2D to 0.84-0.89x on 32 engines (of one block then:
// calls 12-14 sized them); 256 KiB stripes, which the slots gather, fell from 0.72-0.73x to
// 0.67x from 16 callers with engines taking the calls the slots launch alone, and 1 MiB did not
// move.
constexpr size_t kResidentPinnedSrc = (size_t)1 << 20;

using WriteValue32 = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
using PointerQuery = CUresult (*)(unsigned int, CUpointer_attribute *, void **, CUdeviceptr);

// The end of work queued on a stream, as a caller waits for it (done_mark, done_wait): a
// blocking-sync event, or a word of pinned memory that the GPU writes behind the work.
struct Done {
	cudaEvent_t ev = nullptr;
	uint32_t *word = nullptr; // pinned, mapped (where cuStreamWriteValue32 works)
	CUdeviceptr m_word = 0;	  // its mapped address
	uint32_t seq = 0;	  // the value the last mark has the GPU write
	bool polled = false;	  // the last mark wrote the word (else recorded the event)
};

struct Slot {
	cudaStream_t stream = nullptr;
	Done done;
	uint8_t *h_in = nullptr, *h_out = nullptr; // pinned staging
	uint8_t *m_in = nullptr, *m_out = nullptr; // ... their mapped (device-side) addresses
	uint8_t *d_in = nullptr, *d_out = nullptr;
	void **h_ptrs = nullptr;		   // pinned: src pointers, then dst pointers
	void **d_ptrs = nullptr;
	// what the slot's pending piece must copy out when it completes
	int busy = 0;
	int s0 = 0, ns = 0;
	size_t off = 0, n = 0, pitch = 0;
	int direct = 0;	// outputs went straight to the caller's pinned buffers
};

// One staged host-buffer request at a time: its pipeline's slots and their staging buffers.
struct Lane {
	Slot slots[8];
	size_t in_cap = 0, out_cap = 0, ptr_cap = 0;
};

// A stream (and its pointer tables) for one device-buffer call at a time.
struct DevStream {
	cudaStream_t st = nullptr; // kernels (inline launches, even pieces)
	cudaStream_t st2 = nullptr; // kernels (odd pieces)
	cudaStream_t up = nullptr; // pointer-table uploads
	cudaEvent_t ev = nullptr;  // "this piece's table is on the device"
	cudaEvent_t ev2 = nullptr; // "st2's pieces are done" (host-memory calls)
	Done done;		   // the end of a host-memory call
	void **h_ptrs = nullptr;   // pinned
	void **d_ptrs = nullptr;
	size_t cap = 0; // entries of each table
};

// A staged stripe's buffer for the engines (run_stage): kInPlacePiece bytes of pinned memory.
struct Stage {
	uint8_t *h = nullptr; // host address
	uint8_t *m = nullptr; // mapped (device-side) address
};

struct Ctx {
	int dev = 0;
	cudaDeviceProp prop{};
	const KernelInfo *forced = nullptr;
	int nslots = kDefaultStreams;
	size_t segment = kDefaultSegment;
	int nlanes = GFEC_GPU_LANES_DEFAULT, pinned_map = 1;
	size_t map_cap = GFEC_GPU_MAP_BYTES_DEFAULT; // 0: no cap
	gfec_fifo_gate map_gate{}; // mapped calls' bytes in flight under map_cap, first come first served
	std::mutex llock; // lfree, lall
	std::condition_variable lcv;
	std::vector<Lane *> lfree, lall; // idle lanes; all of them (at most nlanes)
	gfec_fifo_gate stage_gate{}; // stages in use (run_stage), taken in arrival order
	std::mutex slock;	     // sfree, sall
	std::vector<Stage *> sfree, sall; // their buffers: idle; all
	uint8_t *d_logexp = nullptr;
	std::vector<gfec_tune_rule> rules; // gfec.conf [tune], first match wins
	int fault = 0, fault_kernel = 0;   // gfec_backend_conf's
	std::mutex lock;	       // the network-coding and LT entry points (ctx_view), on aux
	cudaStream_t aux = nullptr;
	std::mutex dlock; // dfree
	std::vector<DevStream *> dfree, dall; // idle device-call streams; all of them
	WriteValue32 write_value = nullptr;   // cuStreamWriteValue32, where it works (gpu_init)
	PointerQuery pointer_query = nullptr; // cuPointerGetAttributes (gpu_init; in_pinned)
	unsigned pollers = 0;		      // callers polling a word (poll_until, atomic)
	unsigned hosted = 0; // staged calls in flight (run's pageable branch, atomic): stage_pieces
	unsigned stage_calls = 0; // ... from which a stripe of several pieces takes stages
	uint64_t calls = 0, bytes_in = 0, failures = 0, resident = 0, staged = 0; // atomic

	Resident *res = nullptr; // gpu_resident_us: one small stripe without a launch (resident.h)
	ResidentPool *rpool = nullptr; // gpu_resident_pinned: pinned stripes, likewise
	struct gfec_cpu_pool *pool = nullptr; // staging copies of pageable buffers, in parallel
	Bfly16 bfly; // technique=fft's butterflies on device buffers (bfly16.h)
};

// One staging copy (stage_copy.h). Pageable buffers reach pinned memory only through the CPU,
// and one core's copies (~5 GB/s by memcpy measured) are far below PCIe, so a piece's copies are
// spread over a few threads.
struct Copy {
	uint8_t *d;
	const uint8_t *s;
	size_t n;
	bool out; // into the caller's buffers
};

constexpr int kCopyThreads = 8;
constexpr size_t kParallelCopyMin = (size_t)1 << 20;

// Bytes [off, off + len) of each of the @p nv copies at @p v (one length and direction), all at
// once, 64 copies at a time.
void copy_span(const Copy *v, size_t nv, size_t off, size_t len)
{
	constexpr size_t kMax = 64;
	uint8_t *d[kMax];
	const uint8_t *s[kMax];

	for (size_t i = 0, j; i < nv; i += j) {
		for (j = 0; j < kMax && i + j < nv; j++)
			d[j] = v[i + j].d + off, s[j] = v[i + j].s + off;
		gfec_stage_copy(d, s, (int)j, len, v[i].out && v[i].n >= GFEC_STAGE_STREAM_MIN);
	}
}

// A pool task of run_copies: a byte range of every copy.
struct CopyRanges {
	const Copy *v;
	size_t nv, step;
};

void copy_task(void *arg, size_t t)
{
	const CopyRanges &r = *static_cast<const CopyRanges *>(arg);
	const size_t off = t * r.step;

	copy_span(r.v, r.nv, off, std::min(r.step, r.v[0].n - off));
}

// Copies @p v, all of one length and direction: on the caller's thread, or from
// kParallelCopyMin bytes in all over the backend's pool, each thread a range of every copy's bytes
// (in 256-byte units, which keep non-temporal stores aligned).
void run_copies(Ctx *c, std::vector<Copy> &v)
{
	const size_t n = v.empty() ? 0 : v[0].n;

	if (n && c->pool && n * v.size() >= kParallelCopyMin) {
		const size_t step = (n / kCopyThreads + 255) / 256 * 256;
		CopyRanges r = { v.data(), v.size(), step };

		gfec_cpu_pool_run(c->pool, (n + step - 1) / step, copy_task, &r);
	} else if (n) {
		copy_span(v.data(), v.size(), 0, n);
	}
	v.clear();
}

// A kernel made ready for one matrix: its tables on the device and the calls it serves.
struct Prepared {
	const KernelInfo *k = nullptr;
	uint32_t *d_tables = nullptr;
	size_t smem = 0;
	int per_sm = 1; // blocks per multiprocessor, found once: launches need no queries
	size_t len_min = 0, len_max = SIZE_MAX; // the tuning rule's range (default: all)
};

struct Plan {
	Shape sh;
	uint8_t *d_a = nullptr;
	std::vector<Prepared> ks; // tuned kernels first, the default last
	Prepared small;		  // the small-call kernel (k = nullptr: none; see pick_prepared)
	Gemm16Plan *g16 = nullptr; // w = 16: the one GF(2^16) kernel's plan (ks is empty)
};

#define CUDA_TRY(call)                                                                             \
	do {                                                                                       \
		if ((call) != cudaSuccess)                                                         \
			goto fail;                                                                 \
	} while (0)

// The slot's staging buffers (not its stream and event), which grow by being replaced.
void slot_free_buffers(Slot &s)
{
	cudaFreeHost(s.h_in);
	cudaFreeHost(s.h_out);
	cudaFreeHost(s.h_ptrs);
	cudaFree(s.d_in);
	cudaFree(s.d_out);
	cudaFree(s.d_ptrs);
	s.h_in = s.h_out = s.m_in = s.m_out = s.d_in = s.d_out = nullptr;
	s.h_ptrs = s.d_ptrs = nullptr;
}

// A word of pinned host memory and its mapped address, zeroed; false when CUDA cannot make one.
bool word_alloc(uint32_t **w, CUdeviceptr *m)
{
	void *h = nullptr, *dev = nullptr;

	if (cudaHostAlloc(&h, sizeof(**w), cudaHostAllocMapped) != cudaSuccess)
		return false;
	*w = static_cast<uint32_t *>(h);
	**w = 0;
	if (cudaHostGetDevicePointer(&dev, h, 0) != cudaSuccess)
		return false; // the caller frees *w
	*m = (CUdeviceptr)dev;
	return true;
}

// A Done for a blocking stream's work; false when CUDA cannot make one (the caller frees it).
bool done_init(const Ctx *c, Done &d)
{
	return cudaEventCreateWithFlags(&d.ev, cudaEventDisableTiming | cudaEventBlockingSync) ==
		   cudaSuccess &&
	       (!c->write_value || word_alloc(&d.word, &d.m_word));
}

void done_free(Done &d)
{
	if (d.ev)
		cudaEventDestroy(d.ev);
	cudaFreeHost(d.word);
	d.ev = nullptr;
	d.word = nullptr;
}

// A driver function, reached through the runtime's driver entry points (gfec links no libcuda).
void *driver_entry(const char *name)
{
	void *fn = nullptr;
	cudaDriverEntryPointQueryResult q;

	if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) !=
		    cudaSuccess ||
	    q != cudaDriverEntryPointSuccess) {
		cudaGetLastError();
		return nullptr;
	}
	return fn;
}

/*
 * cuStreamWriteValue32, when it works on this device: one write into a pinned word on @p st, read
 * back. nullptr otherwise, and host-memory calls then sleep on events only.
 */
WriteValue32 write_value_probe(cudaStream_t st)
{
	void *fn = driver_entry("cuStreamWriteValue32");
	uint32_t *w = nullptr;
	CUdeviceptr m = 0;
	bool ok = false;

	if (fn && word_alloc(&w, &m))
		ok = reinterpret_cast<WriteValue32>(fn)((CUstream)st, m, 1, 0) == CUDA_SUCCESS &&
		     cudaStreamSynchronize(st) == cudaSuccess &&
		     __atomic_load_n(w, __ATOMIC_ACQUIRE) == 1;
	cudaFreeHost(w);
	cudaGetLastError();
	return ok ? reinterpret_cast<WriteValue32>(fn) : nullptr;
}

void lane_free(Lane *l)
{
	for (Slot &s : l->slots) {
		if (s.stream)
			cudaStreamDestroy(s.stream);
		done_free(s.done);
		slot_free_buffers(s);
	}
	delete l;
}

void stage_free(Stage *st)
{
	cudaFreeHost(st->h);
	delete st;
}

void dev_stream_free(DevStream *d)
{
	if (d->st)
		cudaStreamDestroy(d->st);
	if (d->st2)
		cudaStreamDestroy(d->st2);
	if (d->up)
		cudaStreamDestroy(d->up);
	for (cudaEvent_t e : {d->ev, d->ev2})
		if (e)
			cudaEventDestroy(e);
	done_free(d->done);
	cudaFreeHost(d->h_ptrs);
	cudaFree(d->d_ptrs);
	delete d;
}

void ctx_free(Ctx *c)
{
	cudaSetDevice(c->dev);
	resident_destroy(c->res);
	resident_pool_destroy(c->rpool);
	bfly16_release(&c->bfly);
	for (Lane *l : c->lall)
		lane_free(l);
	for (Stage *st : c->sall)
		stage_free(st);
	if (c->aux)
		cudaStreamDestroy(c->aux);
	for (DevStream *d : c->dall)
		dev_stream_free(d);
	cudaFree(c->d_logexp);
	gfec_cpu_pool_destroy(c->pool);
	gfec_fifo_gate_destroy(&c->map_gate); // gpu_init makes both before anything ctx_free undoes
	gfec_fifo_gate_destroy(&c->stage_gate);
	delete c;
}

/*
 * A new member @p x of a pool (its lock held): listed in @p all, with room kept in @p idle for
 * every member so that giving one back never allocates. nullptr, x released, when memory runs out.
 */
template <typename T>
T *pool_add(std::vector<T *> &all, std::vector<T *> &idle, T *x, void (*release)(T *))
{
	try {
		all.push_back(x);
		idle.reserve(all.size());
	} catch (const std::bad_alloc &) {
		if (!all.empty() && all.back() == x)
			all.pop_back();
		release(x);
		return nullptr;
	}
	return x;
}

// Staging buffers grow on demand (a codec that only sees device pointers never allocates them).
int slots_reserve(const Ctx *c, Lane *l, size_t in, size_t out, size_t ptrs)
{
	if (in <= l->in_cap && out <= l->out_cap && ptrs <= l->ptr_cap)
		return 0;
	in = in > l->in_cap ? in : l->in_cap;
	out = out > l->out_cap ? out : l->out_cap;
	ptrs = ptrs > l->ptr_cap ? ptrs : l->ptr_cap;
	for (int i = 0; i < c->nslots; i++) {
		Slot &s = l->slots[i];

		slot_free_buffers(s);
		if (cudaMallocHost(&s.h_in, in) != cudaSuccess ||
		    cudaMallocHost(&s.h_out, out) != cudaSuccess ||
		    cudaMallocHost(&s.h_ptrs, ptrs * sizeof(void *)) != cudaSuccess ||
		    cudaMalloc(&s.d_in, in) != cudaSuccess ||
		    cudaMalloc(&s.d_out, out) != cudaSuccess ||
		    cudaMalloc(&s.d_ptrs, ptrs * sizeof(void *)) != cudaSuccess ||
		    cudaHostGetDevicePointer((void **)&s.m_in, s.h_in, 0) != cudaSuccess ||
		    cudaHostGetDevicePointer((void **)&s.m_out, s.h_out, 0) != cudaSuccess) {
			cudaGetLastError();
			l->in_cap = l->out_cap = l->ptr_cap = 0;
			return GFEC_E_DEVICE;
		}
	}
	l->in_cap = in, l->out_cap = out, l->ptr_cap = ptrs;
	return 0;
}

// A lane for one staged request: an idle one, a new one while there are fewer than nlanes, else
// the first to come back; nullptr when CUDA cannot make one.
Lane *lane_take(Ctx *c)
{
	std::unique_lock<std::mutex> g(c->llock);

	c->lcv.wait(g, [c] { return !c->lfree.empty() || (int)c->lall.size() < c->nlanes; });
	if (!c->lfree.empty()) {
		Lane *l = c->lfree.back();

		c->lfree.pop_back();
		return l;
	}
	Lane *l = new (std::nothrow) Lane;

	if (!l)
		return nullptr;
	// Blocking streams (see gpu_init); blocking-sync events: a waiting caller sleeps.
	for (int i = 0; i < c->nslots; i++)
		if (cudaStreamCreateWithFlags(&l->slots[i].stream, cudaStreamDefault) !=
			cudaSuccess ||
		    !done_init(c, l->slots[i].done)) {
			cudaGetLastError();
			lane_free(l);
			return nullptr;
		}
	return pool_add(c->lall, c->lfree, l, lane_free);
}

void lane_give(Ctx *c, Lane *l)
{
	{
		std::lock_guard<std::mutex> g(c->llock);

		c->lfree.push_back(l);
	}
	c->lcv.notify_one();
}

int gpu_init(const struct gfec_backend_conf *conf, void **out)
{
	int n = 0;
	Ctx *c;

	if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1)
		return GFEC_E_NOBACKEND;
	c = new (std::nothrow) Ctx;
	if (!c)
		return GFEC_E_NOMEM;
	c->dev = conf ? conf->device : 0;
	c->fault = conf && conf->fault;
	c->fault_kernel = conf && conf->fault_kernel;
	c->bfly.dev = c->dev;
	c->bfly.fault = c->fault != 0;
	if (conf && conf->streams > 0)
		c->nslots = conf->streams < 8 ? conf->streams : 8;
	if (conf && conf->segment)
		c->segment = conf->segment;
	if (conf && conf->lanes > 0)
		c->nlanes = conf->lanes < kMaxLanes ? conf->lanes : kMaxLanes;
	c->stage_calls = conf && conf->stage_calls > 0 ? (unsigned)conf->stage_calls
						       : (unsigned)c->nlanes + 1;
	if (conf) {
		c->pinned_map = !conf->pinned_dma;
		if (conf->map_bytes)
			c->map_cap = conf->map_bytes > 0 ? (size_t)conf->map_bytes : 0;
	}
	if (conf && conf->rules)
		c->rules.assign(conf->rules, conf->rules + conf->nrules);
	if (conf && conf->kernel && conf->kernel[0]) {
		c->forced = kernel_find(conf->kernel);
		if (!c->forced) {
			delete c;
			return GFEC_E_INVAL;
		}
	}
	if (c->dev < 0 || c->dev >= n) {
		delete c;
		return GFEC_E_NOBACKEND;
	}
	if (gfec_fifo_gate_init(&c->map_gate, c->map_cap)) {
		delete c;
		return GFEC_E_SYSTEM;
	}
	const int engines = conf && conf->resident_pinned > 0 ? conf->resident_pinned : 0;

	if (gfec_fifo_gate_init(&c->stage_gate, engines ? (uint64_t)engines * kResidentQueue : 1)) {
		gfec_fifo_gate_destroy(&c->map_gate);
		delete c;
		return GFEC_E_SYSTEM;
	}
	uint8_t le[768];
	const long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	/* no pool on one core, and a failed pool only means serial copies */
	if (cpus > 1 && gfec_cpu_pool_create(cpus < kCopyThreads ? (int)cpus : kCopyThreads, &c->pool))
		c->pool = nullptr;
	kernel_logexp(le);
	CUDA_TRY(cudaSetDevice(c->dev));
	CUDA_TRY(cudaGetDeviceProperties(&c->prop, c->dev));
	CUDA_TRY(cudaMalloc(&c->d_logexp, sizeof(le)));
	CUDA_TRY(cudaMemcpy(c->d_logexp, le, sizeof(le), cudaMemcpyHostToDevice));
	// Blocking streams (cudaStreamDefault), here and in dev_stream_get: their work waits for
	// what the caller queued before on the legacy default stream. A cudaMemcpy from pageable
	// memory returns once the bytes are staged, before its DMA lands, and a cudaMemset on device
	// memory returns at once: with non-blocking streams the kernels read the buffers before
	// them (test_nc_gpu and test_nc_backend's LT cases failed so when they ran beside other GPU
	// tests on the H200; so could the plan uploads below).
	CUDA_TRY(cudaStreamCreateWithFlags(&c->aux, cudaStreamDefault));
	c->write_value = write_value_probe(c->aux);
	c->pointer_query = reinterpret_cast<PointerQuery>(driver_entry("cuPointerGetAttributes"));
	if (!c->pointer_query)
		c->pinned_map = 0; // no range to check a chunk against: every host call is staged
	if (conf && conf->resident_us > 0)
		CUDA_TRY(resident_create(conf->resident_us, &c->res));
	if (engines)
		CUDA_TRY(resident_pool_create(engines, &c->rpool));
	*out = c;
	return 0;
fail:
	cudaGetLastError();
	ctx_free(c);
	return GFEC_E_NOBACKEND;
}

void gpu_fini(void *ctx)
{
	if (ctx)
		ctx_free(static_cast<Ctx *>(ctx));
}

const KernelInfo *pick(Ctx *c, const struct gfec_gemm_matrix *a)
{
	const Shape sh = { a->rows, a->cols, a->packetsize };

	if (a->w != 8)
		return nullptr;
	if (c->forced)
		return kernel_can_implement(c->forced, sh, c->prop.sharedMemPerBlockOptin)
			       ? nullptr
			       : c->forced;
	return kernel_default(sh, c->prop.sharedMemPerBlockOptin);
}

int gpu_can_implement(void *ctx, const struct gfec_gemm_matrix *a)
{
	Ctx *c = static_cast<Ctx *>(ctx);

	// w = 16 has one kernel (gpu_kernel names only w = 8 ones); its limit is the table's size.
	// A matrix given only in a generated form (a = NULL) is the CPU backend's.
	if (a->w == 16)
		return a->a ? gemm16_can_implement(a->rows, a->cols, a->packetsize,
						   c->prop.totalGlobalMem)
			    : GFEC_E_NOTSUP;
	return pick(c, a) ? 0 : GFEC_E_NOTSUP;
}

void gpu_plan_free(void *ctx, void *plan)
{
	Plan *p = static_cast<Plan *>(plan);

	if (!p)
		return;
	cudaSetDevice(static_cast<Ctx *>(ctx)->dev);
	cudaFree(p->d_a);
	for (Prepared &k : p->ks)
		cudaFree(k.d_tables);
	cudaFree(p->small.d_tables);
	gemm16_plan_free(p->g16);
	delete p;
}

/*
 * The small-call kernel (gemm_nibble.cuh: no prologue, one unit per thread) for a plan whose
 * default is a nibble kernel, or nullptr. It takes launches of up to kSmallMaxUnits 16-byte
 * units (one RS(10,4) stripe of 4 KiB chunks is 256): on the H200, RS(10,4) 4 KiB, it ran 1..292
 * stripes in 8.5-13.8 us against 11.7-15.9 for nibble_rg1_t512, and 1024 in 30.0 against 25.8
 * (perf/results/nvidia-h200/small2-2026-11-24h, call 1).
 */
constexpr size_t kSmallMaxUnits = 81920;

const KernelInfo *small_kernel(const KernelInfo *def, const Shape &sh, const Ctx *c)
{
	const KernelInfo *k = def->kind != KernelKind::Nibble ? nullptr
			      : sh.rows <= 4			    ? kernel_find("nibble_small_rg1")
								    : kernel_find("nibble_small_rg2");

	return k && !kernel_can_implement(k, sh, c->prop.sharedMemPerBlockOptin) ? k : nullptr;
}

cudaError_t prepare(const KernelInfo *k, const Shape &sh, const uint8_t *a, Prepared *out)
{
	std::vector<uint32_t> t(kernel_table_words(k, sh));

	out->k = k;
	out->smem = kernel_smem(k, sh);
	cudaError_t e = kernel_occupancy(k, out->smem, &out->per_sm);

	if (e != cudaSuccess || t.empty())
		return e;
	kernel_build_tables(k, sh, a, t.data());
	e = cudaMalloc(&out->d_tables, t.size() * 4);
	return e != cudaSuccess ? e
				: cudaMemcpy(out->d_tables, t.data(), t.size() * 4,
					     cudaMemcpyHostToDevice);
}

int gpu_plan_create(void *ctx, const struct gfec_gemm_matrix *a, void **out)
{
	Ctx *c = static_cast<Ctx *>(ctx);
	const KernelInfo *k = pick(c, a);
	Plan *p;
	const size_t n = (size_t)a->rows * a->cols;

	if (a->w == 16) {
		int ret = gpu_can_implement(ctx, a);

		if (ret)
			return ret;
		p = new (std::nothrow) Plan;
		if (!p)
			return GFEC_E_NOMEM;
		p->sh = { a->rows, a->cols, 0 };
		if (cudaSetDevice(c->dev) != cudaSuccess) {
			cudaGetLastError();
			delete p;
			return GFEC_E_DEVICE;
		}
		ret = gemm16_plan_create(a->rows, a->cols, reinterpret_cast<const uint16_t *>(a->a),
					 &p->g16);
		if (ret) {
			delete p;
			return ret;
		}
		*out = p;
		return 0;
	}
	if (!k)
		return GFEC_E_NOTSUP;
	p = new (std::nothrow) Plan;
	if (!p)
		return GFEC_E_NOMEM;
	p->sh = { a->rows, a->cols, a->packetsize };
	CUDA_TRY(cudaSetDevice(c->dev));
	CUDA_TRY(cudaMalloc(&p->d_a, n));
	CUDA_TRY(cudaMemcpy(p->d_a, a->a, n, cudaMemcpyHostToDevice));
	// Tuning rules that match this shape (unless a kernel is forced), then the default.
	for (const gfec_tune_rule &r : c->forced ? std::vector<gfec_tune_rule>() : c->rules) {
		const KernelInfo *rk = kernel_find(r.kernel);

		if (!rk || a->cols < r.cols_min || a->cols > r.cols_max || a->rows < r.rows_min ||
		    a->rows > r.rows_max ||
		    kernel_can_implement(rk, p->sh, c->prop.sharedMemPerBlockOptin))
			continue;
		p->ks.emplace_back();
		p->ks.back().len_min = r.len_min;
		p->ks.back().len_max = r.len_max;
		CUDA_TRY(prepare(rk, p->sh, a->a, &p->ks.back()));
	}
	p->ks.emplace_back();
	CUDA_TRY(prepare(k, p->sh, a->a, &p->ks.back()));
	if (const KernelInfo *sk = c->forced ? nullptr : small_kernel(k, p->sh, c))
		CUDA_TRY(prepare(sk, p->sh, a->a, &p->small));
	// The uploads above went on the legacy stream, and a copy from pageable memory returns
	// before its DMA lands; the engines of pinned calls run on non-blocking streams and do not
	// wait for it (resident.h), so the plan is only handed out once it is on the GPU.
	if (c->rpool)
		CUDA_TRY(cudaStreamSynchronize(cudaStreamLegacy));
	*out = p;
	return 0;
fail:
	cudaGetLastError();
	gpu_plan_free(ctx, p);
	return GFEC_E_DEVICE;
}

// What CUDA knows of @p p (type cudaMemoryTypeUnregistered for memory it does not know).
cudaPointerAttributes attrs(const void *p)
{
	cudaPointerAttributes at;

	if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
		cudaGetLastError();
		at = cudaPointerAttributes();
		at.type = cudaMemoryTypeUnregistered;
	}
	return at;
}

bool device_type(const cudaPointerAttributes &at)
{
	return at.type == cudaMemoryTypeDevice || at.type == cudaMemoryTypeManaged;
}

int is_device(const void *p)
{
	return device_type(attrs(p));
}

int gpu_is_device_ptr(void *ctx, const void *p)
{
	(void)ctx;
	return is_device(p);
}

// The plan's w = 8 kernel for calls of @p len bytes: the first tuning rule whose range holds
// it, else the default (the last).
const Prepared *choose(const Plan *p, size_t len)
{
	for (const Prepared &cand : p->ks)
		if (len >= cand.len_min && len <= cand.len_max)
			return &cand;
	return &p->ks.back();
}

// ... and for a launch of @p nstripes stripes: calls of at most kSmallMaxUnits 16-byte units
// (of all stripes together) that the default would take go to the small-call kernel instead.
const Prepared *pick_prepared(const Plan *p, int nstripes, size_t len)
{
	const Prepared *k = choose(p, len);

	if (p->small.k && k == &p->ks.back() &&
	    (size_t)nstripes * ((len + 15) / 16) <= kSmallMaxUnits)
		return &p->small;
	return k;
}

// The steps between evenly spaced stripes (stride.h), in bytes.
struct Steps {
	ptrdiff_t src, dst;
};

// What kernel @p k of plan @p p is given for a launch (pointers left out).
GemmArgs kernel_args(const Plan *p, const Prepared *k, int col, int nstripes, size_t len, int vec)
{
	GemmArgs args{};

	args.rows = p->sh.rows;
	args.cols = col < 0 ? p->sh.cols : 1;
	args.a = col < 0 ? p->d_a : p->d_a + col;
	args.lda = p->sh.cols;
	args.tables = k->d_tables ? k->d_tables + (col < 0 ? 0 : kernel_column_tables(k->k, p->sh, col))
				  : nullptr;
	args.packetsize = p->sh.packetsize;
	args.nstripes = nstripes;
	args.len = len;
	args.units = (len + 15) / 16;
	args.vec = vec;
	args.acc = col >= 0;
	return args;
}

// GFEC_FAULT=cuda-kernel: a launch that succeeds and a kernel that fails on the device.
__global__ void trap_kernel()
{
	__trap();
}

/*
 * One launch over stripes whose pointers are already device pointers in d_src / d_dst, or, with
 * @p h_src set, whose pointers (h_src, h_dst: host arrays) travel in the launch's parameters
 * (the kernel must have an inline variant and the pointers fit: see run_device), or, with
 * @p steps too, only the first stripe's (h_src, h_dst) and the steps (the kernel's strided form).
 */
cudaError_t launch(Ctx *c, const Plan *p, int col, const uint8_t *const *d_src,
		   uint8_t *const *d_dst, int nstripes, size_t len, int vec, cudaStream_t st,
		   const uint8_t *const *h_src = nullptr, uint8_t *const *h_dst = nullptr,
		   const Steps *steps = nullptr)
{
	GemmArgs args;
	int grid;
	cudaError_t e;

	if (c->fault)
		return cudaErrorLaunchFailure;
	if (c->fault_kernel) {
		trap_kernel<<<1, 1, 0, st>>>();
		return cudaGetLastError();
	}
	if (p->g16)
		return gemm16_launch(p->g16, col, d_src, d_dst, nstripes, len, vec,
				     c->prop.multiProcessorCount, (size_t)c->prop.l2CacheSize, st);
	const Prepared *k = pick_prepared(p, nstripes, len);

	args = kernel_args(p, k, col, nstripes, len, vec);
	args.src = d_src;
	args.dst = d_dst;
	grid = kernel_grid(k->k, args, k->per_sm, c->prop.multiProcessorCount);
	if (steps)
		e = kernel_launch_stride(k->k, args, h_src, steps->src, h_dst, steps->dst, grid,
					 k->smem, st);
	else if (h_src)
		e = kernel_launch_inline(k->k, args, h_src, (size_t)nstripes * args.cols, h_dst,
					 (size_t)nstripes * args.rows, grid, k->smem, st);
	else
		e = kernel_launch(k->k, args, grid, k->smem, c->d_logexp, st);
	return e != cudaSuccess ? e : cudaGetLastError();
}

int aligned16(const void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((uintptr_t)p[i] % 16)
			return 0;
	return 1;
}

// A stream of the pool for one call, made on first need; nullptr when CUDA cannot make one.
DevStream *dev_take(Ctx *c)
{
	DevStream *d;

	{
		std::lock_guard<std::mutex> g(c->dlock);

		if (!c->dfree.empty()) {
			d = c->dfree.back();
			c->dfree.pop_back();
			return d;
		}
	}
	d = new (std::nothrow) DevStream;
	if (!d)
		return nullptr;
	if (cudaStreamCreateWithFlags(&d->st, cudaStreamDefault) != cudaSuccess ||
	    cudaStreamCreateWithFlags(&d->st2, cudaStreamDefault) != cudaSuccess ||
	    cudaStreamCreateWithFlags(&d->up, cudaStreamDefault) != cudaSuccess ||
	    cudaEventCreateWithFlags(&d->ev, cudaEventDisableTiming) != cudaSuccess ||
	    cudaEventCreateWithFlags(&d->ev2, cudaEventDisableTiming) != cudaSuccess ||
	    !done_init(c, d->done)) {
		cudaGetLastError();
		dev_stream_free(d);
		return nullptr;
	}
	std::lock_guard<std::mutex> g(c->dlock);

	return pool_add(c->dall, c->dfree, d, dev_stream_free);
}

void dev_give(Ctx *c, DevStream *d)
{
	std::lock_guard<std::mutex> g(c->dlock);

	c->dfree.push_back(d);
}

// Pointer tables of at least n entries (grown by being replaced).
cudaError_t dev_reserve(DevStream *d, size_t n)
{
	cudaError_t e;

	if (n <= d->cap)
		return cudaSuccess;
	n = n > 2 * d->cap ? n : 2 * d->cap;
	cudaFreeHost(d->h_ptrs);
	cudaFree(d->d_ptrs);
	d->h_ptrs = d->d_ptrs = nullptr;
	d->cap = 0;
	e = cudaMallocHost(&d->h_ptrs, n * sizeof(void *));
	if (e == cudaSuccess)
		e = cudaMalloc(&d->d_ptrs, n * sizeof(void *));
	if (e == cudaSuccess)
		d->cap = n;
	return e;
}

// Copies n pointers; the OR of their addresses (16-byte alignment of them all: % 16 == 0).
uintptr_t copy_ptrs(void **out, const void *const *in, size_t n)
{
	uintptr_t bits = 0;

	for (size_t i = 0; i < n; i++) {
		bits |= (uintptr_t)in[i];
		out[i] = const_cast<void *>(in[i]);
	}
	return bits;
}

/*
 * How many stripes from the first of a device-buffer call are evenly spaced (stride.h): checked
 * kStepChunkPtrs pointers at a time, so a chunk that breaks is left whole; 0 when the first
 * does, or when the kernel for them has no strided form. *steps: the steps between them.
 */
size_t even_head(const Plan *p, int col, int nstripes, size_t len, const uint8_t *const *src,
		 uint8_t *const *dst, Steps *steps)
{
	const size_t cols = col < 0 ? p->sh.cols : 1, rows = p->sh.rows, all = (size_t)nstripes;
	const size_t chunk = kStepChunkPtrs / (cols + rows) > 0 ? kStepChunkPtrs / (cols + rows) : 1;
	size_t n = 0;

	*steps = Steps{ (ptrdiff_t)((uintptr_t)src[cols] - (uintptr_t)src[0]),
			(ptrdiff_t)((uintptr_t)dst[rows] - (uintptr_t)dst[0]) };
	for (size_t n1; n < all; n = n1) {
		n1 = all - n < chunk ? all : n + chunk;
		if (!gfec_gpu_rows_step((const void *const *)src, cols, n, n1, steps->src) ||
		    !gfec_gpu_rows_step((const void *const *)dst, rows, n, n1, steps->dst))
			break;
	}
	return n && pick_prepared(p, (int)n, len)->k->fn_stride ? n : 0;
}

/*
 * The launches of a device-buffer call on d (not synchronised; see the top of the file), after
 * every pointer is checked: *null (nothing launched) when one is NULL. *two: st2 has work too.
 */
cudaError_t dev_launches(Ctx *c, DevStream *d, const Plan *p, int col, int nstripes, size_t len,
			 const uint8_t *const *src, uint8_t *const *dst, bool *two, bool *null)
{
	const size_t cols = col < 0 ? p->sh.cols : 1, rows = p->sh.rows, per = cols + rows;
	const size_t nsrc = (size_t)nstripes * cols, ndst = (size_t)nstripes * rows;
	cudaError_t e;

	const KernelInfo *ki = p->g16 ? nullptr : pick_prepared(p, nstripes, len)->k;

	*two = *null = false;
	if (ki && ki->fn_inline && nsrc + ndst <= (size_t)kInlinePtrs) {
		// the small-call kernel decides alignment per unit itself
		const int vec = ki->kind == KernelKind::NibbleSmall ||
				(aligned16((const void *const *)src, nsrc) &&
				 aligned16((const void *const *)dst, ndst));

		if (!gfec_ptrs_nonnull((const void *const *)src, nsrc) ||
		    !gfec_ptrs_nonnull((const void *const *)dst, ndst))
			return *null = true, cudaSuccess;
		return launch(c, p, col, nullptr, nullptr, nstripes, len, vec, d->st, src, dst);
	}
	// an evenly spaced head needs no table (its NULLs follow from its first row); what follows
	// it goes up in pieces on both streams, its pointers checked one by one first
	Steps steps{};
	const size_t head = ki && ki->fn_stride && nstripes > 1 && per <= (size_t)kStridePtrs
				    ? even_head(p, col, nstripes, len, src, dst, &steps)
				    : 0;
	const size_t from = head && gfec_gpu_rows_nonnull((const void *const *)src, cols, head,
							   steps.src) &&
					    gfec_gpu_rows_nonnull((const void *const *)dst, rows, head,
								  steps.dst)
				    ? head
				    : 0;

	if (!gfec_ptrs_nonnull((const void *const *)src + from * cols, nsrc - from * cols) ||
	    !gfec_ptrs_nonnull((const void *const *)dst + from * rows, ndst - from * rows))
		return *null = true, cudaSuccess;
	if (head) {
		const int vec = ((uintptr_t)steps.src | (uintptr_t)steps.dst) % 16 == 0 &&
				aligned16((const void *const *)src, cols) &&
				aligned16((const void *const *)dst, rows);

		if ((e = launch(c, p, col, nullptr, nullptr, (int)head, len, vec, d->st, src, dst,
				&steps)) != cudaSuccess)
			return e;
	}
	size_t piece = kFirstPiecePtrs / per > 0 ? kFirstPiecePtrs / per : 1;
	const size_t most = kMaxPiecePtrs / per > piece ? kMaxPiecePtrs / per : piece;

	for (size_t s0 = head, i = head > 0, ns; s0 < (size_t)nstripes; s0 += ns, i++) {
		cudaStream_t ks = i % 2 ? d->st2 : d->st;

		ns = (size_t)nstripes - s0 < piece ? (size_t)nstripes - s0 : piece;
		if ((e = dev_reserve(d, nsrc + ndst)) != cudaSuccess)
			return e;
		void **h = d->h_ptrs + s0 * per, **dv = d->d_ptrs + s0 * per;
		const uintptr_t bits =
			copy_ptrs(h, (const void *const *)src + s0 * cols, ns * cols) |
			copy_ptrs(h + ns * cols, (const void *const *)dst + s0 * rows, ns * rows);

		*two = *two || i % 2;
		if ((e = cudaMemcpyAsync(dv, h, ns * per * sizeof(void *), cudaMemcpyHostToDevice,
					 d->up)) != cudaSuccess ||
		    (e = cudaEventRecord(d->ev, d->up)) != cudaSuccess ||
		    (e = cudaStreamWaitEvent(ks, d->ev, 0)) != cudaSuccess ||
		    (e = launch(c, p, col, (const uint8_t *const *)dv,
				(uint8_t *const *)(dv + ns * cols), (int)ns, len, bits % 16 == 0,
				ks)) != cudaSuccess)
			return e;
		piece = piece * kPieceGrowth < most ? piece * kPieceGrowth : most;
	}
	return cudaSuccess;
}

/*
 * One stripe without a launch: in device memory through the resident kernel (gpu_resident_us,
 * resident.h) when the launch would be the small-call kernel's; in pinned host memory (@p pinned:
 * its mapped addresses: the caller's buffers or a stage, run_stage) through the pool's engines
 * (gpu_resident_pinned) on the shapes the small-call kernel takes, with fewer than
 * kResidentPinnedSrc source bytes, or in pieces (pinned_pieces). Never with a fault injected.
 * resident_takes(): whether it would take it whole; run_resident: 1 done (counted), 0 not taken,
 * < 0 an error (GFEC_E_INVAL: a NULL pointer).
 */
bool resident_takes(const Ctx *c, const Plan *p, int col, int nstripes, size_t len, bool pinned)
{
	const int cols = col < 0 ? p->sh.cols : 1;

	if (!(pinned ? c->rpool != nullptr : c->res != nullptr) || c->fault || c->fault_kernel ||
	    nstripes != 1 || p->g16)
		return false;
	return pinned ? p->small.k && (size_t)cols * len < kResidentPinnedSrc
		      : pick_prepared(p, 1, len) == &p->small;
}

/*
 * A pinned stripe the engines take in pieces of the caller's own buffers (no copies), cut as a
 * staged one is (pieces_of): one of kResidentPinnedSrc source bytes or more, in at most
 * kResidentPieces pieces (one round). The launch slots then leave it to the engines
 * (runs_resident): on the H200 host RS(10,4) 256 KiB from 16 callers went from 0.73x pinned H2D
 * through the slots to 0.86x, while 4 MiB in 60 pieces ran at 0.70x against 0.85x launched
 * (perf/results/nvidia-h200/stage-pieces-2026-11-26, call 8). How many pieces, or 0.
 */
int pinned_pieces(const Ctx *c, const Plan *p, int col, int nstripes, size_t len)
{
	const int chunks = p->sh.cols + p->sh.rows;

	if (col >= 0 || nstripes != 1 || chunks > kResidentPtrs ||
	    resident_takes(c, p, col, nstripes, len, true))
		return 0;
	const size_t n = pieces_of(len, chunks);

	return n <= (size_t)kResidentPieces &&
		       resident_takes(c, p, col, 1, piece_step(len, n), true)
		   ? (int)n
		   : 0;
}

// A pinned_pieces() call's pieces for resident_pool_pipe: byte ranges of the caller's buffers.
struct InPlace final : ResidentPieces {
	const Plan *p;
	size_t len, step;
	const uint8_t *const *src;
	uint8_t *const *dst;
	const uint8_t *in[kResidentPieces][kResidentPtrs];
	uint8_t *out[kResidentPieces][kResidentPtrs];

	ResidentPiece ready(int i) override
	{
		const size_t off = (size_t)i * step, b = std::min(step, len - off);
		const uint8_t **pin = in[i];
		uint8_t **pout = out[i];

		for (int j = 0; j < p->sh.cols; j++)
			pin[j] = src[j] + off;
		for (int r = 0; r < p->sh.rows; r++)
			pout[r] = dst[r] + off;
		return { kernel_args(p, &p->small, -1, 1, b, 1), pin, pout };
	}
	void done(int) override {}
};

// The stripe on what resident_takes() or pinned_pieces() names (see above).
int run_resident(Ctx *c, const Plan *p, int col, int nstripes, size_t len,
		 const uint8_t *const *src, uint8_t *const *dst, bool pinned)
{
	const int cols = col < 0 ? p->sh.cols : 1;
	const int n = pinned ? pinned_pieces(c, p, col, nstripes, len) : 0;
	int ret;

	if (!n && !resident_takes(c, p, col, nstripes, len, pinned))
		return 0;
	if (!gfec_ptrs_nonnull((const void *const *)src, (size_t)cols) ||
	    !gfec_ptrs_nonnull((const void *const *)dst, (size_t)p->sh.rows))
		return GFEC_E_INVAL;
	const int rg = p->small.k->tile;

	if (n) {
		InPlace d;

		d.n = n;
		d.p = p;
		d.len = len;
		d.step = piece_step(len, (size_t)n);
		d.src = src;
		d.dst = dst;
		ret = resident_pool_pipe(c->rpool, d, rg, &c->pollers);
	} else {
		const GemmArgs args = kernel_args(p, &p->small, col, 1, len, 1);

		ret = pinned ? resident_pool_run(c->rpool, args, rg, src, dst, &c->pollers)
			     : resident_run(c->res, args, rg, src, dst);
	}
	if (ret > 0)
		__atomic_fetch_add(&c->resident, 1, __ATOMIC_RELAXED);
	return ret;
}

// Marks the end of the work queued on @p st so far: with @p poll (and where CUDA can), the GPU
// writes the next sequence number into d.word behind it; else, or when that write cannot be
// queued, d.ev is recorded.
cudaError_t done_mark(Ctx *c, Done &d, cudaStream_t st, bool poll)
{
	d.polled =
	    poll && d.word && c->write_value((CUstream)st, d.m_word, ++d.seq, 0) == CUDA_SUCCESS;
	return d.polled ? cudaSuccess : cudaEventRecord(d.ev, st);
}

// Sleeps until the work marked last is done: polling the word (poll.h; a stream query now and
// then ends the wait with a failed kernel's error), or on the blocking-sync event.
cudaError_t done_wait(Ctx *c, const Done &d, cudaStream_t st)
{
	cudaError_t e = cudaSuccess;

	if (!d.polled)
		return cudaEventSynchronize(d.ev);
	const unsigned looks = poll_until(
		&c->pollers, [&] { return __atomic_load_n(d.word, __ATOMIC_ACQUIRE) == d.seq; },
		[&] { return (e = cudaStreamQuery(st)) == cudaErrorNotReady; });

	return looks ? cudaSuccess : e; // a query's cudaSuccess: the word is written too
}

// How run_device's caller waits for the end of its call.
enum class Wait { Spin, Event, Poll };

/*
 * Every buffer addressable by the kernels (device memory, or pinned host memory through its
 * mapped addresses): on a stream of the pool, one synchronisation. The caller spins on device
 * memory (a call of one small stripe takes microseconds) and sleeps on host memory (@p wait:
 * PCIe makes those calls long, and a daemon's CPU is what the GPU is there to free), on an event
 * or polling a word (see the top).
 */
int run_device(Ctx *c, const Plan *p, int col, int nstripes, size_t len, const uint8_t *const *src,
	       uint8_t *const *dst, Wait wait = Wait::Spin)
{
	const bool sleep = wait != Wait::Spin;

	if (const int ret = run_resident(c, p, col, nstripes, len, src, dst, sleep))
		return ret < 0 ? ret : 0;
	DevStream *d = dev_take(c);
	bool two = false, null = false;
	cudaError_t e;

	if (!d)
		return GFEC_E_DEVICE;
	e = dev_launches(c, d, p, col, nstripes, len, src, dst, &two, &null);
	if (null) {
		dev_give(c, d);
		return GFEC_E_INVAL;
	}
	if (e == cudaSuccess && sleep) {
		if (two && (e = cudaEventRecord(d->ev2, d->st2)) == cudaSuccess)
			e = cudaStreamWaitEvent(d->st, d->ev2, 0);
		if (e == cudaSuccess &&
		    (e = done_mark(c, d->done, d->st, wait == Wait::Poll)) == cudaSuccess)
			e = done_wait(c, d->done, d->st);
	} else if (e == cudaSuccess) {
		e = cudaStreamSynchronize(d->st);
		if (e == cudaSuccess && two) // even an idle stream's synchronisation costs 1.4-1.6 us
			e = cudaStreamSynchronize(d->st2);
	}
	if (e != cudaSuccess) { // let every stream drain, so that the tables can be reused
		cudaGetLastError();
		cudaStreamSynchronize(d->up);
		cudaStreamSynchronize(d->st);
		cudaStreamSynchronize(d->st2);
		cudaGetLastError();
	}
	dev_give(c, d);
	return e == cudaSuccess ? 0 : GFEC_E_DEVICE;
}

// Copies a completed piece's outputs from pinned staging to the caller's buffers.
void copy_out(Ctx *c, const Slot &s, const Plan *p, uint8_t *const *dst)
{
	std::vector<Copy> v;

	if (s.direct)
		return;
	for (int t = 0; t < s.ns; t++)
		for (int i = 0; i < p->sh.rows; i++)
			v.push_back({ dst[(size_t)(s.s0 + t) * p->sh.rows + i] + s.off,
				      s.h_out + ((size_t)t * p->sh.rows + i) * s.pitch, s.n, true });
	run_copies(c, v);
}

bool mapped_type(const cudaPointerAttributes &at)
{
	return at.type == cudaMemoryTypeHost && at.devicePointer;
}

/*
 * One allocation of pinned, mapped host memory (cudaMallocHost, cudaHostAlloc, cudaHostRegister):
 * its host bytes [lo, hi], and its device address minus its host address (mod 2^64). Empty at
 * first.
 */
struct PinnedRange {
	uintptr_t lo = 1, hi = 0, delta = 0;

	bool holds(uintptr_t a, size_t len) const
	{
		return lo <= a && a <= hi && len - 1 <= hi - a;
	}
};

// Where a buffer is, as one driver query finds it.
enum class Mem { Device, Pinned, Other }; // Device: device or managed memory

/*
 * Where the memory at @p h is: one driver query (cuPointerGetAttributes) for its type and, for
 * pinned and mapped host memory (cudaMallocHost, cudaHostAlloc, cudaHostRegister), the range of
 * the allocation that holds it, left in *r (empty otherwise). Without the entry point, device
 * memory is told by the runtime and no host memory counts as pinned.
 */
Mem query(const Ctx *c, const uint8_t *h, PinnedRange *r)
{
	const uintptr_t a = (uintptr_t)h;
	CUpointer_attribute want[] = { CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
				       CU_POINTER_ATTRIBUTE_IS_MANAGED,
				       CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
				       CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
				       CU_POINTER_ATTRIBUTE_RANGE_SIZE };
	unsigned int type = 0, managed = 0; // managed: a boolean, in a zeroed word
	CUdeviceptr dev = 0, start = 0;
	size_t size = 0;
	void *data[] = { &type, &managed, &dev, &start, &size };

	*r = PinnedRange();
	if (!c->pointer_query)
		return is_device(h) ? Mem::Device : Mem::Other;
	if (c->pointer_query(5, want, data, (CUdeviceptr)a) != CUDA_SUCCESS)
		return Mem::Other;
	if (managed || type == CU_MEMORYTYPE_DEVICE)
		return Mem::Device;
	// The range is taken in host addresses: where it does not hold h, the call is staged.
	if (type != CU_MEMORYTYPE_HOST || !dev || !size || a - (uintptr_t)start >= size)
		return Mem::Other;
	r->lo = (uintptr_t)start;
	r->hi = r->lo + (size - 1);
	r->delta = (uintptr_t)dev - a;
	return Mem::Pinned;
}

/*
 * Whether the @p len bytes at @p h are all pinned and mapped: inside *r, or else inside the
 * allocation that holds h (query(), which leaves its range in *r for the next chunk). Asking
 * cudaPointerGetAttributes about each chunk's first and last byte instead (28 queries for an
 * RS(10,4) call) cost more with more callers: one query took a 64 KiB call on the resident
 * engines from 26-30 to 16 us of CPU from 16 callers on the H200 host
 * (perf/results/nvidia-h200/cpu-threads-2026-11-26). Page-locked memory is mapped on every
 * 64-bit platform CUDA 13 runs on.
 */
bool in_pinned(const Ctx *c, const uint8_t *h, size_t len, PinnedRange *r)
{
	return r->holds((uintptr_t)h, len) ||
	       (query(c, h, r) == Mem::Pinned && r->holds((uintptr_t)h, len));
}

// A call's pointers translated to their mapped addresses: sources, then destinations.
struct Mapped {
	std::vector<const uint8_t *> ptrs;

	const uint8_t *const *src() const { return ptrs.data(); }
	uint8_t *const *dst(const Plan *p, int nstripes) const
	{
		return const_cast<uint8_t *const *>(ptrs.data() + (size_t)nstripes * p->sh.cols);
	}
};

/*
 * Whether every buffer of the call is pinned host memory; its mapped addresses in *m if so. The
 * allocation last found (at first @p r, src[0]'s) answers for the chunks inside it, so a batch
 * laid out in one pinned pool costs one query.
 */
bool map_stripes(const Ctx *c, const Plan *p, int nstripes, size_t len, const uint8_t *const *src,
		 uint8_t *const *dst, PinnedRange r, Mapped *m)
{
	const size_t nsrc = (size_t)nstripes * p->sh.cols, ndst = (size_t)nstripes * p->sh.rows;

	try {
		m->ptrs.resize(nsrc + ndst);
	} catch (const std::bad_alloc &) {
		return false; // the staged path needs no such table
	}
	for (size_t i = 0; i < nsrc + ndst; i++) {
		const uint8_t *h = i < nsrc ? src[i] : dst[i - nsrc];

		if (!in_pinned(c, h, len, &r))
			return false;
		m->ptrs[i] = (const uint8_t *)((uintptr_t)h + r.delta);
	}
	return true;
}

// Room for a mapped call of @p bytes under the cap (one call in flight always fits).
void map_enter(Ctx *c, size_t bytes)
{
	if (c->map_cap)
		gfec_fifo_gate_enter(&c->map_gate, bytes);
}

// The call is done: its room goes to the first waiters it now fits.
void map_leave(Ctx *c, size_t bytes)
{
	if (c->map_cap)
		gfec_fifo_gate_leave(&c->map_gate, bytes);
}

/*
 * One piece's launch on its slot's stream, its pointers (in s.h_ptrs) in the launch's parameters
 * where the kernel takes them so, else uploaded as a table first.
 */
cudaError_t launch_piece(Ctx *c, const Plan *p, int col, const Slot &s, int ns, size_t n)
{
	const size_t nsrc = (size_t)ns * (col < 0 ? p->sh.cols : 1);
	const size_t nptrs = nsrc + (size_t)ns * p->sh.rows;
	const KernelInfo *ki = p->g16 ? nullptr : pick_prepared(p, ns, n)->k;
	cudaError_t e;

	if (ki && ki->fn_inline && nptrs <= (size_t)kInlinePtrs)
		return launch(c, p, col, nullptr, nullptr, ns, n, 1, s.stream,
			      (const uint8_t *const *)s.h_ptrs,
			      (uint8_t *const *)(s.h_ptrs + nsrc));
	if ((e = cudaMemcpyAsync(s.d_ptrs, s.h_ptrs, nptrs * sizeof(void *), cudaMemcpyHostToDevice,
				 s.stream)) != cudaSuccess)
		return e;
	return launch(c, p, col, (const uint8_t *const *)s.d_ptrs,
		      (uint8_t *const *)(s.d_ptrs + nsrc), ns, n, 1, s.stream);
}

/*
 * Host buffers: the staged pipeline. For an update (col >= 0) the current parity travels in
 * too and the kernel XORs into it. *done = bytes of every dst that are final (single stripe).
 * A single stripe whose buffers are all pinned skips the staging copies: the DMA engines read
 * and write the caller's buffers directly (never for updates, whose outputs must only change
 * once a piece is known good).
 */
int run_host(Ctx *c, Lane *l, const Plan *p, int col, int nstripes, size_t len,
	     const uint8_t *const *src, uint8_t *const *dst, size_t *done)
{
	const int cols = col < 0 ? p->sh.cols : 1, rows = p->sh.rows;
	size_t piece_len, pitch;
	int piece_stripes;
	int ret = 0, next = 0;

	*done = 0;
	// Cut the work: a byte range of one stripe, or whole stripes, per slot. Ranges are whole
	// pitch units, and whole CRS blocks for packet layouts.
	if (len * (size_t)cols >= c->segment / 2 || nstripes == 1) {
		const size_t unit = p->sh.packetsize ? 8 * p->sh.packetsize : kPitchAlign;

		piece_len = c->segment / (size_t)cols;
		piece_len = piece_len > len ? len : piece_len / unit * unit;
		if (piece_len == 0)
			piece_len = len < unit ? len : unit;
		piece_stripes = 1;
	} else {
		piece_len = len;
		const size_t per = pitch_of(len) * cols;
		size_t ns = c->segment / per;

		ns = ns < 1 ? 1 : ns;
		ns = ns > kMaxPtrs / (size_t)(cols + rows) ? kMaxPtrs / (size_t)(cols + rows) : ns;
		piece_stripes = (int)(ns < (size_t)nstripes ? ns : (size_t)nstripes);
	}
	pitch = pitch_of(piece_len);
	if (pitch == 0)
		pitch = kPitchAlign;
	const size_t ptrs = (size_t)piece_stripes * (cols + rows);
	int direct = col < 0 && piece_stripes == 1;

	// every byte pinned, not just the first: a DMA from a chunk that runs past its
	// registration fails (test_gpu_pinned's test_partly_pinned)
	PinnedRange known;

	for (int t = 0; direct && t < nstripes; t++) {
		for (int j = 0; direct && j < cols; j++)
			direct = in_pinned(c, src[(size_t)t * cols + j], len, &known);
		for (int i = 0; direct && i < rows; i++)
			direct = in_pinned(c, dst[(size_t)t * rows + i], len, &known);
	}

	if (slots_reserve(c, l, pitch * cols * piece_stripes, pitch * rows * piece_stripes, ptrs))
		return GFEC_E_DEVICE;

	for (int s0 = 0; s0 < nstripes; s0 += piece_stripes)
		for (size_t off = 0; off < len; off += piece_len) {
			Slot &s = l->slots[next];
			const int ns = nstripes - s0 < piece_stripes ? nstripes - s0 : piece_stripes;
			const size_t n = len - off < piece_len ? len - off : piece_len;

			next = (next + 1) % c->nslots;
			if (s.busy) { // retire this slot's previous piece first
				CUDA_TRY(done_wait(c, s.done, s.stream));
				copy_out(c, s, p, dst);
				s.busy = 0;
				if (nstripes == 1)
					*done = s.off + s.n;
			}
			s.s0 = s0, s.ns = ns, s.off = off, s.n = n, s.pitch = pitch;
			s.direct = direct;
			std::vector<Copy> copies;
			const bool in_place =
			    !direct && pitch * (cols + rows) * ns <= kInPlacePiece;
			uint8_t *const k_in = in_place ? s.m_in : s.d_in;
			uint8_t *const k_out = in_place ? s.m_out : s.d_out;

			for (int t = 0; t < ns; t++) {
				for (int j = 0; j < cols; j++) {
					if (direct)
						CUDA_TRY(cudaMemcpyAsync(
							s.d_in + ((size_t)t * cols + j) * pitch,
							src[(size_t)(s0 + t) * cols + j] + off, n,
							cudaMemcpyHostToDevice, s.stream));
					else
						copies.push_back({ s.h_in + ((size_t)t * cols + j) * pitch,
								   src[(size_t)(s0 + t) * cols + j] + off,
								   n, false });
					s.h_ptrs[(size_t)t * cols + j] =
					    k_in + ((size_t)t * cols + j) * pitch;
				}
				for (int i = 0; i < rows; i++) {
					if (col >= 0)
						copies.push_back({ s.h_out + ((size_t)t * rows + i) * pitch,
								   dst[(size_t)(s0 + t) * rows + i] + off,
								   n, false });
					s.h_ptrs[(size_t)ns * cols + (size_t)t * rows + i] =
					    k_out + ((size_t)t * rows + i) * pitch;
				}
			}
			run_copies(c, copies);
			// Rows are pitch apart, so one copy moves the whole piece.
			if (!direct && !in_place)
				CUDA_TRY(cudaMemcpyAsync(s.d_in, s.h_in, pitch * cols * ns,
							 cudaMemcpyHostToDevice, s.stream));
			if (col >= 0 && !in_place)
				CUDA_TRY(cudaMemcpyAsync(s.d_out, s.h_out, pitch * rows * ns,
							 cudaMemcpyHostToDevice, s.stream));
			CUDA_TRY(launch_piece(c, p, col, s, ns, n));
			if (direct)
				for (int i = 0; i < rows; i++)
					CUDA_TRY(cudaMemcpyAsync(dst[(size_t)s0 * rows + i] + off,
								 s.d_out + (size_t)i * pitch, n,
								 cudaMemcpyDeviceToHost, s.stream));
			else if (!in_place)
				CUDA_TRY(cudaMemcpyAsync(s.h_out, s.d_out, pitch * rows * ns,
							 cudaMemcpyDeviceToHost, s.stream));
			CUDA_TRY(done_mark(c, s.done, s.stream,
					   pitch * (cols + rows) * ns >= kPollBytes));
			s.busy = 1;
		}
	// Drain in submission order, so *done stays a prefix.
	for (int i = 0; i < c->nslots; i++) {
		Slot &s = l->slots[(next + i) % c->nslots];

		if (!s.busy)
			continue;
		CUDA_TRY(done_wait(c, s.done, s.stream));
		copy_out(c, s, p, dst);
		s.busy = 0;
		if (nstripes == 1)
			*done = s.off + s.n;
	}
	*done = len;
	return ret;
fail:
	cudaGetLastError();
	for (int i = 0; i < c->nslots; i++) {
		cudaStreamSynchronize(l->slots[i].stream);
		l->slots[i].busy = 0;
	}
	cudaGetLastError();
	return GFEC_E_DEVICE;
}

/*
 * A staged call that the engines take (gpu_resident_pinned) through stages: one stripe cut into
 * byte ranges (pieces) whose chunks, kPitchAlign apart, each fit one kInPlacePiece buffer of
 * pinned memory, on the shapes and lengths they take from pinned memory (resident_takes), while
 * an engine works and pinned memory is read in place (gpu_pinned=dma keeps the copy engines for
 * every host call). An update is one piece (a failed call leaves its parity untouched). It holds
 * no lane: none of a lane's streams is used, and lanes stay for the pieces the copy engines move,
 * which ran best on few of them (H200 host, RS(10,4) from 16 / 64 callers: pageable 1 MiB 45.2 /
 * 45.4 GB/s on 8 lanes, 37.4 / 25.0 on 64) while 64 KiB ones, each a lane then, ran best on many
 * (13.6 / 17.6 on 8, 34.7 / 44.9 on 64; perf/results/nvidia-h200/staged-engines-2026-11-26, call
 * 2). stage_pieces(): how many pieces, 0 when not such a call.
 */
int stage_pieces(const Ctx *c, const Plan *p, int col, int nstripes, size_t len, unsigned calls)
{
	const int cols = col < 0 ? p->sh.cols : 1, rows = p->sh.rows;

	if (!c->pinned_map || cols + rows > kResidentPtrs)
		return 0;
	const size_t n = col >= 0 ? 1 : pieces_of(len, cols + rows);
	const size_t step = piece_step(len, n);

	if (n > 1 && calls < c->stage_calls)
		return 0; // see the top
	return n <= (size_t)INT_MAX && resident_takes(c, p, col, nstripes, step, true) &&
		       pitch_of(step) * (size_t)(cols + rows) <= kInPlacePiece &&
		       resident_pool_working(c->rpool)
		   ? (int)n
		   : 0;
}

// An idle stage, or a new one; nullptr when CUDA cannot make one.
Stage *stage_take(Ctx *c)
{
	std::lock_guard<std::mutex> g(c->slock);

	if (!c->sfree.empty()) {
		Stage *st = c->sfree.back();

		c->sfree.pop_back();
		return st;
	}
	Stage *st = new (std::nothrow) Stage;

	if (!st)
		return nullptr;
	if (cudaMallocHost(&st->h, kInPlacePiece) != cudaSuccess ||
	    cudaHostGetDevicePointer((void **)&st->m, st->h, 0) != cudaSuccess) {
		cudaGetLastError();
		stage_free(st);
		return nullptr;
	}
	return pool_add(c->sall, c->sfree, st, stage_free);
}

void stage_give(Ctx *c, Stage *st)
{
	std::lock_guard<std::mutex> g(c->slock);

	c->sfree.push_back(st);
}

/*
 * A stage_pieces() call of @p n pieces: each piece's chunks (and an update's parity) copied into
 * a stage buffer, read and written there by an engine through the buffer's mapped address, its
 * outputs copied back (resident_pool_pipe: the caller copies one piece while the engines serve
 * others), its stage then taking the piece kResidentPieces after it. A call takes its stages
 * (at most kResidentPieces) in arrival order, at most kResidentQueue per engine (what the engines
 * hold at once). 1 done; 0 not done for want of an engine or of memory for a stage, with no CUDA
 * error (the caller redoes it through a lane; an update is never left half done: it is one
 * piece); < 0 an error (an update's parity untouched; an encode's outputs may be partly written).
 */
// A stage_pieces() call's pieces for resident_pool_pipe (run_stage).
struct Staged final : ResidentPieces {
	const Plan *p;
	int col, cols, rows, w;
	size_t len, step;
	const uint8_t *const *src;
	uint8_t *const *dst;
	Stage *st[kResidentPieces];
	const uint8_t *in[kResidentPieces][kResidentPtrs];
	uint8_t *out[kResidentPieces][kResidentPtrs];

	// piece i: bytes i * step .. of every chunk; in stage i % w, chunk j (inputs, then outputs)
	// at pitch_of(its bytes) * j
	size_t bytes(int i) const { return std::min(step, len - (size_t)i * step); }
	uint8_t *at(int i, int j) const { return st[i % w]->h + (size_t)j * pitch_of(bytes(i)); }
	uint8_t *mine(int i, int j) const
	{
		uint8_t *const chunk = j < cols ? const_cast<uint8_t *>(src[j]) : dst[j - cols];

		return chunk + (size_t)i * step;
	}
	ResidentPiece ready(int i) override
	{
		const size_t b = bytes(i);
		const uint8_t **pin = in[i % w];
		uint8_t **pout = out[i % w];

		for (int j = 0; j < cols; j++)
			pin[j] = st[i % w]->m + (size_t)j * pitch_of(b);
		for (int r = 0; r < rows; r++)
			pout[r] = st[i % w]->m + (size_t)(cols + r) * pitch_of(b);
		copy(i, 0, cols + (col >= 0 ? rows : 0), false);
		return { kernel_args(p, &p->small, col, 1, b, 1), pin, pout };
	}
	void done(int i) override { copy(i, cols, cols + rows, true); }
	// piece i's chunks j0 .. j1 - 1 into the stage, or back out of it (stage_copy.h)
	void copy(int i, int j0, int j1, bool out) const
	{
		uint8_t *stage[kResidentPtrs], *caller[kResidentPtrs];

		for (int j = j0; j < j1; j++)
			stage[j - j0] = at(i, j), caller[j - j0] = mine(i, j);
		if (out)
			gfec_stage_copy(caller, stage, j1 - j0, bytes(i),
					bytes(i) >= GFEC_STAGE_STREAM_MIN);
		else
			gfec_stage_copy(stage, caller, j1 - j0, bytes(i), 0);
	}
};

int run_stage(Ctx *c, const Plan *p, int col, size_t len, int n, const uint8_t *const *src,
	      uint8_t *const *dst)
{
	Staged s;
	int got = 0, ret = 0;

	s.n = n;
	s.p = p;
	s.col = col;
	s.cols = col < 0 ? p->sh.cols : 1;
	s.rows = p->sh.rows;
	s.w = std::min(n, kResidentPieces);
	s.len = len;
	s.step = piece_step(len, (size_t)n);
	s.src = src;
	s.dst = dst;
	if (!gfec_ptrs_nonnull((const void *const *)src, (size_t)s.cols) ||
	    !gfec_ptrs_nonnull((const void *const *)dst, (size_t)s.rows))
		return GFEC_E_INVAL;
	gfec_fifo_gate_enter(&c->stage_gate, (uint64_t)s.w);
	while (got < s.w && (s.st[got] = stage_take(c)))
		got++;
	if (got == s.w) {
		ret = resident_pool_pipe(c->rpool, s, p->small.k->tile, &c->pollers);
		if (ret > 0)
			__atomic_fetch_add(&c->resident, 1, __ATOMIC_RELAXED);
		if (ret)
			__atomic_fetch_add(&c->staged, 1, __ATOMIC_RELAXED);
	}
	while (got--)
		stage_give(c, s.st[got]);
	gfec_fifo_gate_leave(&c->stage_gate, (uint64_t)s.w);
	return ret;
}

int run(Ctx *c, const Plan *p, int col, int nstripes, size_t len, const uint8_t *const *src,
	uint8_t *const *dst, size_t *done)
{
	Mapped m;
	int ret;

	*done = 0;
	if (len == 0 || nstripes == 0) {
		*done = len;
		return 0;
	}
	if (cudaSetDevice(c->dev) != cudaSuccess) {
		cudaGetLastError();
		return GFEC_E_DEVICE;
	}
	__atomic_fetch_add(&c->calls, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->bytes_in, (uint64_t)len * nstripes * (col < 0 ? p->sh.cols : 1),
			   __ATOMIC_RELAXED);
	PinnedRange r;
	const Mem at = query(c, src[0], &r);

	if (at == Mem::Device) {
		ret = run_device(c, p, col, nstripes, len, src, dst);
		*done = ret ? 0 : len;
	} else if (col < 0 && c->pinned_map && at == Mem::Pinned &&
		   map_stripes(c, p, nstripes, len, src, dst, r, &m)) {
		const size_t bytes = (size_t)nstripes * len * (p->sh.cols + p->sh.rows);

		map_enter(c, bytes);
		ret = run_device(c, p, col, nstripes, len, m.src(), m.dst(p, nstripes),
				 bytes >= kPollBytes ? Wait::Poll : Wait::Event);
		map_leave(c, bytes);
		*done = ret ? 0 : len;
	} else {
		const unsigned calls = __atomic_add_fetch(&c->hosted, 1, __ATOMIC_RELAXED);
		const int n = stage_pieces(c, p, col, nstripes, len, calls);

		ret = n ? run_stage(c, p, col, len, n, src, dst) : 0;
		if (ret == 0) {
			Lane *l = lane_take(c);

			if (l) {
				__atomic_fetch_add(&c->staged, 1, __ATOMIC_RELAXED);
				ret = run_host(c, l, p, col, nstripes, len, src, dst, done);
				lane_give(c, l);
			} else {
				ret = GFEC_E_DEVICE;
			}
		} else if (ret > 0) {
			ret = 0;
			*done = len;
		}
		__atomic_sub_fetch(&c->hosted, 1, __ATOMIC_RELAXED);
	}
	if (ret)
		__atomic_fetch_add(&c->failures, 1, __ATOMIC_RELAXED);
	return ret;
}

int gpu_gemm(void *ctx, const void *plan, int nstripes, size_t len, const uint8_t *const *src,
	     uint8_t *const *dst)
{
	const Plan *p = static_cast<const Plan *>(plan);
	size_t done;

	if (p->g16 && len % 2)
		return GFEC_E_INVAL; // w = 16: whole 16-bit symbols
	return run(static_cast<Ctx *>(ctx), p, -1, nstripes, len, src, dst, &done);
}

int gpu_update(void *ctx, const void *plan, int col, size_t len, const uint8_t *src,
	       uint8_t *const *dst, size_t *done)
{
	const Plan *p = static_cast<const Plan *>(plan);

	if (col < 0 || col >= p->sh.cols || (p->g16 && len % 2))
		return GFEC_E_INVAL;
	return run(static_cast<Ctx *>(ctx), p, col, 1, len, &src, dst, done);
}

void gpu_stats(void *ctx, struct gfec_backend_stats *out)
{
	Ctx *c = static_cast<Ctx *>(ctx);

	out->calls = __atomic_load_n(&c->calls, __ATOMIC_RELAXED);
	out->bytes_in = __atomic_load_n(&c->bytes_in, __ATOMIC_RELAXED);
	out->fallbacks = __atomic_load_n(&c->failures, __ATOMIC_RELAXED);
	out->resident = __atomic_load_n(&c->resident, __ATOMIC_RELAXED);
	out->staged = __atomic_load_n(&c->staged, __ATOMIC_RELAXED);
}

const char *gpu_path_name(void *ctx)
{
	Ctx *c = static_cast<Ctx *>(ctx);

	return c->forced ? c->forced->name : "auto";
}

// technique=fft's ops on device regions (bfly16.h): stream-ordered, so with alloc/free/sync.
int gpu_butterfly16(void *ctx, int kind, int n, size_t len, uint8_t *const *x, uint8_t *const *y,
		    const uint16_t *c)
{
	return bfly16_run(&static_cast<Ctx *>(ctx)->bfly, kind, n, len, x, y, c);
}

void *gpu_bfly16_alloc(void *ctx, size_t bytes)
{
	return bfly16_alloc(&static_cast<Ctx *>(ctx)->bfly, bytes);
}

void gpu_bfly16_free(void *ctx, void *p)
{
	bfly16_free(&static_cast<Ctx *>(ctx)->bfly, p);
}

int gpu_bfly16_sync(void *ctx)
{
	return bfly16_sync(&static_cast<Ctx *>(ctx)->bfly);
}

size_t gpu_bfly16_work(void *ctx)
{
	return bfly16_work(&static_cast<Ctx *>(ctx)->bfly);
}

int gpu_in_place(void *ctx, const void *p)
{
	const cudaPointerAttributes at = attrs(p);

	return device_type(at) || (static_cast<Ctx *>(ctx)->pinned_map && mapped_type(at));
}

// The engine's gate (plugin/engine.c) lets the calls that hold no lane past: those read in place,
// and those run_stage takes.
int gpu_holds_lane(void *ctx, const void *plan, int nstripes, size_t len, const uint8_t *const *src,
		   uint8_t *const *dst)
{
	Ctx *c = static_cast<Ctx *>(ctx);

	return !gpu_in_place(ctx, src[0]) && !gpu_in_place(ctx, dst[0]) &&
	       !stage_pieces(c, static_cast<const Plan *>(plan), -1, nstripes, len,
			     __atomic_load_n(&c->hosted, __ATOMIC_RELAXED) + 1);
}

// The coalescer's launch slots leave the calls the engines take from pinned memory to them.
int gpu_runs_resident(void *ctx, const void *plan, int nstripes, size_t len,
		      const uint8_t *const *src, uint8_t *const *dst)
{
	Ctx *c = static_cast<Ctx *>(ctx);
	const Plan *p = static_cast<const Plan *>(plan);

	return c->pinned_map &&
	       (resident_takes(c, p, -1, nstripes, len, true) ||
		pinned_pieces(c, p, -1, nstripes, len)) &&
	       mapped_type(attrs(src[0])) && mapped_type(attrs(dst[0]));
}

const struct gfec_backend_ops gpu_ops = {
	"gpu",	       gpu_init,   gpu_fini,  gpu_can_implement, gpu_plan_create, gpu_plan_free,
	gpu_gemm,      gpu_update, gpu_is_device_ptr, gpu_stats,	 gpu_path_name,
	nullptr, // devices: one device (the multi-device table lists its contexts)
	gpu_butterfly16,  gpu_bfly16_alloc, gpu_bfly16_free, gpu_bfly16_sync, gpu_bfly16_work,
	gpu_in_place,	  gpu_holds_lane, gpu_runs_resident,
	1, // checks_device_ptrs: dev_launches
};

} // namespace

CtxView ctx_view(void *ctx)
{
	Ctx *c = static_cast<Ctx *>(ctx);

	return { c->dev, &c->prop, c->fault, &c->lock, c->d_logexp, c->aux };
}

int ctx_is_device(const void *p)
{
	return is_device(p);
}

} // namespace gfec

extern "C" const struct gfec_backend_ops *gfec_gpu_backend(void)
{
	return &gfec::gpu_ops;
}

extern "C" const char *gfec_gpu_kernel_names(void)
{
	return gfec::kernel_names();
}
