/* SPDX-License-Identifier: BSD-3-Clause */
/** @file backend.c  Which backend table serves a profile's backend= choice. */
#include <stdio.h>

#include "cpu_backend.h"
#include "internal.h"

const struct gfec_backend_ops *gfec_backend_select(enum gfec_backend_choice choice, char *err,
						   size_t errlen)
{
	switch (choice) {
	case GFEC_BACKEND_CPU:
	case GFEC_BACKEND_AUTO:
		/* Until a GPU backend is built in, auto means the CPU. */
		return gfec_cpu_backend();
	case GFEC_BACKEND_GPU:
		if (err && errlen)
			snprintf(err, errlen,
				 "backend=gpu: this build of gfec has no GPU backend; use "
				 "backend=cpu or backend=auto");
		return NULL;
	}
	return NULL;
}
