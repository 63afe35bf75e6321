// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file nc_gpu.cuh
 * Network coding (gfec_nc.h) on the GPU: the bit planes of GF(2^8) coefficients in the bmma
 * table layout (nc_bmma_bits, nc_table_byte; the seeded encode draws its fragments from them,
 * nc_encode.cuh), and a batched Gauss-Jordan inversion of many segments' coefficient matrices,
 * whose inverses feed the binary tensor-core GEMM (gemm_bmma.cuh) that applies them to the
 * payloads.
 *
 * Batched Gauss-Jordan, one thread block per n x n matrix M, augmented [M | I] in shared memory
 * (n rows of 2n bytes, each padded to nc_gj_stride(n), a multiple of 4, with zeros). For every
 * column c, with barriers between the phases:
 *
 *   1  pivot search: thread t looks at rows c + t, c + t + T, ... and offers the first with a
 *      non-zero entry in column c; the smallest offer (atomicMin) is the pivot row p. None: the
 *      matrix is singular, the block stops and reports it.
 *   2  every thread reads 1 / M[p][c] and the elimination factor of the rows it owns, taken
 *      before the swap: factor[r] = M[r][c] (r != c, p), old M[c][c] for r = p, 0 for r = c.
 *   3  rows p and c are swapped and row c scaled by 1 / M[p][c], one column per thread.
 *   4  every row r: row r ^= factor[r] * row c, for the columns c .. 2n-1 (left of c, row c is 0),
 *      one row per group of 32 threads, 4 bytes per thread and step (rows with factor 0 skipped).
 *
 * Any non-zero pivot gives the same inverse (it is unique), so the result is the CPU's. The block
 * then writes the bmma column tables of the inverse to global memory, in row tiles.
 *
 * The phases are plain functions of (matrix, thread index, thread count) so that the CPU test
 * (tests/cuda_gemm/nc_emulate.cpp) runs the very same index math, thread by thread.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gemm_bmma.cuh"
#include "nc_prng.h"

