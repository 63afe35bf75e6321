/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file fake_gpu.h
 * A GPU backend for tests on hosts without one: a struct gfec_backend_ops whose gemm and update
 * run the CPU backend's plain-C path ("base", an independent twin of the engine's CPU path),
 * one call at a time as the CUDA backend does (its context lock), and count what they were
 * given. Switches make every call, or only the Nth, fail with a chosen GFEC_E_* code (after
 * scribbling over the outputs, which a failed GPU call leaves unspecified) and add a delay per
 * call, so that concurrent callers pile up behind it. is_device_ptr always says no: every
 * buffer is host memory, so the engine redoes failed calls on the CPU; a switch makes in_place
 * say yes for every buffer (pinned host memory the kernels map, for the coalescer's slots).
 *
 * Tests build a struct gfec_engine by hand: cpu_ops = gfec_cpu_backend(), gpu_ops =
 * fake_gpu_ops(), gpu_ctx from its init, and set the switches with fake_gpu_set().
 */
#ifndef GFEC_TESTS_FAKE_GPU_H
#define GFEC_TESTS_FAKE_GPU_H

#include <stdint.h>

#include "gemm.h"

struct fake_gpu_switches {
	int fail_code;	    /* the code failing calls return (0: GFEC_E_DEVICE) */
	int fail_all;	    /* every call fails */
	uint64_t fail_nth;  /* with fail_all 0: call number fail_nth (1-based, counting gemm and
			       update calls since the last fake_gpu_set) fails; 0: none */
	unsigned delay_us;  /* each call holds the device this long before it works */
	int in_place;	    /* in_place says every buffer is read in place (pinned, mapped) */
	int resident;	    /* runs_resident says every call runs without a launch */
};

struct fake_gpu_counts {
	uint64_t calls;	     /* gemm calls, failed ones included */
	uint64_t updates;    /* update calls, failed ones included */
	uint64_t failed;     /* calls that returned an error */
	uint64_t stripes;    /* stripes over all gemm calls */
	uint64_t max_stripes; /* the most stripes one gemm call carried */
	uint64_t bytes_in;   /* source bytes over all calls */
	uint64_t max_inflight; /* the most gemm calls in the backend at once, waiting for the
				  device included */
};

/** The table. init takes conf->fault (1: every call fails with GFEC_E_DEVICE) and nothing else. */
const struct gfec_backend_ops *fake_gpu_ops(void);

/** Replaces the switches of context @p ctx and restarts the call numbering of fail_nth. */
void fake_gpu_set(void *ctx, const struct fake_gpu_switches *sw);

/** The counters since init. */
void fake_gpu_counts(void *ctx, struct fake_gpu_counts *out);

#endif
