// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file bmma_emulate.cpp
 * CPU emulation of gf_gemm_bmma (cuda_gemm/kernel/gemm_bmma.cuh), run before any GPU time is
 * spent: it proves the index math of the binary-tensor-core GEMM.
 *
 * What is the kernel's own code here: the host table builder (bmma_build_table, called exactly as
 * kernels.cu calls it, on gfec_gf8_tab.mul) and every layout helper the kernel calls (fragment
 * assembly bmma_frag_word / bmma_frag_index, stage layout bmma_stage_row / bmma_b_lane_base +
 * bmma_b_step, checked against bmma_b_offset, the PRMT transposes bmma_b_regs, the output
 * assembly bmma_pack / bmma_out_pos).
 *
 * What is re-implemented: the kernel's control flow per block (stage the item: only bytes < len
 * and chunks < cols are written, so the rest of the stage keeps garbage from earlier items; the
 * (row subset, subtile) pairs; the k-step loop; the store, with acc), and the instruction
 * itself, mma.m16n8k256.row.col.s32.b1.b1.s32.and.popc, from the PTX ISA fragment layout:
 *
 *   A 16x256: a0 row g K 32t+i, a1 row g+8 K 32t+i, a2 row g K 128+32t+i, a3 row g+8 K 128+32t+i
 *   B 256x8:  b0 K 32t+i col g, b1 K 128+32t+i col g          (i = bit i of the register)
 *   C 16x8:   c0 (g,2t) c1 (g,2t+1) c2 (g+8,2t) c3 (g+8,2t+1);  C[r][n] += popc(A row r & B col n)
 *
 * The result is checked against a plain GF(2^8) product with an independent shift-and-add
 * multiply (poly 0x11D), for random A (zeros included), random shapes, lengths that are not
 * multiples of 16, several stripes, a grid smaller than the work, acc = 1, and the backend's
 * column-slice update (tables + col * words(rows, 1), cols = 1, acc = 1).
 *
 * Build and run (from the repository root; not registered with ctest):
 *   gcc -O2 -Igfmatrix/base -c gfmatrix/base/gf8.c -o /tmp/gf8.o
 *   g++ -std=c++17 -O2 -Wall -Wextra -Icuda_gemm/kernel -Igfmatrix/base \
 *       tests/cuda_gemm/bmma_emulate.cpp /tmp/gf8.o -lpthread -o /tmp/bmma_emulate
 *   /tmp/bmma_emulate            # exit 0 and "all passed" on success
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "gemm_bmma.cuh"
#include "gf8.h"
#include "mma_emulate.h"
#include "xorshift64.h"

using namespace gfec;

static Xorshift64Star rnd{0x9e3779b97f4a7c15ull};

static uint8_t gf_mul_ref(uint8_t a, uint8_t b)
{
	unsigned r = 0, x = a;

	for (int i = 0; i < 8; i++) {
		if (b >> i & 1)
			r ^= x;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
	}
	return (uint8_t)r;
}

struct Args {
	std::vector<const uint8_t *> src; // nstripes * cols
	std::vector<uint8_t *> dst;	  // nstripes * rows
	const uint32_t *tables;
	int rows, cols, nstripes;
	size_t len;
	int acc;
};