namespace gfec {

/** Multiplication by x (2) in GF(2^8), polynomial 0x11D. */
GFEC_BMMA_HD uint8_t nc_xtime(uint8_t v)
{
	return (uint8_t)((v << 1) ^ ((v & 0x80) ? 0x1d : 0));
}

/** Byte of the bmma table for coefficient @p c and output bit @p l: bit x = bit l of c * 2^x. */
GFEC_BMMA_HD uint8_t nc_bmma_bits(uint8_t c, int l)
{
	uint8_t v = 0;

	for (int x = 0; x < 8; x++) {
		v |= (uint8_t)(((c >> l) & 1) << x);
		c = nc_xtime(c);
	}
	return v;
}

/**
 * Byte @p b of the bmma column table (bmma_build_table's layout: [j][sub][mi][trow]) of a matrix
 * with @p rows rows and bmma_nsub(rows) = @p nsub, where @p coef(i, j) gives A(i, j).
 */
template <class Coef> GFEC_BMMA_HD uint8_t nc_table_byte(size_t b, int rows, int nsub, Coef coef)
{
	const size_t per_col = (size_t)nsub * 64;
	const int j = (int)(b / per_col), rem = (int)(b % per_col);
	const int sub = rem >> 6, mi = (rem >> 4) & 3, trow = rem & 15;
	const int i = 8 * sub + (trow & 7);

	return i < rows ? nc_bmma_bits(coef(i, j), 2 * mi + (trow >> 3)) : 0;
}

/** A(i, j) of a seeded encode: the coefficient of source block j in the block of seed0 + i. */
struct NcSeedCoef {
	uint32_t seed0;
	int zero_ok;
	GFEC_BMMA_HD uint8_t operator()(int i, int j) const
	{
		return gfec_nc_prng_coef(gfec_nc_prng_key(seed0 + (uint32_t)i), (uint32_t)j, zero_ok);
	}
};

// ---- Batched Gauss-Jordan: the phases (m: n rows of 2n bytes; logexp: log[256], exp[512]) ----

GFEC_BMMA_HD uint8_t nc_mul(const uint8_t *logexp, uint8_t a, uint8_t b)
{
	return (a && b) ? logexp[256 + logexp[a] + logexp[b]] : 0;
}

GFEC_BMMA_HD uint8_t nc_inv(const uint8_t *logexp, uint8_t a)
{
	return logexp[256 + 255 - logexp[a]];
}

/** Bytes per row of [M | I]: 2n rounded up to a multiple of 4 (the elimination's words). */
GFEC_BMMA_HD int nc_gj_stride(int n)
{
	return (2 * n + 3) & ~3;
}

/** Loads M (n x n, row-major) as [M | I], padding zeroed. */
GFEC_BMMA_HD void nc_gj_load(uint8_t *m, const uint8_t *src, int n, int tid, int nt)
{
	const int S = nc_gj_stride(n);

	for (int i = tid; i < n * S; i += nt) {
		const int r = i / S, k = i % S;

		m[i] = k < n ? src[r * n + k] : (uint8_t)(k - n == r);
	}
}

/** Phase 1: this thread's pivot offer for column c (a row >= c), or n for none. */
GFEC_BMMA_HD int nc_gj_offer(const uint8_t *m, int n, int c, int tid, int nt)
{
	for (int r = c + tid; r < n; r += nt)
		if (m[(size_t)r * nc_gj_stride(n) + c])
			return r;
	return n;
}

/** Phase 2: the factor of row r for column c with pivot row p, read before the swap. */
GFEC_BMMA_HD uint8_t nc_gj_factor(const uint8_t *m, int n, int c, int p, int r)
{
	if (r == c)
		return 0;
	return m[(size_t)(r == p ? c : r) * nc_gj_stride(n) + c];
}

/** Phase 3: swap rows p and c, scale row c by inv (= 1 / M[p][c]); this thread's columns. */
GFEC_BMMA_HD void nc_gj_swap_scale(uint8_t *m, const uint8_t *logexp, int n, int c, int p,
				   uint8_t inv, int tid, int nt)
{
	const int S = nc_gj_stride(n);
	uint8_t *rc = m + (size_t)c * S, *rp = m + (size_t)p * S;

	for (int k = c + tid; k < 2 * n; k += nt) {
		const uint8_t a = rp[k];

		rp[k] = rc[k];
		rc[k] = nc_mul(logexp, a, inv);
	}
}

// 4 bytes of shared memory (or of the emulation's buffer: memcpy, no aliasing) at a 4-aligned p.
GFEC_BMMA_HD uint32_t nc_ld32(const uint8_t *p)
{
#if defined(__CUDA_ARCH__)
	return *reinterpret_cast<const uint32_t *>(p);
#else
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
#endif
}

GFEC_BMMA_HD void nc_st32(uint8_t *p, uint32_t v)
{
#if defined(__CUDA_ARCH__)
	*reinterpret_cast<uint32_t *>(p) = v;
#else
	memcpy(p, &v, 4);
#endif
}

/**
 * Phase 4: row r ^= factor[r] * row c over columns c .. 2n-1. Threads work in groups of 32 (nt a
 * multiple of 32): group g takes rows g, g + nt / 32, ...; lane l the 4-byte words l, l + 32, ...
 * of the row from the word that holds column c (the bytes before c in it are 0 in row c).
 */
GFEC_BMMA_HD void nc_gj_eliminate(uint8_t *m, const uint8_t *logexp, const uint8_t *factor, int n,
				  int c, int tid, int nt)
{
	const int S = nc_gj_stride(n), lane = tid & 31;
	const uint8_t *rc = m + (size_t)c * S;

	for (int r = tid >> 5; r < n; r += nt >> 5) {
		const uint8_t f = factor[r];

		if (!f)
			continue;
		const uint32_t lf = logexp[f];
		uint8_t *row = m + (size_t)r * S;

		for (int k = 4 * ((c >> 2) + lane); k < S; k += 128) {
			const uint32_t x = nc_ld32(rc + k);
			uint32_t y = 0;

			for (int q = 0; q < 4; q++) {
				const uint32_t b = (x >> (8 * q)) & 0xff;

				if (b)
					y |= (uint32_t)logexp[256 + lf + logexp[b]] << (8 * q);
			}
			nc_st32(row + k, nc_ld32(row + k) ^ y);
		}
	}
}

/** Dynamic shared memory of the inversion kernel for n: [M | I], factors, log/exp. */
GFEC_BMMA_HD size_t nc_gj_smem(int n)
{
	return (size_t)n * nc_gj_stride(n) + (size_t)n + 768;
}

/** Its static shared memory (the pivot), rounded up: the per-block limit counts both. */
constexpr size_t kNcGjStaticSmem = 16;

} // namespace gfec

