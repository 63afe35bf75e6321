// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file gemm16_emulate.cpp
 * CPU emulation of gf16_gemm_bmma (cuda_gemm/kernel/gemm16_bmma.cuh), the GPU backend's GF(2^16)
 * kernel: it proves the bit arithmetic and index math without a GPU, so it runs in CI.
 *
 * The kernel's own code here: the fragment words (g16_frag_word, called at the indices
 * g16_expand computes them), the stage layout (g16_row_pitch, g16_stage_bytes, g16_b_offset),
 * the PRMT assembly of the B registers (g16_b_regs), the output packing and the swap between
 * lanes g and g^1 (g16_pack, g16_send, g16_symbols, g16_out_row, g16_out_pos) and the table size
 * (g16_nsub_padded, g16_nks). Re-implemented: the kernel's control flow (items with the row tile
 * fastest, K-chunks staged into one ring of stages per block across its items, with zeroed
 * out-of-range rows and stale bytes past len, every warp and lane, the shuffle, the store with
 * acc; the copies in one order, since each stage byte has one writer) and the instruction
 * mma.m16n8k256.row.col.s32.b1.b1.s32.and.popc from the PTX ISA fragment layout. Shared memory
 * starts as random garbage per block.
 *
 * Checked byte for byte against gfec_cpu_gemm16_base (cpu_backend/gemm16.c): random A (zeros
 * included) and shapes (rows, cols 1..300, and 200 x 1000), even lengths that are not multiples
 * of 16, several stripes, grids smaller than the work, the update of one column (col0 = col % 16,
 * one k-step, acc = 1), and the kernel's block shape as well as smaller and larger ones.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "cpu_backend.h"
#include "gemm16_bmma.cuh"
#include "gf16.h"
#include "mma_emulate.h"
#include "xorshift64.h"

using namespace gfec;

static Xorshift64Star rnd{0x2545f4914f6cdd1dull};

/* The table as g16_expand builds it: one uint4 per index, decoded the kernel's way. */
static std::vector<U4> expand(const uint16_t *a, int rows, int cols, int wr)
{
	const int nks = g16_nks(cols);
	const size_t n = (size_t)g16_nsub_padded(rows, wr) * nks * kG16StepUint4;
	std::vector<U4> f(n);

	for (size_t idx = 0; idx < n; idx++) {
		const int lane = (int)(idx & 31), mi = (int)((idx >> 5) & 3);
		const size_t sk = idx >> 7;
		const int ks = (int)(sk % (size_t)nks), sub = (int)(sk / (size_t)nks);

		if (g16_frag_index(sub, ks, mi, lane, nks) != idx) {
			printf("fragment index mismatch\n");
			exit(1);
		}
		f[idx] = U4{g16_frag_word(a, cols, rows, cols, sub, ks, mi, lane, 0),
			    g16_frag_word(a, cols, rows, cols, sub, ks, mi, lane, 1),
			    g16_frag_word(a, cols, rows, cols, sub, ks, mi, lane, 2),
			    g16_frag_word(a, cols, rows, cols, sub, ks, mi, lane, 3)};
	}
	return f;
}

/* G16Args without the device types. */
struct Args {
	std::vector<const uint8_t *> src; // nstripes * cols
	std::vector<uint8_t *> dst;	  // nstripes * rows
	const U4 *frag;
	size_t sub_stride;
	int nks, cols, col0, rows, j0, nstripes;
	size_t len;
	int acc, nrt;
	size_t npt, gp;
};

