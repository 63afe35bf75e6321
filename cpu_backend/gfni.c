/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfni.c
 * GF(2^8) region products with GF2P8AFFINEQB, so that gfec does not depend on the ISA-L version a
 * distribution ships for its speed (Debian 12's 2.30 has no GFNI kernels). Built with the default
 * flags: each kernel carries its own target attribute and runs only after the CPUID check in
 * gfec_cpu_gfni_supported().
 *
 * One call multiplies a rows x cols matrix of 8x8 bit-matrices into rows outputs. Outputs go in
 * groups of up to GROUP_512 (AVX-512) or GROUP_256 (AVX2) per pass over the sources, so a (10,4)
 * encode reads each source once; per source the group's matrices are broadcast once and applied
 * to two vectors of data:
 *
 *   for each 2-vector block p:        acc[r][0..1] = 0 (or dst[r] for an update)
 *     for each source j:              d0, d1 = src[j][p]
 *       for each output r of group:   acc[r][v] ^= affine(d_v, M[r][j])
 *     store acc
 *
 * With 3+ outputs the sources go in pairs: j's and j+1's products join acc by one VPTERNLOGQ.
 *
 * Tails: AVX-512 uses byte-masked loads and stores; AVX2 goes through a 32-byte stack copy.
 *
 * GFEC_GFNI_STREAM stores the outputs' full vectors with non-temporal stores: parity that leaves
 * through the network or a disk is then written to memory once, without the read-for-ownership
 * that a normal store of a line not in cache costs (for RS(10,4) from DRAM, 18 lines of traffic
 * per 14 become 14). The caller picks it (cpu_backend.c: the cpu_stream_min knob).
 */
#include <immintrin.h>
#include <string.h>

#include "cpu_backend.h"
#include "gf8.h"

#define GROUP_512 GFEC_GFNI_GROUP512
#define GROUP_256 GFEC_GFNI_GROUP256
/*
 * Sources are also prefetched this many bytes ahead of the block being multiplied. The L2
 * streamer stops at every 4 KiB page and must see misses again before it runs ahead on the next
 * one; with ten or more streams per thread, that happens every few blocks. A prefetch already in
 * flight when the block is reached keeps the loads off the critical path of the GF work, which
 * matters once every core shares the memory bus. Only within the call's own bytes. On the H200
 * host's Xeon (perf/results/nvidia-h200/allcore-2026-11-24h), RS(10,4) 16 MiB on 16 threads
 * (one or two rows each): 77.9 GB/s without, 99.9 with; in variants whose pool spun between
 * jobs, 75.5 without, 92.4 at 512 bytes, 91.3 at 1024, 84.6 into L2 only (PREFETCHT1). A Zen 5
 * core storing by non-temporal stores ran slower with it at every distance tried, 512 to 4096
 * bytes: gfni_plain.c compiles this file again with GFNI_PLAIN defined, for the same kernels
 * without the prefetch, named _plain (gfec_cpu_gfni_prefetch() says which runs). Two
 * compilations rather than a flag: with the flag a constant in one function, or tested in the
 * loop, RS(4,2) 4 KiB calls in cache on that core ran 4-10% slower than these kernels alone.
 */
#ifdef GFNI_PLAIN
#define GFNI_PREFETCH 0
#define GFNI_KERNEL(name) name##_plain
#else
#define GFNI_PREFETCH 512
#define GFNI_KERNEL(name) name
#endif

#define T512 "avx512f,avx512bw,avx512vl,gfni"
#define T256 "avx2,gfni"

#ifndef GFNI_PLAIN
uint64_t gfec_cpu_gfni_matrix(uint8_t c)
{
	/*
	 * GF2P8AFFINEQB computes bit i of each output byte as parity(A.byte[7 - i] & x). Multiplying
	 * by c is linear over GF(2): bit i of c*x is the XOR over the set bits j of x of bit i of
	 * c*2^j, so row 7-i has bit j set exactly when c*2^j has bit i set.
	 */
	uint64_t a = 0;

	for (int i = 0; i < 8; i++) {
		uint8_t row = 0;

		for (int j = 0; j < 8; j++)
			row |= (uint8_t)(((gfec_gf8_mul(c, (uint8_t)(1u << j)) >> i) & 1u) << j);
		a |= (uint64_t)row << (8 * (7 - i));
	}
	return a;
}

void gfec_cpu_gfni_matrices(const uint8_t *a, size_t n, uint64_t *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = gfec_cpu_gfni_matrix(a[i]);
}

int gfec_cpu_gfni_supported(int bits)
{
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("gfni"))
		return 0;
	if (bits == 512)
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512vl");
	return bits == 256 && __builtin_cpu_supports("avx2");
}

