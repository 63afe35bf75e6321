// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file gemm_bmma.cuh
 * GF(2^8) GEMM on Hopper's binary tensor cores: mma.sync.m16n8k256 .b1 with AND + POPC
 * (SASS BMMA.168256.AND.POPC), for shapes too wide for the nibble tables (RS(255,223): 32 x 223).
 *
 * The math. A GF(2^8) product c * d is linear over GF(2) in the bits of d, so A becomes a
 * (8 rows) x (8 cols) bitmatrix M and the product a GF(2) matrix product:
 *
 *     out bit (i, l) = XOR over (j, x) of  M[(i,l),(j,x)] & bit x of data_j,
 *     M[(i,l),(j,x)] = bit l of A(i,j) * 2^x.
 *
 * BMMA computes C[r][n] += popc(Arow_r & Bcol_n) over 256 bits; the low bit of the count is the
 * XOR. Counts accumulate over all k-steps as integers and only bit 0 is used at the end.
 *
 * Fragment layout (PTX ISA "Matrix Fragments for mma.m16n8k256", .b1), lane = 4 * g + t:
 *
 *     A (16 x 256 bits) 4 regs   a0: row g,   K [32t, 32t+32)    a2: row g,   K [128+32t, +32)
 *                                a1: row g+8, K [32t, 32t+32)    a3: row g+8, K [128+32t, +32)
 *     B (256 x 8 bits)  2 regs   b0: col g,   K [32t, 32t+32)    b1: col g,   K [128+32t, +32)
 *     C (16 x 8 s32)    4 regs   c0: (g, 2t)  c1: (g, 2t+1)  c2: (g+8, 2t)  c3: (g+8, 2t+1)
 *
 * AND + POPC pairs equal bit positions of A and B, so only the meaning of a K bit matters, and it
 * is the same for both operands:
 *
 *     k-step ks covers chunks 32ks .. 32ks+31. K-group q (0..7, one .b32 register) = chunks
 *     32ks + 4q .. +3; register bit 8*jj + x  =  bit x of chunk 32ks + 4q + jj.
 *
 *          K-group:    q=0 (t=0)   q=1 (t=1)  ...  q=4 (t=0, b1/a2/a3)  ...  q=7
 *          chunks:     0 1 2 3     4 5 6 7         16 17 18 19               28 29 30 31
 *          reg bytes:  jj=0..3     jj=0..3         jj=0..3                   jj=0..3
 *
 * M: warp row subset `sub` owns output rows 8sub .. 8sub+7 and runs 4 M-tiles mi = 0..3:
 *
 *     tile row g    <->  (output row 8sub+g, bit 2mi)
 *     tile row g+8  <->  (output row 8sub+g, bit 2mi+1)
 *
 * so lane (g, t) ends up with all 8 bits of output row 8sub+g for its C columns (c0/c2 and c1/c3
 * of the 4 M-tiles).
 *
 * N: a warp covers 8 * NN positions with NN N-tiles nt; column n of tile nt is position
 * NN * n + nt. Then
 *   - lane (g, t) reads B for positions NN*g .. NN*g + NN-1: NN contiguous bytes of a chunk row,
 *     one LDS.64 (NN = 8) / LDS.32 (NN = 4) per chunk, 4 chunks -> 4x4 byte transposes
 *     (PRMT) -> the NN registers b of one K-group;
 *   - lane (g, t) holds C columns 2t, 2t+1 of every tile: positions 2t*NN .. 2t*NN + 2NN-1,
 *     i.e. 2NN contiguous bytes of one output row -> one 16-byte (NN = 8) / 8-byte store.
 *
 *     position p of the warp tile (NN = 8):   p = 8*n + nt
 *            nt=0  nt=1 ... nt=7
 *     n=0:    0     1        7      <- lane g=0 loads these 8 bytes per chunk (b)
 *     n=1:    8     9       15      <- lane g=1
 *     ...
 *     C: lane t holds n = 2t, 2t+1 -> bytes 16t .. 16t+15 of the output row (one st.v4)
 *
 * Shared memory, per block:
 *
 *     [frag]   A fragments, exactly the per-lane registers: uint4 {a0,a1,a2,a3} at
 *              ((sub * nks + ks) * 4 + mi) * 32 + lane  ->  LDS.128, conflict-free.
 *              nsub * nks * 2 KiB (RS(223,32): 4 x 7 x 2 KiB = 56 KiB). Assembled at block
 *              start from the column table in args.tables (below).
 *     [stage0] [stage1]  the data of one work item (P positions x all chunks), raw: chunk row j
 *              at bmma_stage_row(j) = j*P + (j/4)*32. The extra 32 bytes per 4 rows put the
 *              rows 4t+jj that lanes t = 0..3 read at different bank offsets (32t mod 128), so
 *              the B loads are conflict-free. Filled with cp.async (16 B) for the next item
 *              while the warps compute on the current one.
 *
 * Host table (args.tables; column-sliceable as the backend's update path needs, it passes
 * tables + col * words_per_col with cols = 1): one byte per (j, sub, mi, tile row):
 *
 *     byte [j][sub][mi][h*8 + g]  bit x  =  M[(8sub+g, 2mi+h), (j, x)]
 *                                       =  bit (2mi+h) of A(8sub+g, j) * 2^x      (0 past rows)
 *
 * Padding: chunks cols .. 32*nks-1 have zero A bits, so whatever their (never written) stage
 * rows hold contributes nothing; positions >= len only feed output columns that are not stored,
 * so their stage bytes are not loaded either. Both are exact, with no zero-fill.
 *
 * Work: a persistent grid over items (stripe, block of P = 8*NN*PT positions); a block's W warps
 * take (row subset, position subtile) pairs, nsub * PT of them, round robin. Each pair runs all
 * k-steps with 4 x NN x 4 s32 accumulators (NN = 8: 128 registers), then packs and stores.
 * Within a pair, k-step ks+1's shared-memory loads are issued before k-step ks's MMAs.
 *
 * GemmArgs: args.a / args.lda are not read (A reaches the kernel only through the table, which
 * the host builds from A and its row stride); args.acc = 1 XORs the product into dst.
 *
 * Cost: 64 * rows AND+POPC bit-products per data byte, so one BMMA per 16 data bytes at
 * rows = 32; the compiler paces one warp's back-to-back BMMAs at the tensor pipe's rate (6
 * cycles), so what is left to win is the time no warp of a scheduler is in its MMA burst.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define GFEC_BMMA_HD __host__ __device__ __forceinline__
