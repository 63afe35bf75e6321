// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file nc_gpu.cuh
 * Network coding (gfec_nc.h) on the GPU: the bmma column table of a coefficient matrix
 * (nc_table_byte, of nc_encode.cuh's bit planes nc_bmma_bits), and a batched Gauss-Jordan
 * inversion of many segments' coefficient matrices, whose inverses feed the binary tensor-core
 * GEMM that applies them to the payloads: nc_encode.cuh's nc_gemm_ra up to n = 128 (the inverse
 * written as its register fragments), gemm_bmma.cuh's gf_gemm_bmma past that (column tables).
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
 *   4  a table of row c's words from the one holding column c on, four bytes at a time with a
 *      packed xtime, in shared memory: its 32 products v * row c and (v << 4) * row c, v = 0..15
 *      (nc_gj_products), where they fit beside [M | I]; else its 8 multiples row c * 2^b
 *      (nc_gj_multiples).
 *   5  every row r: row r ^= factor[r] * row c, for the columns c .. 2n-1 (left of c, row c is 0),
 *      one row per group of 32 threads, 4 bytes per thread and step: the XOR of the two products
 *      of factor[r]'s nibbles (nc_gj_eliminate_products), or of the multiples whose bits
 *      factor[r] has (nc_gj_eliminate; warp-uniform, so no divergence). Rows with factor 0 are
 *      skipped. On the H200 (perf/results/nvidia-h200/rlcgpu-2026-11-24h/) the multiples form
 *      inverted 1024 matrices of n = 128 in 3.57 ms, the largest stage of a batch decode.
 *
 * [M | I] lies in shared memory while it fits there beside the rest; past that n
 * (nc_gj_invert<true, false>) in a slice of global memory per thread block.
 *
 * Any non-zero pivot gives the same inverse (it is unique), so the result is the CPU's. The block
 * then writes the inverse to global memory for the GEMM, in row tiles: as nc_gemm_ra's fragments
 * (nc_gj_write_frags) or as bmma column tables.
 *
 * The phases are plain functions of (matrix, thread index, thread count) so that the CPU test
 * (tests/cuda_gemm/nc_emulate.cpp) runs the very same index math, thread by thread.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gemm_bmma.cuh"
#include "nc_encode.cuh"
#include "nc_hdr.h"
#include "nc_prng.h"

