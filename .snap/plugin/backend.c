/* SPDX-License-Identifier: BSD-3-Clause */
/** @file backend.c  Which GPU backend this build has, if any, and its device memory for NICs. */
#include <stdio.h>

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

const struct gfec_backend_ops *gfec_backend_gpu_multi(void)
{
#ifdef GFEC_HAVE_CUDA
	return gfec_gpu_multi_backend();
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

int gfec_backend_gpu_dmabuf(int device, size_t len, void **ptr, int *fd, char *why,
			    size_t whylen)
{
#ifdef GFEC_HAVE_CUDA
	return gfec_gpu_dmabuf_alloc(device, len, ptr, fd, why, whylen);
#else
	(void)device, (void)len;
	*ptr = NULL;
	*fd = -1;
	snprintf(why, whylen, "gfec was built without CUDA");
	return GFEC_E_NOBACKEND;
#endif
}

void gfec_backend_gpu_dmabuf_free(int device, void *ptr)
{
#ifdef GFEC_HAVE_CUDA
	gfec_gpu_dmabuf_free(device, ptr);
#else
	(void)device, (void)ptr;
#endif
}

const char *gfec_gpu_kernels(void)
{
	return gfec_backend_gpu_kernels();
}