/* gf_gemm_bmma<W, NN, PT> with `grid` blocks, block by block. */
template <int W, int NN, int PT> static void emulate(const Args &args, int grid)
{
	constexpr int THREADS = W * 32, P = 8 * NN * PT, SEGS = P / 16;
	const int nsub = bmma_nsub(args.rows), nks = bmma_nks(args.cols);
	const int nfrag = nsub * nks * 4 * 32;
	const size_t sbytes = bmma_stage_bytes(args.cols, P);
	const size_t smem = bmma_smem_bytes(args.rows, args.cols, P);
	const size_t pblocks = (args.len + P - 1) / P;
	const size_t total = (size_t)args.nstripes * pblocks;
	const uint8_t *table = reinterpret_cast<const uint8_t *>(args.tables);

	if (total == 0) // as the kernel: nothing to do
		return;
	if (smem != (size_t)nfrag * 16 + 2 * sbytes) {
		printf("smem size mismatch\n");
		exit(1);
	}
	std::vector<uint8_t> sm(smem);
	U4 *frag = reinterpret_cast<U4 *>(sm.data());
	uint8_t *stage = sm.data() + (size_t)nfrag * 16;

	auto stage_item = [&](size_t s, size_t off, uint8_t *buf) {
		const int n = args.cols * SEGS;

		for (int tid = 0; tid < THREADS; tid++)
			for (int i = tid; i < n; i += THREADS) {
				const int j = i / SEGS, seg = i % SEGS;
				const size_t p0 = off + 16 * seg;

				if (p0 >= args.len)
					continue;
				const uint8_t *g = args.src[s * args.cols + j] + p0;
				uint8_t *d = buf + bmma_stage_row(j, P) + 16 * seg;
				const int m = args.len - p0 < 16 ? (int)(args.len - p0) : 16;

				if (d + m > buf + sbytes || d < buf) {
					printf("stage write out of bounds\n");
					exit(1);
				}
				memcpy(d, g, m); // cp.async (m = 16, aligned) or the byte loop
			}
	};

	for (int block = 0; block < grid; block++) {
		for (auto &v : sm) // fresh garbage: nothing may depend on zero-filled shared memory
			v = (uint8_t)rnd();
		// The kernel's item stepping: gq stripes and gr position blocks per grid stride.
		const size_t gq = grid / pblocks, gr = grid % pblocks;
		size_t item = block;
		size_t s = item / pblocks, pb = item % pblocks, off = pb * P;
		int cur = 0;

		if (item < total)
			stage_item(s, off, stage);
		for (int i = 0; i < nfrag; i++) {
			const int ln = i & 31, mi = (i >> 5) & 3, sk = i >> 7;
			const int ks = sk % nks, sub = sk / nks;

			frag[i] = U4{ bmma_frag_word(table, nsub, args.cols, sub, ks, mi, ln, 0),
				      bmma_frag_word(table, nsub, args.cols, sub, ks, mi, ln, 1),
				      bmma_frag_word(table, nsub, args.cols, sub, ks, mi, ln, 2),
				      bmma_frag_word(table, nsub, args.cols, sub, ks, mi, ln, 3) };
		}
		for (; item < total; item += grid) {
			const size_t next = item + grid;
			size_t ns = s + gq, npb = pb + gr;

			if (npb >= pblocks)
				npb -= pblocks, ns++;
			const size_t noff = npb * P;
			const uint8_t *buf = stage + cur * sbytes;

			if (next < total) {
				if (ns != next / pblocks || noff != (next % pblocks) * P) {
					printf("item stepping wrong\n");
					exit(1);
				}
				stage_item(ns, noff, stage + (cur ^ 1) * sbytes);
			}

			for (int warp = 0; warp < W; warp++)
				for (int pair = warp; pair < nsub * PT; pair += W) {
					const int sub = pair / PT, pt = pair % PT;
					static int32_t acc[32][4][NN][4];

					memset(acc, 0, sizeof(acc)); // the first k-step's C = 0
					for (int ks = 0; ks < nks; ks++) {
						U4 a[4][32];
						uint32_t b[2][NN][32];

						for (int lane = 0; lane < 32; lane++) {
							const int g = lane >> 2, t = lane & 3;
							const U4 *fl = frag + bmma_frag_index(sub, 0, 0, lane, nks);

							for (int mi = 0; mi < 4; mi++)
								a[mi][lane] = fl[(ks * 4 + mi) * 32];
							for (int h = 0; h < 2; h++) {
								uint32_t w[4][NN / 4], bb[NN];

								for (int jj = 0; jj < 4; jj++) {
									// The kernel's addressing: lane base + step.
									const uint32_t o = bmma_b_lane_base(t, g, pt, NN, P) +
											   bmma_b_step(ks, h, jj, P);

									if (o != bmma_b_offset(ks, h, t, jj, g, pt, NN, P)) {
										printf("lane base + step != b_offset\n");
										exit(1);
									}

									if (o % NN || o + NN > sbytes) {
										printf("misaligned/out-of-bounds B load\n");
										exit(1);
									}
									memcpy(w[jj], buf + o, NN);
								}
								bmma_b_regs<NN>(w, bb);
								for (int nt = 0; nt < NN; nt++)
									b[h][nt][lane] = bb[nt];
							}
						}
						for (int nt = 0; nt < NN; nt++)
							for (int mi = 0; mi < 4; mi++) {
								int32_t c[32][4];

								for (int lane = 0; lane < 32; lane++)
									memcpy(c[lane], acc[lane][mi][nt], sizeof(c[lane]));
								mma_and_popc(a[mi], b[0][nt], b[1][nt], c);
								for (int lane = 0; lane < 32; lane++)
									memcpy(acc[lane][mi][nt], c[lane], sizeof(c[lane]));
							}
					}
					for (int lane = 0; lane < 32; lane++) {
						const int g = lane >> 2, t = lane & 3, row = 8 * sub + g;

						if (row >= args.rows)
							continue;
						uint32_t o[NN / 2];
						const size_t pos = off + bmma_out_pos(pt, t, NN);

						bmma_pack<NN>(acc[lane], o);
						if (pos >= args.len)
							continue;
						uint8_t *d = args.dst[s * args.rows + row] + pos;

						for (int k = 0; k < 2 * NN && pos + k < args.len; k++) {
							const uint8_t v = (uint8_t)(o[k >> 2] >> (8 * (k & 3)));

							d[k] = args.acc ? (uint8_t)(d[k] ^ v) : v;
						}
					}
				}
			cur ^= 1;
			s = ns, pb = npb, off = noff;
		}
	}
}

