/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gemm16.c
 * GF(2^16) products on 16-bit little-endian symbols (Jerasure's w = 16 region layout): the
 * plain-C reference and an AVX2 kernel with split nibble tables.
 *
 * The AVX2 kernel works on blocks of the buffers. Each source block is first split once into a
 * plane of the symbols' low bytes and a plane of their high bytes (a scratch of cols blocks, 1 MiB
 * at most: smaller blocks would re-read every coefficient's tables more often, which cost more
 * than the planes' trips to L3 at k = 1000); then up to four output rows at a time are summed over
 * the sources in registers, 64 bytes (32 symbols) at a time, sharing each source's nibbles:
 * c * s = T0[s & 15] ^ T1[s >> 4 & 15] ^ T2[s >> 8 & 15] ^ T3[s >> 12], each Ti a 16-entry table
 * of 16-bit products held as a low-byte and a high-byte table for vpshufb (8 tables of 16 bytes
 * per coefficient, gfec_cpu_gf16_tables()). The sum is put back into
 * symbol order only when it is stored.
 */
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "gf16.h"

void gfec_cpu_gemm16_base(size_t len, int cols, int rows, const uint16_t *a,
			  const uint8_t *const *src, uint8_t *const *dst, int add)
{
	for (int i = 0; i < rows; i++) {
		if (!add)
			memset(dst[i], 0, len);
		for (int j = 0; j < cols; j++)
			gfec_gf16_region_mul(src[j], dst[i], len, a[(size_t)i * cols + j], 1);
	}
}

/*
 * Products are linear in the nibble: a * (x << 4t) is the XOR of a * 2^b over the set bits b of
 * x << 4t, and a * 2^b comes from a by b doublings. So a coefficient's 64 products cost 15
 * doublings and 60 XORs instead of 64 log/exp multiplies (the per-slice tables of large w = 16
 * matrices are made on every call).
 */
void gfec_cpu_gf16_tables_base(const uint16_t *a, size_t n, uint8_t *tbl)
{
	for (size_t e = 0; e < n; e++, tbl += GFEC_CPU_GF16_TABLE) {
		uint16_t pw[16], p[16];

		pw[0] = a[e];
		for (int b = 1; b < 16; b++)
			pw[b] = (uint16_t)(pw[b - 1] << 1) ^
				(pw[b - 1] & 0x8000 ? (uint16_t)(GFEC_GF16_POLY & 0xffff) : 0);
		for (int t = 0; t < 4; t++) {
			p[0] = 0;
			for (int x = 1; x < 16; x++)
				p[x] = p[x & (x - 1)] ^ pw[4 * t + __builtin_ctz((unsigned)x)];
			for (int x = 0; x < 16; x++) {
				tbl[32 * t + x] = (uint8_t)p[x];
				tbl[32 * t + 16 + x] = (uint8_t)(p[x] >> 8);
			}
		}
	}
}

int gfec_cpu_avx2_supported(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

/*
 * The same tables, a nibble position's 16 products in one register: entry x is the XOR of the
 * four powers a * 2^(4t+b) under the mask of bit b of x, then split into its low and high bytes.
 * A GF(2^16) decode matrix makes a table for each of e^2 elements, each used for one row of
 * symbols: the scalar loop cost as much as the products.
 */
static __attribute__((target("avx2"))) void tables_avx2(const uint16_t *a, size_t n,
							uint8_t *tbl)
{
	const __m256i idx = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
					       0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
	__m256i bit[4];

	for (int b = 0; b < 4; b++) {
		const __m256i one = _mm256_set1_epi16((short)(1 << b));

		bit[b] = _mm256_cmpeq_epi16(_mm256_and_si256(idx, one), one);
	}
	for (size_t e = 0; e < n; e++, tbl += GFEC_CPU_GF16_TABLE) {
		uint16_t pw = a[e];

		for (int t = 0; t < 4; t++) {
			__m256i v = _mm256_setzero_si256();

			for (int b = 0; b < 4; b++) {
				v = _mm256_xor_si256(
					v, _mm256_and_si256(bit[b], _mm256_set1_epi16((short)pw)));
				pw = (uint16_t)(pw << 1) ^
				     (pw & 0x8000 ? (uint16_t)(GFEC_GF16_POLY & 0xffff) : 0);
			}
			/* lanes [lo 0-7, hi 0-7], [lo 8-15, hi 8-15] -> [lo 0-15, hi 0-15] */
			v = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, split),
						     _MM_SHUFFLE(3, 1, 2, 0));
			_mm256_storeu_si256((__m256i *)(tbl + 32 * t), v);
		}
	}
}