#endif

/* ---- AVX-512 ---------------------------------------------------------------------------- */

/* a ^ b ^ c by one VPTERNLOGQ (0x96 is the truth table of a three-way XOR). */
#define XOR3(a, b, c) _mm512_ternarylogic_epi64(a, b, c, 0x96)

/*
 * The two cache lines of source s's block GFNI_PREFETCH bytes past p. Written out at each use:
 * with the address computed once (a helper taking s + p + GFNI_PREFETCH), RS(4,2) 4 KiB calls from
 * DRAM ran 18% slower on the dev Xeon, for the same addresses.
 */
#define PREFETCH_BLOCK(s, p)                                                                       \
	do {                                                                                       \
		_mm_prefetch((const char *)(s) + (p) + GFNI_PREFETCH, _MM_HINT_T0);                \
		_mm_prefetch((const char *)(s) + (p) + GFNI_PREFETCH + 64, _MM_HINT_T0);           \
	} while (0)

/* R outputs (a compile-time constant once inlined) over all sources; mat is R x cols. */
static inline __attribute__((always_inline, target(T512))) void
group512(size_t len, int cols, const int R, const uint64_t *mat, const uint8_t *const *src,
	 uint8_t *const *dst, int mode)
{
	const int update = mode == GFEC_GFNI_UPDATE, stream = mode == GFEC_GFNI_STREAM;
	size_t p = 0;

	for (; p + 128 <= len; p += 128) {
		const int pf = GFNI_PREFETCH && p + GFNI_PREFETCH + 128 <= len;
		__m512i a0[GROUP_512], a1[GROUP_512];

#pragma GCC unroll 6
		for (int r = 0; r < R; r++) {
			a0[r] = update ? _mm512_loadu_si512(dst[r] + p) : _mm512_setzero_si512();
			a1[r] = update ? _mm512_loadu_si512(dst[r] + p + 64) : _mm512_setzero_si512();
		}
		int j = 0;

		/*
		 * Sources in pairs for 3+ outputs: both products go into the accumulator by one
		 * three-way XOR, a third fewer vector instructions. On the H200 host's Xeon, 4 KiB
		 * in cache against upstream ISA-L: RS(10,4) 1.02 -> 1.15x, k=128 m=16 1.11 -> 1.31x
		 * (medians, perf/results/nvidia-h200/ternlog-2026-11-26). With 2 outputs RS(4,2)
		 * gained nothing in cache and lost 18% from DRAM on the dev Xeon, so those keep one
		 * source at a time.
		 */
		for (; R >= 3 && j + 2 <= cols; j += 2) {
			const __m512i d0 = _mm512_loadu_si512(src[j] + p);
			const __m512i d1 = _mm512_loadu_si512(src[j] + p + 64);
			const __m512i e0 = _mm512_loadu_si512(src[j + 1] + p);
			const __m512i e1 = _mm512_loadu_si512(src[j + 1] + p + 64);

			if (pf) {
				PREFETCH_BLOCK(src[j], p);
				PREFETCH_BLOCK(src[j + 1], p);
			}

#pragma GCC unroll 6
			for (int r = 0; r < R; r++) {
				const __m512i m = _mm512_set1_epi64((long long)mat[r * cols + j]);
				const __m512i n =
				    _mm512_set1_epi64((long long)mat[r * cols + j + 1]);

				a0[r] = XOR3(a0[r], _mm512_gf2p8affine_epi64_epi8(d0, m, 0),
					     _mm512_gf2p8affine_epi64_epi8(e0, n, 0));
				a1[r] = XOR3(a1[r], _mm512_gf2p8affine_epi64_epi8(d1, m, 0),
					     _mm512_gf2p8affine_epi64_epi8(e1, n, 0));
			}
		}
		for (; j < cols; j++) {
			const __m512i d0 = _mm512_loadu_si512(src[j] + p);
			const __m512i d1 = _mm512_loadu_si512(src[j] + p + 64);

			if (pf)
				PREFETCH_BLOCK(src[j], p);

#pragma GCC unroll 6
			for (int r = 0; r < R; r++) {
				const __m512i m = _mm512_set1_epi64((long long)mat[r * cols + j]);

				a0[r] = _mm512_xor_si512(a0[r], _mm512_gf2p8affine_epi64_epi8(d0, m, 0));
				a1[r] = _mm512_xor_si512(a1[r], _mm512_gf2p8affine_epi64_epi8(d1, m, 0));
			}
		}
#pragma GCC unroll 6
		for (int r = 0; r < R; r++) {
			if (stream) {
				_mm512_stream_si512((void *)(dst[r] + p), a0[r]);
				_mm512_stream_si512((void *)(dst[r] + p + 64), a1[r]);
			} else {
				_mm512_storeu_si512(dst[r] + p, a0[r]);
				_mm512_storeu_si512(dst[r] + p + 64, a1[r]);
			}
		}
	}
	/* At most two more vectors, the last one masked to the bytes that remain. */
	for (; p < len; p += 64) {
		const __mmask64 k = len - p >= 64 ? ~0ull : (1ull << (len - p)) - 1;
		__m512i a0[GROUP_512];

#pragma GCC unroll 6
		for (int r = 0; r < R; r++)
			a0[r] = update ? _mm512_maskz_loadu_epi8(k, dst[r] + p) : _mm512_setzero_si512();
		for (int j = 0; j < cols; j++) {
			const __m512i d0 = _mm512_maskz_loadu_epi8(k, src[j] + p);

#pragma GCC unroll 6
			for (int r = 0; r < R; r++) {
				const __m512i m = _mm512_set1_epi64((long long)mat[r * cols + j]);

				a0[r] = _mm512_xor_si512(a0[r], _mm512_gf2p8affine_epi64_epi8(d0, m, 0));
			}
		}
#pragma GCC unroll 6
		for (int r = 0; r < R; r++)
			_mm512_mask_storeu_epi8(dst[r] + p, k, a0[r]);
	}
	if (stream)
		_mm_sfence(); /* the stores are weakly ordered: complete them before returning */
}

