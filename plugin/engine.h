/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file engine.h
 * The one dispatch path between a caller and the backends: which backend runs a call (the GPU
 * for device memory and for calls of at least gpu_min_bytes, else the CPU), the redo on the CPU
 * when the GPU fails on host memory (an update resumes where the GPU stopped, so no delta is
 * applied twice), and a cache of prepared matrices with LRU eviction. The codec drives it; it
 * knows nothing of codecs, profiles or the public request types.
 *
 *   caller --> gfec_engine_gemm / _update --> GPU plan ----(error, host memory)----.
 *                      |                                                          v
 *                      '---------------------------------------------------> CPU plan
 *
 * An engine with a hybrid (backend=hybrid) first offers each GEMM and update call to it: large
 * host calls run split between both plans at once (hybrid.h), the rest as above. An engine with
 * a coalescer (coal) runs its GEMM calls on the GPU through it: concurrent calls of one plan and
 * len share one launch (coalesce.h); a failed launch sends each caller to the CPU redo above.
 * The coalescer's queued windows come back through gfec_engine_gemm_direct (the same path
 * without the coalescer).
 *
 * An engine with a gate (gfec_engine_gate) lets its host-buffer GPU calls into the backend in
 * arrival order, `lanes` at a time: the CUDA backend runs one host-buffer call per context under
 * a mutex, which is not fair (a thread that just released it often takes it again), so with 64
 * callers some waited half a second (issue 17). Waiting in the gate's queue instead, each caller
 * waits for those ahead of it only. Device-buffer calls take no lock there and skip the gate.
 */
#ifndef GFEC_PLUGIN_ENGINE_H
#define GFEC_PLUGIN_ENGINE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "gemm.h"

struct gfec_coalesce;
struct gfec_fifo_gate;
struct gfec_hybrid;

/** The backends a caller has started; the engine owns them once set (gfec_engine_fini). */
struct gfec_engine {
	const struct gfec_backend_ops *cpu_ops; /* required */
	void *cpu_ctx;
	const struct gfec_backend_ops *gpu_ops; /* NULL: no GPU */
	void *gpu_ctx;
	int gpu_always;		/* every call on the GPU (backend=gpu) */
	uint64_t gpu_min_bytes;	/* else: calls reading at least this many source bytes */
	uint64_t fallbacks;	/* calls redone on the CPU after a GPU error (atomic) */
	uint64_t gpu_calls;	/* calls the GPU completed (atomic) */
	struct gfec_coalesce *coal; /* NULL, or GPU calls gathered into windows (coalesce.h) */
	struct gfec_hybrid *hybrid; /* NULL, or large host calls split CPU+GPU (hybrid.h) */
	struct gfec_fifo_gate *gate; /* NULL, or host-buffer GPU calls enter in arrival order */
};

/** One matrix prepared on each backend of an engine. */
struct gfec_eplan {
	void *cpu;
	void *gpu; /* NULL without a GPU */
	int rows;		/* the matrix's rows, w and packet size (a split call's layout) */
	unsigned w;
	size_t packetsize;
};

/** Stops both backends. */
void gfec_engine_fini(struct gfec_engine *e);

/** Prepares @p a on every backend; on error nothing is left allocated. */
int gfec_engine_plan_create(struct gfec_engine *e, const struct gfec_gemm_matrix *a,
			    struct gfec_eplan *p);
void gfec_engine_plan_free(struct gfec_engine *e, struct gfec_eplan *p);

/** 1 when @p p is device memory (the CPU cannot read it). */
int gfec_engine_is_device(const struct gfec_engine *e, const void *p);
/** Whether the GPU's kernels address @p p directly (device memory, or pinned host memory they
 *  map; gpu_ops required): such calls hold no lane of the backend. */
int gfec_engine_in_place(const struct gfec_engine *e, const void *p);
/** Whether the GPU backend would serve this gemm() without a launch (runs_resident; gpu_ops
 *  required). */
int gfec_engine_runs_resident(const struct gfec_engine *e, const void *plan, int nstripes,
			      size_t len, const uint8_t *const *src, uint8_t *const *dst);

/** dst = A x src for @p nstripes stripes of @p cols sources (gfec_backend_ops.gemm's layout). */
int gfec_engine_gemm(struct gfec_engine *e, const struct gfec_eplan *p, int cols, int nstripes,
		     size_t len, const uint8_t *const *src, uint8_t *const *dst);

