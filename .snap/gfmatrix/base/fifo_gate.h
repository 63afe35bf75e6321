/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file fifo_gate.h
 * A gate that lets callers through in arrival order while what they hold fits in `cap` units:
 * the engine's lanes (a unit a call) and the GPU backend's in-place bytes in flight (a call's
 * bytes) are two of them. A caller whose units fit, with nobody in line, passes at once; else
 * it waits in line, and each leave lets through the callers at the head of the line while they
 * fit, so that no caller is overtaken (a mutex alone is not fair: a thread that has just
 * released it often takes it again). A request for more than `cap` passes once nothing is held.
 */
#ifndef GFEC_BASE_FIFO_GATE_H
#define GFEC_BASE_FIFO_GATE_H

#include <pthread.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gfec_fifo_waiter;

struct gfec_fifo_gate {
	pthread_mutex_t lock;
	uint64_t cap, held;
	struct gfec_fifo_waiter *head, *tail;
};

/** @returns 0, or GFEC_E_SYSTEM when the mutex cannot be made. */
int gfec_fifo_gate_init(struct gfec_fifo_gate *g, uint64_t cap);
/** Nobody may be inside or waiting. */
void gfec_fifo_gate_destroy(struct gfec_fifo_gate *g);
/** Waits for @p units, in arrival order. */
void gfec_fifo_gate_enter(struct gfec_fifo_gate *g, uint64_t units);
/** Gives back @p units (those of an enter) and lets the waiters at the head in while they fit. */
void gfec_fifo_gate_leave(struct gfec_fifo_gate *g, uint64_t units);

#ifdef __cplusplus
}
#endif

#endif
