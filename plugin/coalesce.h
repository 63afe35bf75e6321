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
 * The status is the launch's: on an error every caller gets it and the engine redoes its own
 * stripes on the CPU (engine.c), so a fault in a window sends each of its stripes to the CPU.
 */
#ifndef GFEC_PLUGIN_COALESCE_H
#define GFEC_PLUGIN_COALESCE_H

#include <stddef.h>
#include <stdint.h>

struct gfec_engine;
struct gfec_eplan;
struct gfec_coalesce;

/** Totals since creation. */
struct gfec_coalesce_stats {
	uint64_t launches; /* gpu_ops->gemm calls made through the coalescer */
	uint64_t windows;  /* of which windows of two callers or more */
	uint64_t callers;  /* calls that went through the coalescer */
	uint64_t stripes;  /* stripes over all launches */
	uint64_t solo;	   /* calls of a window that ran alone (the tables could not be allocated) */
	unsigned us;	   /* the window's settings */
	uint64_t bytes;
};

/** A coalescer: windows of @p us microseconds (> 0) or @p bytes source bytes (> 0). */
int gfec_coalesce_create(unsigned us, uint64_t bytes, struct gfec_coalesce **out);
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

struct gfec_codec;

/**
 * The coalescer's stats of a codec (codec.c; for gfec-perf, not exported): 1 with @p out filled
 * when the codec coalesces, else 0 with @p out zeroed (off, or no GPU).
 */
int gfec_codec_coalesce_stats(const struct gfec_codec *c, struct gfec_coalesce_stats *out);

#endif
