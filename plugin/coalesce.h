/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file coalesce.h
 * Cross-call coalescing: concurrent synchronous GEMM calls on one engine that go to the GPU with
 * host buffers and share a plan and a len (for decodes the plan cache gives one plan per erasure
 * pattern, so decodes group by pattern) are gathered into one window and run as one
 * gpu_ops->gemm over the concatenated pointer tables.
 *
 *   caller A --.                     (A leads: it opened the window)
 *   caller B --+--> window [A B C] --> one gemm, nstripes = sA + sB + sC --> A, B, C return,
 *   caller C --'                                                              each with the status
 *
 * A window closes when it holds `bytes` source bytes (k x len x stripes) or `us` microseconds
 * after its leader opened it, whichever comes first; the leader then launches it and wakes the
 * others. A call that alone reaches `bytes` is not held back. Device buffers, which the caller
 * can batch itself, are never held back either. When the leader cannot allocate the
 * concatenated tables, every caller of the window runs its own call (nobody is dropped).
 *
 * Launch slots (`slots` > 0; group commit): a call whose buffers the kernels read in place
 * (pinned host memory they map) launches at once while fewer than `slots` of these launches are
 * in flight; otherwise it joins the open window of its shape, which launches as soon as a slot
 * is free (or it holds `bytes`, or, with `us` > 0, `us` after it opened). No call waits while
 * the GPU has room, and under load each launch carries the calls that arrived during the
 * previous ones. Calls under `slot_min` source bytes are not held by slots (a window's fixed
 * cost, its leader's launch and wake-up and its followers' wake-ups, is paid with the GPU idle
 * unless enough bytes move per launch), nor are staged calls (pageable memory): their copies
 * would all fall to one thread, where separate calls spread them over the backend's lanes.
 *
 * The status is the launch's: on an error every caller gets it and the engine redoes its own
 * stripes on the CPU (engine.c), so a fault in a window sends each of its stripes to the CPU.
 *
 * Queued members (gfec_coalesce_submit; gfec_submit_coalesced() and the RDMA ingest): the same
 * windows, whose members do not wait. A queued request joins an open queued window of its plan,
 * len and memory kind, or opens one and posts its job to another thread's queue (the codec's
 * async workers), due at the window's deadline (its opener's us) or at once when it fills (its
 * opener's max_stripes; post->hurry). A waiting window holds no thread. When its job runs, the
 * window closes and runs as ONE gfec_engine_gemm_direct over every member's stripes (the engine
 * picks the backend for the window's bytes, and redoes the whole window on the CPU after a GPU
 * error), and each member's done callback gets the status on that thread. Until its job takes
 * it, a member may be withdrawn (gfec_coalesce_cancel). Queued and waiting callers never share
 * a window: a waiting caller's window lasts `us`, a queued one its own deadline.
 *
 *   submit A --.                       (A opened it: a worker leads it)
 *   submit B --+--> window [A B C] --> one gemm, any backend --> done(A) done(B) done(C)
 *   submit C --'        ^ closes at max_stripes, or us after A
 */
#ifndef GFEC_PLUGIN_COALESCE_H
#define GFEC_PLUGIN_COALESCE_H

#include <stddef.h>
#include <stdint.h>

struct gfec_engine;
struct gfec_eplan;
struct gfec_coalesce;

#define GFEC_COALESCE_HIST 32

/** Totals since creation. */
struct gfec_coalesce_stats {
	uint64_t launches; /* gpu_ops->gemm calls made through the coalescer */
	uint64_t windows;  /* of which windows of two callers or more */
	uint64_t callers;  /* calls that went through the coalescer */
	uint64_t stripes;  /* stripes over all launches */
	uint64_t solo;	   /* calls of a window that ran alone (the tables could not be allocated) */
	/* queued members (gfec_coalesce_submit) */
	uint64_t q_windows;		 /* queued windows run (withdrawn-empty ones not counted) */
	uint64_t q_full, q_deadline;	 /* ... closed by max_stripes, or by the deadline */
	uint64_t q_requests, q_stripes;	 /* members and stripes in them */
	uint64_t q_cancelled;		 /* members withdrawn */
	uint64_t q_run_us[GFEC_COALESCE_HIST]; /* a window's run: bucket i counts [2^i, 2^(i+1)) us */
	unsigned us; /* the waiting callers' window settings (after the counters) */
	uint64_t bytes;
	unsigned slots;
	uint64_t slot_min;
};

