/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file avx2.c
 * GF(2^8) region products with AVX2 nibble tables (VPSHUFB), for CPUs with AVX2 but neither GFNI
 * nor AVX-512, where gfec otherwise runs the distribution's ISA-L. Debian 12's ISA-L 2.30 builds
 * each 32-byte table register with a load and two VPERM2I128s, which compete with the VPSHUFBs
 * for the shuffle units; upstream 2.32.1 broadcasts the table from memory instead, and on the
 * development machine (AMD EPYC Zen 3, AVX2 without GFNI) its ec_encode_data_avx2 ran 1.1-1.5x
 * Debian's (perf/results/dev-epyc-zen3-2core/cpu_vs_upstream_2.32.1.txt). This kernel broadcasts
 * too, and applies each table pair to two vectors of data, so it loads half as many tables per
 * byte as either; it needs nothing from the ISA-L that the distribution ships.
 *
 * The tables are ISA-L's ec_init_tables() layout (gfec_cpu_avx2_tables() makes the same bytes):
 * 32 bytes per coefficient c, row-major, { c * x : x < 16 } then { c * (x << 4) : x < 16 }.
 * Outputs go in groups of up to GROUP outputs per pass over the sources:
 *
 *   for each 64-byte block p:         acc[r][0..1] = 0 (or dst[r] for an update)
 *     for each source j:              lo_v, hi_v = nibbles of src[j][p + 32v], v = 0, 1
 *       for each output r of group:   acc[r][v] ^= T_lo[r][j](lo_v) ^ T_hi[r][j](hi_v)
 *     store acc
 *
 * Four outputs take 8 accumulators, 4 nibble vectors, the 0x0f mask and two tables: the 16
 * registers AVX2 has (the compiler keeps about one accumulator on the stack). Tails go through a
 * 32-byte zero-padded stack copy, as gfni.c's AVX2 kernel does.
 *
 * There are no non-temporal stores here (gfni.c has them, cpu_stream_min): on the development
 * machine, RS(10,4) with 1 MiB chunks on one thread ran at 0.42-0.44x of upstream ISA-L with them
 * and 1.02-1.23x without, from DRAM and in cache alike. Nor is there gfni.c's source prefetch:
 * 512 bytes ahead it was slower in 21 of 24 one-thread rows there (kernel alone, thread CPU time;
 * the all-core case it helps on the Xeon could not be measured on two shared cores).
 */
#include <immintrin.h>
#include <string.h>

#include "cpu_backend.h"
#include "gf8.h"

#define GROUP 4

void gfec_cpu_avx2_tables(const uint8_t *a, size_t n, uint8_t *tbls)
{
	for (size_t i = 0; i < n; i++, tbls += 32)
		for (unsigned x = 0; x < 16; x++) {
			tbls[x] = gfec_gf8_mul(a[i], (uint8_t)x);
			tbls[16 + x] = gfec_gf8_mul(a[i], (uint8_t)(x << 4));
		}
}

/* acc ^= T(x) for the 32 bytes whose nibbles are lo and hi, T's tables at @p t. */
static inline __attribute__((always_inline, target("avx2"))) __m256i
mul_add(__m256i acc, __m256i tlo, __m256i thi, __m256i lo, __m256i hi)
{
	acc = _mm256_xor_si256(acc, _mm256_shuffle_epi8(tlo, lo));
	return _mm256_xor_si256(acc, _mm256_shuffle_epi8(thi, hi));
}

static inline __attribute__((always_inline, target("avx2"))) __m256i table(const uint8_t *t)
{
	return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
}

