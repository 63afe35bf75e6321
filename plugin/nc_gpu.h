/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc_gpu.h
 * RLC on the GPU behind gfec_nc.h (internal): nc.c keeps the public objects and offers each
 * encode and batch decode to these first. A call they do not take (GFEC_NC_GPU_PASS) runs on the
 * CPU as before: host buffers under backend=auto, no GPU, an n too wide for the GPU decoder, or
 * a GPU error on host buffers (then counted as a fallback: the CPU redoes the whole call and
 * writes the same bytes).
 */
#ifndef GFEC_PLUGIN_NC_GPU_H
#define GFEC_PLUGIN_NC_GPU_H

#include <stdint.h>

#include "gfec/gfec_nc.h"
#include "registry.h"

/** Not taken: the caller runs the call on the CPU. Every other return is the call's result. */
#define GFEC_NC_GPU_PASS 1

struct gfec_nc_gpu;

/*
 * The GPU side of a code of shape @p p (p->backend; gpu_device and fault from @p set). *out is
 * NULL when the code runs on the CPU only (backend=cpu, an LT code, or backend=auto without a
 * usable GPU or without a GPU backend in this build). 0; GFEC_E_INVAL (a bad p->backend);
 * GFEC_E_NOBACKEND (backend=gpu and no usable GPU); GFEC_E_NOTSUP (backend=gpu on an LT code);
 * GFEC_E_NOMEM.
 */
int gfec_nc_gpu_create(const struct gfec_nc_params *p, const struct gfec_settings *set,
		       struct gfec_nc_gpu **out);
void gfec_nc_gpu_free(struct gfec_nc_gpu *g);

/* gfec_nc_encode of a code of shape @p p with arguments already checked by nc.c. */
int gfec_nc_gpu_encode(struct gfec_nc_gpu *g, const struct gfec_nc_params *p,
		       const struct gfec_nc_segment *segs, int nseg, uint32_t first, uint32_t count,
		       uint8_t *out);

/* gfec_nc_decode_batch, arguments checked likewise (every out non-NULL). */
int gfec_nc_gpu_decode_batch(struct gfec_nc_gpu *g, const struct gfec_nc_params *p,
			     struct gfec_nc_batch_segment *segs, int nseg);

/* gfec_nc_stats's fields; all zero for NULL. */
void gfec_nc_gpu_stats(const struct gfec_nc_gpu *g, struct gfec_nc_stats *out);

#endif
