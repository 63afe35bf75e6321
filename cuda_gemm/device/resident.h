// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file resident.h
 * A kernel kept running on the GPU for calls of one small stripe in device memory (gpu_resident_us,
 * issue 17): the call's arguments go to it through pinned host memory instead of a launch, which
 * on the H200 host costs 8.3-10.4 us with its synchronisation before any work is done.
 *
 *   host:  request -> box.req, ++seq -> box.seq           spin on box.done == seq
 *   GPU:   a cluster of 8 blocks on 8 multiprocessors; block 0's thread 0 polls box.seq (one
 *          PCIe read, ~1.3 us) -> block 0 reads box.req -> cluster barrier, the others copy it
 *          from block 0's shared memory -> each block a share of the stripe's words
 *          (nibble_word_body, gemm_nibble.cuh, L2 loads) -> fences, cluster barrier ->
 *          box.done = seq
 *
 * The kernel leaves after idle_us without a request, and at the latest after kLifeUs (so that a
 * device-wide synchronisation elsewhere, cudaFree's included, waits at most that long); the next
 * request launches it again. One request at a time: a caller that finds the box taken, or work
 * of its own still queued on the legacy default stream (which the resident kernel's non-blocking
 * stream would not wait for), launches as before.
 *
 * Calls on pinned host memory (gpu_resident_pinned), and pageable ones copied into pinned stages
 * (backend.cu's run_stage), go to a pool of such engines, each the same kernel in a cluster of 4
 * blocks, serving stripes of any length in order, up to kResidentQueue posted at once, through
 * the memory's mapped addresses (loads that fetch every line again: the CPU rewrites it between
 * requests). Callers enter in arrival order and post to the engine with the fewest requests;
 * then each sleeps until its stripe is done (poll.h's gaps, the first one
 * 3/4 of the engine's recent latency for the bytes ahead and its own, 5/4 while other callers
 * poll). They do not wait for the caller's stream work: host memory is read when the call is
 * made. On the H200 host a launch per 64 KiB RS(10,4) stripe tops out near 56,000 calls a
 * second, 0.67x pinned H2D; 16 engines ran them at 0.87-0.89x from 16 and 64 callers, at 8-10 us
 * of CPU a call (perf/results/nvidia-h200/resident-pinned-2026-11-26: the engines' sizes tried,
 * 1, 4 and 8 blocks, and their counts; engine-queries-2026-11-26, call 2).
 */
#pragma once

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "../kernel/gemm_args.cuh"

namespace gfec {

struct Resident;

/** Pointers (inputs then outputs) a request carries: the small-call kernel's columns and rows. */
constexpr int kResidentPtrs = 24;

/**
 * Requests an engine holds at once, served in order: a pinned engine's callers post behind each
 * other up to this many (the kernel of device-memory calls takes one at a time).
 */
constexpr int kResidentQueue = 4;

/** Units (16 bytes of one stripe) above which a call is launched as before: 16 KiB chunks. */
constexpr size_t kResidentMaxUnits = 1024;

/** The longest a resident kernel stays, whatever idle_us says. */
constexpr long long kLifeUs = 4000;

/**
 * A resident engine for the current device (nothing runs until the first request); @p idle_us
 * > 0; the error of the CUDA call that failed.
 */
cudaError_t resident_create(long long idle_us, Resident **out);

/** Stops the kernel if it runs and frees everything (nullptr: nothing). */
void resident_destroy(Resident *r);

/**
 * Runs one stripe (args.nstripes = 1; args.src / dst unused) of the small-call kernel with @p rg
 * row groups (1 or 2), pointers @p src (args.cols) and @p dst (args.rows), all non-NULL device
 * memory, and waits for it: 1 done, 0 not taken (the caller launches instead), GFEC_E_DEVICE on
 * a CUDA error (the engine is then off for good; the outputs are as after any failed launch).
 */
int resident_run(Resident *r, const GemmArgs &args, int rg, const uint8_t *const *src,
		 uint8_t *const *dst);

struct ResidentPool;

/** The most engines a pool of the current device may have. */
constexpr int kResidentPoolMax = 128;

/** @p engines (1..kResidentPoolMax) engines for pinned calls; nothing runs until a request. */
cudaError_t resident_pool_create(int engines, ResidentPool **out);

/** Stops every engine's kernel and frees everything (nullptr: nothing). */
void resident_pool_destroy(ResidentPool *p);

/** Whether any engine of @p p can still take a request (a CUDA error turns one off for good). */
bool resident_pool_working(const ResidentPool *p);

/**
 * As resident_run, for one stripe of any length whose pointers (args.cols inputs, args.rows
 * outputs) are the mapped addresses of pinned host memory: waits for an engine, then sleeps
 * until the stripe is done, counted in @p pollers (the context's callers polling, atomic) while
 * it does. 0: not taken (the engine is off after a CUDA error). Work the caller queued on a
 * stream is not waited for: host memory is read when the call is made, as the CPU path reads
 * it; the plan's tables must be on the GPU (backend.cu waits for them when it makes a plan).
 */
int resident_pool_run(ResidentPool *p, const GemmArgs &args, int rg, const uint8_t *const *src,
		      uint8_t *const *dst, unsigned *pollers);

/** The most pieces one resident_pool_pipe call has posted at once. */
constexpr int kResidentPieces = 4;
static_assert(kResidentPieces <= kResidentQueue, "a pipe's window passes the pool's gate at once");

/** A stripe as resident_pool_run takes it: one piece of a resident_pool_pipe call. */
struct ResidentPiece {
	GemmArgs args;
	const uint8_t *const *src;
	uint8_t *const *dst;
};

/** The pieces of one resident_pool_pipe call, handed over one at a time. */
struct ResidentPieces {
	int n; // >= 1
	/** Fills piece i and returns it (what it points to stays until done(i) has run). */
	virtual ResidentPiece ready(int i) = 0;
	/** Piece i is served (its outputs written). */
	virtual void done(int i) = 0;

protected:
	~ResidentPieces() = default;
};

/**
 * As resident_pool_run, for the @p pc.n stripes of @p pc (the pieces of one call, each of at most
 * kResidentPtrs pointers): each is posted once pc.ready(i) returns, to an engine with the fewest
 * requests, and handed to pc.done(i) once served, in order. At most kResidentPieces are posted
 * at once: piece i is filled once piece i - kResidentPieces is done, so what that one used (its
 * pointers and buffers) may serve piece i. The caller fills its next pieces while the engines
 * serve the ones before, and empties one while they serve the ones after. 1: every piece done;
 * 0: not done for want of an engine that works, with no CUDA error (done() may have run for the
 * first pieces: the caller redoes the whole); GFEC_E_DEVICE: a CUDA error, after which nothing
 * more is posted, every piece posted has ended, and done() is not called for the piece that
 * failed nor any after it (a piece the GPU served despite the error counts as done, so that an
 * update is not redone).
 */
int resident_pool_pipe(ResidentPool *p, ResidentPieces &pc, int rg, unsigned *pollers);

} // namespace gfec
