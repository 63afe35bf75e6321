/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gemm16.c
 * GF(2^16) products on 16-bit little-endian symbols (Jerasure's w = 16 region layout): the
 * plain-C reference and an AVX2 kernel with split nibble tables.
 *
 * The AVX2 kernel is blocked like a GEMM: c * s = T0[s & 15] ^ T1[s >> 4 & 15] ^ T2[s >> 8 & 15]
 * ^ T3[s >> 12], each Ti a 16-entry table of 16-bit products held as a low-byte and a high-byte
 * table for vpshufb (8 tables of 16 bytes per coefficient, gfec_cpu_gf16_tables()), so 32 symbols
 * of one (row, source) pair cost 8 table loads, 8 shuffles and 8 XORs, whatever the blocking.
 * What the blocking decides is where the tables and the sources come from:
 *
 *     for each block of 4 KiB of the buffers          (more with fewer sources)
 *       for each panel of 32 sources                  (PANEL_COLS)
 *         split the panel's block into nibble planes  (32 x 4 KiB x 2 = 256 KiB: L2)
 *         for each group of 4 rows                    (their tables, 4 x 32 x 128 B = 16 KiB: L1)
 *           for each 64 bytes (32 symbols) of the block
 *             sums of the 4 rows in registers over the panel's 32 sources,
 *             each source's 4 nibble vectors loaded once for the 4 rows
 *
 * Each source byte is read from memory once, a source's nibbles are split once per block (not
 * per row group), a coefficient's tables are fetched once per block, and a row's partial sums
 * go to dst (as planes) once per panel. Without the panels, a group of 4 rows summed over all
 * sources per 64 bytes runs their tables (512 KB at k = 1000) through L1, and with the sources'
 * planes past a Zen 3's 512 KiB L2, for every 64 bytes of 4 outputs. The sums stay in the planes'
 * byte order until the last panel stores them as symbols.
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

/*
 * The blocking (see the file comment): a panel of PANEL_COLS sources, whose tables for four rows
 * (4 x 32 x 128 B = 16 KiB) stay in L1 while the rows run over a block, and blocks whose nibble
 * planes for a panel take PLANES_BYTES (4 KiB of 32 sources), to stay in L2 while every row group
 * runs over them. Measured on a Zen 3 at (1000,200) and (100,20): 32 x 4 KiB ties 16 x 8 KiB and
 * beats 32, 48 or 64 sources x 2 KiB by 5-10%. Narrower panels take longer blocks (128 KiB at
 * one source): with 4 KiB blocks a one-source product of 100 rows of 64 KiB (the shape of an
 * update, or of a pivot of the decode matrices' inverse) ran about 6% slower.
 */
#define PANEL_COLS 32
#define PLANES_BYTES (256u * 1024)

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

/* How a row group's sums start and end over one panel (the rows' bytes in dst, or the planes). */
enum { SUM_ZERO, SUM_SYMBOLS, SUM_PLANES };

/* The 64 bytes at s as a low-byte plane and a high-byte plane (32 symbols each). */
static inline __attribute__((always_inline, target("avx2"))) void
split16(const uint8_t *s, __m256i *lo, __m256i *hi)
{
	const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13,
					       15, 0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13,
					       15);
	__m256i x = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)s), split);
	__m256i y = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(s + 32)), split);

	*lo = _mm256_unpacklo_epi64(x, y);
	*hi = _mm256_unpackhi_epi64(x, y);
}

/*
 * Bytes b0..b0+n-1 of the panel's kc sources as nibble planes, 64-byte group by group: group g
 * holds each source's 32 symbols as four vectors of nibbles (bits 0-3, 4-7, 8-11, 12-15, in
 * split16()'s order), 128 bytes per source, the panel's sources side by side.
 */
static inline __attribute__((always_inline, target("avx2"))) void
planes16(int kc, const uint8_t *const *src, size_t b0, size_t n, uint8_t *planes)
{
	const __m256i low4 = _mm256_set1_epi8(0x0f);

	for (int j = 0; j < kc; j++)
		for (size_t g = 0; g < n; g += 64) {
			__m256i *pl = (__m256i *)(planes + 2 * (g * (size_t)kc + (size_t)j * 64));
			__m256i lo, hi, lo4, hi4;

			split16(src[j] + b0 + g, &lo, &hi);
			lo4 = _mm256_srli_epi16(lo, 4);
			hi4 = _mm256_srli_epi16(hi, 4);
			_mm256_store_si256(pl, _mm256_and_si256(lo, low4));
			_mm256_store_si256(pl + 1, _mm256_and_si256(lo4, low4));
			_mm256_store_si256(pl + 2, _mm256_and_si256(hi, low4));
			_mm256_store_si256(pl + 3, _mm256_and_si256(hi4, low4));
		}
}

