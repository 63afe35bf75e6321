// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file nc_emulate.cpp
 * The GPU network-coding kernels' index math (cuda_gemm/kernel/nc_gpu.cuh), run on the CPU so
 * that CI checks it without a GPU:
 *
 *  - the seeded tables: nc_table_byte of NcSeedCoef must equal
 *    bmma_build_table() of the coefficient matrix the CPU draws with gfec_nc_prng_row(), for
 *    n = 1..1024, 1..200 rows, both coefficient ranges; and nc_encode.cuh's fragments of every
 *    row tile (nc_seed_frag) must be bmma_frag_word of that table, a short last tile included;
 *  - the batched Gauss-Jordan: nc_gj_invert's phases (pivot offers and their minimum, factors,
 *    swap and scale, the pivot row's multiples or products, elimination), run thread by thread
 *    between the barriers for several thread counts, once in thread order and once in reverse
 *    (a phase whose threads depended on each other would give different bytes), must give
 *    gfec_matrix_invert()'s inverse for invertible matrices and report exactly the singular ones
 *    (a repeated row, a combination of rows, a zero column, the zero matrix, random 0/1
 *    matrices); and the inverse's per-tile tables must be bmma_build_table() of the tile's rows,
 *    and (n <= 128) its nc_gemm_ra fragments (nc_gj_write_frags) bmma_frag_word of those tables.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "nc_encode.cuh"
#include "nc_gpu.cuh"
#include "kernel_check.h"

extern "C" {
#include "gf8.h"
#include "matrix.h"
}

using namespace gfec;

static Xorshift32 rnd{12345u};

// nc_encode.cuh's fragments: register r of fragment i of row tile t, for every row subset the
// tile has, is bmma_frag_word of bmma_build_table of the tile's rows (gfec_nc_prng_row); a short
// last tile included, both coefficient ranges, n across k-step boundaries.
static void test_seed_frags(void)
{
	const int cases[][3] = { { 128, 1024, 64 }, { 128, 133, 64 }, { 16, 64, 64 },
				 { 1024, 20, 8 },   { 3, 1, 64 },     { 33, 70, 24 },
				 { 255, 9, 16 } };

	for (const auto &cs : cases)
		for (int zero_ok = 0; zero_ok < 2; zero_ok++) {
			const int n = cs[0], R = cs[2], nks = bmma_nks(n);
			const uint32_t count = (uint32_t)cs[1], seed0 = rnd() % 1000000;
			const uint32_t ntiles = (count + R - 1) / R;
			std::vector<uint8_t> a((size_t)n * R);
			size_t bad = 0, nonzero = 0;

			for (uint32_t t = 0; t < ntiles; t++) {
				const uint32_t r0 = t * R;
				const int rows = count - r0 < (uint32_t)R ? (int)(count - r0) : R;
				const int nsub = bmma_nsub(rows);
				std::vector<uint32_t> table(bmma_table_words(rows, n));

				for (int i = 0; i < rows; i++)
					gfec_nc_prng_row(seed0 + r0 + i, (uint32_t)n, zero_ok,
							 a.data() + (size_t)i * n);
				bmma_build_table(a.data(), n, rows, n, gfec_gf8_tab.mul, table.data());
				const uint8_t *tb = reinterpret_cast<const uint8_t *>(table.data());

				for (size_t i = 0; i < nc_tile_frags(R, n); i++) {
					const int lane = (int)(i & 31), mi = (int)((i >> 5) & 3);
					const int ks = (int)(i >> 7) % nks, sub = (int)(i >> 7) / nks;

					if (sub >= nsub) // the kernel reads no fragment of such a subset
						continue;
					for (int r = 0; r < 4; r++) {
						const uint32_t got = nc_seed_frag(n, count, R, seed0, zero_ok,
										  t, i, r);

						bad += got != bmma_frag_word(tb, nsub, n, sub, ks, mi, lane, r);
						nonzero += got != 0;
					}
				}
			}
			CHECK(bad == 0 && nonzero > 0,
			      "seed frags n=%d count=%u R=%d zero_ok=%d: %zu words differ", n, count, R,
			      zero_ok, bad);
		}
}

static void test_seed_tables(void)
{
	const int ns[] = { 1, 2, 3, 16, 31, 33, 128, 255, 256, 1024 };
	const int rowss[] = { 1, 7, 8, 9, 64, 128, 200 };

	for (int n : ns)
		for (int rows : rowss)
			for (int zero_ok = 0; zero_ok < 2; zero_ok++) {
				const uint32_t seed0 = rnd();
				std::vector<uint8_t> a((size_t)rows * n);
				const size_t words = bmma_table_words(rows, n);
				std::vector<uint32_t> ref(words);
				const NcSeedCoef coef{ seed0, zero_ok };

				for (int i = 0; i < rows; i++)
					gfec_nc_prng_row(seed0 + (uint32_t)i, (uint32_t)n, zero_ok,
							 a.data() + (size_t)i * n);
				bmma_build_table(a.data(), n, rows, n, gfec_gf8_tab.mul, ref.data());
				const uint8_t *rb = reinterpret_cast<const uint8_t *>(ref.data());
				size_t bad = 0;

				for (size_t b = 0; b < 4 * words; b++)
					bad += nc_table_byte(b, rows, bmma_nsub(rows), coef) != rb[b];
				CHECK(bad == 0, "seed table n=%d rows=%d zero_ok=%d: %zu bytes differ", n,
				      rows, zero_ok, bad);
			}
}