namespace gfec {

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

/** Four GF(2^8) products by x (2) at once, one per byte of @p v. */
GFEC_BMMA_HD uint32_t nc_xtime4(uint32_t v)
{
	return ((v & 0x7f7f7f7fu) << 1) ^ (((v >> 7) & 0x01010101u) * 0x1du);
}

/**
 * Phase 4: mult[b * S + k] = (row c * 2^b) bytes k .. k + 3, for the words from the one holding
 * column c on (S = nc_gj_stride(n); mult holds 8 * S bytes). Thread tid takes words tid, tid + nt..
 */
GFEC_BMMA_HD void nc_gj_multiples(uint8_t *mult, const uint8_t *m, int n, int c, int tid, int nt)
{
	const int S = nc_gj_stride(n);
	const uint8_t *rc = m + (size_t)c * S;

	for (int k = 4 * ((c >> 2) + tid); k < S; k += 4 * nt) {
		uint32_t x = nc_ld32(rc + k);

		for (int b = 0; b < 8; b++) {
			nc_st32(mult + (size_t)b * S + k, x);
			x = nc_xtime4(x);
		}
	}
}

/**
 * Phase 5: row r ^= factor[r] * row c over columns c .. 2n-1. Threads work in groups of 32 (nt a
 * multiple of 32): group g takes rows g, g + nt / 32, ...; lane l the 4-byte words l, l + 32, ...
 * of the row from the word that holds column c (the bytes before c in it are 0 in row c), each
 * the XOR of the multiples (phase 4) that factor[r]'s bits select.
 */
GFEC_BMMA_HD void nc_gj_eliminate(uint8_t *m, const uint8_t *mult, const uint8_t *factor, int n,
				  int c, int tid, int nt)
{
	const int S = nc_gj_stride(n), lane = tid & 31;

	for (int r = tid >> 5; r < n; r += nt >> 5) {
		const uint32_t f = factor[r];

		if (!f)
			continue;
		uint8_t *row = m + (size_t)r * S;

		for (int k = 4 * ((c >> 2) + lane); k < S; k += 128) {
			uint32_t y = 0;

			for (int b = 0; b < 8; b++)
				if (f >> b & 1)
					y ^= nc_ld32(mult + (size_t)b * S + k);
			nc_st32(row + k, nc_ld32(row + k) ^ y);
		}
	}
}

/**
 * The inverse in the right half of @p m (n <= 128) as nc_gemm_ra's fragments: tile t (rows
 * t * kNcTileRows ..) at f + t * nc_tile_frags(kNcTileRows, n); this thread's uint4s tid,
 * tid + nt, ...
 */
GFEC_BMMA_HD void nc_gj_write_frags(uint32_t *f, const uint8_t *m, int n, int tid, int nt)
{
	const size_t tf = nc_tile_frags(kNcTileRows, n);
	const size_t total = tf * (size_t)((n + kNcTileRows - 1) / kNcTileRows);
	const int S = nc_gj_stride(n);

	for (size_t w = (size_t)tid; w < total; w += (size_t)nt) {
		const int r0 = (int)(w / tf) * kNcTileRows;
		const int rows = n - r0 < kNcTileRows ? n - r0 : kNcTileRows;
		auto coef = [m, n, r0, S](int i, int j) { return m[(size_t)(r0 + i) * S + n + j]; };

		for (int r = 0; r < 4; r++)
			f[4 * w + r] = nc_frag_word(n, rows, w % tf, r, coef);
	}
}

/**
 * Phase 4, products form: tab[v * S + k] = (v * row c) and tab[(16 + v) * S + k] = ((v << 4) *
 * row c), bytes k .. k + 3, v = 0..15 (tab holds 32 * S bytes), for the words from the one holding
 * column c on; each word's 32 products from its 8 multiples, one XOR each.
 */
GFEC_BMMA_HD void nc_gj_products(uint8_t *tab, const uint8_t *m, int n, int c, int tid, int nt)
{
	const int S = nc_gj_stride(n);
	const uint8_t *rc = m + (size_t)c * S;

	for (int k = 4 * ((c >> 2) + tid); k < S; k += 4 * nt) {
		uint32_t x[8];

		x[0] = nc_ld32(rc + k);
GFEC_BMMA_UNROLL
		for (int b = 1; b < 8; b++)
			x[b] = nc_xtime4(x[b - 1]);
GFEC_BMMA_UNROLL
		for (int h = 0; h < 2; h++) {
			uint32_t p[16];

			p[0] = 0;
GFEC_BMMA_UNROLL
			for (int v = 1; v < 16; v++) { // v's lowest bit b: p[v - 2^b] ^ x[4h + b]
				const int b = (v & 1) ? 0 : (v & 2) ? 1 : (v & 4) ? 2 : 3;

				p[v] = p[v & (v - 1)] ^ x[4 * h + b];
			}
GFEC_BMMA_UNROLL
			for (int v = 0; v < 16; v++)
				nc_st32(tab + (size_t)(16 * h + v) * S + k, p[v]);
		}
	}
}

/**
 * Phase 5, products form: row r ^= factor[r] * row c as the XOR of two rows of the products
 * table (factor[r]'s low and high nibble), groups of 32 threads as nc_gj_eliminate.
 */
GFEC_BMMA_HD void nc_gj_eliminate_products(uint8_t *m, const uint8_t *tab, const uint8_t *factor,
					   int n, int c, int tid, int nt)
{
	const int S = nc_gj_stride(n), lane = tid & 31;

	for (int r = tid >> 5; r < n; r += nt >> 5) {
		const uint32_t f = factor[r];

		if (!f)
			continue;
		uint8_t *row = m + (size_t)r * S;
		const uint8_t *lo = tab + (size_t)(f & 15) * S;
		const uint8_t *hi = tab + (size_t)(16 + (f >> 4)) * S;

		for (int k = 4 * ((c >> 2) + lane); k < S; k += 128)
			nc_st32(row + k, nc_ld32(row + k) ^ nc_ld32(lo + k) ^ nc_ld32(hi + k));
	}
}

/** Rows of S bytes of the pivot row's table: its 8 multiples, or its 32 products. */
GFEC_BMMA_HD int nc_gj_tab_rows(bool products)
{
	return products ? 32 : 8;
}

/** Dynamic shared memory of the inversion kernel for n: [M | I] unless it lies in global memory,
 *  the pivot row's table (multiples or products), factors and log/exp, in that order (the first
 *  two in 4-byte words). */
GFEC_BMMA_HD size_t nc_gj_smem(int n, bool global, bool products = false)
{
	return (global ? 0 : (size_t)n * nc_gj_stride(n)) + (size_t)n + 768 +
	       (size_t)nc_gj_tab_rows(products) * nc_gj_stride(n);
}

/** Its static shared memory (the pivot), rounded up: the per-block limit counts both. */
constexpr size_t kNcGjStaticSmem = 16;

/** A batch decode's per-segment status words: nc_parse_blocks, then nc_gj_invert, write them. */
enum { kNcDecodes = 0, kNcSingular = 1, kNcBadBlock = 2 };

} // namespace gfec

