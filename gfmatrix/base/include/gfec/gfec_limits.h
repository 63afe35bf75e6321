/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_limits.h
 * The sizes every part of gfec agrees on. GF(2^8) has 256 elements, so a code over it has at
 * most 256 chunks (k + m <= 256): every matrix, backend and on-disk format is sized by this one
 * number.
 */
#ifndef GFEC_LIMITS_H
#define GFEC_LIMITS_H

/** Most chunks (data + parity) of one code; also the most rows or columns of any matrix. */
#define GFEC_MAX_CHUNKS 256

#endif