#else
#define GFEC_BMMA_HD inline
#endif
#if defined(__CUDA_ARCH__) // device pass only: the host compilers warn on an unknown pragma
#define GFEC_BMMA_UNROLL _Pragma("unroll")
#else
#define GFEC_BMMA_UNROLL
#endif

namespace gfec {

// ---- Layout helpers: shared by the kernel and the CPU emulation (tests/cuda_gemm) ---------------

constexpr int kBmmaChunksPerStep = 32; // chunks (K = 256 bits) per k-step
constexpr int kBmmaFragBytes = 2048;   // 4 M-tiles x 32 lanes x 16 B, per (row subset, k-step)

GFEC_BMMA_HD int bmma_nsub(int rows)
{
	return (rows + 7) / 8;
}

GFEC_BMMA_HD int bmma_nks(int cols)
{
	return (cols + kBmmaChunksPerStep - 1) / kBmmaChunksPerStep;
}

/** Byte offset of chunk row j in a stage buffer of P positions per row. */
GFEC_BMMA_HD uint32_t bmma_stage_row(int j, int P)
{
	return (uint32_t)j * (uint32_t)P + ((uint32_t)j >> 2) * 32;
}

/** Bytes of one stage buffer (rows for every chunk up to the padded 32 * nks). */
GFEC_BMMA_HD size_t bmma_stage_bytes(int cols, int P)
{
	return bmma_stage_row(bmma_nks(cols) * kBmmaChunksPerStep, P);
}

/** Dynamic shared memory: fragments + two stage buffers. */
GFEC_BMMA_HD size_t bmma_smem_bytes(int rows, int cols, int P)
{
	return (size_t)bmma_nsub(rows) * bmma_nks(cols) * kBmmaFragBytes +
	       2 * bmma_stage_bytes(cols, P);
}

/** 32-bit words of the host table for rows x cols: 64 bytes per (column, row subset). */
GFEC_BMMA_HD size_t bmma_table_words(int rows, int cols)
{
	return (size_t)cols * bmma_nsub(rows) * 16;
}

/** Index (in uint4) of lane's A fragment for (row subset, k-step, M-tile). */
GFEC_BMMA_HD int bmma_frag_index(int sub, int ks, int mi, int lane, int nks)
{
	return ((sub * nks + ks) * 4 + mi) * 32 + lane;
}

/**
 * Register r (0..3 = a0..a3) of lane's A fragment, from the column table: tile row g (+8 for a1,
 * a3), K-group t (+4 for a2, a3); byte jj from column 32ks + 4q + jj (0 past cols).
 */
GFEC_BMMA_HD uint32_t bmma_frag_word(const uint8_t *table, int nsub, int cols, int sub, int ks,
				     int mi, int lane, int r)
{
	const int g = lane >> 2, t = lane & 3;
	const int trow = g + 8 * (r & 1), q = t + 4 * (r >> 1);
	uint32_t w = 0;

	for (int jj = 0; jj < 4; jj++) {
		const int j = ks * kBmmaChunksPerStep + 4 * q + jj;

		if (j < cols)
			w |= (uint32_t)table[((size_t)j * nsub + sub) * 64 + mi * 16 + trow] << (8 * jj);
	}
	return w;
}

/**
 * Byte offset in a stage buffer of the NN bytes that lane (g, t) loads for k-step ks, register
 * half h (b0/b1), chunk jj of its K-group, position subtile pt.
 */
GFEC_BMMA_HD uint32_t bmma_b_offset(int ks, int h, int t, int jj, int g, int pt, int NN, int P)
{
	return bmma_stage_row(ks * kBmmaChunksPerStep + 16 * h + 4 * t + jj, P) +
	       (uint32_t)(pt * 8 * NN + NN * g);
}

/**
 * bmma_b_offset split into a per-lane base and a per-(k-step, half, jj) step that does not depend
 * on the lane (row j = 32ks + 16h + 4t + jj has j / 4 = 8ks + 4h + t since jj < 4), so the kernel
 * keeps one base register and the steps become immediate offsets of the loads.
 * bmma_b_offset(ks, h, t, jj, g, pt) == bmma_b_lane_base(t, g, pt) + bmma_b_step(ks, h, jj).
 */
GFEC_BMMA_HD uint32_t bmma_b_lane_base(int t, int g, int pt, int NN, int P)
{
	return bmma_stage_row(4 * t, P) + (uint32_t)(pt * 8 * NN + NN * g);
}

GFEC_BMMA_HD uint32_t bmma_b_step(int ks, int h, int jj, int P)
{
	return (uint32_t)ks * (32 * P + 256) + (uint32_t)h * (16 * P + 128) + (uint32_t)jj * P;
}

/** First position (within the block's P) of the 2NN output bytes lane (g, t) holds. */
GFEC_BMMA_HD int bmma_out_pos(int pt, int t, int NN)
{
	return pt * 8 * NN + 2 * t * NN;
}

/** __byte_perm on the device; the same selection on the host (selectors 0..7 only). */
GFEC_BMMA_HD uint32_t bmma_prmt(uint32_t a, uint32_t b, uint32_t s)
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

/** 4x4 byte transpose: out[r] byte b = in[b] byte r (gemm_nibble.cuh's transpose4). */
GFEC_BMMA_HD void bmma_transpose4(uint32_t i0, uint32_t i1, uint32_t i2, uint32_t i3,
				  uint32_t *out)
{
	const uint32_t t0 = bmma_prmt(i0, i1, 0x5140);
	const uint32_t t1 = bmma_prmt(i2, i3, 0x5140);
	const uint32_t t2 = bmma_prmt(i0, i1, 0x7362);
	const uint32_t t3 = bmma_prmt(i2, i3, 0x7362);

	out[0] = bmma_prmt(t0, t1, 0x5410);
	out[1] = bmma_prmt(t0, t1, 0x7632);
	out[2] = bmma_prmt(t2, t3, 0x5410);
	out[3] = bmma_prmt(t2, t3, 0x7632);
}

/**
 * B registers of one K-group for the NN N-tiles: w[jj][k] = word k of the NN bytes loaded from
 * chunk jj (positions 4k .. 4k+3 of the lane's NN); b[nt] byte jj = chunk jj at position nt.
 */
template <int NN> GFEC_BMMA_HD void bmma_b_regs(const uint32_t (*w)[NN / 4], uint32_t *b)
{
GFEC_BMMA_UNROLL
	for (int k = 0; k < NN / 4; k++)
		bmma_transpose4(w[0][k], w[1][k], w[2][k], w[3][k], b + 4 * k);
}

/**
 * Output bytes of lane (g, t) from its accumulators acc[mi][nt][c]: byte nt (position 2t*NN + nt,
 * C column 2t) takes bit 2mi from c0, bit 2mi+1 from c2; byte NN + nt (column 2t+1) from c1, c3.
 * out[] holds the 2NN bytes little-endian, 4 per word.
 *
 * Per output word (4 bytes = 4 N-tiles of one column) and bit plane l = 2mi + h: three PRMTs
 * gather the low bytes of the 4 counts into one word p[l] (byte k = count of tile k); then a
 * tree of masked merges keeps bit 0 of each byte of p[l] as bit l: (x & m) | ((y << s) & ~m)
 * is one shift and one LOP3, and whatever is above the kept bits is masked by the next level.
 */
template <int NN> GFEC_BMMA_HD void bmma_pack(const int32_t (*acc)[NN][4], uint32_t *out)
{
GFEC_BMMA_UNROLL
	for (int wi = 0; wi < NN / 2; wi++) {
		const int col = wi / (NN / 4);	     // 0: C column 2t (c0, c2), 1: column 2t+1 (c1, c3)
		const int nt0 = 4 * (wi % (NN / 4)); // first N-tile of this word
		uint32_t p[8];

GFEC_BMMA_UNROLL
		for (int l = 0; l < 8; l++) {
			const int mi = l >> 1, c = col + 2 * (l & 1);
			const uint32_t lo = bmma_prmt((uint32_t)acc[mi][nt0][c], (uint32_t)acc[mi][nt0 + 1][c], 0x0040);
			const uint32_t hi = bmma_prmt((uint32_t)acc[mi][nt0 + 2][c], (uint32_t)acc[mi][nt0 + 3][c], 0x0040);

			p[l] = bmma_prmt(lo, hi, 0x5410);
		}
		uint32_t q[4], r[2];

GFEC_BMMA_UNROLL
		for (int k = 0; k < 4; k++) // bits 0..1 of each byte valid
			q[k] = (p[2 * k] & 0x01010101u) | ((p[2 * k + 1] << 1) & ~0x01010101u);
GFEC_BMMA_UNROLL
		for (int k = 0; k < 2; k++) // bits 0..3 valid
			r[k] = (q[2 * k] & 0x03030303u) | ((q[2 * k + 1] << 2) & ~0x03030303u);
		out[wi] = (r[0] & 0x0f0f0f0fu) | ((r[1] << 4) & ~0x0f0f0f0fu);
	}
}

/**
 * Host: the column table for A (rows x cols, row stride lda) from a 256 x 256 product table
 * (gfec_gf8_tab.mul). out: bmma_table_words(rows, cols) words.
 */
inline void bmma_build_table(const uint8_t *a, int lda, int rows, int cols,
			     const uint8_t (*mul)[256], uint32_t *out)
{
	const int nsub = bmma_nsub(rows);
	uint8_t *t = reinterpret_cast<uint8_t *>(out);

	for (int j = 0; j < cols; j++)
		for (int sub = 0; sub < nsub; sub++)
			for (int mi = 0; mi < 4; mi++)
				for (int trow = 0; trow < 16; trow++) {
					const int i = 8 * sub + (trow & 7);
					const int l = 2 * mi + (trow >> 3);
					uint8_t v = 0;

					if (i < rows)
						for (int x = 0; x < 8; x++)
							v |= (uint8_t)(((mul[a[(size_t)i * lda + j]][1 << x] >> l) & 1) << x);
					t[((size_t)j * nsub + sub) * 64 + mi * 16 + trow] = v;
				}
}

} // namespace gfec