/* R outputs (a compile-time constant once inlined) over all sources; their tables are R x cols. */
static inline __attribute__((always_inline, target("avx2"))) void
group(size_t len, int cols, const int R, const uint8_t *tbls, const uint8_t *const *src,
      uint8_t *const *dst, int update)
{
	const size_t row = (size_t)cols * 32;
	const __m256i mask = _mm256_set1_epi8(0x0f);
	size_t p = 0;

	for (; p + 64 <= len; p += 64) {
		__m256i a0[GROUP], a1[GROUP];

#pragma GCC unroll 4
		for (int r = 0; r < R; r++) {
			a0[r] = update ? _mm256_loadu_si256((const __m256i *)(dst[r] + p))
				       : _mm256_setzero_si256();
			a1[r] = update ? _mm256_loadu_si256((const __m256i *)(dst[r] + p + 32))
				       : _mm256_setzero_si256();
		}
		for (int j = 0; j < cols; j++) {
			const __m256i d0 = _mm256_loadu_si256((const __m256i *)(src[j] + p));
			const __m256i d1 = _mm256_loadu_si256((const __m256i *)(src[j] + p + 32));
			const __m256i lo0 = _mm256_and_si256(d0, mask);
			const __m256i hi0 = _mm256_and_si256(_mm256_srli_epi16(d0, 4), mask);
			const __m256i lo1 = _mm256_and_si256(d1, mask);
			const __m256i hi1 = _mm256_and_si256(_mm256_srli_epi16(d1, 4), mask);
			const uint8_t *t = tbls + (size_t)j * 32;

#pragma GCC unroll 4
			for (int r = 0; r < R; r++) {
				const __m256i tlo = table(t + r * row), thi = table(t + r * row + 16);

				a0[r] = mul_add(a0[r], tlo, thi, lo0, hi0);
				a1[r] = mul_add(a1[r], tlo, thi, lo1, hi1);
			}
		}
#pragma GCC unroll 4
		for (int r = 0; r < R; r++) {
			_mm256_storeu_si256((__m256i *)(dst[r] + p), a0[r]);
			_mm256_storeu_si256((__m256i *)(dst[r] + p + 32), a1[r]);
		}
	}
	/* One more full vector, then the rest through a zero-padded copy. */
	for (; p < len; p += 32) {
		const size_t n = len - p < 32 ? len - p : 32;
		uint8_t tmp[32] = { 0 };
		__m256i a0[GROUP];

#pragma GCC unroll 4
		for (int r = 0; r < R; r++) {
			memcpy(tmp, dst[r] + p, update ? n : 0);
			a0[r] = update ? _mm256_loadu_si256((const __m256i *)tmp)
				       : _mm256_setzero_si256();
		}
		for (int j = 0; j < cols; j++) {
			memcpy(tmp, src[j] + p, n);
			const __m256i d0 = _mm256_loadu_si256((const __m256i *)tmp);
			const __m256i lo0 = _mm256_and_si256(d0, mask);
			const __m256i hi0 = _mm256_and_si256(_mm256_srli_epi16(d0, 4), mask);
			const uint8_t *t = tbls + (size_t)j * 32;

#pragma GCC unroll 4
			for (int r = 0; r < R; r++)
				a0[r] = mul_add(a0[r], table(t + r * row), table(t + r * row + 16), lo0,
						hi0);
		}
#pragma GCC unroll 4
		for (int r = 0; r < R; r++) {
			_mm256_storeu_si256((__m256i *)tmp, a0[r]);
			memcpy(dst[r] + p, tmp, n);
		}
	}
}

__attribute__((target("avx2"))) void gfec_cpu_gemm_avx2(size_t len, int cols, int rows,
							  const uint8_t *tbls,
							  const uint8_t *const *src,
							  uint8_t *const *dst, int update)
{
	for (int i = 0; i < rows; i += GROUP) {
		const uint8_t *t = tbls + (size_t)i * cols * 32;
		uint8_t *const *d = dst + i;

		switch (rows - i) {
		case 1: group(len, cols, 1, t, src, d, update); break;
		case 2: group(len, cols, 2, t, src, d, update); break;
		case 3: group(len, cols, 3, t, src, d, update); break;
		default: group(len, cols, 4, t, src, d, update); break;
		}
	}
}

void gfec_cpu_avx2_apply(size_t len, int cols, int rows, const uint8_t *tbls, int col,
			 const uint8_t *const *src, uint8_t *const *dst)
{
	uint8_t column[GFEC_MAX_CHUNKS * 32];

	if (col < 0) {
		gfec_cpu_gemm_avx2(len, cols, rows, tbls, src, dst, 0);
		return;
	}
	for (int i = 0; i < rows; i++)
		memcpy(column + (size_t)i * 32, tbls + ((size_t)i * cols + col) * 32, 32);
	gfec_cpu_gemm_avx2(len, 1, rows, column, src, dst, 1);
}
