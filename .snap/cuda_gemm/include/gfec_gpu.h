/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_gpu.h
 * The CUDA backend as plugin/ sees it: a backend table, and nothing from CUDA's headers.
 *
 * Buffers may be host memory (pageable or pinned) or device memory; the backend finds out per
 * call. Host buffers go through a pipeline of pinned staging slots on several streams, so copies
 * in, kernels and copies out of consecutive pieces overlap; device buffers are used in place.
 * Every CUDA error comes back as GFEC_E_DEVICE (the codec then redoes the request on the CPU).
 * gfec_backend_conf.fault (GFEC_FAULT=cuda, through plugin/'s registry) makes every GPU call
 * fail that way, for tests.
 */
#ifndef GFEC_CUDA_GEMM_GFEC_GPU_H
#define GFEC_CUDA_GEMM_GFEC_GPU_H

#include "gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The GPU backend's table; its init() fails with GFEC_E_NOBACKEND when no device is usable. */
const struct gfec_backend_ops *gfec_gpu_backend(void);

/**
 * The same backend over several device contexts (multi.cu): gfec_backend_conf.devices lists
 * one CUDA ordinal per context (repeats give several contexts on one GPU), ndevices = -1 takes
 * every visible GPU, ndevices = 0 the one conf.device. Calls are cut among the contexts in
 * proportion to their measured rates, stripes in one GPU's memory are coded on that GPU, and a
 * share that fails is redone on the other contexts; .devices lists the contexts and their
 * counters. Its contexts are not the one-device backend's: the network-coding, LT and weight
 * entry points (gfec_gpu_nc.h, ...) take gfec_gpu_backend()'s contexts only.
 */
const struct gfec_backend_ops *gfec_gpu_multi_backend(void);

/*
 * For callers that keep several of gfec_gpu_backend()'s contexts themselves (plugin/nc_gpu.c's
 * segment coding on gpu_devices=): what multi.cu knows about devices and pointers.
 */
/** Visible CUDA devices; 0 without a driver or a device. */
int gfec_gpu_device_count(void);
/** The device whose memory holds @p p (device or managed memory), or -1 for host memory. */
int gfec_gpu_ptr_device(const void *p);
/** Device @p ordinal's ordinal, name, memory and PCI bus into *out (counters zeroed). */
void gfec_gpu_device_info(int ordinal, struct gfec_backend_device *out);

/** Names of the compiled kernels, comma-separated (static storage), for messages and tools. */
const char *gfec_gpu_kernel_names(void);

/**
 * @p len bytes of device memory on GPU @p device, exported as a dma-buf (*fd, which the caller
 * closes once a NIC has registered it): 0, or GFEC_E_NOBACKEND (no driver or no such GPU),
 * GFEC_E_NOTSUP (no dma-buf export), GFEC_E_NOMEM or GFEC_E_DEVICE, with @p why saying which.
 */
int gfec_gpu_dmabuf_alloc(int device, size_t len, void **ptr, int *fd, char *why, size_t whylen);
/** Frees what gfec_gpu_dmabuf_alloc() gave on @p device; from any thread. */
void gfec_gpu_dmabuf_free(int device, void *ptr);

#ifdef __cplusplus
}
#endif
#endif