/** gfec_engine_gemm without the coalescer (its queued windows run through this). */
int gfec_engine_gemm_direct(struct gfec_engine *e, const struct gfec_eplan *p, int cols,
			    int nstripes, size_t len, const uint8_t *const *src,
			    uint8_t *const *dst);

/** gpu_ops->gemm / ->update on GPU plan @p plan, through the gate for host buffers. */
int gfec_engine_gpu_gemm(struct gfec_engine *e, const void *plan, int nstripes, size_t len,
			 const uint8_t *const *src, uint8_t *const *dst);
int gfec_engine_gpu_update(struct gfec_engine *e, const void *plan, int col, size_t len,
			   const uint8_t *src, uint8_t *const *dst, size_t *done);

/**
 * Gives @p e a gate of @p lanes (>= 1) host-buffer GPU calls at a time, taken in arrival order
 * (freed by gfec_engine_fini). 0, or GFEC_E_NOMEM / GFEC_E_INVAL.
 */
int gfec_engine_gate(struct gfec_engine *e, int lanes);

/** dst[i] ^= A(i, col) x src for the @p rows rows of A (gfec_backend_ops.update). */
int gfec_engine_update(struct gfec_engine *e, const struct gfec_eplan *p, int rows, int col,
		       size_t len, const uint8_t *src, uint8_t *const *dst);

/* ---- the plan cache -------------------------------------------------------------------------- */

/** A cached plan: valid between gfec_plan_cache_get() and the matching _put(). */
struct gfec_cached_plan {
	struct gfec_eplan plan;
	int refs;      /* atomic: the cache's reference, a front's, one per user */
	uint64_t used; /* atomic: LRU clock */
	size_t keylen;
	uint8_t key[];	/* keylen bytes */
};

/* The plan a CPU's callers used last, with a reference, behind a lock of its own. */
struct gfec_plan_front {
	pthread_mutex_t lock;
	struct gfec_cached_plan *d; /* replaced only while no one holds it through this front */
	int users;		    /* holds through this front */
	uint64_t hits;		    /* written under lock, read atomically */
} __attribute__((aligned(64)));

/** What gfec_plan_cache_get() hands out: the plan, and the front it came through, if one. */
struct gfec_plan_hold {
	struct gfec_cached_plan *d;
	struct gfec_plan_front *f;
};

/**
 * Up to @p cap plans keyed by byte strings of any length (the codec's erasure pattern; the ISA-L
 * drop-in's whole coefficient matrix). Keys are compared with memcmp: put what tells keys apart
 * (a hash, the shape) first.
 *
 * In front of it, one slot per CPU (up to 64) keeps the plan last used there: a call that finds
 * its key there counts itself on that slot, under that CPU's lock, and touches nothing shared,
 * so that many threads using the same few plans do not all queue on the cache's lock twice a
 * call, nor pass one plan's reference count between CPUs. A plan the cache drops lives on in
 * the fronts that hold it until they move on (at most one extra plan per CPU).
 */
struct gfec_plan_cache {
	pthread_mutex_t lock;
	struct gfec_cached_plan **slot;
	int n, cap;
	uint64_t clock;	       /* atomic reads outside the lock */
	uint64_t hits, misses; /* atomic; the fronts' hits are theirs */
	struct gfec_plan_front *front;
	int nfront;
};

/** Makes the plan for a key that is not cached: 0, or a GFEC_E_* code. */
typedef int (*gfec_plan_build_fn)(void *arg, struct gfec_engine *e, struct gfec_eplan *out);

int gfec_plan_cache_init(struct gfec_plan_cache *pc, int cap);
/** Frees every cached plan (none may be in use) and the cache. */
void gfec_plan_cache_fini(struct gfec_plan_cache *pc, struct gfec_engine *e);

/**
 * The plan for @p key, held for the caller: a cached one, or one @p build makes (outside the
 * lock; the least recently used plan is dropped when the cache is full, freed by its last user).
 */
int gfec_plan_cache_get(struct gfec_plan_cache *pc, struct gfec_engine *e, const void *key,
			size_t keylen, gfec_plan_build_fn build, void *arg,
			struct gfec_plan_hold *out);
/** Gives back what gfec_plan_cache_get() handed out. */
void gfec_plan_cache_put(struct gfec_engine *e, const struct gfec_plan_hold *h);

/** Lookups that found their plan (in the cache or a front), and those that built one. */
uint64_t gfec_plan_cache_hits(const struct gfec_plan_cache *pc);
uint64_t gfec_plan_cache_misses(const struct gfec_plan_cache *pc);

#endif
