// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file gemm16.h
 * The GPU backend's GF(2^16) path (gemm.h's w = 16): plans that hold A's bitmatrix fragments on
 * the device, and the launch of the binary tensor-core kernel (kernel/gemm16_bmma.cuh) over a
 * batch of stripes whose pointers are already on the device. backend.cu's pipeline and
 * device-pointer paths drive it exactly as they drive the w = 8 kernels. C++ only.
 */
#pragma once

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace gfec
{

struct Gemm16Plan;

/**
 * Device bytes a plan of rows x cols holds: 32 per element (its 16 x 16 bitmatrix), rows padded
 * to the block's 16 and cols to a k-step's 16. 32768 x 32768: 32 GiB; 1000 x 200: 6.5 MB.
 */
size_t gemm16_table_bytes(int rows, int cols);

/**
 * 0 when the w = 16 kernel runs rows x cols (1 .. 65536 each, packetsize 0) and its table takes
 * at most 3/4 of @p device_mem, the device's total memory; else GFEC_E_NOTSUP. The limit is
 * the table's: 65536 x 65536 (128 GiB) is refused on a 141 GB H200, 46000 x 46000 is not.
 */
int gemm16_can_implement(int rows, int cols, size_t packetsize, size_t device_mem);

/**
 * Builds the fragments of A (rows x cols uint16_t, row-major) on the current device. 0, or
 * GFEC_E_NOMEM (the table does not fit in the device's free memory now) or GFEC_E_DEVICE.
 */
int gemm16_plan_create(int rows, int cols, const uint16_t *a, Gemm16Plan **out);
void gemm16_plan_free(Gemm16Plan *p);

/**
 * dst = A src (col < 0) or dst ^= A(:, col) src (the update; one source per stripe) for
 * @p nstripes stripes, len bytes (even) each; d_src / d_dst are device arrays of device pointers
 * laid out as gemm.h says. @p vec: every pointer is 16-byte aligned. @p sms, @p l2: the
 * device's multiprocessors and L2 bytes. Asynchronous on @p st (one launch per slab of 2048
 * sources); returns the first launch error.
 */
cudaError_t gemm16_launch(const Gemm16Plan *p, int col, const uint8_t *const *d_src,
			  uint8_t *const *d_dst, int nstripes, size_t len, int vec, int sms,
			  size_t l2, cudaStream_t st);

/** The kernel's name, with its configuration ("bmma16_ring_q4_p2_k4_s3"). */
const char *gemm16_kernel_name();

} // namespace gfec