// nc_gj_invert on the CPU: every phase thread by thread (forward or reverse order) between the
// kernel's barriers. Returns 1 when singular; else the inverse is in the right half of m.
static int emulate_gj(std::vector<uint8_t> &m, const uint8_t *a, int n, int nt, int reverse,
		      const uint8_t *logexp, bool products)
{
	std::vector<uint8_t> factor(n);
	std::vector<uint8_t> mult((size_t)nc_gj_tab_rows(products) * nc_gj_stride(n), 0x5C);

	m.assign((size_t)n * nc_gj_stride(n), 0xAA);
	for (int q = 0; q < nt; q++)
		nc_gj_load(m.data(), a, n, reverse ? nt - 1 - q : q, nt);
	for (int c = 0; c < n; c++) {
		int piv = n;

		for (int q = 0; q < nt; q++) {
			const int o = nc_gj_offer(m.data(), n, c, q, nt);

			piv = o < piv ? o : piv;
		}
		if (piv == n)
			return 1;
		const uint8_t iv = nc_inv(logexp, m[(size_t)piv * nc_gj_stride(n) + c]);

		CHECK(nc_mul(logexp, iv, m[(size_t)piv * nc_gj_stride(n) + c]) == 1, "inverse of the pivot");
		for (int r = 0; r < n; r++)
			factor[r] = nc_gj_factor(m.data(), n, c, piv, r);
		for (int q = 0; q < nt; q++)
			nc_gj_swap_scale(m.data(), logexp, n, c, piv, iv, reverse ? nt - 1 - q : q, nt);
		for (int q = 0; q < nt; q++) {
			const int tid = reverse ? nt - 1 - q : q;

			if (products)
				nc_gj_products(mult.data(), m.data(), n, c, tid, nt);
			else
				nc_gj_multiples(mult.data(), m.data(), n, c, tid, nt);
		}
		for (int q = 0; q < nt; q++) {
			const int tid = reverse ? nt - 1 - q : q;

			if (products)
				nc_gj_eliminate_products(m.data(), mult.data(), factor.data(), n, c,
							 tid, nt);
			else
				nc_gj_eliminate(m.data(), mult.data(), factor.data(), n, c, tid, nt);
		}
	}
	return 0;
}

enum { DENSE, REPEAT, COMBO, ZEROCOL, ZERO, BINARY, SPARSE_PERM };

static void make_matrix(std::vector<uint8_t> &a, int n, int kind)
{
	a.resize((size_t)n * n);
	for (auto &x : a)
		x = (uint8_t)rnd();
	if (kind == ZERO)
		memset(a.data(), 0, a.size());
	if (kind == BINARY)
		for (auto &x : a)
			x &= 1;
	if (kind == SPARSE_PERM) { // a permutation matrix times random non-zero scales: pivots move
		memset(a.data(), 0, a.size());
		std::vector<int> p(n);
		for (int i = 0; i < n; i++)
			p[i] = i;
		for (int i = n - 1; i > 0; i--) {
			const int j = (int)(rnd() % (uint32_t)(i + 1)), t = p[i];
			p[i] = p[j], p[j] = t;
		}
		for (int i = 0; i < n; i++)
			a[(size_t)i * n + p[i]] = (uint8_t)(1 + rnd() % 255);
	}
	if (n < 2)
		return;
	const int r = (int)(rnd() % (uint32_t)n), s = (int)((r + 1 + rnd() % (uint32_t)(n - 1)) % n);
	if (kind == REPEAT)
		memcpy(&a[(size_t)r * n], &a[(size_t)s * n], n);
	if (kind == COMBO) { // row r = x * row s ^ y * row t
		const int t = (s + 1) % n == r ? (s + 2) % n : (s + 1) % n;
		const uint8_t x = (uint8_t)(1 + rnd() % 255), y = (uint8_t)(rnd() % 256);
		for (int k = 0; k < n; k++)
			a[(size_t)r * n + k] = gfec_gf8_mul(x, a[(size_t)s * n + k]) ^
					       (t != r ? gfec_gf8_mul(y, a[(size_t)t * n + k]) : 0);
	}
	if (kind == ZEROCOL)
		for (int i = 0; i < n; i++)
			a[(size_t)i * n + r] = 0;
}

