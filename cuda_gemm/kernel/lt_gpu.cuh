// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file lt_gpu.cuh
 * The batched LT encoder on the GPU (gfec_gpu_lt.h, issue 14): every coded block's degree and
 * neighbours are drawn on the device from its seed by lt_dist.h's very functions, and its payload
 * is the XOR of its d source blocks, read through L2 (n * B = 10 MiB at n = 10240, B = 1 KiB,
 * fits the H200's L2, 60 MiB as the device reports it). Four launches per call:
 *
 *   lt_degrees    one thread per coded block i: deg[i] = gfec_lt_degree(seed0 + i); a block of
 *                 more than kLtItem neighbours (a multi-item block: 4% of the blocks at n = 10240,
 *                 70% of the neighbours) is listed (multi[]) and takes its items' range by an
 *                 atomic add (ioff[i]; any order of the adds gives the same bytes)
 *   lt_indices    one warp per multi-item block: its Floyd neighbours into
 *                 idx[ioff[i] * kLtItem ...], 32 draws per round, and the item table
 *                 item[ioff[i] + g] = (i, g)
 *   lt_xor        one warp per unit, every segment in turn: units 0 .. count - 1 are the blocks,
 *                 a block of at most kLtItem neighbours drawing them itself (into shared memory:
 *                 no index in global memory) and writing its output, a multi-item block its
 *                 item 0 into its output; units count + k are item k, written (g >= 1) into its
 *                 partial slot
 *   lt_combine    one warp per multi-item block: out ^= its partials
 *
 * Splitting a block's neighbours into items of kLtItem keeps every warp's work within
 * kLtItem * B bytes: the robust soliton tail (P(d >= x) ~ 1/x, d up to n) would otherwise leave
 * one warp reading megabytes while the rest of the GPU idles. (The thesis sorted blocks by degree
 * for the same reason; with equal-sized items no sort is needed.) The host reads back the two
 * counts (multi-item blocks, items) between lt_degrees and lt_indices, to size the index, the
 * item table and the partials, which now cover the multi-item blocks alone.
 *
 * Floyd on a warp (lt_dist.h: for t = 0..d-1, j = n - d + t: v = draw(t) in 0..j; idx[t] = v if v
 * is not yet chosen, else j): draws t0 .. t0 + 31 are made by the 32 lanes at once. Lane t takes
 * j_t (c_t = 1) when v_t is in the earlier rounds' choices (a bitmap of n bits in shared memory,
 * one per warp, kept only when d > 32) or equals an earlier lane's choice idx_s, which is v_s when
 * c_s = 0 and j_s = jbase + s when c_s = 1. A lower lane with the same draw either took it or found
 * it taken, so:
 *
 *     c_t = bitmap(v_t) | OR_{s < t} (v_s == v_t) | OR_{s < t} (c_s & j_s == v_t)
 *
 * Each c_t depends on lower lanes only, so iterating c <- f(c) over the whole warp (one ballot per
 * step, __match_any_sync once for the v_s == v_t lanes) is exact after at most 32 steps, and stops
 * at the first step that changes nothing: that c is a fixed point, and the recurrence has only
 * one. Most rounds stop after one step; no round runs on one lane. tests/cuda_gemm/lt_emulate.cpp
 * runs these functions on the CPU, round by round, against gfmatrix/lt.c.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "lt_dist.h"

#ifdef __CUDACC__
#define GFEC_LT_HD __host__ __device__ __forceinline__
#else
#define GFEC_LT_HD inline
#endif

