/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_membw.c
 * The kernels of the CPU ceilings (perf_ceilings.c): the generic memory sweeps (read-only and in
 * place over one or several streams; the copy is glibc's memcpy) and the XOR-stream kernel, each
 * row's own traffic with no GF work. A bound has to run at full speed in every build, as the
 * prebuilt ISA-L it bounds does, so this file is always compiled optimised and without sanitizer
 * instrumentation (perf/CMakeLists.txt).
 */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "gfec_perf.h"

typedef uint8_t vec16 __attribute__((vector_size(16)));
typedef uint64_t vec16q __attribute__((vector_size(16)));
typedef uint64_t vec64 __attribute__((vector_size(64)));

/*
 * The sweeps go over @p streams interleaved parts of [p, p + n) at once (n / streams / 64 whole
 * 64-byte blocks of each). One stream per thread leaves the memory system idle on hosts whose
 * bandwidth needs many misses in flight per core; a kernel reading k sources and updating m
 * outputs keeps k + m streams going, and on the H200 host's Xeon an update (5 streams) moved 1.5x
 * what the one-stream sweeps did.
 */
uint64_t perf_mem_read(const uint8_t *p, size_t n, int streams)
{
	const size_t part = n / (size_t)streams / 64 * 64;
	vec16 acc[4] = { { 0 } }, v[4];
	uint64_t fold[8], out = 0;

	for (size_t i = 0; i < part; i += 64)
		for (int s = 0; s < streams; s++) {
			memcpy(v, p + (size_t)s * part + i, 64);
			for (int x = 0; x < 4; x++)
				acc[x] ^= v[x];
		}
	memcpy(fold, acc, 64);
	for (int x = 0; x < 8; x++)
		out ^= fold[x];
	return out;
}

void perf_mem_rmw(uint8_t *p, size_t n, int streams)
{
	const size_t part = n / (size_t)streams / 64 * 64;
	const vec16 flip = { 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
			     0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a };
	vec16 v[4];

	for (size_t i = 0; i < part; i += 64)
		for (int s = 0; s < streams; s++) {
			uint8_t *q = p + (size_t)s * part + i;

			memcpy(v, q, 64);
			for (int x = 0; x < 4; x++)
				v[x] ^= flip;
			memcpy(q, v, 64);
		}
}

/*
 * The XOR-stream kernel, built three times: for AVX-512 (zmm), AVX2 (ymm) and the baseline (xmm),
 * each on 128 bytes of every stream per step. Its outputs are written as the GF kernels may write
 * theirs: by ordinary (cached) stores, which pay a read-for-ownership on write-only outputs (ISA-L,
 * gfec's GFNI kernels below cpu_stream_min), or by non-temporal stores (PERF_XOR_STREAM: gfec's
 * GFNI kernels from cpu_stream_min on, outputs aligned), which do not; a bound takes the faster of
 * the two. With PERF_XOR_PREFETCH its sources are also prefetched ahead, as the GFNI kernels
 * prefetch theirs (which on a Xeon took 16 threads of RS(10,4) from 78 to 100 GB/s), so that no
 * kernel helper lifts a row past the bound. perf_xor_streams_group() runs it on @p group outputs
 * per pass over the sources: all of them in one pass (the fewest bytes moved), or one output after
 * another with the sources read again from cache (the fewest streams at once). The GF kernels take
 * up to 6 (AVX-512) or 4 (AVX2) outputs per pass, between the two.
 */
typedef uint64_t vec32 __attribute__((vector_size(32)));

#define XOR_UNROLL _Pragma("GCC unroll 8")
#define XOR_KERNEL(NAME, TARGET, V)                                                                \
	TARGET static void NAME(size_t n, int nsrc, const uint8_t *const *src, int ndst,         \
				uint8_t *const *dst, int mode)                                     \
	{                                                                                          \
		enum { U = 128 / sizeof(V) };                                                      \
		const int pf = mode & PERF_XOR_PREFETCH;                                           \
		const int rmw = PERF_XOR_BASE(mode) == PERF_XOR_RMW;                               \
		int nt = PERF_XOR_BASE(mode) == PERF_XOR_STREAM;                                   \
		size_t p = 0;                                                                      \
                                                                                                   \
		for (int r = 0; r < ndst; r++) /* non-temporal stores need aligned outputs */     \
			nt &= (uintptr_t)dst[r] % sizeof(V) == 0;                                  \
                                                                                                   \
		for (; p + 128 <= n; p += 128) {                                                   \
			V a[U], d;                                                                 \
                                                                                                   \
			if (pf && p + PERF_XOR_PREFETCH_AHEAD + 128 <= n)                          \
				for (int j = 0; j < nsrc; j++) {                                   \
					_mm_prefetch((const char *)src[j] + p +                    \
							 PERF_XOR_PREFETCH_AHEAD,                  \
						     _MM_HINT_T0);                                 \
					_mm_prefetch((const char *)src[j] + p +                    \
							 PERF_XOR_PREFETCH_AHEAD + 64,             \
						     _MM_HINT_T0);                                 \
				}                                                                  \
			XOR_UNROLL for (int u = 0; u < U; u++)                                     \
				memcpy(&a[u], src[0] + p + u * sizeof(V), sizeof(V));              \
			for (int j = 1; j < nsrc; j++)                                             \
				XOR_UNROLL for (int u = 0; u < U; u++)                             \
				{                                                                  \
					memcpy(&d, src[j] + p + u * sizeof(V), sizeof(V));         \
					a[u] ^= d;                                                 \
				}                                                                  \
			for (int r = 0; r < ndst; r++)                                             \
				XOR_UNROLL for (int u = 0; u < U; u++)                             \
				{                                                                  \
					uint8_t *q = dst[r] + p + u * sizeof(V);                   \
                                                                                                   \
					if (rmw) {                                                 \
						memcpy(&d, q, sizeof(V));                          \
						d ^= a[u];                                         \
					} else {                                                   \
						d = a[u];                                          \
					}                                                          \
					if (nt)                                                    \
						STREAM((void *)q, d);                              \
					else                                                       \
						memcpy(q, &d, sizeof(V));                          \
				}                                                                  \
		}                                                                                  \
		if (nt)                                                                            \
			_mm_sfence();                                                              \
		for (; p < n; p++) {                                                               \
			uint8_t b = src[0][p];                                                     \
                                                                                                   \
			for (int j = 1; j < nsrc; j++)                                             \
				b ^= src[j][p];                                                    \
			for (int r = 0; r < ndst; r++)                                             \
				dst[r][p] = rmw ? (uint8_t)(dst[r][p] ^ b) : b;                    \
		}                                                                                  \
	}

#define STREAM(q, d) _mm512_stream_si512((q), (__m512i)(d))
XOR_KERNEL(xor512, __attribute__((target("avx512f"))), vec64)
#undef STREAM
#define STREAM(q, d) _mm256_stream_si256((__m256i *)(q), (__m256i)(d))
XOR_KERNEL(xor256, __attribute__((target("avx2"))), vec32)
#undef STREAM
#define STREAM(q, d) _mm_stream_si128((__m128i *)(q), (__m128i)(d))
XOR_KERNEL(xor128, , vec16q)
#undef STREAM

int perf_xor_width(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return 512;
	return __builtin_cpu_supports("avx2") ? 256 : 128;
}

void perf_xor_streams_group(int width, size_t n, int nsrc, const uint8_t *const *src, int ndst,
			    uint8_t *const *dst, int mode, int group)
{
	for (int r = 0; r < ndst; r += group) {
		const int g = ndst - r < group ? ndst - r : group;

		if (width == 512)
			xor512(n, nsrc, src, g, dst + r, mode);
		else if (width == 256)
			xor256(n, nsrc, src, g, dst + r, mode);
		else
			xor128(n, nsrc, src, g, dst + r, mode);
	}
}
