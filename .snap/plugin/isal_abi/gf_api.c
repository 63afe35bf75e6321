/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gf_api.c
 * ISA-L's GF(2^8) arithmetic, generator matrices, inversion and single-vector multiply, on
 * gfec's gfmatrix: the calls HDFS and liberasurecode use to build encode and decode matrices.
 * None of them forwards to the real ISA-L: they are cheap, and the real library may call some
 * of them (gf_mul, gf_inv, gf_vect_mul_init, gf_vect_mul_base) through its PLT when this library
 * sits in the global scope (Hadoop dlopens with RTLD_GLOBAL), so they must give its answers on
 * its data and never call back into it.
 *
 * Semantics are ISA-L 2.30's, byte for byte (tests/plugin/test_isal_abi.c checks them against
 * Debian's libisal2), except where ISA-L itself misbehaves; each such place says so.
 */
#include <string.h>

#include "gf8.h"
#include "isal_abi.h"
#include "matrix.h"

ISAL_API unsigned char gf_mul(unsigned char a, unsigned char b)
{
	return gfec_gf8_mul(a, b);
}

/* 0 has no inverse; ISA-L returns 0 for it, as gfec does. */
ISAL_API unsigned char gf_inv(unsigned char a)
{
	return gfec_gf8_inv(a);
}

/*
 * The (m x k) generators, identity on top, parity rows from gfmatrix. ISA-L writes the identity
 * for every i < k, past the end of a when m < k; here only the rows that exist are written.
 * Parity rows exist for m <= 256 (where these matrices are codes at all); beyond, they stay 0.
 */
static void gen_matrix(unsigned char *a, int m, int k, int (*parity)(int, int, uint8_t *))
{
	if (m <= 0 || k <= 0)
		return;
	memset(a, 0, (size_t)m * k);
	for (int i = 0; i < k && i < m; i++)
		a[(size_t)k * i + i] = 1;
	if (m > k)
		parity(k, m - k, a + (size_t)k * k);
}

ISAL_API void gf_gen_rs_matrix(unsigned char *a, int m, int k)
{
	gen_matrix(a, m, k, gfec_matrix_isal_rs);
}

ISAL_API void gf_gen_cauchy1_matrix(unsigned char *a, int m, int k)
{
	gen_matrix(a, m, k, gfec_matrix_isal_cauchy1);
}

/*
 * Same pivoting as ISA-L (first non-zero at or below the diagonal), so even a singular matrix
 * leaves in and out as ISA-L leaves them. ISA-L returns -1 when singular; callers test != 0.
 */
ISAL_API int gf_invert_matrix(unsigned char *in, unsigned char *out, const int n)
{
	if (n <= 0)
		return 0;
	return gfec_matrix_invert(in, out, n) ? -1 : 0;
}

/* ISA-L's 32-byte table for constant c: c * {0..15}, then c * {0x00, 0x10, .., 0xf0}. */
ISAL_API void gf_vect_mul_init(unsigned char c, unsigned char *tbl)
{
	gfec_cpu_avx2_tables(&c, 1, tbl);
}

/*
 * dest = c * src through the two nibble halves of the table, as ISA-L's SIMD versions use it.
 * len must be a positive multiple of 32 (ISA-L's contract); otherwise nothing is written and 1
 * is returned (ISA-L 2.30 returns some non-zero value there, after writing up to 31 bytes past
 * len). Not forwarded: newer ISA-L versions expect a different table layout on GFNI CPUs.
 */
ISAL_API int gf_vect_mul(int len, unsigned char *gftbl, void *src, void *dest)
{
	const uint8_t *s = src;
	uint8_t *d = dest;

	if (len <= 0 || len % 32)
		return 1;
	for (int i = 0; i < len; i++)
		d[i] = gftbl[s[i] & 15] ^ gftbl[16 + (s[i] >> 4)];
	return 0;
}

/* ISA-L's plain version: any len, and only the table's byte 1 (c * 1) is read. */
ISAL_API void gf_vect_mul_base(int len, unsigned char *a, unsigned char *src, unsigned char *dest)
{
	const uint8_t *t = gfec_gf8_tab.mul[a[1]];

	for (int i = 0; i < len; i++)
		dest[i] = t[src[i]];
}