/**
 * A coalescer: waiting callers' windows of @p us microseconds or @p bytes source bytes (> 0),
 * and with @p slots > 0, at most that many launches in flight of calls of @p slot_min source
 * bytes or more read in place (above); @p us = 0 and @p slots = 0: waiting callers are not held
 * (gfec_coalesce_gemm launches at once), only queued members are coalesced.
 */
int gfec_coalesce_create(unsigned us, uint64_t bytes, unsigned slots, uint64_t slot_min,
			 struct gfec_coalesce **out);
/** Frees it; no call may be inside. NULL is fine. */
void gfec_coalesce_free(struct gfec_coalesce *co);

/**
 * gpu_ops->gemm for one caller (gfec_engine_gemm's arguments; p->gpu and p->rows are used),
 * through a window when the call can share one: returns when this caller's stripes are done,
 * with the GPU's status for them.
 */
int gfec_coalesce_gemm(struct gfec_coalesce *co, struct gfec_engine *e, const struct gfec_eplan *p,
		       int cols, int nstripes, size_t len, const uint8_t *const *src,
		       uint8_t *const *dst);

void gfec_coalesce_stats(const struct gfec_coalesce *co, struct gfec_coalesce_stats *out);

/** Work handed to another thread (async.c's workers): run(job) is called once, from `at` on. */
struct gfec_job {
	void (*run)(struct gfec_job *job);
	uint64_t at;	       /* CLOCK_MONOTONIC ns (gfec_async_now); 0: at once */
	struct gfec_job *next; /* the queue's */
};

/** A queued member's settings and where its window's work and its end go. */
struct gfec_coalesce_req {
	/** Hands the window's job to another thread: 0, or an error (then the job is run here). */
	int (*post)(void *post_ctx, struct gfec_job *job);
	/** Makes a posted job due now (the window is full, or empty); called under the coalescer's
	 * lock, so it may not call into the coalescer. */
	void (*hurry)(void *post_ctx, struct gfec_job *job);
	void *post_ctx;
	/** The end of the member, on the thread that ran its window; @p arg names the member. */
	void (*done)(void *done_ctx, void *arg, int status);
	void *done_ctx, *arg;
	unsigned us;	 /* the window it opens closes this long after it opened (> 0) ... */
	int max_stripes; /* ... or when it holds this many stripes (> 0) */
};

/**
 * Queues @p nstripes stripes of A x src -> dst (gfec_engine_gemm's arguments) as a member of a
 * window; returns at once. Its end is r->done(r->done_ctx, r->arg, status), exactly once, unless
 * it is withdrawn first (when r->post fails, the window runs on this thread before the return).
 * @returns 0, or GFEC_E_NOMEM / GFEC_E_INVAL (then done is not called).
 */
int gfec_coalesce_submit(struct gfec_coalesce *co, struct gfec_engine *e,
			 const struct gfec_eplan *p, int cols, int nstripes, size_t len,
			 const uint8_t *const *src, uint8_t *const *dst,
			 const struct gfec_coalesce_req *r);

/**
 * Withdraws the queued member named @p arg if its window has not been taken by its leader: 0
 * (done will not be called), else GFEC_E_INVAL (it runs, or ran, and done is or was called).
 */
int gfec_coalesce_cancel(struct gfec_coalesce *co, const void *arg);

struct gfec_codec;

/**
 * The coalescer's stats of a codec (codec.c; for gfec-perf, not exported): 1 with @p out filled
 * when the codec holds waiting GPU callers, else 0 with @p out zeroed (off, or no GPU).
 */
int gfec_codec_coalesce_stats(const struct gfec_codec *c, struct gfec_coalesce_stats *out);

/**
 * The calls of a codec that GPU kernels kept running served without a launch (gpu_resident_us,
 * gpu_resident_pinned; for gfec-perf, not exported): 0 without a GPU.
 */
uint64_t gfec_codec_resident_calls(const struct gfec_codec *c);

#endif
