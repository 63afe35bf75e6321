/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file ptrs.h
 * The NULL check of a call's pointer arrays, shared by the codec (every call) and the GPU
 * backend (device-memory batches, which it checks as it reads their pointers: gemm.h's
 * checks_device_ptrs).
 */
#ifndef GFEC_BASE_PTRS_H
#define GFEC_BASE_PTRS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** 1 when @p p is not NULL and none of its @p n pointers is, else 0. */
int gfec_ptrs_nonnull(const void *const *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif
