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
 * M: a warp owns a quad of 4 output rows (quad sub) and runs 4 M-tiles mi = 0..3:
 *
 *     tile row g    <->  (output row 4sub + g/2, bit 8(g&1) + 2mi)
 *     tile row g+8  <->  (output row 4sub + g/2, bit 8(g&1) + 2mi + 1)
 *
 * so lane (g, t) ends with one byte (the low one for even g) of each of its positions; lanes g
 * and g^1 (lane ^ 4) swap half of them with one shuffle pair and each holds 8 whole symbols.
 *
 * N: a warp covers 64 positions (symbols), 8 N-tiles; column n of tile nt is position 8n + nt.
 * Lane (g, t) loads symbols 8g .. 8g+7 of a source row (16 bytes) and holds C columns 2t, 2t+1,
 * i.e. positions 16t .. 16t+15; after the swap, lane g even stores positions 16t .. 16t+7 of
 * its row and g odd 16t+8 .. 16t+15: 16 contiguous bytes each, one 16-byte store.
 *
 * Why this warp tile: a warp's 32 mma per k-step read 4 A fragments (512 bytes each) and 8 B
 * fragments (256 bytes) from shared memory, 128 bytes per mma, where 8 rows x 32 positions
 * (8 A, 4 B) read 160; the accumulators are 128 registers either way, the most that leaves a
 * warp room for its operands.
 *
 * Fragments (the host-independent table built once per plan, on the device, from A):
 *
 *     uint4 at ((sub * nks + ks) * 4 + mi) * 32 + lane  =  lane's {a0, a1, a2, a3}
 *
 * 32 bytes per element of A (its 16 x 16 bitmatrix), zero past rows and cols. Quads are padded
 * to a multiple of the block's WR, so a block never reads past the table. An update of column
 * col runs k-step col / 16 alone, with its one source placed at symbol col % 16 of the k-step
 * (col0) and the other 15 stage rows zero. Wide matrices are split along K into launches of a
 * slab of k-steps each (source j0 onwards), the first writing and the rest XORing into dst, so
 * that a group of position tiles' data fits in L2 however large cols is.
 *
 * Block: WR x WP warps; warp (sub, pt) computes 4 rows x 64 positions, so the block tile is
 * 4 WR rows x 64 WP positions. K is walked in chunks of KC k-steps through a ring of STAGES
 * shared-memory stages filled by cp.async, STAGES - 1 chunks ahead (across the block's items),
 * one barrier per chunk: [A fragments: WR x KC x 2 KiB][data: 16 KC rows of 128 WP + 16 bytes].
 * The 16 bytes of padding per row put the rows 2t that lanes t = 0..3 read 32 bytes apart in
 * the banks, so each quarter-warp's 16-byte loads (g = 0, 1 x t = 0..3) cover all 32 banks once.
 *
 * The staging is what costs (H200, perf/results/nvidia-h200/gf16-gpu-2026-11-24h): with the
 * chunks' copies skipped the mma loop ran at 0.57x of the BMMA rate against 0.33x with them,
 * whatever the tile shape or ring depth. The likely cause (not profiled): per-copy index
 * arithmetic (64-bit, ~500 IMAD in the SASS for 128 BMMA) and each data row's pointer, loaded
 * just before its copy, holding every warp after each barrier. So each thread's copies are fixed
 * by the geometry, the pointers come a chunk ahead and the ring runs on across items: 0.47x.
 * Moving A to the bulk-copy engine did not help, nor did a producer warp (the ninth warp caps
 * registers at 168: spills).
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
constexpr int kG16WarpRows = 4;	      // output rows per warp (a quad): 4 M-tiles of 16 bit-rows
constexpr int kG16WarpPositions = 64; // positions (symbols) per warp: 8 N-tiles of 8
constexpr int kG16StepUint4 = 128;    // fragment uint4 per (quad, k-step): 4 M-tiles x 32 lanes

GFEC_G16_HD int g16_nsub(int rows)
{
	return (rows + kG16WarpRows - 1) / kG16WarpRows;
}

GFEC_G16_HD int g16_nks(int cols)
{
	return (cols + kG16SymsPerStep - 1) / kG16SymsPerStep;
}

/** Quads in the table: padded to a multiple of @p wr, the block's quads. */
GFEC_G16_HD int g16_nsub_padded(int rows, int wr)
{
	return (g16_nsub(rows) + wr - 1) / wr * wr;
}

/** a * 2 over GF(2^16) mod 0x1100B. */
GFEC_G16_HD uint32_t g16_mul2(uint32_t a)
{
	return ((a << 1) ^ ((a & 0x8000u) ? 0x100Bu : 0u)) & 0xffffu;
}

/** Index (in uint4) of lane's fragment for (quad, k-step, M-tile) in a table of nks steps. */
GFEC_G16_HD size_t g16_frag_index(int sub, int ks, int mi, int lane, int nks)
{
	return (((size_t)sub * nks + ks) * 4 + mi) * 32 + lane;
}

/**
 * Register r (0..3 = a0..a3) of lane's fragment for (sub, ks, mi), from A (rows x cols, row
 * stride lda, uint16_t elements): tile row g (+8 for a1, a3) is bit l = 8(g&1) + 2mi (+1) of
 * output row 4sub + g/2, K-group q = t (+4 for a2, a3); bit 16u + x = bit l of
 * A(i, 16ks + 2q + u) * 2^x.
 */
GFEC_G16_HD uint32_t g16_frag_word(const uint16_t *a, size_t lda, int rows, int cols, int sub,
				   int ks, int mi, int lane, int r)
{
	const int g = lane >> 2, t = lane & 3;
	const int i = kG16WarpRows * sub + (g >> 1), l = 8 * (g & 1) + 2 * mi + (r & 1),
		  q = t + 4 * (r >> 1);
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

/** Bytes of one stage: the fragments of WR quads and the data rows of KC k-steps. */
GFEC_G16_HD uint32_t g16_stage_bytes(int wr, int wp, int kc)
{
	return (uint32_t)(wr * kc * kG16StepUint4 * 16) +
	       (uint32_t)(kc * kG16SymsPerStep) * g16_row_pitch(wp);
}

/**
 * Byte offset, in a data stage, of the 16 bytes lane (g, t) loads for k-step ksl of the chunk,
 * register half h (b0 / b1: K-group q = t + 4h), symbol u of the group, subtile pt.
 */
GFEC_G16_HD uint32_t g16_b_offset(int ksl, int h, int u, int g, int t, int pt, int wp)
{
	const int row = kG16SymsPerStep * ksl + 2 * (t + 4 * h) + u;

	return (uint32_t)row * g16_row_pitch(wp) + (uint32_t)(2 * (kG16WarpPositions * pt + 8 * g));
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
 * The 8 B registers (N-tiles nt = 0..7) of one K-group from the two source rows' 16 bytes:
 * x0 = symbol 2q (positions 8g .. 8g+7), x1 = symbol 2q + 1.
 * b[nt] = halfword nt of x0 | halfword nt of x1 << 16.
 */
GFEC_G16_HD void g16_b_regs(const uint32_t *x0, const uint32_t *x1, uint32_t *b)
{
	GFEC_G16_UNROLL
	for (int nt = 0; nt < 8; nt++)
		b[nt] = g16_prmt(x0[nt >> 1], x1[nt >> 1], nt & 1 ? 0x7632 : 0x5410);
}

/**
 * Lane's byte of each of its 16 positions from acc[mi][nt][c]: position 16t + nt from C column
 * 2t (c0: bit 2mi, c2: bit 2mi + 1 of the byte), 16t + 8 + nt from column 2t + 1 (c1, c3).
 * o[0], o[1]: positions 16t .. 16t+7 (byte nt & 3 of word nt >> 2); o[2], o[3]: 16t+8 .. 16t+15.
 */
GFEC_G16_HD void g16_pack(const int32_t (*acc)[8][4], uint32_t *o)
{
	GFEC_G16_UNROLL
	for (int w = 0; w < 4; w++) {
		uint32_t v = 0;

		GFEC_G16_UNROLL
		for (int k = 0; k < 4; k++) {
			const int c = w >> 1, nt = 4 * (w & 1) + k;
			uint32_t s = 0;

			GFEC_G16_UNROLL
			for (int mi = 0; mi < 4; mi++)
				s |= ((uint32_t)acc[mi][nt][c] & 1u) << (2 * mi) |
				     ((uint32_t)acc[mi][nt][c + 2] & 1u) << (2 * mi + 1);
			v |= s << (8 * k);
		}
		o[w] = v;
	}
}

/** The two words lane sends to lane ^ 4: the partner's half of the positions. */
GFEC_G16_HD void g16_send(const uint32_t *o, int hi, uint32_t *send)
{
	send[0] = hi ? o[0] : o[2];
	send[1] = hi ? o[1] : o[3];
}

/**
 * Lane's 8 output symbols (4 words, little-endian halfwords) from its bytes o[] and the two
 * words r[] it received: g even (hi = 0) keeps positions 16t .. 16t+7 (its low bytes, the
 * partner's high bytes), g odd 16t+8 .. 16t+15 (the partner's low bytes, its high bytes).
 */
GFEC_G16_HD void g16_symbols(const uint32_t *o, const uint32_t *r, int hi, uint32_t *sym)
{
	const uint32_t lo0 = hi ? r[0] : o[0], lo1 = hi ? r[1] : o[1];
	const uint32_t hi0 = hi ? o[2] : r[0], hi1 = hi ? o[3] : r[1];

	sym[0] = g16_prmt(lo0, hi0, 0x5140);
	sym[1] = g16_prmt(lo0, hi0, 0x7362);
	sym[2] = g16_prmt(lo1, hi1, 0x5140);
	sym[3] = g16_prmt(lo1, hi1, 0x7362);
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

/** Output row of lane g's symbols in quad sub. */
GFEC_G16_HD int g16_out_row(int sub, int g)
{
	return kG16WarpRows * sub + (g >> 1);
}

/** First position (symbol, within the block tile) of lane (g, t)'s 8 outputs in subtile pt. */
GFEC_G16_HD int g16_out_pos(int pt, int g, int t)
{
	return kG16WarpPositions * pt + 16 * t + 8 * (g & 1);
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
		const int lane = (int)(idx & 31), mi = (int)((idx >> 5) & 3);
		const size_t sk = idx >> 7;
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

// Not volatile: the compiler may move the shared-memory loads of the next k-step above it.
__device__ __forceinline__ void g16_mma(int32_t *c, const uint4 &a, uint32_t b0, uint32_t b1)
{
	asm("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
		     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
		     : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
		     : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1));
}

/**
 * One warp's k-steps of a staged chunk (steps <= KC of them): acc[mi][nt] += the mma of its
 * quad's 4 fragments and its 64 positions. @p fa: the warp's first fragment (lane included),
 * @p data: lane's 16-byte column in the chunk's data rows (g16_b_offset of k-step 0).
 */
template <int KC, uint32_t PITCH>
__device__ __forceinline__ void g16_chunk(const uint4 *fa, const uint8_t *data, int steps,
					  int32_t (*acc)[8][4])
{
#pragma unroll
	for (int ksl = 0; ksl < KC; ksl++) {
		if (ksl >= steps)
			break;
		uint4 a[4];
		uint32_t b[2][8];

#pragma unroll
		for (int mi = 0; mi < 4; mi++)
			a[mi] = fa[(ksl * 4 + mi) * 32];
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const uint4 x0 = *reinterpret_cast<const uint4 *>(
			    data + (kG16SymsPerStep * ksl + 8 * h) * PITCH);
			const uint4 x1 = *reinterpret_cast<const uint4 *>(
			    data + (kG16SymsPerStep * ksl + 8 * h + 1) * PITCH);
			const uint32_t w0[4] = {x0.x, x0.y, x0.z, x0.w},
				       w1[4] = {x1.x, x1.y, x1.z, x1.w};

			g16_b_regs(w0, w1, b[h]);
		}
#pragma unroll
		for (int nt = 0; nt < 8; nt++)
#pragma unroll
			for (int mi = 0; mi < 4; mi++)
				g16_mma(acc[mi][nt], a[mi], b[0][nt], b[1][nt]);
	}
}

/**
 * The end of an item: lane's 16 bytes of positions into 8 whole symbols (the swap with lane ^ 4)
 * and the store of its row's 16 bytes. Every lane of the warp must call it (the shuffle).
 */
__device__ __forceinline__ void g16_epilogue(const G16Args &args, const int32_t (*acc)[8][4],
					     size_t s, int quad, size_t p0, int pt, int g, int t)
{
	uint32_t o[4], snd[2], rcv[2], sym[4];
	const int hi = g & 1;

	g16_pack(acc, o);
	g16_send(o, hi, snd);
	rcv[0] = __shfl_xor_sync(0xffffffffu, snd[0], 4);
	rcv[1] = __shfl_xor_sync(0xffffffffu, snd[1], 4);
	g16_symbols(o, rcv, hi, sym);

	const int row = g16_out_row(quad, g);
	const size_t pos = p0 + g16_out_pos(pt, g, t);

	if (row < args.rows && 2 * pos < args.len)
		g16_store(args.dst[s * args.rows + row] + 2 * pos, args.len - 2 * pos, args.acc,
			  sym);
}

/** The ring's staging cursor: the next (item, chunk) it takes, decoded. */
struct G16Cursor {
	size_t item, s, p0;
	int rt, c, live;
};

/** Moves @p q to the first valid item at or after q->item (stride gridDim.x), chunk 0. */
__device__ __forceinline__ void g16_cursor_seek(const G16Args &args, size_t total, int pb,
						G16Cursor &q)
{
	for (; q.item < total; q.item += gridDim.x) {
		size_t pt;

		if (g16_item(q.item, args.nrt, args.npt, args.gp, &q.s, &q.rt, &pt)) {
			q.p0 = pt * (size_t)pb;
			q.c = 0;
			q.live = 1;
			return;
		}
	}
	q.live = 0;
}

/**
 * The source pointers of thread @p tid's DR data rows of the cursor's chunk (row v = tid / SEGS +
 * THREADS / SEGS r), nullptr for a row outside [0, cols): loaded a chunk before their copies.
 */
template <int KC, int SEGS, int THREADS, int DR>
__device__ __forceinline__ void g16_ptrs(const G16Args &args, const G16Cursor &q, int tid,
					 const uint8_t **ptr)
{
	const unsigned long long *src =
	    reinterpret_cast<const unsigned long long *>(args.src + q.s * args.cols);

#pragma unroll
	for (int r = 0; r < DR; r++) {
		const long sj = (long)args.j0 + (long)q.c * KC * kG16SymsPerStep + tid / SEGS +
				THREADS / SEGS * r - args.col0;

		ptr[r] = q.live && sj >= 0 && sj < args.cols
			     ? reinterpret_cast<const uint8_t *>(__ldg(src + sj))
			     : nullptr;
	}
}

/**
 * Issues thread @p tid's copies of the cursor's K-chunk (k-steps KC c .. KC c + KC - 1 of its
 * item) into a stage: a share fixed by the geometry, AN / THREADS fragment copies and DR data
 * rows at one 16-byte segment, with the rows' pointers already in @p ptr (g16_ptrs). A data row
 * whose source is outside [0, cols) is zeroed (an update's other 15 symbols of the k-step, the
 * last k-step's rows past cols); bytes at or past len are left alone (they only feed positions
 * that are not stored).
 */
template <int WR, int WP, int KC, int THREADS>
__device__ __forceinline__ void g16_stage(const G16Args &args, const G16Cursor &q, int tid,
					       const uint8_t *const *ptr, uint8_t *buf)
{
	constexpr int SEGS = 2 * kG16WarpPositions * WP / 16;
	constexpr int AN = WR * KC * kG16StepUint4, DR = KC * kG16SymsPerStep * SEGS / THREADS;
	constexpr uint32_t PITCH = 2 * kG16WarpPositions * WP + 16; // g16_row_pitch
	const uint32_t sbuf = (uint32_t)__cvta_generic_to_shared(buf);
	const uint4 *fb = args.frag + (size_t)(q.rt * WR) * args.sub_stride +
			  (size_t)q.c * KC * kG16StepUint4;
	const int seg = tid % SEGS;
	const size_t bo = 2 * q.p0 + 16 * (size_t)seg;

#pragma unroll
	for (int r = 0; r < AN / THREADS; r++) {
		const int i = tid + THREADS * r;
		const int sl = i / (KC * kG16StepUint4), rem = i % (KC * kG16StepUint4);

		if (q.c * KC + rem / kG16StepUint4 < args.nks)
			g16_cp16(sbuf + 16 * i, fb + (uint32_t)sl * (uint32_t)args.sub_stride + rem);
	}
#pragma unroll
	for (int r = 0; r < DR; r++) {
		const uint32_t d = (uint32_t)(tid / SEGS + THREADS / SEGS * r) * PITCH + 16 * seg;
		uint8_t *data = buf + AN * 16;

		if (!ptr[r]) {
			*reinterpret_cast<uint4 *>(data + d) = make_uint4(0, 0, 0, 0);
		} else if (bo < args.len) {
			if (args.vec && bo + 16 <= args.len) {
				g16_cp16(sbuf + AN * 16 + d, ptr[r] + bo);
			} else {
				const int m = args.len - bo < 16 ? (int)(args.len - bo) : 16;

				for (int b = 0; b < m; b++)
					data[d + b] = ptr[r][bo + b];
			}
		}
	}
}

/**
 * WR quads x WP position subtiles of warps per block, KC k-steps per K-chunk, a ring of STAGES
 * chunks in shared memory. Items are ordered by g16_item (groups of position tiles, row tile,
 * position tile); a grid-stride loop takes any number of them, and one ring serves them all: the
 * staging runs STAGES - 1 chunks ahead across item boundaries (the next item's first chunks load
 * while this one ends), each thread's copies are fixed by the geometry (no per-copy index
 * arithmetic), and the data rows' pointers are loaded a chunk before their copies, so a barrier
 * is followed by copies only. One block per SM (the 128 accumulators leave no room for a
 * second), so the ring may take most of shared memory.
 */
template <int WR, int WP, int KC, int STAGES>
__global__ void __launch_bounds__(WR *WP * 32, 1) gf16_gemm_bmma(G16Args args)
{
	constexpr int THREADS = WR * WP * 32;
	constexpr int PB = kG16WarpPositions * WP;
	constexpr int SEGS = 2 * PB / 16;
	constexpr int AN = WR * KC * kG16StepUint4, DR = KC * kG16SymsPerStep * SEGS / THREADS;
	constexpr uint32_t PITCH = 2 * PB + 16;
	constexpr uint32_t SBYTES = (uint32_t)AN * 16 + (uint32_t)KC * kG16SymsPerStep * PITCH;
	static_assert(STAGES >= 2, "the ring needs two stages");
	static_assert(AN % THREADS == 0 && THREADS % SEGS == 0 &&
			  (KC * kG16SymsPerStep * SEGS) % THREADS == 0,
		      "every thread copies the same share");
	extern __shared__ __align__(16) uint8_t smem[];
	const size_t total =
	    (size_t)args.nstripes * ((args.npt + args.gp - 1) / args.gp) * args.nrt * args.gp;
	const int nchunks = (args.nks + KC - 1) / KC;
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int sub = warp / WP, pt = warp % WP;
	const uint32_t boff = g16_b_offset(0, 0, 0, g, t, pt, WP);
	G16Cursor q;
	const uint8_t *ptr[DR];
	uint32_t k = 0; // chunks computed so far: chunk k sits in stage k % STAGES

	q.item = blockIdx.x;
	g16_cursor_seek(args, total, PB, q);
	g16_ptrs<KC, SEGS, THREADS, DR>(args, q, tid, ptr);
#pragma unroll
	for (int i = 0; i < STAGES - 1; i++) {
		if (q.live) {
			g16_stage<WR, WP, KC, THREADS>(args, q, tid, ptr, smem + i * SBYTES);
			if (++q.c == nchunks) {
				q.item += gridDim.x;
				g16_cursor_seek(args, total, PB, q);
			}
			g16_ptrs<KC, SEGS, THREADS, DR>(args, q, tid, ptr);
		}
		asm volatile("cp.async.commit_group;" ::: "memory");
	}
	for (size_t item = blockIdx.x; item < total; item += gridDim.x) {
		size_t s, ptile;
		int rt;

		if (!g16_item(item, args.nrt, args.npt, args.gp, &s, &rt, &ptile))
			continue; // uniform per block: the barriers below are never split
		int32_t acc[4][8][4];

#pragma unroll
		for (int mi = 0; mi < 4; mi++)
#pragma unroll
			for (int nt = 0; nt < 8; nt++)
				acc[mi][nt][0] = acc[mi][nt][1] = acc[mi][nt][2] = acc[mi][nt][3] =
				    0;
		for (int c = 0; c < nchunks; c++, k++) {
			// Chunk k has landed (this thread's copies, then everyone's), and every warp
			// is done with chunk k - 1, whose stage takes chunk k + STAGES - 1.
			asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2) : "memory");
			__syncthreads();
			if (q.live) {
				g16_stage<WR, WP, KC, THREADS>(args, q, tid, ptr,
							       smem + (k + STAGES - 1) % STAGES * SBYTES);
				if (++q.c == nchunks) {
					q.item += gridDim.x;
					g16_cursor_seek(args, total, PB, q);
				}
				g16_ptrs<KC, SEGS, THREADS, DR>(args, q, tid, ptr);
			}
			asm volatile("cp.async.commit_group;" ::: "memory");

			const uint8_t *buf = smem + k % STAGES * SBYTES;

			g16_chunk<KC, PITCH>(reinterpret_cast<const uint4 *>(buf) +
						 sub * KC * kG16StepUint4 + lane,
					     buf + AN * 16 + boff,
					     args.nks - c * KC < KC ? args.nks - c * KC : KC, acc);
		}
		g16_epilogue(args, acc, s, rt * WR + sub, ptile * PB, pt, g, t);
	}
	asm volatile("cp.async.wait_all;" ::: "memory");
}

} // namespace gfec

#endif // __CUDACC__