#if defined(__CUDACC__)
namespace gfec {

/**
 * One block per matrix: inverts mats[blockIdx.x] (n x n) and writes the bmma column tables of its
 * inverse in row tiles of @p tile_rows (a multiple of 8): tile t (rows t * tile_rows ..) at
 * tables + blockIdx.x * seg_words + t * bmma_table_words(tile_rows, n); status[blockIdx.x] = 1
 * when the matrix is singular (then no table is written), else 0.
 */
__global__ void nc_gj_invert(const uint8_t *mats, int n, const uint8_t *logexp_g, uint32_t *tables,
			     size_t seg_words, int tile_rows, int *status)
{
	extern __shared__ __align__(16) uint8_t sm[];
	uint8_t *m = sm, *factor = sm + (size_t)n * nc_gj_stride(n), *logexp = factor + n;
	__shared__ int piv;
	const int tid = threadIdx.x, nt = blockDim.x;
	const size_t mat = blockIdx.x;

	for (int i = tid; i < 768; i += nt)
		logexp[i] = logexp_g[i];
	nc_gj_load(m, mats + mat * n * n, n, tid, nt);
	if (tid == 0)
		piv = n;
	__syncthreads();
	for (int c = 0; c < n; c++) {
		const int offer = nc_gj_offer(m, n, c, tid, nt);

		if (offer < n)
			atomicMin(&piv, offer);
		__syncthreads();
		const int p = piv;

		if (p == n) { // uniform: every thread read the same piv
			if (tid == 0)
				status[mat] = 1;
			return;
		}
		const uint8_t iv = nc_inv(logexp, m[(size_t)p * nc_gj_stride(n) + c]);

		for (int r = tid; r < n; r += nt)
			factor[r] = nc_gj_factor(m, n, c, p, r);
		__syncthreads();
		if (tid == 0)
			piv = n; // read by everyone before the barrier above
		nc_gj_swap_scale(m, logexp, n, c, p, iv, tid, nt);
		__syncthreads();
		nc_gj_eliminate(m, logexp, factor, n, c, tid, nt);
		__syncthreads();
	}
	if (tid == 0)
		status[mat] = 0;
	const size_t tile_words = bmma_table_words(tile_rows, n);

	for (int r0 = 0; r0 < n; r0 += tile_rows) {
		const int rows = n - r0 < tile_rows ? n - r0 : tile_rows;
		const int nsub = bmma_nsub(rows);
		const size_t words = bmma_table_words(rows, n);
		const int S = nc_gj_stride(n);
		auto coef = [m, n, r0, S](int i, int j) { return m[(size_t)(r0 + i) * S + n + j]; };
		uint32_t *t = tables + mat * seg_words + (size_t)(r0 / tile_rows) * tile_words;

		for (size_t w = tid; w < words; w += nt) {
			uint32_t v = 0;

			for (int q = 0; q < 4; q++)
				v |= (uint32_t)nc_table_byte(4 * w + q, rows, nsub, coef) << (8 * q);
			t[w] = v;
		}
	}
}

/**
 * Piece i: len[i] bytes from src[i] to dst[i], every pointer device memory (the headers of coded
 * blocks, and a systematic code's source blocks, which the GEMM kernels do not write). One block
 * per piece in turn; 16-byte words where both ends allow, bytes otherwise.
 */
__global__ void nc_copy_pieces(const uint8_t *const *src, const size_t *len, uint8_t *const *dst,
			       size_t count)
{
	for (size_t i = blockIdx.x; i < count; i += gridDim.x) {
		const uint8_t *s = src[i];
		uint8_t *d = dst[i];
		const size_t l = len[i];
		size_t head = 0;

		if ((uintptr_t)s % 16 == (uintptr_t)d % 16) {
			head = (16 - (uintptr_t)s % 16) % 16;
			head = head < l ? head : l;
			const size_t words = (l - head) / 16;
			const uint4 *s4 = reinterpret_cast<const uint4 *>(s + head);
			uint4 *d4 = reinterpret_cast<uint4 *>(d + head);

			for (size_t w = threadIdx.x; w < words; w += blockDim.x)
				d4[w] = s4[w];
			for (size_t b = threadIdx.x; b < head; b += blockDim.x)
				d[b] = s[b];
			for (size_t b = head + words * 16 + threadIdx.x; b < l; b += blockDim.x)
				d[b] = s[b];
		} else {
			for (size_t b = threadIdx.x; b < l; b += blockDim.x)
				d[b] = s[b];
		}
	}
}

} // namespace gfec
#endif // __CUDACC__
