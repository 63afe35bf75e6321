/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file library.c  The library-wide calls of gfec.h: version and aligned buffers. (The log sink
 * and the error strings are in the floor, gfmatrix/base/.)
 */
#include <stdlib.h>

#include "internal.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const char *gfec_version(void)
{
	return STR(GFEC_VERSION_MAJOR) "." STR(GFEC_VERSION_MINOR) "." STR(GFEC_VERSION_PATCH);
}

void *gfec_alloc(size_t size)
{
	void *p = NULL;

	if (posix_memalign(&p, GFEC_ALIGN, size ? size : 1) != 0)
		return NULL;
	return p;
}

void gfec_free(void *p)
{
	free(p);
}
