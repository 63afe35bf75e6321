// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file gemm16_bmma.cuh
 * GF(2^16) GEMM on Hopper's binary tensor cores (issue 13): the bitmatrix method of
 * gemm_bmma.cuh with 16 x 16 bit blocks, tiled over rows, positions and K so that any shape up to
 * 65536 x 65536 runs (A's fragments stream through shared memory instead of living there whole).
 *
 * The math. c * d over GF(2^16) is linear over GF(2) in the 16 bits of d, so A becomes a
 * (16 rows) x (16 cols) bitmatrix and the product a GF(2) matrix product:
 *
 *     out bit (i, l) = XOR over (j, x) of  M[(i,l),(j,x)] & bit x of src_j[pos],
 *     M[(i,l),(j,x)] = bit l of A(i,j) * 2^x          (2^x: x doublings mod 0x1100B)
 *
 * mma.sync.m16n8k256 .b1 .and.popc counts popc(Arow & Bcol) over 256 bits; bit 0 of the count,
 * summed over every k-step as an integer, is the XOR. Fragment layout (PTX ISA, lane = 4g + t):
 * A a0 row g K[32t, +32), a1 row g+8, a2 row g K[128+32t, +32), a3 row g+8; B b0 col g
 * K[32t, +32), b1 col g K[128+32t, +32); C c0 (g,2t) c1 (g,2t+1) c2 (g+8,2t) c3 (g+8,2t+1).
 *
 * K: a k-step is 16 input symbols; K-group q (0..7, one .b32 register) is symbols 2q, 2q+1:
 *
 *     register bit 16u + x  =  bit x of symbol 16ks + 2q + u        (u = 0, 1)
 *
 * so a B register is two source halfwords side by side: one PRMT from two shared-memory words.
 *
 * M: a warp owns 8 output rows (row subset sub) and runs 8 M-tiles mi = 0..7:
 *
 *     tile row g    <->  (output row 8sub+g, bit 2mi)
 *     tile row g+8  <->  (output row 8sub+g, bit 2mi+1)
 *
 * so lane (g, t) ends with all 16 bits of output row 8sub+g for its C columns.
 *
 * N: a warp covers 32 positions (symbols), 4 N-tiles; column n of tile nt is position 4n + nt.
 * Lane (g, t) loads symbols 4g .. 4g+3 of a source row (8 bytes) and holds C columns 2t, 2t+1,
 * i.e. positions 8t .. 8t+7 of its output row: 16 contiguous bytes, one 16-byte store.
 *
 * Fragments (the host-independent table built once per plan, on the device, from A):
 *
 *     uint4 at ((sub * nks + ks) * 8 + mi) * 32 + lane  =  lane's {a0, a1, a2, a3}
 *
 * 32 bytes per element of A (its 16 x 16 bitmatrix), zero past rows and cols. Subsets are
 * padded to a multiple of the block's WR, so a block never reads past the table. An update of
 * column col runs k-step col / 16 alone, with its one source placed at symbol col % 16 of the
 * k-step (col0) and the other 15 stage rows zero. Wide matrices are split along K into launches
 * of a slab of k-steps each (source j0 onwards), the first writing and the rest XORing into dst,
 * so that a group of position tiles' data fits in L2 however large cols is.
 *
 * Block: WR x WP warps; warp (sub, pt) computes 8 rows x 32 positions, so the block tile is
 * 8 WR rows x 32 WP positions. K is walked in chunks of KC k-steps, double-buffered in shared
 * memory with cp.async: [A fragments: WR x KC x 4 KiB][data: 16 KC rows of 64 WP + 16 bytes].
 * The 16 bytes of padding per row put the rows 2t that lanes t = 0..3 read 32 bytes apart in
 * the banks, so a half-warp's 8-byte loads are conflict-free.
 *
 * Cost: 256 AND+POPC bit-products per element per symbol, i.e. 128 * rows per data byte: twice
 * gemm_bmma.cuh's 64 * rows, and the fragment traffic is 32 bytes per element per block tile of
 * positions (L2-resident up to ~1500 x 1000; beyond, HBM).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define GFEC_G16_HD __host__ __device__ __forceinline__
#else
#define GFEC_G16_HD inline
#endif
#if defined(__CUDA_ARCH__) // device pass only: the host compilers warn on an unknown pragma
#define GFEC_G16_UNROLL _Pragma("unroll")
#else
#define GFEC_G16_UNROLL
#endif

namespace gfec
{

// ---- Layout helpers: shared by the kernels and the CPU emulation (tests/cuda_gemm) ----------

constexpr int kG16SymsPerStep = 16;   // input symbols (K = 256 bits) per k-step
constexpr int kG16WarpPositions = 32; // positions (symbols) per warp: 4 N-tiles of 8
constexpr int kG16StepUint4 = 256;    // fragment uint4 per (row subset, k-step): 8 M-tiles x 32

GFEC_G16_HD int g16_nsub(int rows)
{
	return (rows + 7) / 8;
}

GFEC_G16_HD int g16_nks(int cols)
{
	return (cols + kG16SymsPerStep - 1) / kG16SymsPerStep;
}

/** Row subsets in the table: padded to a multiple of @p wr, the block's row subsets. */
GFEC_G16_HD int g16_nsub_padded(int rows, int wr)
{
	return (g16_nsub(rows) + wr - 1) / wr * wr;
}

/** a * 2 over GF(2^16) mod 0x1100B. */
GFEC_G16_HD uint32_t g16_mul2(uint32_t a)
{
	return ((a << 1) ^ ((a & 0x8000u) ? 0x100Bu : 0u)) & 0xffffu;
}

/** Index (in uint4) of lane's fragment for (row subset, k-step, M-tile) in a table of nks steps. */
GFEC_G16_HD size_t g16_frag_index(int sub, int ks, int mi, int lane, int nks)
{
	return (((size_t)sub * nks + ks) * 8 + mi) * 32 + lane;
}

/**
 * Register r (0..3 = a0..a3) of lane's fragment for (sub, ks, mi), from A (rows x cols, row
 * stride lda, uint16_t elements): tile row g (+8 for a1, a3) is bit l = 2mi (+1) of output row
 * 8sub + g, K-group q = t (+4 for a2, a3); bit 16u + x = bit l of A(i, 16ks + 2q + u) * 2^x.
 */
GFEC_G16_HD uint32_t g16_frag_word(const uint16_t *a, size_t lda, int rows, int cols, int sub,
				   int ks, int mi, int lane, int r)
{
	const int g = lane >> 2, t = lane & 3;
	const int i = 8 * sub + g, l = 2 * mi + (r & 1), q = t + 4 * (r >> 1);
	uint32_t w = 0;

	if (i >= rows)
		return 0;
	for (int u = 0; u < 2; u++) {
		const int j = kG16SymsPerStep * ks + 2 * q + u;
		uint32_t v;

		if (j >= cols)
			continue;
		v = a[(size_t)i * lda + j];
		for (int x = 0; x < 16; x++) {
			w |= ((v >> l) & 1u) << (16 * u + x);
			v = g16_mul2(v);
		}
	}
	return w;
}

/** Bytes from one data stage row to the next, for WP position subtiles. */
GFEC_G16_HD uint32_t g16_row_pitch(int wp)
{
	return (uint32_t)(2 * kG16WarpPositions * wp + 16);
}

/**
 * Byte offset, in a data stage, of the 8 bytes lane (g, t) loads for k-step ksl of the chunk,
 * register half h (b0 / b1: K-group q = t + 4h), symbol u of the group, subtile pt.
 */
GFEC_G16_HD uint32_t g16_b_offset(int ksl, int h, int u, int g, int t, int pt, int wp)
{
	const int row = kG16SymsPerStep * ksl + 2 * (t + 4 * h) + u;

	return (uint32_t)row * g16_row_pitch(wp) + (uint32_t)(2 * (kG16WarpPositions * pt + 4 * g));
}

/** __byte_perm on the device; the same selection on the host (selectors 0..7 only). */
GFEC_G16_HD uint32_t g16_prmt(uint32_t a, uint32_t b, uint32_t s)
{
#if defined(__CUDA_ARCH__)
	return __byte_perm(a, b, s);
#else
	const uint64_t x = ((uint64_t)b << 32) | a;
	uint32_t r = 0;

	for (int k = 0; k < 4; k++)
		r |= (uint32_t)((x >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
	return r;
#endif
}

/**
 * The 4 B registers (N-tiles nt = 0..3) of one K-group from the two source rows' 8 bytes:
 * x0 = symbol 2q (words lo, hi: positions 4g .. 4g+3), x1 = symbol 2q + 1.
 * b[nt] = halfword nt of x0 | halfword nt of x1 << 16.
 */
GFEC_G16_HD void g16_b_regs(uint32_t x0lo, uint32_t x0hi, uint32_t x1lo, uint32_t x1hi, uint32_t *b)
{
	b[0] = g16_prmt(x0lo, x1lo, 0x5410);
	b[1] = g16_prmt(x0lo, x1lo, 0x7632);
	b[2] = g16_prmt(x0hi, x1hi, 0x5410);
	b[3] = g16_prmt(x0hi, x1hi, 0x7632);
}

/**
 * The 8 output symbols of lane (g, t), positions 8t + k of the warp's 32 (4 per 32-bit word,
 * little-endian halfwords), from acc[mi][nt][c]: position 8t + k is C column 2t + (k >> 2) of
 * N-tile k & 3; bit 2mi from c0 / c1, bit 2mi + 1 from c2 / c3.
 */
GFEC_G16_HD void g16_pack(const int32_t (*acc)[4][4], uint32_t *o)
{
	GFEC_G16_UNROLL
	for (int w = 0; w < 4; w++) {
		uint32_t v = 0;

		GFEC_G16_UNROLL
		for (int h = 0; h < 2; h++) {
			const int k = 2 * w + h, nt = k & 3, c = k >> 2;
			uint32_t s = 0;

			GFEC_G16_UNROLL
			for (int mi = 0; mi < 8; mi++)
				s |= ((uint32_t)acc[mi][nt][c] & 1u) << (2 * mi) |
				     ((uint32_t)acc[mi][nt][c + 2] & 1u) << (2 * mi + 1);
			v |= s << (16 * h);
		}
		o[w] = v;
	}
}

/**
 * Item @p item of a launch: stripe *s, row tile *rt, position tile *pt. Per stripe, position tiles
 * go in groups of gp; within a group the row tile is the slow index and the position tile the
 * fast one, so the gp data tiles of a group stay in L2 while every row tile's fragments stream
 * past, each fragment slab read by the gp blocks that run together. Items per launch:
 * nstripes * ceil(npt / gp) * nrt * gp; returns 0 for the padding items of a last, short group.
 */
GFEC_G16_HD int g16_item(size_t item, int nrt, size_t npt, size_t gp, size_t *s, int *rt,
			 size_t *pt)
{
	const size_t per_group = (size_t)nrt * gp, per_stripe = (npt + gp - 1) / gp * per_group;
	const size_t r = item % per_stripe, q = r % per_group;

	*s = item / per_stripe;
	*rt = (int)(q / gp);
	*pt = r / per_group * gp + q % gp;
	return *pt < npt;
}

/** First position (symbol, within the block tile) of lane t's 8 outputs in subtile pt. */
GFEC_G16_HD int g16_out_pos(int pt, int t)
{
	return kG16WarpPositions * pt + 8 * t;
}

} // namespace gfec

#if defined(__CUDACC__)

#include "gemm_args.cuh"

namespace gfec
{

/**
 * One launch: nstripes stripes that share the fragment table. Stripe s reads src[s * cols + c]
 * for c < cols and writes (acc: XORs into) dst[s * rows + i]; source c is symbol col0 + c of the
 * k-steps the launch walks (col0 = 0 for a GEMM, col % 16 for the update of column col).
 */
struct G16Args {
	const uint8_t *const *src; // device array of nstripes * cols pointers
	uint8_t *const *dst;	   // device array of nstripes * rows pointers
	const uint4 *frag;	   // fragments of k-step 0 of the launch, row subset 0
	size_t sub_stride;	   // uint4 from one row subset's fragments to the next
	int nks;		   // k-steps the launch walks
	int cols, col0, rows;
	int j0; // source of the launch's first k-step (split K: a slab of k-steps per launch)
	int nstripes;
	size_t len; // bytes (even)
	int vec;    // 1: every pointer is 16-byte aligned
	int acc;    // 1: XOR into dst
	int nrt;    // row tiles: padded subsets / WR
	size_t npt; // position tiles per stripe
	size_t gp;  // position tiles per group (g16_item)
};

/** Fragments of the table, one thread per uint4 (plan creation; A is compact on the device). */
__global__ void g16_expand(const uint16_t *a, int rows, int cols, int nks, size_t n, uint4 *frag)
{
	for (size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x; idx < n;
	     idx += (size_t)gridDim.x * blockDim.x) {
		const int lane = (int)(idx & 31), mi = (int)((idx >> 5) & 7);
		const size_t sk = idx >> 8;
		const int ks = (int)(sk % (size_t)nks), sub = (int)(sk / (size_t)nks);

		frag[idx] =
		    make_uint4(g16_frag_word(a, (size_t)cols, rows, cols, sub, ks, mi, lane, 0),
			       g16_frag_word(a, (size_t)cols, rows, cols, sub, ks, mi, lane, 1),
			       g16_frag_word(a, (size_t)cols, rows, cols, sub, ks, mi, lane, 2),
			       g16_frag_word(a, (size_t)cols, rows, cols, sub, ks, mi, lane, 3));
	}
}

__device__ __forceinline__ void g16_cp16(uint32_t sdst, const void *gsrc)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sdst), "l"(gsrc) : "memory");
}

/**
 * Issues the loads of K-chunk c (k-steps KC c .. KC c + KC - 1) of one item into a stage buffer:
 * the fragments of the block's WR row subsets, and the data rows. A data row whose source is
 * outside [0, cols) is zeroed (an update's other 15 symbols of the k-step); bytes at or past len
 * are left alone (they only feed positions that are not stored).
 */
template <int WR, int WP, int KC, int THREADS>
__device__ __forceinline__ void g16_stage(const G16Args &args, size_t s, int rt, size_t p0, int c,
					  uint8_t *buf)
{
	constexpr int SEGS = 2 * kG16WarpPositions * WP / 16; // 16-byte segments per data row
	constexpr int AN = WR * KC * kG16StepUint4;
	const uint32_t sbuf = (uint32_t)__cvta_generic_to_shared(buf);
	const uint32_t sdata = sbuf + AN * 16;
	uint8_t *data = buf + AN * 16;
	const uint8_t *const *src = args.src + s * args.cols;
	const size_t b0 = 2 * p0; // first byte of the tile

	for (int i = threadIdx.x; i < AN; i += THREADS) {
		const int sl = i / (KC * kG16StepUint4), rem = i % (KC * kG16StepUint4);
		const int ks = c * KC + rem / kG16StepUint4;

		if (ks < args.nks)
			g16_cp16(sbuf + 16 * i,
				 args.frag + (size_t)(rt * WR + sl) * args.sub_stride +
				     (size_t)ks * kG16StepUint4 + rem % kG16StepUint4);
	}
	for (int i = threadIdx.x; i < KC * kG16SymsPerStep * SEGS; i += THREADS) {
		const int v = i / SEGS, seg = i % SEGS;
		const long sj = (long)args.j0 + (long)c * KC * kG16SymsPerStep + v - args.col0;
		const uint32_t d = (uint32_t)v * g16_row_pitch(WP) + 16 * seg;
		const size_t bo = b0 + 16 * (size_t)seg;

		if (sj < 0 || sj >= args.cols) {
			*reinterpret_cast<uint4 *>(data + d) = make_uint4(0, 0, 0, 0);
			continue;
		}
		if (bo >= args.len)
			continue;
		const uint8_t *g = src[sj] + bo;

		if (args.vec && bo + 16 <= args.len) {
			g16_cp16(sdata + d, g);
		} else {
			const int m = args.len - bo < 16 ? (int)(args.len - bo) : 16;

			for (int b = 0; b < m; b++)
				data[d + b] = g[b];
		}
	}
}

/** Stores (or XORs in) lane's 8 symbols o[] at d, n = bytes of them before len (<= 16). */
__device__ __forceinline__ void g16_store(uint8_t *d, size_t n, int acc, const uint32_t *o)
{
	if (n >= 16 && ((uintptr_t)d & 15) == 0) {
		uint4 v = make_uint4(o[0], o[1], o[2], o[3]);

		if (acc) {
			const uint4 x = *reinterpret_cast<const uint4 *>(d);

			v.x ^= x.x, v.y ^= x.y, v.z ^= x.z, v.w ^= x.w;
		}
		st16(d, v);
		return;
	}
	for (size_t k = 0; k < n && k < 16; k++) {
		const uint8_t v = (uint8_t)(o[k >> 2] >> (8 * (k & 3)));

		d[k] = acc ? (uint8_t)(d[k] ^ v) : v;
	}
}

__device__ __forceinline__ void g16_mma(int32_t *c, const uint4 &a, uint32_t b0, uint32_t b1)
{
	asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
		     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
		     : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
		     : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1));
}