#if defined(__CUDACC__)
namespace gfec {

/**
 * Inverts @p m ([M | I] loaded) in place, the block's threads together; @p sm (4-byte aligned):
 * the multiples (8 * nc_gj_stride(n) bytes, read and written in words), factors (n) and log/exp
 * (768, loaded). Returns 1 when M is singular, else 0 with M^-1 in the right half. Every thread
 * returns the same.
 */
template <bool Products> __device__ int nc_gj_run(uint8_t *m, uint8_t *sm, int n, int *piv)
{
	uint8_t *mult = sm, *factor = sm + (size_t)nc_gj_tab_rows(Products) * nc_gj_stride(n);
	uint8_t *logexp = factor + n;
	const int tid = threadIdx.x, nt = blockDim.x;

	if (tid == 0)
		*piv = n;
	__syncthreads();
	for (int c = 0; c < n; c++) {
		const int offer = nc_gj_offer(m, n, c, tid, nt);

		if (offer < n)
			atomicMin(piv, offer);
		__syncthreads();
		const int p = *piv;

		if (p == n) // uniform: every thread read the same piv
			return 1;
		const uint8_t iv = nc_inv(logexp, m[(size_t)p * nc_gj_stride(n) + c]);

		for (int r = tid; r < n; r += nt)
			factor[r] = nc_gj_factor(m, n, c, p, r);
		__syncthreads();
		if (tid == 0)
			*piv = n; // read by everyone before the barrier above
		nc_gj_swap_scale(m, logexp, n, c, p, iv, tid, nt);
		__syncthreads();
		if (Products)
			nc_gj_products(mult, m, n, c, tid, nt);
		else
			nc_gj_multiples(mult, m, n, c, tid, nt);
		__syncthreads();
		if (Products)
			nc_gj_eliminate_products(m, mult, factor, n, c, tid, nt);
		else
			nc_gj_eliminate(m, mult, factor, n, c, tid, nt);
		__syncthreads();
	}
	return 0;
}

/**
 * Inverts mats[i] (n x n) for i < nmat whose status[i] is 0 on entry (others are skipped), and
 * writes each inverse for the GEMM at tables + i * seg_words: with @p frags, as nc_gemm_ra's
 * fragments (nc_gj_write_frags; n <= 128); else as the bmma column tables of row tiles of
 * @p tile_rows (a multiple of 8), tile t (rows t * tile_rows ..) at + t *
 * bmma_table_words(tile_rows, n). status[i] = kNcSingular when the matrix is singular (then
 * nothing is written). Blocks take the matrices
 * in turn (i = blockIdx.x, + gridDim.x, ...). Global: [M | I] in @p scratch, n *
 * nc_gj_stride(n) bytes per block, instead of shared memory (nc_gj_smem(n, Global) either way).
 */
template <bool Global, bool Products>
__global__ void nc_gj_invert(const uint8_t *mats, int n, int nmat, const uint8_t *logexp_g,
			     uint32_t *tables, size_t seg_words, int tile_rows, int frags,
			     int *status, uint8_t *scratch)
{
	extern __shared__ __align__(16) uint8_t sm[];
	const int S = nc_gj_stride(n);
	uint8_t *m = Global ? scratch + (size_t)blockIdx.x * n * S : sm;
	uint8_t *rest = Global ? sm : sm + (size_t)n * S;
	uint8_t *logexp = rest + (size_t)nc_gj_tab_rows(Products) * S + n;
	__shared__ int piv;
	const int tid = threadIdx.x, nt = blockDim.x;
	const size_t tile_words = bmma_table_words(tile_rows, n);

	for (int i = tid; i < 768; i += nt)
		logexp[i] = logexp_g[i];
	for (size_t mat = blockIdx.x; mat < (size_t)nmat; mat += gridDim.x) {
		__syncthreads(); // the previous matrix's tables are read out of m
		if (status[mat]) // uniform, and written by this block only after this read
			continue;
		nc_gj_load(m, mats + mat * n * n, n, tid, nt);
		if (nc_gj_run<Products>(m, rest, n, &piv)) {
			if (tid == 0)
				status[mat] = kNcSingular;
			continue;
		}
		if (frags) {
			nc_gj_write_frags(tables + mat * seg_words, m, n, tid, nt);
			continue;
		}
		for (int r0 = 0; r0 < n; r0 += tile_rows) {
			const int rows = n - r0 < tile_rows ? n - r0 : tile_rows;
			const int nsub = bmma_nsub(rows);
			const size_t words = bmma_table_words(rows, n);
			auto coef = [m, n, r0, S](int i, int j) {
				return m[(size_t)(r0 + i) * S + n + j];
			};
			uint32_t *t = tables + mat * seg_words + (size_t)(r0 / tile_rows) * tile_words;

			for (size_t w = tid; w < words; w += nt) {
				uint32_t v = 0;

				for (int q = 0; q < 4; q++)
					v |= (uint32_t)nc_table_byte(4 * w + q, rows, nsub, coef)
					     << (8 * q);
				t[w] = v;
			}
		}
	}
}

/**
 * The headers of segment s's n blocks (blocks[s * n + r], lens[s * n + r] bytes readable, device
 * memory) read with gfec_nc_hdr_parse against (n, B, ids[s], zero_ok); segments in turn by block.
 * When every one passes: their coefficient rows into mats + s * n * n, their payloads' addresses
 * into pay[s * n + r], status[s] = kNcDecodes, and in *misaligned bit 0 if a payload is not
 * 16-byte aligned, bits 0 and 1 if it is not 4-byte aligned.
 * Else status[s] = kNcBadBlock. Dynamic shared memory: n gfec_nc_hdr_row.
 */
__global__ void nc_parse_blocks(const uint8_t *const *blocks, const size_t *lens,
				const uint64_t *ids, int n, uint32_t B, int zero_ok, int nseg,
				uint8_t *mats, const uint8_t **pay, int *status, int *misaligned)
{
	extern __shared__ gfec_nc_hdr_row hrow[];
	__shared__ int bad;
	const int tid = threadIdx.x, nt = blockDim.x;

	for (size_t s = blockIdx.x; s < (size_t)nseg; s += gridDim.x) {
		const uint8_t *const *blk = blocks + s * n;

		if (tid == 0)
			bad = 0;
		__syncthreads();
		for (int r = tid; r < n; r += nt) {
			const gfec_nc_hdr_row h =
				gfec_nc_hdr_parse(blk[r], lens[s * n + r], (uint32_t)n, B, ids[s], zero_ok);

			hrow[r] = h;
			if (!h.how) {
				bad = 1;
				continue;
			}
			pay[s * n + r] = blk[r] + h.off;
			if ((uintptr_t)(blk[r] + h.off) % 16)
				atomicOr(misaligned, (uintptr_t)(blk[r] + h.off) % 4 ? 3 : 1);
		}
		__syncthreads();
		if (!bad)
			for (size_t i = tid; i < (size_t)n * n; i += nt) {
				const int r = (int)(i / n);

				mats[s * n * n + i] =
					gfec_nc_hdr_coef(hrow[r], blk[r], (uint32_t)(i % n), zero_ok);
			}
		if (tid == 0)
			status[s] = bad ? kNcBadBlock : kNcDecodes;
		__syncthreads(); // bad and hrow are the next segment's
	}
}

/** src[y * n + j] = pay[good[y] * n + j] for y < ng: the payloads of the segments that decode. */
__global__ void nc_gather_payloads(const uint8_t *const *pay, const size_t *good, int n, size_t ng,
				   const uint8_t **src)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < ng * n;
	     i += (size_t)gridDim.x * blockDim.x)
		src[i] = pay[good[i / n] * n + i % n];
}