#if defined(__CUDACC__)

#include "gemm_args.cuh"

namespace gfec {

// sdst: a shared-window address (__cvta_generic_to_shared), so the caller computes it once.
__device__ __forceinline__ void bmma_cp16(uint32_t sdst, const uint8_t *gsrc)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sdst), "l"(gsrc) : "memory");
}

// 4 bytes, for sources aligned to 4 but not 16 (a coded block's payload, 28 bytes in).
__device__ __forceinline__ void bmma_cp4(uint32_t sdst, const uint8_t *gsrc)
{
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(sdst), "l"(gsrc) : "memory");
}

__device__ __forceinline__ void bmma_commit()
{
	asm volatile("cp.async.commit_group;" ::: "memory");
}

// Everything but the newest group has landed (this thread's copies).
__device__ __forceinline__ void bmma_wait_prev()
{
	asm volatile("cp.async.wait_group 1;" ::: "memory");
}

__device__ __forceinline__ void bmma_mma(int32_t *c, const uint4 &a, uint32_t b0, uint32_t b1)
{
	asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
		     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
		     : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
		     : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1));
}

/**
 * Issues the loads of one work item (stripe s, positions off .. off+P-1) into a stage buffer.
 * Fast path (every pointer 16-byte aligned and the whole tile before len): only 16-byte cp.async,
 * with the chunk pointers of several copies loaded before any is used. Otherwise, per 16 bytes
 * wholly before len, one 16-byte cp.async where the source is 16-byte aligned, four 4-byte ones
 * where it is 4-byte aligned; bytes elsewhere. Nothing past len or past cols is touched (see
 * "Padding" above).
 */
template <int P, int THREADS>
__device__ __forceinline__ void bmma_stage(const GemmArgs &args, size_t s, size_t off, uint8_t *buf)
{
	constexpr uint32_t SEGS = P / 16, U = 4; // SEGS: a power of two, so / and % are shifts
	const uint8_t *const *src = args.src + s * args.cols;
	const uint32_t n = (uint32_t)args.cols * SEGS;
	const uint32_t sbuf = (uint32_t)__cvta_generic_to_shared(buf);

	if (args.vec && off + P <= args.len) {
		for (uint32_t i0 = threadIdx.x; i0 < n; i0 += U * THREADS) {
			const uint8_t *g[U];

#pragma unroll
			for (uint32_t u = 0; u < U; u++) {
				const uint32_t i = i0 + u * THREADS;

				g[u] = i < n ? src[i / SEGS] : nullptr;
			}
#pragma unroll
			for (uint32_t u = 0; u < U; u++) {
				const uint32_t i = i0 + u * THREADS, seg = i % SEGS;

				if (i < n)
					bmma_cp16(sbuf + bmma_stage_row((int)(i / SEGS), P) + 16 * seg,
						  g[u] + off + 16 * seg);
			}
		}
		return;
	}
	for (uint32_t i = threadIdx.x; i < n; i += THREADS) {
		const uint32_t j = i / SEGS, seg = i % SEGS;
		const size_t p0 = off + 16 * seg;

		if (p0 >= args.len)
			continue;
		const uint8_t *g = src[j] + p0;
		const uint32_t d = bmma_stage_row((int)j, P) + 16 * seg;

		if (p0 + 16 <= args.len && ((uintptr_t)g & 15) == 0) {
			bmma_cp16(sbuf + d, g);
		} else if (p0 + 16 <= args.len && ((uintptr_t)g & 3) == 0) {
#pragma unroll
			for (int q = 0; q < 4; q++)
				bmma_cp4(sbuf + d + 4 * q, g + 4 * q);
		} else {
			const int m = args.len - p0 < 16 ? (int)(args.len - p0) : 16;

			for (int b = 0; b < m; b++)
				buf[d + b] = g[b];
		}
	}
}

/** Stores (or XORs in, args.acc) the 2NN bytes o[] at d = dst row + position pos. */
template <int NN>
__device__ __forceinline__ void bmma_store(const GemmArgs &args, uint8_t *d, size_t pos,
					   const uint32_t *o)
{
	if (pos + 2 * NN <= args.len && ((uintptr_t)d & (2 * NN - 1)) == 0) {
		if constexpr (NN == 8) {
			uint4 v = make_uint4(o[0], o[1], o[2], o[3]);

			if (args.acc) {
				const uint4 x = *reinterpret_cast<const uint4 *>(d);

				v.x ^= x.x, v.y ^= x.y, v.z ^= x.z, v.w ^= x.w;
			}
			st16(d, v);
		} else {
			uint2 v = make_uint2(o[0], o[1]);

			if (args.acc) {
				const uint2 x = *reinterpret_cast<const uint2 *>(d);

				v.x ^= x.x, v.y ^= x.y;
			}
			asm volatile("st.global.cs.v2.u32 [%0], {%1,%2};" ::"l"(d), "r"(v.x), "r"(v.y)
				     : "memory");
		}
	} else if (pos + 2 * NN <= args.len && ((uintptr_t)d & 3) == 0) {
		// A coded block's payload (28 bytes into the block): words, not bytes.
		uint32_t *d4 = reinterpret_cast<uint32_t *>(d);

#pragma unroll
		for (int k = 0; k < NN / 2; k++)
			d4[k] = args.acc ? d4[k] ^ o[k] : o[k];
	} else {
		for (int k = 0; k < 2 * NN && pos + k < args.len; k++) {
			const uint8_t v = (uint8_t)(o[k >> 2] >> (8 * (k & 3)));

			d[k] = args.acc ? (uint8_t)(d[k] ^ v) : v;
		}
	}
}

