/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file stage_copy.c
 * See stage_copy.h. Each way moves 256-byte blocks, one from each chunk in turn, and copies what
 * is left of the chunks (under 256 bytes) by memcpy; a chunk whose output is not aligned to the
 * vector goes by ordinary stores (a non-temporal store needs the alignment).
 */
#include <string.h>

#include "stage_copy.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define BLOCK 256
#define AHEAD 1024 /* prefetch distance of the sources */

static void prefetch_block(const uint8_t *s)
{
	for (int q = 0; q < BLOCK; q += 64)
		_mm_prefetch((const char *)s + AHEAD + q, _MM_HINT_T0);
}

static void copy_sse2(uint8_t *const *dst, const uint8_t *const *src, int n, size_t len, int stream)
{
	for (size_t off = 0; off + BLOCK <= len; off += BLOCK)
		for (int i = 0; i < n; i++) {
			const uint8_t *s = src[i] + off;
			uint8_t *d = dst[i] + off;
			const int nt = stream && ((uintptr_t)dst[i] & 15) == 0;

			prefetch_block(s);
			for (int q = 0; q < BLOCK; q += 64) {
				const __m128i a = _mm_loadu_si128((const __m128i *)(s + q));
				const __m128i b = _mm_loadu_si128((const __m128i *)(s + q + 16));
				const __m128i c = _mm_loadu_si128((const __m128i *)(s + q + 32));
				const __m128i e = _mm_loadu_si128((const __m128i *)(s + q + 48));

				if (nt) {
					_mm_stream_si128((__m128i *)(d + q), a);
					_mm_stream_si128((__m128i *)(d + q + 16), b);
					_mm_stream_si128((__m128i *)(d + q + 32), c);
					_mm_stream_si128((__m128i *)(d + q + 48), e);
				} else {
					_mm_storeu_si128((__m128i *)(d + q), a);
					_mm_storeu_si128((__m128i *)(d + q + 16), b);
					_mm_storeu_si128((__m128i *)(d + q + 32), c);
					_mm_storeu_si128((__m128i *)(d + q + 48), e);
				}
			}
		}
}

__attribute__((target("avx512f"))) static void
copy_avx512(uint8_t *const *dst, const uint8_t *const *src, int n, size_t len, int stream)
{
	for (size_t off = 0; off + BLOCK <= len; off += BLOCK)
		for (int i = 0; i < n; i++) {
			const uint8_t *s = src[i] + off;
			uint8_t *d = dst[i] + off;
			const __m512i a = _mm512_loadu_si512(s), b = _mm512_loadu_si512(s + 64);
			const __m512i c = _mm512_loadu_si512(s + 128),
				      e = _mm512_loadu_si512(s + 192);

			prefetch_block(s);
			if (stream && ((uintptr_t)dst[i] & 63) == 0) {
				_mm512_stream_si512((void *)d, a);
				_mm512_stream_si512((void *)(d + 64), b);
				_mm512_stream_si512((void *)(d + 128), c);
				_mm512_stream_si512((void *)(d + 192), e);
			} else {
				_mm512_storeu_si512(d, a);
				_mm512_storeu_si512(d + 64, b);
				_mm512_storeu_si512(d + 128, c);
				_mm512_storeu_si512(d + 192, e);
			}
		}
}

static int have_avx512(void)
{
	return __builtin_cpu_supports("avx512f");
}
#endif

int gfec_stage_copy_path(enum gfec_stage_path path, uint8_t *const *dst, const uint8_t *const *src,
			 int n, size_t len, int stream)
{
	size_t done = 0;

	if (path < GFEC_STAGE_AUTO || path > GFEC_STAGE_AVX512)
		return -1;
#if defined(__x86_64__)
	if (path == GFEC_STAGE_AUTO)
		path = have_avx512() ? GFEC_STAGE_AVX512 : GFEC_STAGE_SSE2;
	if (path == GFEC_STAGE_AVX512 && !have_avx512())
		return -1;
	if (path == GFEC_STAGE_AVX512 || path == GFEC_STAGE_SSE2) {
		if (path == GFEC_STAGE_AVX512)
			copy_avx512(dst, src, n, len, stream);
		else
			copy_sse2(dst, src, n, len, stream);
		if (stream)
			_mm_sfence();
		done = len / BLOCK * BLOCK;
	}
#else
	if (path == GFEC_STAGE_AUTO)
		path = GFEC_STAGE_MEMCPY;
	if (path != GFEC_STAGE_MEMCPY)
		return -1;
#endif
	for (int i = 0; i < n && done < len; i++)
		memcpy(dst[i] + done, src[i] + done, len - done);
	return 0;
}

void gfec_stage_copy(uint8_t *const *dst, const uint8_t *const *src, int n, size_t len, int stream)
{
	gfec_stage_copy_path(GFEC_STAGE_AUTO, dst, src, n, len, stream);
}

int gfec_stage_stripe(enum gfec_stage_path path, uint8_t *stage, const uint8_t *const *src, int n,
		      uint8_t *const *dst, int m, size_t len)
{
	const size_t fit = GFEC_STAGE_BYTES / (size_t)(n + m) / 256 * 256;
	const size_t step = fit < len ? fit : len;
	const uint8_t *from[256];
	uint8_t *to[256];

	if (n + m > 256 || fit == 0)
		return -1;
	for (size_t off = 0; off < len; off += step) {
		const size_t piece = len - off < step ? len - off : step;

		for (int i = 0; i < n; i++)
			from[i] = src[i] + off, to[i] = stage + (size_t)i * step;
		if (gfec_stage_copy_path(path, to, from, n, piece, 0))
			return -1;
		for (int i = 0; i < m; i++)
			from[i] = stage + (size_t)(n + i) * step, to[i] = dst[i] + off;
		gfec_stage_copy_path(path, to, from, m, piece, piece >= GFEC_STAGE_STREAM_MIN);
	}
	return 0;
}