namespace gfec {

/** Neighbours per item: the most source blocks one warp XORs for one output. */
constexpr uint32_t kLtItem = 64;
/** Largest n: GFEC_NC_MAX_N, the block format's bound (and 8 KiB of bitmap per warp). */
constexpr uint32_t kLtMaxN = 65536;

/** Items of a block of degree @p d. */
GFEC_LT_HD uint32_t lt_items(uint32_t d)
{
	return (d + kLtItem - 1) / kLtItem;
}

/** Floyd's draw t of a block of degree d (j = n - d + t): v in 0..j, as lt_dist.h makes it. */
GFEC_LT_HD uint32_t lt_draw(uint32_t key, uint32_t j, uint32_t t)
{
	uint32_t x = gfec_nc_mix32(key ^ ((t + 1U) * 0x9E3779B1U));

	return (uint32_t)(((uint64_t)x * ((uint64_t)j + 1U)) >> 32);
}

/**
 * One step of a round's recurrence for lane @p lane (draw @p v; @p in_bm: v is in the earlier
 * rounds' bitmap; @p same_below: a lower lane drew v too; @p c: bit s = c_s of the last step):
 * whether the lane takes its j.
 */
GFEC_LT_HD int lt_conflict(uint32_t v, uint32_t jbase, uint32_t lane, int in_bm, int same_below,
			   uint32_t c)
{
	return in_bm || same_below || (v >= jbase && v - jbase < lane && (c >> (v - jbase) & 1));
}

GFEC_LT_HD int lt_bit(const uint32_t *bm, uint32_t v)
{
	return (int)(bm[v >> 5] >> (v & 31) & 1);
}

/** 16 bytes, the unit of the vector path: uint4 under nvcc (for __ldg and __stcs). */
#ifdef __CUDACC__
typedef uint4 LtU4;
#else
struct alignas(16) LtU4 {
	uint32_t x, y, z, w;
};
#endif

/** Item g of coded block blk: its neighbours kLtItem * g .. kLtItem * (g + 1) - 1. */
struct LtPair {
	uint32_t blk, g;
};

GFEC_LT_HD void lt_xor4(LtU4 &a, const LtU4 &b)
{
	a.x ^= b.x, a.y ^= b.y, a.z ^= b.z, a.w ^= b.w;
}

/** What lt_xor and lt_combine see. */
struct LtArgs {
	const uint8_t *const *segs; // nseg segment pointers (device array)
	uint8_t *out;		    // block (s, i) at out + (s * count + i) * stride
	uint8_t *partial;	    // item it of segment s at partial + (s * items + it) * B (g >= 1)
	const uint32_t *deg;	    // count
	const uint32_t *ioff;	    // count: first item of block i (multi-item blocks only)
	const uint32_t *idx;	    // items * kLtItem: neighbours of item it at it * kLtItem
	const LtPair *item;	    // items: (block, g), the multi-item blocks' items
	size_t B, stride, units;    // units = B / 16 on the vector path
	uint32_t count, items;	    // coded blocks; items of the multi-item blocks
	uint32_t n, seed0;	    // what a block of one item draws its neighbours from
	int nseg, vec;		    // vec: 16-byte units (B and the segments 16-byte aligned)
	int out16;		    // vec's outputs take 16-byte stores (else four of 4 bytes: out
				    // and stride 4-byte aligned, as payloads after a block header)
};

/**
 * The paths of an encode (LtArgs' vec and out16): 16-byte units where B is a multiple of 16 and
 * the @p nseg segments are 16-byte aligned, stored 16 bytes at a time where @p out and @p stride
 * allow, else 4 (both multiples of 4: payloads after a block header), else the byte path.
 */
inline void lt_paths(size_t B, const uint8_t *const *segs, int nseg, const uint8_t *out,
		     size_t stride, int *vec, int *out16)
{
	*out16 = stride % 16 == 0 && (uintptr_t)out % 16 == 0;
	*vec = B % 16 == 0 && (*out16 || (stride % 4 == 0 && (uintptr_t)out % 4 == 0));
	for (int s = 0; s < nseg; s++)
		*vec &= (uintptr_t)segs[s] % 16 == 0;
}

template <class T> GFEC_LT_HD T lt_load(const T *p)
{
#ifdef __CUDA_ARCH__
	return __ldg(p);
#else
	return *p;
#endif
}

/**
 * The 16 bytes at @p p = v, in one store where @p a16 (p 16-byte aligned), else in four of 4 bytes
 * (p 4-byte aligned); outputs (@p stream) bypass L2's normal policy so that the sources stay there.
 */
GFEC_LT_HD void lt_store(uint8_t *p, const LtU4 &v, int stream, int a16)
{
	uint32_t *w = (uint32_t *)p;

#ifdef __CUDA_ARCH__
	if (stream && a16) {
		__stcs((LtU4 *)p, v);
		return;
	}
	if (stream) {
		__stcs(w, v.x), __stcs(w + 1, v.y), __stcs(w + 2, v.z), __stcs(w + 3, v.w);
		return;
	}
#endif
	(void)stream;
	if (a16) {
		*(LtU4 *)p = v;
		return;
	}
	w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
}

/** The 16 bytes at @p p, aligned as lt_store's. */
GFEC_LT_HD LtU4 lt_fetch(const uint8_t *p, int a16)
{
	const uint32_t *w = (const uint32_t *)p;

	if (a16)
		return *(const LtU4 *)p;
	return LtU4{ w[0], w[1], w[2], w[3] };
}

/**
 * dst = XOR of the @p cnt source blocks nb[0 .. cnt - 1] of segment @p s: units lane + 32 k for
 * lane @p lane of its warp (vector path); @p stream: dst is an output, stored past L2's policy.
 */
GFEC_LT_HD void lt_xor_vec(const LtArgs &a, const uint32_t *nb, uint32_t cnt, int s, uint8_t *dst8,
			   int stream, uint32_t lane)
{
	const LtU4 *seg = (const LtU4 *)a.segs[s];
	const size_t bu = a.B / 16;
	const int a16 = a.out16 || !stream; // partials are 16-byte aligned

	for (size_t u = lane; u < a.units; u += 64) {
		const int two = u + 32 < a.units;
		LtU4 acc0 = { 0, 0, 0, 0 }, acc1 = { 0, 0, 0, 0 };
		uint32_t k = 0;

		for (; k + 4 <= cnt; k += 4) {
			const LtU4 *p0 = seg + nb[k] * bu + u, *p1 = seg + nb[k + 1] * bu + u;
			const LtU4 *p2 = seg + nb[k + 2] * bu + u, *p3 = seg + nb[k + 3] * bu + u;
			LtU4 a0 = lt_load(p0), a1 = lt_load(p1), a2 = lt_load(p2), a3 = lt_load(p3);

			lt_xor4(acc0, a0), lt_xor4(acc0, a1), lt_xor4(acc0, a2), lt_xor4(acc0, a3);
			if (two) {
				LtU4 b0 = lt_load(p0 + 32), b1 = lt_load(p1 + 32);
				LtU4 b2 = lt_load(p2 + 32), b3 = lt_load(p3 + 32);

				lt_xor4(acc1, b0), lt_xor4(acc1, b1), lt_xor4(acc1, b2);
				lt_xor4(acc1, b3);
			}
		}
		for (; k < cnt; k++) {
			const LtU4 *p = seg + nb[k] * bu + u;

			lt_xor4(acc0, lt_load(p));
			if (two)
				lt_xor4(acc1, lt_load(p + 32));
		}
		lt_store(dst8 + 16 * u, acc0, stream, a16);
		if (two)
			lt_store(dst8 + 16 * (u + 32), acc1, stream, a16);
	}
}

/** The byte path of lt_xor_vec (any B, any alignment): bytes lane + 32 k. */
GFEC_LT_HD void lt_xor_bytes(const LtArgs &a, const uint32_t *nb, uint32_t cnt, int s,
			     uint8_t *dst, uint32_t lane)
{
	const uint8_t *seg = a.segs[s];

	for (size_t b = lane; b < a.B; b += 32) {
		uint8_t acc = 0;

		for (uint32_t k = 0; k < cnt; k++)
			acc ^= seg[(size_t)nb[k] * a.B + b];
		dst[b] = acc;
	}
}

/** Item @p it of segment @p s, lane @p lane: into block i's output (g = 0) or its partial slot. */
GFEC_LT_HD void lt_item(const LtArgs &a, size_t it, int s, uint32_t lane)
{
	const LtPair bg = a.item[it];
	const uint32_t d = a.deg[bg.blk], g = bg.g;
	const uint32_t cnt = d - g * kLtItem < kLtItem ? d - g * kLtItem : kLtItem;
	const uint32_t *nb = a.idx + it * kLtItem;
	uint8_t *dst = g == 0 ? a.out + ((size_t)s * a.count + bg.blk) * a.stride
			      : a.partial + ((size_t)s * a.items + it) * a.B;

	if (a.vec)
		lt_xor_vec(a, nb, cnt, s, dst, g == 0, lane);
	else
		lt_xor_bytes(a, nb, cnt, s, dst, lane);
}

/** Whether unit @p w of lt_xor is a block of one item, which draws its neighbours itself. */
GFEC_LT_HD int lt_unit_draws(const LtArgs &a, size_t w)
{
	return w < a.count && a.deg[w] <= kLtItem;
}

/**
 * Unit @p w of lt_xor for segment @p s, lane @p lane; @p nb: the block's neighbours when
 * lt_unit_draws (drawn by the warp), else unused.
 */
GFEC_LT_HD void lt_unit(const LtArgs &a, size_t w, const uint32_t *nb, int s, uint32_t lane)
{
	if (w >= a.count) {
		if (a.item[w - a.count].g) // item 0 is its block's unit
			lt_item(a, w - a.count, s, lane);
		return;
	}
	const uint32_t i = (uint32_t)w, d = a.deg[i];
	uint8_t *dst = a.out + ((size_t)s * a.count + i) * a.stride;

	if (d > kLtItem)
		lt_item(a, a.ioff[i], s, lane);
	else if (a.vec)
		lt_xor_vec(a, nb, d, s, dst, 1, lane);
	else
		lt_xor_bytes(a, nb, d, s, dst, lane);
}

/** Block @p i of segment @p s, lane @p lane: out ^= its partials (blocks of one item: nothing). */
GFEC_LT_HD void lt_combine_block(const LtArgs &a, uint32_t i, int s, uint32_t lane)
{
	const uint32_t ni = lt_items(a.deg[i]);
	uint8_t *dst = a.out + ((size_t)s * a.count + i) * a.stride;
	const uint8_t *part = a.partial + ((size_t)s * a.items + a.ioff[i] + 1) * a.B;

	if (ni < 2)
		return;
	if (a.vec) {
		for (size_t u = lane; u < a.units; u += 32) {
			LtU4 acc = lt_fetch(dst + 16 * u, a.out16);

			for (uint32_t g = 1; g < ni; g++)
				lt_xor4(acc, ((const LtU4 *)(part + (size_t)(g - 1) * a.B))[u]);
			lt_store(dst + 16 * u, acc, 0, a.out16);
		}
		return;
	}
	for (size_t b = lane; b < a.B; b += 32) {
		uint8_t acc = dst[b];

		for (uint32_t g = 1; g < ni; g++)
			acc ^= part[(size_t)(g - 1) * a.B + b];
		dst[b] = acc;
	}
}

#if defined(__CUDACC__)

constexpr int kLtWarps = 4; // warps per thread block of lt_indices, lt_xor and lt_combine

// cnt[0]: multi-item blocks listed in multi[], cnt[1]: their items (both zero before).
__global__ void lt_degrees(const uint32_t *cdf, uint32_t len, uint32_t seed0, uint32_t count,
			   uint32_t *deg, uint32_t *ioff, uint32_t *multi, uint32_t *cnt)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
	     i += (size_t)gridDim.x * blockDim.x) {
		const uint32_t d = gfec_lt_degree(cdf, len, gfec_nc_prng_key(seed0 + (uint32_t)i));

		deg[i] = d;
		if (d > kLtItem) {
			multi[atomicAdd(&cnt[0], 1U)] = (uint32_t)i;
			ioff[i] = atomicAdd(&cnt[1], lt_items(d));
		}
	}
}