__attribute__((target(T512))) void GFNI_KERNEL(gfec_cpu_gemm_gfni512)(size_t len, int cols,
								      int rows, const uint64_t *mat,
								      const uint8_t *const *src,
								      uint8_t *const *dst, int mode)
{
	for (int i = 0; i < rows; i += GROUP_512) {
		const uint64_t *m = mat + (size_t)i * cols;
		uint8_t *const *d = dst + i;

		/* clang-format off */
		switch (rows - i) {
		case 1: group512(len, cols, 1, m, src, d, mode); break;
		case 2: group512(len, cols, 2, m, src, d, mode); break;
		case 3: group512(len, cols, 3, m, src, d, mode); break;
		case 4: group512(len, cols, 4, m, src, d, mode); break;
		case 5: group512(len, cols, 5, m, src, d, mode); break;
		default: group512(len, cols, 6, m, src, d, mode); break;
		}
		/* clang-format on */
	}
}

/* ---- AVX2 ------------------------------------------------------------------------------- */

static inline __attribute__((always_inline, target(T256))) void
group256(size_t len, int cols, const int R, const uint64_t *mat, const uint8_t *const *src,
	 uint8_t *const *dst, int mode)
{
	const int update = mode == GFEC_GFNI_UPDATE, stream = mode == GFEC_GFNI_STREAM;
	size_t p = 0;

	for (; p + 64 <= len; p += 64) {
		const int pf = GFNI_PREFETCH && p + GFNI_PREFETCH + 64 <= len;
		__m256i a0[GROUP_256], a1[GROUP_256];

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

			if (pf)
				_mm_prefetch((const char *)src[j] + p + GFNI_PREFETCH, _MM_HINT_T0);

#pragma GCC unroll 4
			for (int r = 0; r < R; r++) {
				const __m256i m = _mm256_set1_epi64x((long long)mat[r * cols + j]);

				a0[r] = _mm256_xor_si256(a0[r], _mm256_gf2p8affine_epi64_epi8(d0, m, 0));
				a1[r] = _mm256_xor_si256(a1[r], _mm256_gf2p8affine_epi64_epi8(d1, m, 0));
			}
		}
#pragma GCC unroll 4
		for (int r = 0; r < R; r++) {
			if (stream) {
				_mm256_stream_si256((__m256i *)(dst[r] + p), a0[r]);
				_mm256_stream_si256((__m256i *)(dst[r] + p + 32), a1[r]);
			} else {
				_mm256_storeu_si256((__m256i *)(dst[r] + p), a0[r]);
				_mm256_storeu_si256((__m256i *)(dst[r] + p + 32), a1[r]);
			}
		}
	}
	/* One more full vector, then the rest through a zero-padded copy. */
	for (; p < len; p += 32) {
		const size_t n = len - p < 32 ? len - p : 32;
		uint8_t tmp[32] = { 0 };
		__m256i a0[GROUP_256];

#pragma GCC unroll 4
		for (int r = 0; r < R; r++) {
			memcpy(tmp, dst[r] + p, update ? n : 0);
			a0[r] = update ? _mm256_loadu_si256((const __m256i *)tmp)
				       : _mm256_setzero_si256();
		}
		for (int j = 0; j < cols; j++) {
			memcpy(tmp, src[j] + p, n);
			const __m256i d0 = _mm256_loadu_si256((const __m256i *)tmp);

#pragma GCC unroll 4
			for (int r = 0; r < R; r++) {
				const __m256i m = _mm256_set1_epi64x((long long)mat[r * cols + j]);

				a0[r] = _mm256_xor_si256(a0[r], _mm256_gf2p8affine_epi64_epi8(d0, m, 0));
			}
		}
#pragma GCC unroll 4
		for (int r = 0; r < R; r++) {
			_mm256_storeu_si256((__m256i *)tmp, a0[r]);
			memcpy(dst[r] + p, tmp, n);
		}
	}
	if (stream)
		_mm_sfence();
}