void gfec_cpu_gf16_tables(const uint16_t *a, size_t n, uint8_t *tbl)
{
	if (gfec_cpu_avx2_supported())
		tables_avx2(a, n, tbl);
	else
		gfec_cpu_gf16_tables_base(a, n, tbl);
}

/* Bytes of scratch the split source planes may take (per call; at least 64 per source). */
#define PLANES_BYTES (1024u * 1024)

/* Scalar tail: symbols b..len-1 of every row, through the same tables. */
static void tail16(size_t from, size_t len, int cols, int rows, const uint8_t *tbls,
		   const uint8_t *const *src, uint8_t *const *dst, int add)
{
	for (int i = 0; i < rows; i++)
		for (size_t b = from; b + 1 < len; b += 2) {
			unsigned lo = 0, hi = 0;

			for (int j = 0; j < cols; j++) {
				const uint8_t *t = tbls + ((size_t)i * cols + j) * GFEC_CPU_GF16_TABLE;
				unsigned s0 = src[j][b], s1 = src[j][b + 1];

				lo ^= t[s0 & 15] ^ t[32 + (s0 >> 4)] ^ t[64 + (s1 & 15)] ^ t[96 + (s1 >> 4)];
				hi ^= t[16 + (s0 & 15)] ^ t[48 + (s0 >> 4)] ^ t[80 + (s1 & 15)] ^
				      t[112 + (s1 >> 4)];
			}
			if (add) {
				lo ^= dst[i][b];
				hi ^= dst[i][b + 1];
			}
			dst[i][b] = (uint8_t)lo;
			dst[i][b + 1] = (uint8_t)hi;
		}
}

#define GF16_T(o) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(t + (o))))

/* One coefficient's products of the nibbles n0..n3, added into the low and high planes al, ah. */
#define GF16_MAC(t, al, ah)                                                          \
	do {                                                                         \
		al = _mm256_xor_si256(al, _mm256_shuffle_epi8(GF16_T(0), n0));        \
		ah = _mm256_xor_si256(ah, _mm256_shuffle_epi8(GF16_T(16), n0));       \
		al = _mm256_xor_si256(al, _mm256_shuffle_epi8(GF16_T(32), n1));       \
		ah = _mm256_xor_si256(ah, _mm256_shuffle_epi8(GF16_T(48), n1));       \
		al = _mm256_xor_si256(al, _mm256_shuffle_epi8(GF16_T(64), n2));       \
		ah = _mm256_xor_si256(ah, _mm256_shuffle_epi8(GF16_T(80), n2));       \
		al = _mm256_xor_si256(al, _mm256_shuffle_epi8(GF16_T(96), n3));       \
		ah = _mm256_xor_si256(ah, _mm256_shuffle_epi8(GF16_T(112), n3));      \
	} while (0)

/* Puts a sum back into symbol order (the planes interleaved per lane) and stores or adds it. */
static inline __attribute__((always_inline, target("avx2"))) void
store16(__m256i al, __m256i ah, uint8_t *d, int add)
{
	__m256i x = _mm256_unpacklo_epi8(al, ah), y = _mm256_unpackhi_epi8(al, ah);

	if (add) {
		x = _mm256_xor_si256(x, _mm256_loadu_si256((const __m256i *)d));
		y = _mm256_xor_si256(y, _mm256_loadu_si256((const __m256i *)(d + 32)));
	}
	_mm256_storeu_si256((__m256i *)d, x);
	_mm256_storeu_si256((__m256i *)(d + 32), y);
}