/**
 * Payload i (B bytes at src[i], B a multiple of 16, any alignment) to stage + i * B, whose
 * address goes to staged[i]: the GEMM's 16-byte loads then apply. One block per payload in turn;
 * 4-byte loads where the source allows, bytes otherwise.
 */
__global__ void nc_stage_payloads(const uint8_t *const *src, size_t B, size_t count,
				  uint8_t *stage, const uint8_t **staged)
{
	for (size_t i = blockIdx.x; i < count; i += gridDim.x) {
		const uint8_t *s = src[i];
		uint4 *d = reinterpret_cast<uint4 *>(stage + i * B);

		if (threadIdx.x == 0)
			staged[i] = stage + i * B;
		if ((uintptr_t)s % 4 == 0) {
			const uint32_t *s4 = reinterpret_cast<const uint32_t *>(s);

			for (size_t w = threadIdx.x; w < B / 16; w += blockDim.x)
				d[w] = make_uint4(s4[4 * w], s4[4 * w + 1], s4[4 * w + 2], s4[4 * w + 3]);
		} else {
			for (size_t b = threadIdx.x; b < B; b += blockDim.x)
				stage[i * B + b] = s[b];
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

/**
 * The header of block i = s * count + j at out + i * stride: the @p hlen bytes of template s
 * (tmpl + s * hlen) with seed0 + j, little-endian, in its 4 bytes at @p seed_off. One thread a
 * block; 4-byte words where @p words (out, stride, hlen and seed_off multiples of 4).
 */
__global__ void nc_seed_headers(const uint8_t *tmpl, size_t hlen, size_t seed_off, uint32_t seed0,
				uint32_t count, size_t nblk, uint8_t *out, size_t stride, int words)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nblk;
	     i += (size_t)gridDim.x * blockDim.x) {
		const uint8_t *t = tmpl + i / count * hlen;
		const uint32_t seed = seed0 + (uint32_t)(i % count);
		uint8_t *d = out + i * stride;

		if (words) {
			for (size_t w = 0; w < hlen / 4; w++)
				reinterpret_cast<uint32_t *>(d)[w] =
					4 * w == seed_off ? seed
							  : reinterpret_cast<const uint32_t *>(t)[w];
			continue;
		}
		for (size_t b = 0; b < hlen; b++)
			d[b] = b - seed_off < 4 ? (uint8_t)(seed >> (8 * (b - seed_off))) : t[b];
	}
}

} // namespace gfec
#endif // __CUDACC__