// The first k-step: C = 0 (RZ), so the accumulators need no zeroing.
__device__ __forceinline__ void bmma_mma_first(int32_t *c, const uint4 &a, uint32_t b0, uint32_t b1)
{
	asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
		     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};"
		     : "=r"(c[0]), "=r"(c[1]), "=r"(c[2]), "=r"(c[3])
		     : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1), "r"(0));
}

/** Raw B words and A fragments of one k-step: the loads, issued a k-step ahead of their use. */
template <int NN> struct BmmaStep {
	uint32_t w[2][4][NN / 4]; // [half][jj][word]: the NN bytes of chunk row 32ks + 16h + 4t + jj
	uint4 a[4];		  // [mi]
};

/** The raw B words of k-step @p ks for lane base @p bl: w[h][jj] = the NN bytes of chunk row
 *  32ks + 16h + 4t + jj at the lane's positions. */
template <int NN, int P>
__device__ __forceinline__ void bmma_load_b(uint32_t (*w)[4][NN / 4], const uint8_t *bl, int ks)
{
#pragma unroll
	for (int h = 0; h < 2; h++)
#pragma unroll
		for (int jj = 0; jj < 4; jj++) {
			const uint8_t *p = bl + bmma_b_step(ks, h, jj, P);

			if constexpr (NN == 8) {
				const uint2 v = *reinterpret_cast<const uint2 *>(p);

				w[h][jj][0] = v.x;
				w[h][jj][1] = v.y;
			} else {
				w[h][jj][0] = *reinterpret_cast<const uint32_t *>(p);
			}
		}
}

template <int NN, int P>
__device__ __forceinline__ void bmma_load_step(BmmaStep<NN> &st, const uint8_t *bl, const uint4 *fl,
					       int ks)
{
#pragma unroll
	for (int mi = 0; mi < 4; mi++)
		st.a[mi] = fl[(ks * 4 + mi) * 32];
	bmma_load_b<NN, P>(st.w, bl, ks);
}