// nc_gemm_ra's fragments of the inverse in m's right half (nc_gj_write_frags, 96 threads in
// reverse order) against bmma_frag_word of the table of each tile's rows of ref (0 for the row
// subsets past the last row): the words that differ.
static size_t frags_differ(const std::vector<uint8_t> &m, const std::vector<uint8_t> &ref, int n)
{
	const size_t tf = nc_tile_frags(kNcTileRows, n);
	const int ntl = (n + kNcTileRows - 1) / kNcTileRows, nks = bmma_nks(n);
	std::vector<uint32_t> f(4 * tf * ntl, 0xDEADBEEFu);
	size_t bad = 0;

	for (int q = 95; q >= 0; q--)
		nc_gj_write_frags(f.data(), m.data(), n, q, 96);
	for (int t = 0; t < ntl; t++) {
		const int r0 = t * kNcTileRows;
		const int rows = n - r0 < kNcTileRows ? n - r0 : kNcTileRows, nsub = bmma_nsub(rows);
		std::vector<uint32_t> table(bmma_table_words(rows, n));

		bmma_build_table(ref.data() + (size_t)r0 * n, n, rows, n, gfec_gf8_tab.mul,
				 table.data());
		const uint8_t *tb = reinterpret_cast<const uint8_t *>(table.data());

		for (size_t i = 0; i < tf; i++) {
			const int lane = (int)(i & 31), mi = (int)((i >> 5) & 3);
			const int ks = (int)(i >> 7) % nks, sub = (int)(i >> 7) / nks;

			for (int r = 0; r < 4; r++) {
				const uint32_t want =
					sub < nsub ? bmma_frag_word(tb, nsub, n, sub, ks, mi, lane, r) : 0;

				bad += f[4 * (t * tf + i) + r] != want;
			}
		}
	}
	return bad;
}

static void test_gauss_jordan(void)
{
	uint8_t logexp[768];
	const int ns[] = { 1, 2, 3, 5, 16, 33, 128, 200 };
	const int nts[] = { 32, 96, 512 }; // the elimination takes groups of 32 threads

	memcpy(logexp, gfec_gf8_tab.log, 256);
	memcpy(logexp + 256, gfec_gf8_tab.exp, 512);
	for (int n : ns)
		for (int kind = DENSE; kind <= SPARSE_PERM; kind++)
			for (int v = 0; v < 6; v++) { // each thread count, with multiples or products
				const int nt = nts[v / 2];
				const bool prod = v & 1;
				std::vector<uint8_t> a, m0, m1, ref((size_t)n * n), tmp;

				make_matrix(a, n, kind);
				tmp = a;
				const int ref_sing = gfec_matrix_invert(tmp.data(), ref.data(), n) != 0;
				const int s0 = emulate_gj(m0, a.data(), n, nt, 0, logexp, prod);
				const int s1 = emulate_gj(m1, a.data(), n, nt, 1, logexp, prod);

				CHECK(s0 == s1, "n=%d kind=%d nt=%d: thread order changes the result", n,
				      kind, nt);
				CHECK(s0 == ref_sing, "n=%d kind=%d nt=%d prod=%d: singular %d, ref %d", n,
				      kind, nt, prod, s0, ref_sing);
				if (kind == ZERO || (n >= 2 && (kind == REPEAT || kind == COMBO ||
								 kind == ZEROCOL)))
					CHECK(s0, "n=%d kind=%d: a singular matrix was inverted", n, kind);
				if (s0 || s0 != ref_sing)
					continue;
				CHECK(m0 == m1, "n=%d kind=%d nt=%d: thread order changes the bytes", n,
				      kind, nt);
				size_t bad = 0;
				for (int i = 0; i < n; i++)
					for (int j = 0; j < n; j++)
						bad += m0[(size_t)i * nc_gj_stride(n) + n + j] !=
						       ref[(size_t)i * n + j];
				CHECK(bad == 0, "n=%d kind=%d nt=%d: %zu entries differ from the CPU's", n,
				      kind, nt, bad);
				if (nt != 512)
					continue;
				// The per-tile tables nc_gj_invert writes for this inverse.
				for (int tile_rows : { 8, 64, 128 }) {
					for (int r0 = 0; r0 < n; r0 += tile_rows) {
						const int rows = n - r0 < tile_rows ? n - r0 : tile_rows;
						const size_t words = bmma_table_words(rows, n);
						std::vector<uint32_t> want(words);
						const uint8_t *mm = m0.data();
						auto coef = [mm, n, r0](int i, int j) {
							return mm[(size_t)(r0 + i) * nc_gj_stride(n) + n + j];
						};

						bmma_build_table(ref.data() + (size_t)r0 * n, n, rows, n,
								 gfec_gf8_tab.mul, want.data());
						const uint8_t *wb = reinterpret_cast<const uint8_t *>(want.data());
						size_t tb = 0;
						for (size_t b = 0; b < 4 * words; b++)
							tb += nc_table_byte(b, rows, bmma_nsub(rows), coef) != wb[b];
						CHECK(tb == 0, "n=%d tile %d+%d: %zu table bytes differ", n, r0,
						      rows, tb);
					}
				}
				if (n <= 4 * kBmmaChunksPerStep)
					CHECK(frags_differ(m0, ref, n) == 0,
					      "n=%d kind=%d: fragment words of the inverse differ", n, kind);
			}
}

int main(void)
{
	gfec_gf8_init();
	test_seed_tables();
	test_seed_frags();
	test_gauss_jordan();
	if (failures) {
		fprintf(stderr, "nc_emulate: %d failures\n", failures);
		return 1;
	}
	printf("nc_emulate: ok\n");
	return 0;
}