struct Case {
	int rows, cols, nstripes;
	size_t len;
	int grid; // 0: one block per item
	int acc;
	int update_col; // >= 0: the backend's update, column update_col of A alone
};

template <int W, int NN, int PT> static int run_case(const Case &c, const char *name)
{
	constexpr int P = 8 * NN * PT;
	const int rows = c.rows, cols = c.cols;
	std::vector<uint8_t> a((size_t)rows * cols);

	for (auto &v : a)
		v = rnd() % 4 == 0 ? 0 : (uint8_t)rnd(); // zeros on purpose
	// The table exactly as kernels.cu builds it.
	std::vector<uint32_t> tab(bmma_table_words(rows, cols));
	bmma_build_table(a.data(), cols, rows, cols, gfec_gf8_tab.mul, tab.data());

	const int kcols = c.update_col >= 0 ? 1 : cols; // inputs of this launch
	// Buffers with random misalignment (0..15) and slack after, filled with random bytes.
	std::vector<std::vector<uint8_t>> in((size_t)c.nstripes * kcols), out((size_t)c.nstripes * rows);
	std::vector<size_t> in_skew(in.size()), out_skew(out.size());
	Args args;

	for (size_t i = 0; i < in.size(); i++) {
		in_skew[i] = rnd() % 3 == 0 ? rnd() % 16 : 0;
		in[i].resize(c.len + 64);
		for (auto &v : in[i])
			v = (uint8_t)rnd();
		args.src.push_back(in[i].data() + in_skew[i]);
	}
	for (size_t i = 0; i < out.size(); i++) {
		out_skew[i] = rnd() % 3 == 0 ? rnd() % 16 : 0;
		out[i].resize(c.len + 64);
		for (auto &v : out[i])
			v = (uint8_t)rnd();
		args.dst.push_back(out[i].data() + out_skew[i]);
	}
	std::vector<std::vector<uint8_t>> before = out;
	const size_t col_words = bmma_table_words(rows, 1);

	args.tables = c.update_col >= 0 ? tab.data() + (size_t)c.update_col * col_words : tab.data();
	args.rows = rows;
	args.cols = kcols;
	args.nstripes = c.nstripes;
	args.len = c.len;
	args.acc = c.acc;
	const size_t items = (size_t)c.nstripes * ((c.len + P - 1) / P);
	const int grid = c.grid ? c.grid : (int)items;

	emulate<W, NN, PT>(args, grid);

	int bad = 0;
	for (int s = 0; s < c.nstripes && !bad; s++)
		for (int i = 0; i < rows && !bad; i++) {
			const size_t oi = (size_t)s * rows + i;
			const uint8_t *d = out[oi].data(), *d0 = before[oi].data();

			for (size_t p = 0; p < c.len + 64; p++) {
				const size_t q = p - out_skew[oi];
				uint8_t want;

				if (p < out_skew[oi] || q >= c.len) {
					want = d0[p]; // outside [0, len): untouched
				} else {
					want = c.acc ? d0[p] : 0;
					for (int j = 0; j < kcols; j++) {
						const int aj = c.update_col >= 0 ? c.update_col : j;

						want ^= gf_mul_ref(a[(size_t)i * cols + aj],
								   args.src[(size_t)s * kcols + j][q]);
					}
				}
				if (d[p] != want) {
					printf("FAIL %s rows=%d cols=%d stripes=%d len=%zu grid=%d acc=%d col=%d: "
					       "stripe %d row %d byte %zd: got %02x want %02x\n",
					       name, rows, cols, c.nstripes, c.len, grid, c.acc, c.update_col, s,
					       i, (ssize_t)q, d[p], want);
					bad = 1;
					break;
				}
			}
		}
	return bad;
}