/**
 * The 4 x NN MMAs of one k-step: A fragments a[mi], B registers b[h][nt] (bmma_b_regs of the raw
 * words); FIRST: the accumulators start at 0. The warp unit of every bmma kernel (gf_gemm_bmma,
 * nc_gemm_ra).
 */
template <int NN, bool FIRST>
__device__ __forceinline__ void bmma_mmas(int32_t (*acc)[NN][4], const uint4 *a,
					  const uint32_t (*b)[NN])
{
#pragma unroll
	for (int nt = 0; nt < NN; nt++)
#pragma unroll
		for (int mi = 0; mi < 4; mi++) {
			if constexpr (FIRST)
				bmma_mma_first(acc[mi][nt], a[mi], b[0][nt], b[1][nt]);
			else
				bmma_mma(acc[mi][nt], a[mi], b[0][nt], b[1][nt]);
		}
}

/** Packs the accumulators of output row @p drow (nullptr: no such row) and stores the lane's
 *  2NN bytes at position @p pos, if before len. */
template <int NN>
__device__ __forceinline__ void bmma_finish(const GemmArgs &args, const int32_t (*acc)[NN][4],
					    uint8_t *drow, size_t pos)
{
	if (drow) {
		uint32_t o[NN / 2];

		bmma_pack<NN>(acc, o);
		if (pos < args.len)
			bmma_store<NN>(args, drow + pos, pos, o);
	}
}

/**
 * One k-step: B registers from the raw words in st, then the next k-step's loads into st (their
 * latency hides behind this step's 4 * NN MMAs; past the last k-step they read k-step 0 again:
 * in bounds, and unused), then the MMAs.
 */
template <int NN, int P, bool FIRST>
__device__ __forceinline__ void bmma_kstep(int32_t (*acc)[NN][4], BmmaStep<NN> &st,
					   const uint8_t *bl, const uint4 *fl, int ks, int nks)
{
	uint32_t b[2][NN];
	uint4 a[4];

#pragma unroll
	for (int h = 0; h < 2; h++)
		bmma_b_regs<NN>(st.w[h], b[h]);
#pragma unroll
	for (int mi = 0; mi < 4; mi++)
		a[mi] = st.a[mi];
	bmma_load_step<NN, P>(st, bl, fl, ks + 1 < nks ? ks + 1 : 0);
	bmma_mmas<NN, FIRST>(acc, a, b);
}

/**
 * The warp unit of the kernels with the fragments in shared memory (gf_gemm_bmma,
 * nc_encode_bmma): the pair (row subset sub, position subtile pt) of the staged item at buf,
 * whose positions start at off. Every k-step (k-step ks+1's shared-memory loads issued before
 * k-step ks's MMAs), then the pack and store into output row drow (nullptr: past the rows).
 */
template <int NN, int P>
__device__ __forceinline__ void bmma_pair(const GemmArgs &args, const uint8_t *buf,
					  const uint4 *frag, int nks, int sub, int pt,
					  uint8_t *drow, size_t off)
{
	const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
	const uint8_t *bl = buf + bmma_b_lane_base(t, g, pt, NN, P);
	const uint4 *fl = frag + bmma_frag_index(sub, 0, 0, lane, nks);
	int32_t acc[4][NN][4];
	BmmaStep<NN> st;

	bmma_load_step<NN, P>(st, bl, fl, 0);
	bmma_kstep<NN, P, true>(acc, st, bl, fl, 0, nks);
#pragma unroll 1
	for (int ks = 1; ks < nks; ks++)
		bmma_kstep<NN, P, false>(acc, st, bl, fl, ks, nks);
	bmma_finish<NN>(args, acc, drow, off + bmma_out_pos(pt, t, NN));
}

/**
 * W warps per block, NN N-tiles (8 positions each) per warp, PT position subtiles per block:
 * the block tile is P = 8 * NN * PT positions.
 */
