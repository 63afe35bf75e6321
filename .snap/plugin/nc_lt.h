/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc_lt.h
 * The LT family behind gfec_nc.h (internal): nc.c keeps the public objects and hands an LT
 * code's calls to these, which run gfmatrix/lt.c's encoder and decoder.
 */
#ifndef GFEC_PLUGIN_NC_LT_H
#define GFEC_PLUGIN_NC_LT_H

#include <stddef.h>
#include <stdint.h>

#include "gfec/gfec_nc.h"

struct gfec_cpu_pool;
struct gfec_nc_gpu;
struct nc_lt;
struct nc_lt_decoder;

/* Checks the LT fields of @p p (n, flags, lt_c, lt_delta; the rest is nc.c's) and builds the
 * distribution. @p pool (may be NULL) is borrowed for encode. 0, GFEC_E_INVAL or GFEC_E_NOMEM. */
int nc_lt_create(const struct gfec_nc_params *p, struct gfec_cpu_pool *pool, struct nc_lt **out);
void nc_lt_free(struct nc_lt *lt);

/* gfec_nc_encode for an LT code; on the GPU side @p gpu (NULL: none) where nc_gpu.h takes it. */
int nc_lt_encode(const struct nc_lt *lt, struct gfec_nc_gpu *gpu,
		 const struct gfec_nc_segment *segs, int nseg, uint32_t first, uint32_t count,
		 uint8_t *out, size_t out_len);

/* gfec_nc_decoder_create/_free/_add/_rank/_stats/_read for an LT code. */
int nc_lt_decoder_create(const struct nc_lt *lt, uint64_t segment, struct nc_lt_decoder **out);
void nc_lt_decoder_free(struct nc_lt_decoder *d);
int nc_lt_decoder_add(struct nc_lt_decoder *d, const uint8_t *block, size_t len);
uint32_t nc_lt_decoder_rank(const struct nc_lt_decoder *d);
void nc_lt_decoder_stats(const struct nc_lt_decoder *d, struct gfec_nc_decoder_stats *out);
int nc_lt_decoder_read(struct nc_lt_decoder *d, uint8_t *out, size_t len);

/* gfec_nc_decode_batch for an LT code (segs, nseg and every out already checked). */
int nc_lt_decode_batch(const struct nc_lt *lt, struct gfec_nc_batch_segment *segs, int nseg);

#endif