// The d Floyd neighbours of the block with key @p key into out[0 .. d-1], by one warp (lane
// @p lane) with its zero bitmap @p bm of nwords words, left zero.
__device__ __forceinline__ void lt_floyd(uint32_t key, uint32_t n, uint32_t d, uint32_t lane,
					 uint32_t nwords, uint32_t *bm, uint32_t *out)
{
	const int multi = d > 32; // later rounds test the earlier ones' bitmap

	for (uint32_t t0 = 0; t0 < d; t0 += 32) {
		const uint32_t t = t0 + lane, jbase = n - d + t0;
		const int active = t < d;
		const uint32_t j = n - d + t, v = active ? lt_draw(key, j, t) : 0xFFFFFFFFu;
		const int same = (__match_any_sync(0xFFFFFFFFu, v) & ((1U << lane) - 1)) != 0;
		const int in_bm = active && t0 && lt_bit(bm, v);
		uint32_t c = __ballot_sync(0xFFFFFFFFu, in_bm), prev;

		do { // warp-uniform: every lane holds the same c
			prev = c;
			c = __ballot_sync(0xFFFFFFFFu,
					  active && lt_conflict(v, jbase, lane, in_bm, same, prev));
		} while (c != prev);
		if (active) {
			const uint32_t x = c >> lane & 1 ? j : v;

			out[t] = x;
			if (multi)
				atomicOr(&bm[x >> 5], 1U << (x & 31));
		}
		__syncwarp();
	}
	if (multi) {
		for (uint32_t w = lane; w < nwords; w += 32)
			bm[w] = 0;
		__syncwarp();
	}
}