__attribute__((target(T256))) void GFNI_KERNEL(gfec_cpu_gemm_gfni256)(size_t len, int cols,
								      int rows, const uint64_t *mat,
								      const uint8_t *const *src,
								      uint8_t *const *dst, int mode)
{
	for (int i = 0; i < rows; i += GROUP_256) {
		const uint64_t *m = mat + (size_t)i * cols;
		uint8_t *const *d = dst + i;

		/* clang-format off */
		switch (rows - i) {
		case 1: group256(len, cols, 1, m, src, d, mode); break;
		case 2: group256(len, cols, 2, m, src, d, mode); break;
		case 3: group256(len, cols, 3, m, src, d, mode); break;
		default: group256(len, cols, 4, m, src, d, mode); break;
		}
		/* clang-format on */
	}
}

#ifndef GFNI_PLAIN
void gfec_cpu_gfni_apply(enum gfec_cpu_path path, size_t len, int cols, int rows,
			 const uint64_t *mat, int col, int mode, const uint8_t *const *src,
			 uint8_t *const *dst)
{
	const int prefetch = mode & GFEC_GFNI_PREFETCH;
	uint64_t column[GFEC_MAX_CHUNKS];

	mode &= ~GFEC_GFNI_PREFETCH;
	/* An update applies one column: its matrices, gathered, as a rows x 1 product into dst. */
	if (col >= 0) {
		for (int i = 0; i < rows; i++)
			column[i] = mat[(size_t)i * cols + col];
		mat = column;
		cols = 1;
		mode = GFEC_GFNI_UPDATE;
	}
	if (path == GFEC_CPU_GFNI512)
		(prefetch ? gfec_cpu_gemm_gfni512
			  : gfec_cpu_gemm_gfni512_plain)(len, cols, rows, mat, src, dst, mode);
	else
		(prefetch ? gfec_cpu_gemm_gfni256
			  : gfec_cpu_gemm_gfni256_plain)(len, cols, rows, mat, src, dst, mode);
}
#endif
