/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_limits.h
 * The sizes every part of gfec agrees on. GF(2^8) has 256 elements, so a code over it has at
 * most 256 chunks (k + m <= 256): every matrix, backend and on-disk format of a w = 8 code is sized
 * by this one number. A code over GF(2^16) (w = 16) has at most 65536.
 */
#ifndef GFEC_LIMITS_H
#define GFEC_LIMITS_H

/** Most chunks (data + parity) of one code; also the most rows or columns of any matrix. */
#define GFEC_MAX_CHUNKS 256

/** Most chunks of one code over GF(2^16) (w = 16): the field's 65536 elements. */
#define GFEC_MAX_CHUNKS_GF16 65536

#endif
