// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file lt.h
 * The LT encoder's host side (lt.cu) with its stages timed, for gfec-lt-gpu-bench's breakdown
 * beside the thesis's (degrees 1%, sort 2%, index generation 58%, XOR 39%). C++ only; plugin/
 * sees gfec_gpu_lt.h.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace gfec {

/** The stages of one encode, in milliseconds (CUDA events on the call's stream). */
struct LtStageMs {
	float degrees;	 // lt_degrees (degrees, the multi-item blocks and their item ranges)
	float roundtrip; // the two counts' copy to the host and the scratch allocations
	float indices;	 // lt_indices (the multi-item blocks' neighbours)
	float xor_;	 // lt_xor (the blocks of one item draw their neighbours here)
	float combine;	 // lt_combine (0 when no block has more than one item)
};

/** gfec_gpu_lt_encode(), and when @p ms is not NULL, its stages' times. */
int lt_encode(void *ctx, uint32_t n, size_t B, const uint32_t *cdf, uint32_t len, uint32_t seed0,
	      uint32_t count, int nseg, const uint8_t *const *segs, uint8_t *out, size_t stride,
	      LtStageMs *ms);

} // namespace gfec