template <int W, int NN, int PT>
__global__ void __launch_bounds__(W * 32) gf_gemm_bmma(GemmArgs args)
{
	static_assert(NN == 4 || NN == 8, "NN: 4 or 8 N-tiles per warp");
	constexpr int THREADS = W * 32;
	constexpr int P = 8 * NN * PT;
	extern __shared__ __align__(16) uint8_t smem[];
	if (args.stripe_tables) { // one stripe per grid row, each with its own table
		args.tables = args.stripe_tables[blockIdx.y];
		args.src += (size_t)blockIdx.y * args.cols;
		args.dst += (size_t)blockIdx.y * args.rows;
		args.nstripes = 1;
	}
	const int nsub = bmma_nsub(args.rows), nks = bmma_nks(args.cols);
	const int nfrag = nsub * nks * 4 * 32;
	uint4 *frag = reinterpret_cast<uint4 *>(smem);
	uint8_t *stage = smem + (size_t)nfrag * 16;
	const size_t sbytes = bmma_stage_bytes(args.cols, P);
	const size_t pblocks = (args.len + P - 1) / P;
	const size_t total = (size_t)args.nstripes * pblocks;

	if (total == 0) // len 0 or no stripes (and no division by pblocks = 0 below)
		return;
	const int warp = threadIdx.x >> 5, g = (threadIdx.x & 31) >> 2;
	// Items: stripe s, position block pb (off = pb * P). Stepping by gridDim.x = gq stripes and
	// gr blocks, so the loop divides nothing.
	const size_t gq = gridDim.x / pblocks, gr = gridDim.x % pblocks;
	size_t item = blockIdx.x;
	size_t s = item / pblocks, pb = item % pblocks, off = pb * P;
	int cur = 0;

	// First item's loads go out before the fragments are assembled, so the two overlap.
	if (item < total)
		bmma_stage<P, THREADS>(args, s, off, stage);
	bmma_commit();

	// Fragments in register order, from the column table (L2-resident, read once per block).
	{
		const uint8_t *table = reinterpret_cast<const uint8_t *>(args.tables);

		for (int i = threadIdx.x; i < nfrag; i += THREADS) {
			const int ln = i & 31, mi = (i >> 5) & 3, sk = i >> 7;
			const int ks = sk % nks, sub = sk / nks;

			frag[i] = make_uint4(
				bmma_frag_word(table, nsub, args.cols, sub, ks, mi, ln, 0),
				bmma_frag_word(table, nsub, args.cols, sub, ks, mi, ln, 1),
				bmma_frag_word(table, nsub, args.cols, sub, ks, mi, ln, 2),
				bmma_frag_word(table, nsub, args.cols, sub, ks, mi, ln, 3));
		}
	}

	for (; item < total; item += gridDim.x) {
		const size_t next = item + gridDim.x;
		size_t ns = s + gq, npb = pb + gr;

		if (npb >= pblocks)
			npb -= pblocks, ns++;
		const size_t noff = npb * P;
		const uint8_t *buf = stage + cur * sbytes;

		// Prefetch the next item into the other buffer (freed by the barrier that ended the
		// previous iteration), then wait for this item's copies only.
		if (next < total)
			bmma_stage<P, THREADS>(args, ns, noff, stage + (cur ^ 1) * sbytes);
		bmma_commit();
		bmma_wait_prev();
		__syncthreads();

		uint8_t *const *dst = args.dst + s * args.rows;

		for (int pair = warp; pair < nsub * PT; pair += W) {
			const int sub = pair / PT, row = 8 * sub + g;

			// The output row's pointer is loaded before the MMAs, so its latency hides
			// behind them.
			bmma_pair<NN, P>(args, buf, frag, nks, sub, pair % PT,
					 row < args.rows ? dst[row] : nullptr, off);
		}
		__syncthreads(); // every warp is done with buf before it is refilled
		cur ^= 1;
		s = ns, pb = npb, off = noff;
	}
	// Drain: the last commit may hold nothing; nothing is left in flight.
	asm volatile("cp.async.wait_all;" ::: "memory");
}

} // namespace gfec

#endif // __CUDACC__
