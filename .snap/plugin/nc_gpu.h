/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc_gpu.h
 * RLC and LT on the GPU behind gfec_nc.h (internal): nc.c and nc_lt.c keep the public objects
 * and offer each encode (and RLC's batch decode) to these first. A call they do not take
 * (GFEC_NC_GPU_PASS) runs on the CPU as before: host buffers under backend=auto, no GPU, an n too
 * wide for the GPU decoder, or a GPU error on host buffers (then counted as a fallback: the CPU
 * redoes the whole call and writes the same bytes).
 *
 * With gpu_devices= naming several contexts (one of gfec_gpu_backend()'s per entry), a call's
 * segments are cut among them in proportion to their measured rates (cuda_gemm/device/split.h),
 * segments in one GPU's memory among that GPU's contexts; a context that fails has its segments
 * redone on the others (counted in its failures), and with none left the call fails as above.
 */
#ifndef GFEC_PLUGIN_NC_GPU_H
#define GFEC_PLUGIN_NC_GPU_H

#include <stdint.h>

#include "gfec/gfec.h"
#include "gfec/gfec_nc.h"
#include "lt.h"
#include "registry.h"

/** Not taken: the caller runs the call on the CPU. Every other return is the call's result. */
#define GFEC_NC_GPU_PASS 1

struct gfec_nc_gpu;

/*
 * The GPU side of a code of shape @p p (p->backend; gpu_device, gpu_devices, gpu_split_min and
 * fault from @p set). *out is NULL when the code runs on the CPU only (backend=cpu, or
 * backend=auto without a usable GPU or without a GPU backend in this build). 0; GFEC_E_INVAL (a
 * bad p->backend); GFEC_E_NOBACKEND (backend=gpu and no usable GPU); GFEC_E_NOMEM.
 */
int gfec_nc_gpu_create(const struct gfec_nc_params *p, const struct gfec_settings *set,
		       struct gfec_nc_gpu **out);
void gfec_nc_gpu_free(struct gfec_nc_gpu *g);

/* gfec_nc_encode of a code of shape @p p with arguments already checked by nc.c. */
int gfec_nc_gpu_encode(struct gfec_nc_gpu *g, const struct gfec_nc_params *p,
		       const struct gfec_nc_segment *segs, int nseg, uint32_t first, uint32_t count,
		       uint8_t *out);

/*
 * An LT code's gfec_nc_encode (nc_lt.c's, arguments checked): the blocks of gfec_lt_encode with
 * table @p dist, on the GPU (gfec_gpu_lt_encode), headers as nc_lt.c writes them.
 */
int gfec_nc_gpu_lt_encode(struct gfec_nc_gpu *g, const struct gfec_lt_dist *dist,
			  const struct gfec_nc_segment *segs, int nseg, uint32_t first,
			  uint32_t count, uint8_t *out);

/* 1 when @p p is device memory (0 for NULL g or p). */
int gfec_nc_gpu_is_device(const struct gfec_nc_gpu *g, const void *p);

/* gfec_nc_decode_batch, arguments checked likewise (every out non-NULL). */
int gfec_nc_gpu_decode_batch(struct gfec_nc_gpu *g, const struct gfec_nc_params *p,
			     struct gfec_nc_batch_segment *segs, int nseg);

/* gfec_nc_stats's fields; all zero for NULL. */
void gfec_nc_gpu_stats(const struct gfec_nc_gpu *g, struct gfec_nc_stats *out);

/* gfec_nc_gpu_devices: up to @p max contexts into @p out; returns how many (0 for NULL g). */
int gfec_nc_gpu_contexts(struct gfec_nc_gpu *g, struct gfec_gpu_device *out, int max);

#endif