/* gf16_gemm_bmma<WR, WP, KC, STAGES> with `grid` blocks, block by block. */
template <int WR, int WP, int KC, int STAGES> static void emulate(const Args &args, int grid)
{
	constexpr int PB = kG16WarpPositions * WP, SEGS = 2 * PB / 16;
	constexpr int AN = WR * KC * kG16StepUint4;
	const size_t dbytes = (size_t)KC * kG16SymsPerStep * g16_row_pitch(WP);
	const size_t sbytes = g16_stage_bytes(WR, WP, KC);
	const size_t total =
	    (size_t)args.nstripes * ((args.npt + args.gp - 1) / args.gp) * args.nrt * args.gp;
	const int nchunks = (args.nks + KC - 1) / KC;
	std::vector<uint8_t> sm(STAGES * sbytes);

	if (sbytes != (size_t)AN * 16 + dbytes) {
		printf("stage size mismatch\n");
		exit(1);
	}
	for (int block = 0; block < grid; block++) {
		uint32_t k = 0; // the block's chunks so far: one ring for all its items

		for (auto &v : sm)
			v = (uint8_t)rnd();
		for (size_t item = block; item < total; item += grid) {
			size_t s, ptile;
			int rt;

			if (!g16_item(item, args.nrt, args.npt, args.gp, &s, &rt, &ptile))
				continue;
			const size_t p0 = ptile * PB;
			static int32_t acc[WR * WP][32][4][8][4];

			memset(acc, 0, sizeof(acc));
			for (int c = 0; c < nchunks; c++, k++) {
				// The ring: the block's chunk k sits in stage k % STAGES (staged
				// STAGES - 1 chunks earlier, maybe during the previous item; the order
				// does not matter: every write has one writer).
				uint8_t *buf = sm.data() + (k % STAGES) * sbytes;
				U4 *fs = reinterpret_cast<U4 *>(buf);
				uint8_t *data = buf + (size_t)AN * 16;

				for (int i = 0; i < AN; i++) {
					const int sl = i / (KC * kG16StepUint4),
						  rem = i % (KC * kG16StepUint4);
					const int ks = c * KC + rem / kG16StepUint4;

					if (ks < args.nks)
						fs[i] = args.frag[(size_t)(rt * WR + sl) *
								      args.sub_stride +
								  (size_t)ks * kG16StepUint4 +
								  rem % kG16StepUint4];
				}
				for (int i = 0; i < KC * kG16SymsPerStep * SEGS; i++) {
					const int v = i / SEGS, seg = i % SEGS;
					const long sj = (long)args.j0 +
							(long)c * KC * kG16SymsPerStep + v -
							args.col0;
					const uint32_t d =
					    (uint32_t)v * g16_row_pitch(WP) + 16 * seg;
					const size_t bo = 2 * p0 + 16 * (size_t)seg;

					if (d + 16 > dbytes) {
						printf("stage write out of bounds\n");
						exit(1);
					}
					if (sj < 0 || sj >= args.cols) {
						memset(data + d, 0, 16);
						continue;
					}
					if (bo >= args.len)
						continue;
					memcpy(data + d, args.src[s * args.cols + sj] + bo,
					       args.len - bo < 16 ? args.len - bo : 16);
				}
				const int steps = args.nks - c * KC < KC ? args.nks - c * KC : KC;

				for (int warp = 0; warp < WR * WP; warp++) {
					const int sub = warp / WP, pt = warp % WP;

					for (int ksl = 0; ksl < steps; ksl++) {
						uint32_t b[32][2][8]; // per lane: the B registers
								      // of both halves

						for (int lane = 0; lane < 32; lane++) {
							const int g = lane >> 2, t = lane & 3;

							for (int h = 0; h < 2; h++) {
								uint32_t x0[4], x1[4];
								const uint32_t o0 = g16_b_offset(
								    ksl, h, 0, g, t, pt, WP);
								const uint32_t o1 = g16_b_offset(
								    ksl, h, 1, g, t, pt, WP);

								if (o0 + 16 > dbytes ||
								    o1 + 16 > dbytes || o0 % 16 ||
								    o1 % 16) {
									printf(
									    "B load out of bounds "
									    "or unaligned\n");
									exit(1);
								}
								memcpy(x0, data + o0, 16);
								memcpy(x1, data + o1, 16);
								g16_b_regs(x0, x1, b[lane][h]);
							}
						}
						for (int nt = 0; nt < 8; nt++)
							for (int mi = 0; mi < 4; mi++) {
								U4 a[32];
								uint32_t b0[32], b1[32];
								int32_t cc[32][4];

								for (int lane = 0; lane < 32;
								     lane++) {
									a[lane] =
									    fs[(sub * KC + ksl) *
										   kG16StepUint4 +
									       mi * 32 + lane];
									b0[lane] = b[lane][0][nt];
									b1[lane] = b[lane][1][nt];
									memcpy(
									    cc[lane],
									    acc[warp][lane][mi][nt],
									    sizeof(cc[lane]));
								}
								mma_and_popc(a, b0, b1, cc);
								for (int lane = 0; lane < 32;
								     lane++)
									memcpy(
									    acc[warp][lane][mi][nt],
									    cc[lane],
									    sizeof(cc[lane]));
							}
					}
				}
			}
			for (int warp = 0; warp < WR * WP; warp++) {
				const int sub = warp / WP, pt = warp % WP;
				uint32_t o[32][4], snd[32][2];

				// __shfl_xor_sync(.., 4): lane receives what lane ^ 4 sent.
				for (int lane = 0; lane < 32; lane++) {
					g16_pack(acc[warp][lane], o[lane]);
					g16_send(o[lane], (lane >> 2) & 1, snd[lane]);
				}
				for (int lane = 0; lane < 32; lane++) {
					const int g = lane >> 2, t = lane & 3;
					const int row = g16_out_row(rt * WR + sub, g);
					const size_t pos = p0 + g16_out_pos(pt, g, t);
					uint32_t sym[4];

					g16_symbols(o[lane], snd[lane ^ 4], g & 1, sym);
					if (row >= args.rows || 2 * pos >= args.len)
						continue;
					uint8_t *d = args.dst[s * args.rows + row] + 2 * pos;
					const size_t n =
					    args.len - 2 * pos < 16 ? args.len - 2 * pos : 16;

					for (size_t k = 0; k < n; k++) {
						const uint8_t v =
						    (uint8_t)(sym[k >> 2] >> (8 * (k & 3)));

						d[k] = args.acc ? (uint8_t)(d[k] ^ v) : v;
					}
				}
			}
		}
	}
}

static int failures;

/* One GEMM (col < 0) or update of column col, through the emulation and the reference. */
template <int WR, int WP, int KC, int STAGES>
static void one(int rows, int cols, int nstripes, size_t len, int col, int grid_div, int slab,
		size_t gp)
{
	std::vector<uint16_t> a((size_t)rows * cols);
	const int ncols = col < 0 ? cols : 1;
	std::vector<std::vector<uint8_t>> in((size_t)nstripes * ncols, std::vector<uint8_t>(len)),
	    out((size_t)nstripes * rows, std::vector<uint8_t>(len + 1)),
	    ref((size_t)nstripes * rows, std::vector<uint8_t>(len + 1));
	Args args;

	for (auto &v : a)
		v = rnd() % 4 == 0 ? 0 : (uint16_t)rnd();
	for (auto &b : in)
		for (auto &v : b)
			v = (uint8_t)rnd();
	for (size_t i = 0; i < out.size(); i++)
		for (size_t k = 0; k <= len;
		     k++) // poisoned (gemm) or the old parity (update), + guard
			out[i][k] = ref[i][k] = col < 0 ? 0xa5 : (uint8_t)rnd();

	const std::vector<U4> frag = expand(a.data(), rows, cols, WR);
	const int nks = g16_nks(cols);

	const U4 *base =
	    frag.data() + (col < 0 ? 0 : (size_t)(col / kG16SymsPerStep) * kG16StepUint4);
	const int steps = col < 0 ? nks : 1;

	args.sub_stride = (size_t)nks * kG16StepUint4;
	args.cols = ncols;
	args.col0 = col < 0 ? 0 : col % kG16SymsPerStep;
	args.rows = rows;
	args.nstripes = nstripes;
	args.len = len;
	args.nrt = g16_nsub_padded(rows, WR) / WR;
	args.npt = (len / 2 + kG16WarpPositions * WP - 1) / (kG16WarpPositions * WP);
	args.gp = gp < 1 ? 1 : gp;
	for (auto &b : in)
		args.src.push_back(b.data());
	for (auto &b : out)
		args.dst.push_back(b.data());
	const size_t total =
	    (size_t)nstripes * ((args.npt + args.gp - 1) / args.gp) * args.nrt * args.gp;
	const int grid = (int)(total / grid_div ? total / grid_div : 1);

	// gemm16_launch's split K: one launch per slab of k-steps, the first writing (or XORing,
	// for an update), the rest XORing.
	for (int ks0 = 0; ks0 < steps; ks0 += slab) {
		args.frag = base + (size_t)ks0 * kG16StepUint4;
		args.nks = steps - ks0 < slab ? steps - ks0 : slab;
		args.j0 = ks0 * kG16SymsPerStep;
		args.acc = col >= 0 || ks0 > 0;
		emulate<WR, WP, KC, STAGES>(args, grid);
	}

	std::vector<uint16_t> acol(rows);
	for (int i = 0; i < rows && col >= 0; i++)
		acol[i] = a[(size_t)i * cols + col];
	for (int s = 0; s < nstripes; s++) {
		std::vector<const uint8_t *> src;
		std::vector<uint8_t *> dst;

		for (int j = 0; j < ncols; j++)
			src.push_back(in[(size_t)s * ncols + j].data());
		for (int i = 0; i < rows; i++)
			dst.push_back(ref[(size_t)s * rows + i].data());
		gfec_cpu_gemm16_base(len, ncols, rows, col < 0 ? a.data() : acol.data(), src.data(),
				     dst.data(), col >= 0);
	}
	for (size_t i = 0; i < out.size(); i++)
		if (out[i] != ref[i]) {
			size_t k = 0;

			while (out[i][k] == ref[i][k])
				k++;
			printf("FAIL <%d,%d,%d,%d> rows=%d cols=%d stripes=%d len=%zu col=%d grid=%d "
			       "slab=%d gp=%zu: output %zu byte %zu is %02x, reference %02x\n",
			       WR, WP, KC, STAGES, rows, cols, nstripes, len, col, grid, slab, gp, i, k,
			       out[i][k], ref[i][k]);
			failures++;
			return;
		}
}

