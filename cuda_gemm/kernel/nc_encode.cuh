// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file nc_encode.cuh
 * The seeded network-coding encode on the binary tensor cores (gfec_gpu_nc_encode): coded block
 * (s, i) = sum_j A(i, j) * block j of segment s, A(i, j) = gfec_nc_prng_coef(key(seed0 + i), j),
 * one GEMM with M = count coded rows, K = n source blocks, N = nseg * B byte positions. Two
 * launches per call:
 *
 *   nc_seed_frags   the A fragments of every tile of R coded rows, in the very register order of
 *                   gemm_bmma.cuh's shared-memory [frag] area (uint4 {a0, a1, a2, a3} at
 *                   bmma_frag_index(sub, ks, mi, lane, nks)), drawn from the seeds on the device
 *                   (nc_seed_frag: bmma_frag_word of bmma_build_table of the CPU's matrix)
 *   nc_encode_bmma  a persistent grid over units (tile, segment, block of P positions), tile
 *                   major; each thread block takes one contiguous range of units, so it copies a
 *                   tile's fragments (R KiB at n = 128) into shared memory once per tile it meets
 *                   (once or twice per launch), plain 16-byte loads, and then runs the bmma
 *                   kernel's k-steps, staging, packing and stores (gemm_bmma.cuh) unit after unit
 *
 * Before, every tile was its own bmma launch (16 at 1024 coded rows), each assembling its
 * fragments byte by byte from a column table and running about four units per thread block: the
 * launches, not the MMAs, set the time (0.67 ms for 64 MiB at n = 128, B = 4 KiB on the H200,
 * where the BMMA rate allows 0.11 ms).
 *
 * The shared memory of a block: the fragments of R rows (bmma_nsub(R) * nks * 2 KiB) and the two
 * stage buffers of P positions (bmma_stage_bytes). tests/cuda_gemm/nc_emulate.cpp checks
 * nc_seed_frag against bmma_frag_word of bmma_build_table of gfec_nc_prng_row's rows.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "gemm_bmma.cuh"
#include "nc_prng.h"

namespace gfec {

/** Multiplication by x (2) in GF(2^8), polynomial 0x11D. */
GFEC_BMMA_HD uint8_t nc_enc_xtime(uint8_t v)
{
	return (uint8_t)((v << 1) ^ ((v & 0x80) ? 0x1d : 0));
}

/**
 * Bit plane @p l of coefficient @p c: bit x = bit l of c * 2^x (bmma_build_table's byte; the same
 * as nc_gpu.cuh's nc_bmma_bits, which a second translation unit cannot include: that header
 * defines the decode's kernels).
 */
GFEC_BMMA_HD uint8_t nc_enc_bits(uint8_t c, int l)
{
	uint8_t v = 0;

	for (int x = 0; x < 8; x++) {
		v |= (uint8_t)(((c >> l) & 1) << x);
		c = nc_enc_xtime(c);
	}
	return v;
}

/** uint4s of one tile's fragments: every row subset of R rows, every k-step of n columns. */
GFEC_BMMA_HD size_t nc_tile_frags(int R, int n)
{
	return (size_t)bmma_nsub(R) * bmma_nks(n) * 4 * 32;
}

/**
 * Register @p r (0..3 = a0..a3) of fragment @p i (bmma_frag_index order) of row tile @p tile (rows
 * tile * R .. of the encode of @p count rows with seeds seed0 ..): bmma_frag_word of the tile's
 * column table, 0 past the tile's last row and past n.
 */
GFEC_BMMA_HD uint32_t nc_seed_frag(int n, uint32_t count, int R, uint32_t seed0, int zero_ok,
				   uint32_t tile, size_t i, int r)
{
	const int nks = bmma_nks(n);
	const int lane = (int)(i & 31), mi = (int)((i >> 5) & 3), sk = (int)(i >> 7);
	const int ks = sk % nks, sub = sk / nks;
	const int g = lane >> 2, t = lane & 3, q = t + 4 * (r >> 1), l = 2 * mi + (r & 1);
	const uint32_t r0 = tile * (uint32_t)R, row = 8 * (uint32_t)sub + (uint32_t)g;
	const uint32_t rows = count - r0 < (uint32_t)R ? count - r0 : (uint32_t)R;
	uint32_t w = 0;

	if (row >= rows)
		return 0;
	const uint32_t key = gfec_nc_prng_key(seed0 + r0 + row);

	for (int jj = 0; jj < 4; jj++) {
		const int j = ks * kBmmaChunksPerStep + 4 * q + jj;

		if (j < n)
			w |= (uint32_t)nc_enc_bits(gfec_nc_prng_coef(key, (uint32_t)j, zero_ok), l)
			     << (8 * jj);
	}
	return w;
}

} // namespace gfec

#if defined(__CUDACC__)

#include "gemm_args.cuh"

namespace gfec {

/** What nc_encode_bmma sees. */
struct NcEncArgs {
	GemmArgs g;	       // src: nseg * n source pointers; cols = n, len = B, vec, nstripes = nseg
	uint8_t *const *dst;   // nseg * count outputs: block (s, i) at dst[s * count + i]
	const uint4 *frags;    // ntiles * tile_frags fragments (nc_seed_frags)
	size_t tile_frags;     // nc_tile_frags(R, n)
	size_t units;	       // ntiles * nseg * ceil(B / P)
	uint32_t count;	       // coded rows
	int R;		       // rows per tile, a multiple of 8
};

/** One thread per uint4 of the ntiles tiles' fragments. */
__global__ void nc_seed_frags(uint4 *frags, int n, uint32_t count, int R, uint32_t seed0,
			      int zero_ok, size_t tile_frags, uint32_t ntiles)
{
	const size_t total = tile_frags * ntiles;

	for (size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x; w < total;
	     w += (size_t)gridDim.x * blockDim.x) {
		const uint32_t tile = (uint32_t)(w / tile_frags);
		const size_t i = w % tile_frags;

		frags[w] = make_uint4(nc_seed_frag(n, count, R, seed0, zero_ok, tile, i, 0),
				      nc_seed_frag(n, count, R, seed0, zero_ok, tile, i, 1),
				      nc_seed_frag(n, count, R, seed0, zero_ok, tile, i, 2),
				      nc_seed_frag(n, count, R, seed0, zero_ok, tile, i, 3));
	}
}

/** Dynamic shared memory of nc_encode_bmma for R rows, n columns, P positions. */
inline size_t nc_encode_smem(int R, int n, int P)
{
	return nc_tile_frags(R, n) * 16 + 2 * bmma_stage_bytes(n, P);
}

/**
 * W warps, NN N-tiles per warp, PT position subtiles (P = 8 * NN * PT positions per unit), as
 * gf_gemm_bmma; unit u = (tile, segment s, position block pb) in that order of significance.
 */
template <int W, int NN, int PT>
__global__ void __launch_bounds__(W * 32) nc_encode_bmma(NcEncArgs a)
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
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
	size_t pb = u0 % pblocks, s = (u0 / pblocks) % args.nstripes;
	uint32_t tile = (uint32_t)(u0 / pblocks / args.nstripes), have = 0xFFFFFFFFu;
	int cur = 0;

	bmma_stage<P, THREADS>(args, s, pb * P, stage);
	bmma_commit();
	for (size_t u = u0; u < u1; u++) {
		size_t npb = pb + 1, ns = s;
		uint32_t ntile = tile;

		if (npb == pblocks) {
			npb = 0;
			if (++ns == (size_t)args.nstripes)
				ns = 0, ntile++;
		}
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
		const int rows = a.count - r0 < (uint32_t)a.R ? (int)(a.count - r0) : a.R;
		uint8_t *const *dst = a.dst + s * a.count + r0;
		const size_t off = pb * P;

		for (int pair = warp; pair < bmma_nsub(rows) * PT; pair += W) {
			const int sub = pair / PT, pt = pair % PT;
			const uint8_t *bl = buf + bmma_b_lane_base(t, g, pt, NN, P);
			const uint4 *fl = frag + bmma_frag_index(sub, 0, 0, lane, nks);
			const int row = 8 * sub + g;
			uint8_t *const drow = row < rows ? dst[row] : nullptr;
			int32_t acc[4][NN][4];
			BmmaStep<NN> st;

			bmma_load_step<NN, P>(st, bl, fl, 0);
			bmma_kstep<NN, P, true>(acc, st, bl, fl, 0, nks);
#pragma unroll 1
			for (int ks = 1; ks < nks; ks++)
				bmma_kstep<NN, P, false>(acc, st, bl, fl, ks, nks);

			if (row < rows) {
				uint32_t o[NN / 2];
				const size_t pos = off + bmma_out_pos(pt, t, NN);

				bmma_pack<NN>(acc, o);
				if (pos < args.len)
					bmma_store<NN>(args, drow + pos, pos, o);
			}
		}
		__syncthreads(); // every warp is done with buf (and frag) before either is refilled
		cur ^= 1;
		pb = npb, s = ns, tile = ntile;
	}
	asm volatile("cp.async.wait_all;" ::: "memory");
}

} // namespace gfec

#endif // __CUDACC__