/*
 * Rows of one block over one panel, @p nr (<= 4) rows at a time sharing each source's nibble
 * planes: the sums start as zero, as dst's symbols (the XOR form) or as the planes an earlier
 * panel left in dst, and end as symbols (the last panel) or as planes. The interleave of
 * split16() is undone by the store's unpack: lane halves hold symbols 0-7 | 16-23 and 8-15 |
 * 24-31. One nibble position at a time keeps 8 sums, a nibble and a table in registers.
 */
static inline __attribute__((always_inline, target("avx2"))) void
rows16_avx2(int nr, const uint8_t *trow, size_t tstride, const uint8_t *planes, int kc, size_t n,
	    uint8_t *const *d, size_t b0, int in, int out)
{
	for (size_t g = 0; g < n; g += 64, planes += (size_t)kc * 128) {
		__m256i al[4], ah[4];

		for (int r = 0; r < nr; r++) {
			uint8_t *p = d[r] + b0 + g;

			if (in == SUM_ZERO) {
				al[r] = ah[r] = _mm256_setzero_si256();
			} else if (in == SUM_SYMBOLS) {
				split16(p, &al[r], &ah[r]);
			} else {
				al[r] = _mm256_loadu_si256((const __m256i *)p);
				ah[r] = _mm256_loadu_si256((const __m256i *)(p + 32));
			}
		}
		for (int j = 0; j < kc; j++) {
			const uint8_t *tj = trow + (size_t)j * GFEC_CPU_GF16_TABLE;
			const __m256i *x = (const __m256i *)(planes + (size_t)j * 128);

			for (int q = 0; q < 4; q++) {
				const __m256i xq = _mm256_load_si256(x + q);

				for (int r = 0; r < nr; r++) {
					const uint8_t *t = tj + r * tstride + 32 * q;
					const __m256i pl = _mm256_shuffle_epi8(GF16_T(0), xq);
					const __m256i ph = _mm256_shuffle_epi8(GF16_T(16), xq);

					al[r] = _mm256_xor_si256(al[r], pl);
					ah[r] = _mm256_xor_si256(ah[r], ph);
					/* Keeps the sums in registers: XOR is associative, and a
					 * reassociated sum tree spills most of its terms. */
					__asm__("" : "+x"(al[r]), "+x"(ah[r]));
				}
			}
		}
		for (int r = 0; r < nr; r++) {
			uint8_t *p = d[r] + b0 + g;

			if (out == SUM_SYMBOLS) {
				const __m256i lo = _mm256_unpacklo_epi8(al[r], ah[r]);
				const __m256i hi = _mm256_unpackhi_epi8(al[r], ah[r]);

				_mm256_storeu_si256((__m256i *)p, lo);
				_mm256_storeu_si256((__m256i *)(p + 32), hi);
			} else {
				_mm256_storeu_si256((__m256i *)p, al[r]);
				_mm256_storeu_si256((__m256i *)(p + 32), ah[r]);
			}
		}
	}
}

__attribute__((target("avx2"))) int gfec_cpu_gemm16_avx2(size_t len, int cols, int rows,
							  const uint8_t *tbls,
							  const uint8_t *const *src,
							  uint8_t *const *dst, int add)
{
	const size_t vlen = len / 64 * 64;
	const int pc = cols < PANEL_COLS ? cols : PANEL_COLS;
	const size_t bb = PLANES_BYTES / (2 * (size_t)pc) / 64 * 64;
	const size_t blk = vlen < bb ? vlen : bb;
	const size_t tstride = (size_t)cols * GFEC_CPU_GF16_TABLE;
	uint8_t *planes = vlen ? aligned_alloc(64, 2 * blk * (size_t)pc) : NULL;

	if (vlen && !planes)
		return GFEC_E_NOMEM;
	for (size_t b0 = 0; b0 < vlen; b0 += blk) {
		const size_t n = vlen - b0 < blk ? vlen - b0 : blk;

		for (int jc = 0; jc < cols; jc += pc) {
			const int kc = cols - jc < pc ? cols - jc : pc;
			const int in = jc ? SUM_PLANES : add ? SUM_SYMBOLS : SUM_ZERO;
			const int out = jc + kc == cols ? SUM_SYMBOLS : SUM_PLANES;
			const uint8_t *t = tbls + (size_t)jc * GFEC_CPU_GF16_TABLE;
			int i = 0;

			planes16(kc, src + jc, b0, n, planes);
			for (; i + 4 <= rows; i += 4)
				rows16_avx2(4, t + i * tstride, tstride, planes, kc, n, dst + i, b0,
					    in, out);
			if (rows - i == 3)
				rows16_avx2(3, t + i * tstride, tstride, planes, kc, n, dst + i, b0,
					    in, out);
			else if (rows - i == 2)
				rows16_avx2(2, t + i * tstride, tstride, planes, kc, n, dst + i, b0,
					    in, out);
			else if (rows - i == 1)
				rows16_avx2(1, t + i * tstride, tstride, planes, kc, n, dst + i, b0,
					    in, out);
		}
	}
	free(planes);
	tail16(vlen, len, cols, rows, tbls, src, dst, add);
	return 0;
}
