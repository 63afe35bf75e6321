// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file nc_encode.h
 * The seeded encode's shapes (nc_encode.cu), for gfec-nc-gpu-bench's rows that time each of them
 * beside the default. C++ only; plugin/ sees gfec_gpu_nc.h.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace gfec {

/** The encode's shapes, preferred first: their number, and the name of shape @p i. */
int nc_encode_shapes();
const char *nc_encode_shape_name(int i);

/**
 * gfec_gpu_nc_encode() with shape @p shape (0 .. nc_encode_shapes() - 1), or with the first that
 * fits (-1, what gfec_gpu_nc_encode does). GFEC_E_NOTSUP when the shape does not fit n.
 */
int nc_encode(void *ctx, int shape, uint32_t n, size_t B, int zero_ok, uint32_t seed0,
	      uint32_t count, int nseg, const uint8_t *const *segs, uint8_t *const *out);

} // namespace gfec