template <int W, int NN, int PT> static int run_all(const char *name)
{
	constexpr int P = 8 * NN * PT;
	int fails = 0, runs = 0;
	std::vector<Case> cases = {
		{ 32, 223, 2, 1000, 0, 0, -1 },	  // RS(255,223)
		{ 32, 223, 1, 4096 + 13, 5, 0, -1 }, // persistent loop, tail
		{ 32, 223, 3, 2 * P, 2, 1, -1 },	  // acc
		{ 4, 10, 3, 333, 0, 0, -1 },	  // RS(10,4)
		{ 4, 10, 2, 1, 0, 0, -1 },
		{ 4, 10, 2, 15, 0, 1, -1 },
		{ 4, 10, 2, 17, 3, 0, -1 },
		{ 3, 8, 4, 100, 0, 0, -1 },
		{ 1, 1, 1, 50, 0, 0, -1 },
		{ 9, 33, 2, 257, 0, 0, -1 },
		{ 17, 31, 2, 3 * P + 7, 2, 0, -1 },
		{ 24, 64, 1, 129, 0, 0, -1 },
		{ 25, 65, 1, 200, 0, 1, -1 },
		{ 40, 100, 1, P + 1, 0, 0, -1 },
		{ 7, 255, 1, 99, 0, 0, -1 },
		{ 255, 3, 1, 70, 0, 0, -1 },
		{ 32, 223, 2, 500, 0, 1, 0 },	  // update: column 0
		{ 32, 223, 2, 500, 3, 1, 222 },	  // update: last column
		{ 4, 10, 2, 77, 0, 1, 5 },
		{ 4, 10, 2, 0, 1, 0, -1 },	  // len 0: nothing written
	};
	for (int r = 0; r < 25; r++) { // random shapes
		Case c;

		c.rows = 1 + (int)(rnd() % 48);
		c.cols = 1 + (int)(rnd() % 120);
		c.nstripes = 1 + (int)(rnd() % 3);
		c.len = 1 + rnd() % 400;
		c.grid = rnd() % 2 ? 1 + (int)(rnd() % 4) : 0;
		c.acc = (int)(rnd() % 2);
		c.update_col = rnd() % 4 == 0 ? (int)(rnd() % c.cols) : -1;
		if (c.update_col >= 0)
			c.acc = 1;
		cases.push_back(c);
	}
	for (const Case &c : cases) {
		fails += run_case<W, NN, PT>(c, name);
		runs++;
	}
	printf("%-16s %d cases, %d failed\n", name, runs, fails);
	return fails;
}

int main()
{
	int fails = 0;

	gfec_gf8_init();
	for (int x = 0; x < 256; x++) // the builder's table against the independent multiply
		for (int y = 0; y < 256; y++)
			if (gfec_gf8_mul((uint8_t)x, (uint8_t)y) != gf_mul_ref((uint8_t)x, (uint8_t)y)) {
				printf("gf8 table mismatch at %d*%d\n", x, y);
				return 1;
			}
	{ // the host PRMT matches the 4x4 transpose it is used for
		uint32_t in[4], out[4];

		for (int k = 0; k < 4; k++)
			in[k] = (uint32_t)rnd();
		bmma_transpose4(in[0], in[1], in[2], in[3], out);
		for (int r = 0; r < 4; r++)
			for (int b = 0; b < 4; b++)
				if ((out[r] >> (8 * b) & 0xff) != (in[b] >> (8 * r) & 0xff)) {
					printf("transpose4 wrong\n");
					return 1;
				}
	}
	fails += run_all<4, 8, 1>("bmma_w4_n8_p1");
	fails += run_all<4, 4, 1>("bmma_w4_n4_p1");
	fails += run_all<8, 4, 2>("bmma_w8_n4_p2");
	printf(fails ? "FAILED\n" : "all passed\n");
	return fails ? 1 : 0;
}