int main()
{
	gfec_gf16_init();
	// The kernel's shape (gemm16.cu's kWR, kWP, kKC, kStages) and others that move the chunk,
	// ring and tile edges.
	one<4, 2, 4, 3>(1, 1, 1, 2, -1, 1, 128, 1);
	one<4, 2, 4, 3>(200, 1000, 1, 64, -1, 3, 128, 1);
	one<4, 2, 4, 3>(200, 1000, 1, 32, -1, 1, 5, 1); // split K: 13 slabs
	one<4, 2, 4, 3>(200, 1000, 1, 96, 999, 1, 128, 1);
	one<4, 2, 4, 3>(37, 300, 2, 2 * (size_t)rnd.range(300, 600), -1, 3, 7, 3);
	for (int rep = 0; rep < 6; rep++) {
		const int rows = rnd.range(1, 300), cols = rnd.range(1, 300), ns = rnd.range(1, 3);
		const int col = rep % 3 == 0 ? rnd.range(0, cols - 1) : -1;
		const int c2 = rnd.range(1, 70);

		one<4, 2, 4, 3>(rows, cols, ns, 2 * (size_t)rnd.range(1, 100), col, rnd.range(1, 4),
				rnd.range(1, 20), 1);
		// Smaller tiles: several position tiles per stripe, grouped and split along K.
		one<1, 2, 1, 2>(rnd.range(1, 40), rnd.range(1, 70), ns,
				2 * (size_t)rnd.range(1, 300), -1, rnd.range(1, 4), rnd.range(1, 5),
				(size_t)rnd.range(1, 6));
		one<2, 1, 2, 4>(rnd.range(1, 40), c2, ns, 2 * (size_t)rnd.range(1, 300),
				rep % 2 ? rnd.range(0, c2 - 1) : -1, 1, rnd.range(1, 5),
				(size_t)rnd.range(1, 6));
	}
	if (failures) {
		printf("%d failed\n", failures);
		return 1;
	}
	printf("all passed\n");
	return 0;
}
