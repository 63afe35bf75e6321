// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file nc_encode.cuh
 * The seeded network-coding encode on the binary tensor cores (gfec_gpu_nc_encode): coded block
 * (s, i) = sum_j A(i, j) * block j of segment s, A(i, j) = gfec_nc_prng_coef(key(seed0 + i), j),
 * one GEMM with M = count coded rows, K = n source blocks, N = nseg * B byte positions; and the
 * batch decode's GEMM (nc.cu), the same product with one A (an inverse) per segment. Two launches
 * per encode (nc_encode.cu):
 *
 *   nc_encode_prep  the A fragments of every tile of R coded rows, in the very register order of
 *                   gemm_bmma.cuh's [frag] area (uint4 {a0, a1, a2, a3} at bmma_frag_index(sub,
 *                   ks, mi, lane, nks)), drawn from the seeds on the device (nc_seed_frag:
 *                   bmma_frag_word of bmma_build_table of the CPU's matrix), and the pointers
 *   GEMM            a persistent grid over units (tile, segment, block of P positions), each
 *                   thread block one contiguous range of them:
 *     nc_gemm_ra    n <= 128: every warp keeps its 8 rows' fragments in registers for the whole
 *                   range (reloaded when the tile changes) and runs every 32 positions of the
 *                   staged unit with them: no fragment is read from shared memory, which held
 *                   2/3 of the shared-memory traffic of the kernel below
 *     nc_encode_bmma any n: the tile's fragments (R KiB at n = 128) copied into shared memory once
 *                   per tile a block meets, then gemm_bmma.cuh's warp unit (bmma_pair)
 *
 * tests/cuda_gemm/nc_emulate.cpp checks nc_seed_frag against bmma_frag_word of bmma_build_table of
 * gfec_nc_prng_row's rows, and the decode's fragments (nc_gpu.cuh) likewise.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "gemm_bmma.cuh"
#include "nc_prng.h"

namespace gfec {

/** Multiplication by x (2) in GF(2^8), polynomial 0x11D. */
GFEC_BMMA_HD uint8_t nc_xtime(uint8_t v)
{
	return (uint8_t)((v << 1) ^ ((v & 0x80) ? 0x1d : 0));
}

/**
 * Bit plane @p l of coefficient @p c: bit x = bit l of c * 2^x, the byte of bmma_build_table's
 * table for (coefficient c, output bit l). The encode's fragments and the decode's (nc_gpu.cuh)
 * are both made of it.
 */
GFEC_BMMA_HD uint8_t nc_bmma_bits(uint8_t c, int l)
{
	uint8_t v = 0;

	for (int x = 0; x < 8; x++) {
		v |= (uint8_t)(((c >> l) & 1) << x);
		c = nc_xtime(c);
	}
	return v;
}

/** A(i, j) of a seeded encode: the coefficient of source block j in the block of seed0 + i. */
struct NcSeedCoef {
	uint32_t seed0;
	int zero_ok;
	GFEC_BMMA_HD uint8_t operator()(int i, int j) const
	{
		return gfec_nc_prng_coef(gfec_nc_prng_key(seed0 + (uint32_t)i), (uint32_t)j,
					 zero_ok);
	}
};

/** Rows per tile of nc_gemm_ra: one row subset (8 rows) per warp, 8 warps. */
constexpr int kNcTileRows = 64;

/** uint4s of one tile's fragments: every row subset of R rows, every k-step of n columns. */
GFEC_BMMA_HD size_t nc_tile_frags(int R, int n)
{
	return (size_t)bmma_nsub(R) * bmma_nks(n) * 4 * 32;
}

/**
 * Register @p r (0..3 = a0..a3) of fragment @p i (bmma_frag_index order) of a tile of R rows
 * whose first @p rows exist, A(i, j) = @p coef(i, j) (tile rows): bmma_frag_word of the tile's
 * column table, 0 past its last row and past n.
 */
template <class Coef>
GFEC_BMMA_HD uint32_t nc_frag_word(int n, int rows, size_t i, int r, const Coef &coef)
{
	const int nks = bmma_nks(n);
	const int lane = (int)(i & 31), mi = (int)((i >> 5) & 3), sk = (int)(i >> 7);
	const int ks = sk % nks, sub = sk / nks;
	const int g = lane >> 2, t = lane & 3, q = t + 4 * (r >> 1), l = 2 * mi + (r & 1);
	const int row = 8 * sub + g;
	uint32_t w = 0;

	if (row >= rows)
		return 0;
	for (int jj = 0; jj < 4; jj++) {
		const int j = ks * kBmmaChunksPerStep + 4 * q + jj;

		if (j < n)
			w |= (uint32_t)nc_bmma_bits(coef(row, j), l) << (8 * jj);
	}
	return w;
}

/**
 * nc_frag_word of row tile @p tile (rows tile * R ..) of the encode of @p count rows with seeds
 * seed0 ...
 */
GFEC_BMMA_HD uint32_t nc_seed_frag(int n, uint32_t count, int R, uint32_t seed0, int zero_ok,
				   uint32_t tile, size_t i, int r)
{
	const uint32_t r0 = tile * (uint32_t)R;
	const int rows = count - r0 < (uint32_t)R ? (int)(count - r0) : R;

	return nc_frag_word(n, rows, i, r, NcSeedCoef{ seed0 + r0, zero_ok });
}

} // namespace gfec

#if defined(__CUDACC__)

#include "gemm_args.cuh"

namespace gfec {

/** What the GEMM kernels of network coding see (nc_gemm_ra, nc_encode_bmma). */
struct NcGemmArgs {
	GemmArgs g;	     // src: nseg * cols source pointers; dst: nseg * rows outputs
			     // (segment s's row i at dst[s * rows + i]); len, vec (sources
			     // 16-byte aligned), nstripes = nseg; acc 0
	const uint4 *frags;  // tile t of segment s at frags + map(s) * seg_frags + t * tile_frags
	size_t seg_frags;    // 0: the same tiles for every segment (the seeded encode)
	const size_t *seg_map; // map(s) = seg_map[s]; nullptr: map(s) = s
	size_t tile_frags;   // nc_tile_frags(R, cols)
	size_t units;	     // ntiles * nseg * ceil(len / P)
	uint32_t ntiles;     // ceil(rows / R)
	int R;		     // rows per tile (kNcTileRows for nc_gemm_ra)
	int seg_major;	     // units ordered (segment, tile, block), not (tile, segment, block)
};

/** Unit u's (tile, segment, position block) in the order a.seg_major says. */
__device__ __forceinline__ void nc_unit(const NcGemmArgs &a, size_t pblocks, size_t u,
					uint32_t *tile, size_t *s, size_t *pb)
{
	const size_t rest = u / pblocks;

	*pb = u % pblocks;
	if (a.seg_major)
		*tile = (uint32_t)(rest % a.ntiles), *s = rest / a.ntiles;
	else
		*s = rest % (size_t)a.g.nstripes, *tile = (uint32_t)(rest / a.g.nstripes);
}

/** The unit after (tile, s, pb), in place. */
__device__ __forceinline__ void nc_unit_next(const NcGemmArgs &a, size_t pblocks, uint32_t *tile,
					     size_t *s, size_t *pb)
{
	if (++*pb < pblocks)
		return;
	*pb = 0;
	if (a.seg_major) {
		if (++*tile == a.ntiles)
			*tile = 0, ++*s;
	} else if (++*s == (size_t)a.g.nstripes) {
		*s = 0, ++*tile;
	}
}

/**
 * Dynamic shared memory of nc_gemm_ra: its two stage buffers of P positions (the fragments stay
 * in registers).
 */
inline size_t nc_gemm_ra_smem(int n, int P)
{
	return 2 * bmma_stage_bytes(n, P);
}

/**
 * One position subtile of nc_gemm_ra: the KS k-steps' MMAs into @p acc from the raw B words @p w
 * (loaded a k-step ahead; past the last k-step the next subtile's first words, from @p bl_next),
 * then the pack and store of @p prev (the subtile before, when @p has_prev), placed after this
 * subtile's first k-step so that its ALU work runs while those MMAs are in flight.
 */
template <int KS, int P, int NN>
__device__ __forceinline__ void nc_ra_subtile(const GemmArgs &args, const uint4 (*af)[4],
					      uint32_t (*w)[4][NN / 4], const uint8_t *bl,
					      const uint8_t *bl_next, int32_t (*acc)[NN][4],
					      const int32_t (*prev)[NN][4], bool has_prev,
					      uint8_t *drow, size_t prev_pos)
{
#pragma unroll
	for (int ks = 0; ks < KS; ks++) {
		uint32_t b[2][NN];

		bmma_b_regs<NN>(w[0], b[0]);
		bmma_b_regs<NN>(w[1], b[1]);
		if (ks + 1 < KS)
			bmma_load_b<NN, P>(w, bl, ks + 1);
		else
			bmma_load_b<NN, P>(w, bl_next, 0);
		if (ks == 0)
			bmma_mmas<NN, true>(acc, af[ks], b);
		else
			bmma_mmas<NN, false>(acc, af[ks], b);
		if (ks == 0 && has_prev)
			bmma_finish<NN>(args, prev, drow, prev_pos);
	}
}

/**
 * The network-coding GEMM with the A fragments in registers, for n <= 32 * KS (KS = bmma_nks(n)
 * k-steps, at most 4: n <= 128). Eight warps, one per row subset of a tile of kNcTileRows rows:
 * warp w holds the fragments of rows 8w .. 8w + 7 for every k-step (16 * KS registers), loaded
 * from global memory when its block meets a new tile (or, seg_major, a new segment's tile), and
 * runs every position subtile of NN = 4 N-tiles (32 positions) of the staged unit with them:
 *
 *     unit = (tile, segment, P positions)   stage: n chunk rows x P bytes, cp.async, 2 buffers
 *     warp w: rows 8w..8w+7   for pt in 0 .. P/32 - 1:  KS k-steps x 16 MMAs, pack, store
 *
 * so each staged byte serves 64 rows from shared memory, and no A fragment is read from shared
 * memory at all (gf_gemm_bmma and nc_encode_bmma read 4 LDS.128 per 16 MMAs: 2/3 of their
 * shared-memory traffic). One barrier per unit. Each block takes one contiguous range of units.
 * PIPE: two sets of accumulators, a subtile's pack and store after the next subtile's first
 * k-step (nc_ra_subtile) instead of between the two subtiles' MMAs.
 */
template <int KS, int P, bool PIPE>
__global__ void __launch_bounds__(256, 1) nc_gemm_ra(NcGemmArgs a)
{
	static_assert(KS >= 1 && KS <= 4 && P % 32 == 0, "KS: 1..4 k-steps; P: subtiles of 32");
	constexpr int W = 8, THREADS = W * 32, NN = 4, PT = P / (8 * NN);
	extern __shared__ __align__(16) uint8_t smem[];
	const GemmArgs &args = a.g;
	const size_t sbytes = bmma_stage_bytes(args.cols, P);
	const size_t pblocks = (args.len + P - 1) / P;
	const size_t u0 = a.units * blockIdx.x / gridDim.x;
	const size_t u1 = a.units * (blockIdx.x + 1) / gridDim.x;

	if (u0 >= u1) // uniform over the block
		return;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
	uint32_t tile;
	size_t s, pb, have = ~(size_t)0;
	uint4 af[KS][4];
	int cur = 0;

	nc_unit(a, pblocks, u0, &tile, &s, &pb);
	bmma_stage<P, THREADS>(args, s, pb * P, smem);
	bmma_commit();
	for (size_t u = u0; u < u1; u++) {
		uint32_t ntile = tile;
		size_t ns = s, npb = pb;

		nc_unit_next(a, pblocks, &ntile, &ns, &npb);
		if (u + 1 < u1)
			bmma_stage<P, THREADS>(args, ns, npb * P, smem + (cur ^ 1) * sbytes);
		bmma_commit();
		// This warp's fragments of the unit's tile, into registers (no barrier: they are
		// the warp's own); their loads overlap the wait for the stage.
		const size_t fi = (a.seg_frags ? (a.seg_map ? a.seg_map[s] : s) * a.seg_frags : 0) +
				  tile * a.tile_frags;

		if (fi != have) {
			const uint4 *f = a.frags + fi + bmma_frag_index(warp, 0, 0, lane, KS);

#pragma unroll
			for (int ks = 0; ks < KS; ks++)
#pragma unroll
				for (int mi = 0; mi < 4; mi++)
					af[ks][mi] = f[(ks * 4 + mi) * 32];
			have = fi;
		}
		bmma_wait_prev();
		__syncthreads();

		const uint8_t *buf = smem + cur * sbytes;
		const uint32_t r0 = tile * (uint32_t)kNcTileRows;
		const int rows = (uint32_t)args.rows - r0 < (uint32_t)kNcTileRows
					 ? (int)((uint32_t)args.rows - r0)
					 : kNcTileRows;
		const int row = 8 * warp + g;

		if (8 * warp < rows) { // uniform over the warp
			uint8_t *const drow =
				row < rows ? args.dst[s * args.rows + r0 + row] : nullptr;
			const uint8_t *bl = buf + bmma_b_lane_base(t, g, 0, NN, P);
			// The subtiles with positions before len (a short last block: no MMAs for
			// the others).
			const size_t left = args.len - pb * P;
			const int npt = left >= (size_t)P ? PT
							  : (int)((left + 8 * NN - 1) / (8 * NN));
			const size_t pos0 = pb * P + bmma_out_pos(0, t, NN);
			uint32_t w[2][4][NN / 4];

			bmma_load_b<NN, P>(w, bl, 0);
			if constexpr (PIPE) {
				int32_t acc0[4][NN][4], acc1[4][NN][4];
				int pt = 0;

				// Pairs of subtiles, so that both accumulator sets stay in registers;
				// the next one's first words (past the last subtile: this one's again,
				// unused).
#pragma unroll 1
				for (; pt + 1 < npt; pt += 2, bl += 16 * NN) {
					nc_ra_subtile<KS, P, NN>(args, af, w, bl, bl + 8 * NN, acc0,
								 acc1, pt > 0, drow,
								 pos0 + (pt - 1) * 8 * NN);
					nc_ra_subtile<KS, P, NN>(args, af, w, bl + 8 * NN,
								 bl + (pt + 2 < npt) * 16 * NN, acc1,
								 acc0, true, drow, pos0 + pt * 8 * NN);
				}
				if (pt < npt) { // an odd last subtile
					nc_ra_subtile<KS, P, NN>(args, af, w, bl, bl, acc0, acc1,
								 pt > 0, drow,
								 pos0 + (pt - 1) * 8 * NN);
					bmma_finish<NN>(args, acc0, drow, pos0 + pt * 8 * NN);
				} else {
					bmma_finish<NN>(args, acc1, drow, pos0 + (pt - 1) * 8 * NN);
				}
			} else {
#pragma unroll 1
				for (int pt = 0; pt < npt; pt++, bl += 8 * NN) {
					int32_t acc[4][NN][4];

					nc_ra_subtile<KS, P, NN>(args, af, w, bl,
								 bl + (pt + 1 < npt) * 8 * NN, acc,
								 acc, false, drow, 0);
					bmma_finish<NN>(args, acc, drow, pos0 + pt * 8 * NN);
				}
			}
		}
		__syncthreads(); // every warp is done with buf before it is refilled
		cur ^= 1;
		tile = ntile, s = ns, pb = npb;
	}
	asm volatile("cp.async.wait_all;" ::: "memory");
}

/** Dynamic shared memory of nc_encode_bmma for R rows, n columns, P positions. */
inline size_t nc_encode_smem(int R, int n, int P)
{
	return nc_tile_frags(R, n) * 16 + 2 * bmma_stage_bytes(n, P);
}

/**
 * The seeded encode for any n: the fragments of a tile of R rows in shared memory (R: as many as
 * fit), W warps, NN N-tiles per warp, PT position subtiles (P = 8 * NN * PT positions per unit),
 * gf_gemm_bmma's warp unit (bmma_pair); units (tile, segment, block of P), a.seg_major 0.
 */
template <int W, int NN, int PT>
__global__ void __launch_bounds__(W * 32) nc_encode_bmma(NcGemmArgs a)
{
	static_assert(NN == 4 || NN == 8, "NN: 4 or 8 N-tiles per warp");
	constexpr int THREADS = W * 32;
	constexpr int P = 8 * NN * PT;
	extern __shared__ __align__(16) uint8_t smem[];
	const GemmArgs &args = a.g;
	const int nks = bmma_nks(args.cols);
	uint4 *frag = reinterpret_cast<uint4 *>(smem);
	uint8_t *stage = smem + a.tile_frags * 16;
	const size_t sbytes = bmma_stage_bytes(args.cols, P);
	const size_t pblocks = (args.len + P - 1) / P;
	const size_t u0 = a.units * blockIdx.x / gridDim.x;
	const size_t u1 = a.units * (blockIdx.x + 1) / gridDim.x;

	if (u0 >= u1) // uniform over the block
		return;
	const int warp = threadIdx.x >> 5, g = (threadIdx.x & 31) >> 2;
	uint32_t tile, have = 0xFFFFFFFFu;
	size_t s, pb;
	int cur = 0;

	nc_unit(a, pblocks, u0, &tile, &s, &pb);
	bmma_stage<P, THREADS>(args, s, pb * P, stage);
	bmma_commit();
	for (size_t u = u0; u < u1; u++) {
		uint32_t ntile = tile;
		size_t ns = s, npb = pb;

		nc_unit_next(a, pblocks, &ntile, &ns, &npb);
		// The next unit's loads go out first; this unit's tile's fragments are copied in if
		// the block meets a new tile (every warp is past the barrier that ended the last unit).
		if (u + 1 < u1)
			bmma_stage<P, THREADS>(args, ns, npb * P, stage + (cur ^ 1) * sbytes);
		bmma_commit();
		if (tile != have) {
			const uint4 *src = a.frags + (size_t)tile * a.tile_frags;

#pragma unroll 4
			for (size_t i = threadIdx.x; i < a.tile_frags; i += THREADS)
				frag[i] = src[i];
			have = tile;
		}
		bmma_wait_prev();
		__syncthreads();

		const uint8_t *buf = stage + cur * sbytes;
		const uint32_t r0 = tile * (uint32_t)a.R;
		const int rows = (uint32_t)args.rows - r0 < (uint32_t)a.R
					 ? (int)((uint32_t)args.rows - r0)
					 : a.R;
		uint8_t *const *dst = args.dst + s * args.rows + r0;

		for (int pair = warp; pair < bmma_nsub(rows) * PT; pair += W) {
			const int sub = pair / PT, row = 8 * sub + g;

			bmma_pair<NN, P>(args, buf, frag, nks, sub, pair % PT,
					 row < rows ? dst[row] : nullptr, pb * P);
		}
		__syncthreads(); // every warp is done with buf (and frag) before either is refilled
		cur ^= 1;
		tile = ntile, s = ns, pb = npb;
	}
	asm volatile("cp.async.wait_all;" ::: "memory");
}

} // namespace gfec

#endif // __CUDACC__