/* Rows i..i+nr-1 (nr <= 4: the nibbles of a source are shared by all of them) of one block. */
static inline __attribute__((always_inline, target("avx2"))) void
rows16_avx2(int nr, const uint8_t *tbls, const uint8_t *planes, size_t blk, size_t n, int cols,
	    int i, size_t b0, uint8_t *const *dst, int add)
{
	const __m256i low4 = _mm256_set1_epi8(0x0f);
	const size_t tstride = (size_t)cols * GFEC_CPU_GF16_TABLE;
	const uint8_t *trow = tbls + (size_t)i * tstride;

	for (size_t g = 0; g < n; g += 64) {
		__m256i al[4], ah[4];

		for (int r = 0; r < nr; r++)
			al[r] = ah[r] = _mm256_setzero_si256();
		for (int j = 0; j < cols; j++) {
			const uint8_t *pl = planes + (size_t)j * blk + g;
			__m256i lo = _mm256_load_si256((const __m256i *)pl);
			__m256i hi = _mm256_load_si256((const __m256i *)(pl + 32));
			__m256i n0 = _mm256_and_si256(lo, low4);
			__m256i n1 = _mm256_and_si256(_mm256_srli_epi16(lo, 4), low4);
			__m256i n2 = _mm256_and_si256(hi, low4);
			__m256i n3 = _mm256_and_si256(_mm256_srli_epi16(hi, 4), low4);

			for (int r = 0; r < nr; r++) {
				const uint8_t *t = trow + r * tstride + (size_t)j * GFEC_CPU_GF16_TABLE;

				GF16_MAC(t, al[r], ah[r]);
			}
		}
		for (int r = 0; r < nr; r++)
			store16(al[r], ah[r], dst[i + r] + b0 + g, add);
	}
}

__attribute__((target("avx2"))) int gfec_cpu_gemm16_avx2(size_t len, int cols, int rows,
							  const uint8_t *tbls,
							  const uint8_t *const *src,
							  uint8_t *const *dst, int add)
{
	const size_t vlen = len / 64 * 64;
	size_t blk = PLANES_BYTES / (size_t)cols / 64 * 64;
	const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
					       0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
	uint8_t *planes;

	if (blk < 64)
		blk = 64;
	if (blk > vlen)
		blk = vlen;
	planes = vlen ? aligned_alloc(64, blk * (size_t)cols) : NULL;
	if (vlen && !planes)
		return GFEC_E_NOMEM;

	for (size_t b0 = 0; b0 < vlen; b0 += blk) {
		const size_t n = vlen - b0 < blk ? vlen - b0 : blk;

		/* Each source's block as 64-byte groups of 32 low bytes then 32 high bytes. */
		for (int j = 0; j < cols; j++) {
			uint8_t *pl = planes + (size_t)j * blk;

			for (size_t g = 0; g < n; g += 64) {
				__m256i x = _mm256_loadu_si256((const __m256i *)(src[j] + b0 + g));
				__m256i y = _mm256_loadu_si256((const __m256i *)(src[j] + b0 + g + 32));

				x = _mm256_shuffle_epi8(x, split);
				y = _mm256_shuffle_epi8(y, split);
				_mm256_store_si256((__m256i *)(pl + g), _mm256_unpacklo_epi64(x, y));
				_mm256_store_si256((__m256i *)(pl + g + 32), _mm256_unpackhi_epi64(x, y));
			}
		}
		int i = 0;

		for (; i + 4 <= rows; i += 4)
			rows16_avx2(4, tbls, planes, blk, n, cols, i, b0, dst, add);
		if (rows - i == 3)
			rows16_avx2(3, tbls, planes, blk, n, cols, i, b0, dst, add);
		else if (rows - i == 2)
			rows16_avx2(2, tbls, planes, blk, n, cols, i, b0, dst, add);
		else if (rows - i == 1)
			rows16_avx2(1, tbls, planes, blk, n, cols, i, b0, dst, add);
	}
	free(planes);
	tail16(vlen, len, cols, rows, tbls, src, dst, add);
	return 0;
}
