/* SPDX-License-Identifier: BSD-3-Clause */
/** @file backend.c  Which GPU backend this build has, if any. */
#include "internal.h"

#ifdef GFEC_HAVE_CUDA
#include "gfec_gpu.h"
#endif

const struct gfec_backend_ops *gfec_backend_gpu(void)
{
#ifdef GFEC_HAVE_CUDA
	return gfec_gpu_backend();
#else
	return NULL;
#endif
}

const char *gfec_backend_gpu_kernels(void)
{
#ifdef GFEC_HAVE_CUDA
	return gfec_gpu_kernel_names();
#else
	return "";
#endif
}

const char *gfec_gpu_kernels(void)
{
	return gfec_backend_gpu_kernels();
}