// Dynamic shared memory: kLtWarps bitmaps of ceil(n / 32) words, zero between blocks.
__global__ void __launch_bounds__(kLtWarps * 32)
	lt_indices(uint32_t n, uint32_t seed0, const uint32_t *deg, const uint32_t *ioff,
		   const uint32_t *multi, uint32_t nmulti, uint32_t *idx, LtPair *item)
{
	extern __shared__ uint32_t lt_smem[];
	const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const uint32_t nwords = (n + 31) / 32;
	uint32_t *bm = lt_smem + warp * nwords;

	for (uint32_t w = threadIdx.x; w < nwords * kLtWarps; w += blockDim.x)
		lt_smem[w] = 0;
	__syncthreads();
	for (size_t k = blockIdx.x * (size_t)kLtWarps + warp; k < nmulti;
	     k += (size_t)gridDim.x * kLtWarps) {
		const uint32_t i = multi[k], d = deg[i], first = ioff[i];

		for (uint32_t g = lane; g < lt_items(d); g += 32)
			item[first + g] = LtPair{ i, g };
		lt_floyd(gfec_nc_prng_key(seed0 + i), n, d, lane, nwords, bm,
			 idx + (size_t)first * kLtItem);
	}
}

// Dynamic shared memory: per warp a bitmap of ceil(n / 32) words (zero between blocks) and the
// kLtItem neighbours of a block of one item.
__global__ void __launch_bounds__(kLtWarps * 32) lt_xor(LtArgs a)
{
	extern __shared__ uint32_t lt_smem[];
	const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const uint32_t nwords = (a.n + 31) / 32;
	uint32_t *bm = lt_smem + warp * (nwords + kLtItem), *nb = bm + nwords;
	const size_t total = (size_t)a.count + a.items;

	for (uint32_t w = threadIdx.x; w < (nwords + kLtItem) * kLtWarps; w += blockDim.x)
		lt_smem[w] = 0;
	__syncthreads();
	for (size_t w = blockIdx.x * (size_t)kLtWarps + warp; w < total;
	     w += (size_t)gridDim.x * kLtWarps) {
		if (lt_unit_draws(a, w))
			lt_floyd(gfec_nc_prng_key(a.seed0 + (uint32_t)w), a.n, a.deg[w], lane, nwords,
				 bm, nb);
		for (int s = 0; s < a.nseg; s++)
			lt_unit(a, w, nb, s, lane);
		__syncwarp(); // every lane has read nb before the next unit rewrites it
	}
}

__global__ void __launch_bounds__(kLtWarps * 32)
	lt_combine(LtArgs a, const uint32_t *multi, uint32_t nmulti)
{
	const uint32_t lane = threadIdx.x & 31;

	for (size_t k = blockIdx.x * (size_t)kLtWarps + (threadIdx.x >> 5); k < nmulti;
	     k += (size_t)gridDim.x * kLtWarps)
		for (int s = 0; s < a.nseg; s++)
			lt_combine_block(a, multi[k], s, lane);
}

#endif // __CUDACC__

} // namespace gfec