/**
 * WR row subsets x WP position subtiles of warps per block, KC k-steps per K-chunk. Items are
 * ordered by g16_item (groups of position tiles, row tile, position tile); a grid-stride loop
 * takes any number of them.
 */
template <int WR, int WP, int KC>
__global__ void __launch_bounds__(WR *WP * 32) gf16_gemm_bmma(G16Args args)
{
	constexpr int THREADS = WR * WP * 32;
	constexpr int PB = kG16WarpPositions * WP; // positions per block tile
	constexpr int AN = WR * KC * kG16StepUint4;
	constexpr size_t SBYTES = (size_t)AN * 16 + (size_t)KC * kG16SymsPerStep * (2 * PB + 16);
	extern __shared__ __align__(16) uint8_t smem[];
	const size_t total =
	    (size_t)args.nstripes * ((args.npt + args.gp - 1) / args.gp) * args.nrt * args.gp;
	const int nchunks = (args.nks + KC - 1) / KC;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int sub = warp / WP, pt = warp % WP;

	for (size_t item = blockIdx.x; item < total; item += gridDim.x) {
		size_t s, ptile;
		int rt;

		if (!g16_item(item, args.nrt, args.npt, args.gp, &s, &rt, &ptile))
			continue; // uniform per block: the barriers below are never split
		const size_t p0 = ptile * PB;
		int32_t acc[8][4][4];

#pragma unroll
		for (int mi = 0; mi < 8; mi++)
#pragma unroll
			for (int nt = 0; nt < 4; nt++)
				acc[mi][nt][0] = acc[mi][nt][1] = acc[mi][nt][2] = acc[mi][nt][3] =
				    0;
		g16_stage<WR, WP, KC, THREADS>(args, s, rt, p0, 0, smem);
		asm volatile("cp.async.commit_group;" ::: "memory");
		for (int c = 0; c < nchunks; c++) {
			const uint8_t *buf = smem + (c & 1) * SBYTES;

			// The next chunk goes into the other buffer, freed by the barrier that
			// ended the previous chunk; then wait for this chunk's copies only.
			if (c + 1 < nchunks)
				g16_stage<WR, WP, KC, THREADS>(args, s, rt, p0, c + 1,
							       smem + ((c + 1) & 1) * SBYTES);
			asm volatile("cp.async.commit_group;" ::: "memory");
			asm volatile("cp.async.wait_group 1;" ::: "memory");
			__syncthreads();

			const uint4 *fa =
			    reinterpret_cast<const uint4 *>(buf) + sub * KC * kG16StepUint4 + lane;
			const uint8_t *data = buf + AN * 16;
			const int steps = args.nks - c * KC < KC ? args.nks - c * KC : KC;

#pragma unroll
			for (int ksl = 0; ksl < KC; ksl++) {
				if (ksl >= steps)
					break;
				uint4 a[8];
				uint32_t b[2][4];

#pragma unroll
				for (int mi = 0; mi < 8; mi++)
					a[mi] = fa[(ksl * 8 + mi) * 32];
#pragma unroll
				for (int h = 0; h < 2; h++) {
					const uint2 x0 = *reinterpret_cast<const uint2 *>(
					    data + g16_b_offset(ksl, h, 0, g, t, pt, WP));
					const uint2 x1 = *reinterpret_cast<const uint2 *>(
					    data + g16_b_offset(ksl, h, 1, g, t, pt, WP));

					g16_b_regs(x0.x, x0.y, x1.x, x1.y, b[h]);
				}
#pragma unroll
				for (int nt = 0; nt < 4; nt++)
#pragma unroll
					for (int mi = 0; mi < 8; mi++)
						g16_mma(acc[mi][nt], a[mi], b[0][nt], b[1][nt]);
			}
			__syncthreads(); // every warp is done with buf before it is refilled
		}
		const int row = 8 * (rt * WR + sub) + g;
		const size_t pos = p0 + g16_out_pos(pt, t);

		if (row < args.rows && 2 * pos < args.len) {
			uint32_t o[4];

			g16_pack(acc, o);
			g16_store(args.dst[s * args.rows + row] + 2 * pos, args.len - 2 * pos,
				  args.acc, o);
		}
	}
	asm volatile("cp.async.wait_all;" ::: "memory");
}

} // namespace gfec

#endif // __CUDACC__
