/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc_internal.h
 * What tests and gfec-nc-bench may set on a gfec_nc beyond gfec_nc.h (not exported).
 */
#ifndef GFEC_NC_INTERNAL_H
#define GFEC_NC_INTERNAL_H

#include <stdint.h>

#include "gfec/gfec_nc.h"

/**
 * The widest panel of the eager decoders made from @p nc from now on (nc.c, "the eager
 * decoder"): 1 is Gauss-Jordan one block at a time, 0 the built-in width.
 * @returns 0, or GFEC_E_INVAL for a NULL @p nc or a width over GFEC_MAX_CHUNKS.
 */
int gfec_nc_set_panel(gfec_nc *nc, uint32_t width);

#endif
