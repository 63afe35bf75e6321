/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hybrid.h
 * backend=hybrid: one GEMM (or update) call on host memory split between the GPU and the CPU,
 * both running at once (Tenor's alpha split, seed 002). The GPU takes the share
 * alpha = R_gpu / (R_gpu + R_cpu) of the call's data, R being each side's achieved bytes/s (an
 * EWMA over the split calls, started from gfec.conf's [hybrid] rates when `gfec tune` wrote them,
 * else from a first 50/50 call): then both sides should finish together.
 *
 *   nstripes >= 2:  stripes  0 .. g-1 -> GPU          g .. nstripes-1 -> CPU
 *   nstripes == 1:  bytes    0 .. cut-1 of every chunk -> GPU,  cut .. len-1 -> CPU
 *   (and updates)   (cut a multiple of gfec_hybrid_unit(): 64 bytes, or one CRS block)
 *
 * The calling thread drives the GPU share (it mostly waits on the device) while a helper thread
 * runs the CPU share through the CPU backend, whose own pool spreads it over its threads. When
 * every helper is busy (more concurrent callers than helpers) the caller runs both shares in
 * turn: slower, never wrong. A GPU error redoes the GPU share on the CPU (counted as a fallback).
 * Every GFEC_HYBRID_PROBE-th call gives a side the rates starve at least 1/GFEC_HYBRID_PROBE of
 * it, so that its rate is measured again (a first GPU share that paid for the device's warm-up
 * would otherwise leave the GPU idle for good on calls whose cut rounds to nothing).
 * Calls below min_bytes and calls on device memory are not taken: the engine's usual dispatch
 * runs them.
 */
#ifndef GFEC_PLUGIN_HYBRID_H
#define GFEC_PLUGIN_HYBRID_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"

struct gfec_hybrid_conf {
	uint64_t min_bytes; /* calls with fewer data bytes (cols x len x stripes) are not split */
	double cpu_rate;    /* bytes/s each side starts from; 0 (either): the first split */
	double gpu_rate;    /* call measures them, splitting it 50/50 */
	int alpha_pct;	    /* -1: adapt; else the GPU's fixed share in percent (tune, tests) */
	int ewma_pct;	    /* weight of a new measurement in each side's rate, 1..100 */
	int threads;	    /* helper threads that run CPU shares, >= 1 */
};

/** Counters since creation (atomic; gfec_hybrid_counters() reads them). */
struct gfec_hybrid_counters {
	uint64_t calls;		       /* calls taken (split, or all on one side by the share) */
	uint64_t splits;	       /* calls split between both sides */
	uint64_t gpu_bytes, cpu_bytes; /* data bytes each side computed in split calls */
	uint64_t fallbacks;	       /* GPU shares redone on the CPU */
};

struct gfec_hybrid;

#define GFEC_HYBRID_PROBE 64

/** 0, GFEC_E_INVAL (a field out of range), GFEC_E_NOMEM or GFEC_E_SYSTEM (no thread). */
int gfec_hybrid_create(const struct gfec_hybrid_conf *conf, struct gfec_hybrid **out);
/** No call may be running. NULL is accepted. */
void gfec_hybrid_destroy(struct gfec_hybrid *h);

/**
 * Runs gfec_engine_gemm's call split between @p e's GPU and CPU when it is one to split (both
 * plans, host memory, at least min_bytes of data): returns 1 with the call's status in *ret.
 * Returns 0, touching nothing, when the call is not one to split.
 */
int gfec_hybrid_gemm(struct gfec_hybrid *h, struct gfec_engine *e, const struct gfec_eplan *p,
		     int cols, int nstripes, size_t len, const uint8_t *const *src,
		     uint8_t *const *dst, int *ret);

/**
 * gfec_engine_update's call the same way (bytes 0 .. cut-1 of the source and of every output on
 * the GPU, the rest on the CPU; a failed GPU share is finished on the CPU from where it stopped):
 * 1 with its status in *ret, or 0 when it is not one to split.
 */
int gfec_hybrid_update(struct gfec_hybrid *h, struct gfec_engine *e, const struct gfec_eplan *p,
		       int col, size_t len, const uint8_t *src, uint8_t *const *dst, int *ret);

/** The GPU's share the next split call gets, in [0, 1]. */
double gfec_hybrid_alpha(struct gfec_hybrid *h);
/** Each side's rate estimate in bytes/s (0 = not measured yet). */
void gfec_hybrid_rates(struct gfec_hybrid *h, double *cpu, double *gpu);
void gfec_hybrid_counters(struct gfec_hybrid *h, struct gfec_hybrid_counters *out);

/* The split arithmetic, for the tests. */

/** The byte granule of a byte-range cut: 64, or lcm(64, w x packetsize) for a CRS layout. */
size_t gfec_hybrid_unit(unsigned w, size_t packetsize);
/** The GPU's bytes of a len-byte chunk at share @p alpha: a multiple of @p unit, <= len. */
size_t gfec_hybrid_cut(size_t len, double alpha, size_t unit);
/** The GPU's stripes of @p nstripes at share @p alpha (rounded to nearest). */
int gfec_hybrid_stripes(int nstripes, double alpha);

#endif
