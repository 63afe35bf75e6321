// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file bfly16_emulate.cpp
 * CPU emulation of the GPU's GF(2^16) butterflies (cuda_gemm/kernel/bfly16.cuh, driven by
 * cuda_gemm/device/bfly16.cu): it proves the arithmetic, the kernel choice and the index math
 * without a GPU, so it runs in CI.
 *
 * The kernels' own code here: the nibble tables (b16_table_entry), the product (b16_mul,
 * b16_mul2), the ops on words (b16_op), the loads and stores (vector or byte by byte, the end of a
 * region), a thread's work in a grouped kernel (b16_group_unit, G = 1 and 4), the sums kernel
 * (b16_sums_unit) and the ordered one (b16_ordered_unit), and the host's choices (b16_groups_ok,
 * b16_sums_ok, b16_sums_take, b16_addr_bits, b16_grid).
 * Re-implemented: the launches' control flow (bfly16.cu's split into kB16MaxOps-op launches and
 * its kernel choice; each kernel's blocks, pieces, threads and staged rounds as the __global__
 * functions walk them), with shared-memory tables that start as garbage and are left so when
 * the kernel does not build them.
 *
 * Checked: every product c * s for 70 constants (0, 1 and 0xffff among them) against
 * gfec_gf16_mul; then random op lists, byte for byte against the CPU backend's plain-C reference
 * gfec_cpu_bfly16_base: disjoint lists (MUL in place and sources shared), groups of four in both
 * orders of fft16.c's radix-4 passes, groups of another shape (which must run in order), ordered
 * lists chained through a few regions, GFEC_BFLY_SUMS lists of runs of one length and of
 * random lengths (sources shared between runs; a list with a run over kB16SumsMax ops or a
 * product must run in order), lists longer than one launch; lengths that are not whole 16- or
 * 4-byte units, aligned and misaligned (odd) regions, grids for 1 to 132 SMs. Then fft16.c's
 * decoder with these ops (disjoint_only, the codec's GPU setting: the derivative as two
 * GFEC_BFLY_SUMS lists) against its CPU reference.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "bfly16.cuh"
#include "cpu_backend.h"
#include "fft16.h"
#include "gemm.h"
#include "gf16.h"
#include "xorshift64.h"

using namespace gfec;

static int failures;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);  \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static Xorshift64Star rnd{0x9e3779b97f4a7c15ull};

static void garbage(uint32_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		w[i] = (uint32_t)rnd();
}

template <int G, int K>
static void grouped(const B16List &l, int n, size_t len, uintptr_t bits, int sms)
{
	const size_t groups = (size_t)n / G;
	unsigned pieces;
	size_t span;
	std::vector<uint32_t> tb(G * kB16TableWords);

	b16_grid(groups, len, sms, &pieces, &span);
	CHECK(span % 16 == 0 && pieces >= 1 && pieces <= 65535);
	CHECK((size_t)pieces * span >= len && (size_t)(pieces - 1) * span < len);
	for (size_t g = 0; g < groups; g++)
		for (unsigned y = 0; y < pieces; y++) {
			garbage(tb.data(), tb.size());
			for (int t = 0; t < G * kB16TableWords; t++) // the block's threads t < 64 G
				tb[t] = b16_table_entry(l.c[g * G + t / kB16TableWords],
							t % kB16TableWords);
			const size_t b0 = (size_t)y * span, b1 = b0 + span < len ? b0 + span : len;

			for (int t = 0; t < kB16Threads; t++)
				for (size_t off = b0 + (size_t)t * 16; off < b1;
				     off += (size_t)kB16Threads * 16)
					b16_group_unit<G, K>(l, g, tb.data(), off, len, bits % 16 == 0);
		}
}

static void sums(const B16List &l, int n, size_t len, uintptr_t bits, int sms)
{
	std::vector<uint32_t> starts((size_t)n + 1);
	size_t runs;
	unsigned pieces;
	size_t span;

	CHECK(b16_sums_take(l.y, (size_t)n, (size_t)n, starts.data(), &runs) == (size_t)n);
	b16_grid(runs, len, sms, &pieces, &span);
	for (size_t g = 0; g < runs; g++)
		for (unsigned y = 0; y < pieces; y++) {
			const uint32_t p0 = starts[g];
			const int run = (int)(starts[g + 1] - p0);
			uint8_t *xs[kB16SumsMax];

			CHECK(run >= 1 && run <= kB16SumsMax);
			for (int t = 0; t < run; t++) // the block's threads t < run
				xs[t] = l.x[p0 + t];
			const size_t b0 = (size_t)y * span, b1 = b0 + span < len ? b0 + span : len;

			for (int t = 0; t < kB16Threads; t++)
				for (size_t off = b0 + (size_t)t * 16; off < b1;
				     off += (size_t)kB16Threads * 16)
					b16_sums_unit(xs, l.y[p0], run, off, len, bits % 16 == 0);
		}
}

template <int K>
static void ordered(const B16List &l, int n, size_t len, uintptr_t bits, int tables)
{
	const size_t blocks = ((len + 3) / 4 + kB16Threads - 1) / kB16Threads;
	std::vector<uint32_t> tb(kB16Chunk * kB16TableWords);
	uint8_t *xs[kB16Chunk], *ys[kB16Chunk];
	uint16_t cs[kB16Chunk];

	for (size_t b = 0; b < blocks; b++) {
		garbage(tb.data(), tb.size());
		for (int p0 = 0; p0 < n; p0 += kB16Chunk) {
			const int cnt = n - p0 < kB16Chunk ? n - p0 : kB16Chunk;

			for (int t = 0; t < cnt; t++) {
				xs[t] = l.x[p0 + t];
				ys[t] = l.y[p0 + t];
				cs[t] = l.c[p0 + t];
			}
			if (tables)
				for (int e = 0; e < cnt * kB16TableWords; e++)
					tb[e] = b16_table_entry(l.c[p0 + e / kB16TableWords],
								e % kB16TableWords);
			for (int t = 0; t < kB16Threads; t++) {
				const size_t off = (b * kB16Threads + (size_t)t) * 4;

				if (off < len)
					b16_ordered_unit<K>(xs, ys, cs, tb.data(), cnt, off, len,
							    bits % 4 == 0);
			}
		}
	}
}

template <int K>
static void launch_kind(const B16List &l, int unit, int n, size_t len, uintptr_t bits, int tables,
			int sms)
{
	if (unit == 0)
		ordered<K>(l, n, len, bits, tables);
	else if (unit == 4)
		grouped<4, K>(l, n, len, bits, sms);
	else
		grouped<1, K>(l, n, len, bits, sms);
}

enum { kSumsKernel = 100 }; // emulate()'s answer for the sums kernel

/*
 * bfly16_run's dispatch, every launch emulated; returns the kernel it took (0, 1, 4 or
 * kSumsKernel).
 */
static int emulate(int kind, int n, size_t len, uint8_t *const *x, uint8_t *const *y,
		   const uint16_t *c, int sms)
{
	const int k = kind & ~GFEC_BFLY_FLAGS;
	int unit = kind & GFEC_BFLY_GROUP4 ? 4 : kind & GFEC_BFLY_DISJOINT ? 1 : 0;

	len &= ~(size_t)1;
	if (unit == 4 && !b16_groups_ok(x, y, (size_t)n))
		unit = 0;
	const bool sum = kind & GFEC_BFLY_SUMS && k == GFEC_BFLY_FWD && unit == 0 &&
			 b16_sums_ok(y, c, (size_t)n);

	for (int p0 = 0, cnt; p0 < n; p0 += cnt) {
		size_t runs;

		cnt = sum ? (int)b16_sums_take(y + p0, (size_t)(n - p0), kB16MaxOps, nullptr, &runs)
			  : n - p0 < kB16MaxOps ? n - p0
						: kB16MaxOps;
		CHECK(cnt >= 1 && cnt <= kB16MaxOps);
		const B16List l = { x + p0, y + p0, c + p0 };
		const uintptr_t bits = b16_addr_bits(x + p0, y + p0, (size_t)cnt);
		int tables = 0;

		for (int p = 0; p < cnt; p++)
			tables |= c[p0 + p] != 0;
		if (sum)
			sums(l, cnt, len, bits, sms);
		else if (k == kB16Fwd)
			launch_kind<kB16Fwd>(l, unit, cnt, len, bits, tables, sms);
		else if (k == kB16Inv)
			launch_kind<kB16Inv>(l, unit, cnt, len, bits, tables, sms);
		else
			launch_kind<kB16Mul>(l, unit, cnt, len, bits, tables, sms);
	}
	return sum ? kSumsKernel : unit;
}

static void test_products()
{
	uint32_t tb[kB16TableWords];

	gfec_gf16_init();
	for (int i = 0; i < 70; i++) {
		const uint32_t c = i == 0 ? 0 : i == 1 ? 1 : i == 2 ? 0xffff : i == 3 ? 0x8000
										 : rnd() & 0xffff;
		int bad = 0;

		for (int e = 0; e < kB16TableWords; e++)
			tb[e] = b16_table_entry(c, e);
		for (uint32_t s = 0; s < 65536; s++)
			bad += b16_mul(tb, s) != gfec_gf16_mul((uint16_t)c, (uint16_t)s);
		for (int r = 0; r < 1000; r++) {
			const uint32_t w = (uint32_t)rnd();

			bad += b16_mul2(tb, w) != ((uint32_t)gfec_gf16_mul((uint16_t)c, w & 0xffff) |
						   (uint32_t)gfec_gf16_mul((uint16_t)c, w >> 16) << 16);
		}
		CHECK(bad == 0);
	}
}

/* Regions of the list: nreg of len bytes, each at its own offset (aligned or not) in one pool. */
struct Regions {
	std::vector<uint8_t> pool;
	std::vector<uint8_t *> r;

	Regions(int nreg, size_t len, bool aligned)
	{
		std::vector<size_t> at(nreg);
		size_t total = 64;

		for (int i = 0; i < nreg; i++) {
			total = (total + 15) / 16 * 16 + (aligned ? 0 : (size_t)rnd.range(1, 15));
			at[i] = total;
			total += len + (size_t)rnd.range(0, 40);
		}
		pool.resize(total + 64);
		for (size_t i = 0; i < pool.size(); i++)
			pool[i] = (uint8_t)rnd();
		// the pool's base is malloc'd (16-byte aligned): offsets keep the alignment asked for
		for (int i = 0; i < nreg; i++)
			r.push_back(pool.data() + at[i]);
	}
};

enum Shape { kDisjoint, kGroupFwd, kGroupInv, kGroupOther, kOrdered, kSums, kSumsUneven };

/*
 * A GFEC_BFLY_SUMS list of nops ops over a's regions (2 nops of them): runs of @p run ops (the
 * last one shorter where run does not divide nops), or (uneven) of random lengths up to
 * kB16SumsMax + 2 (over kB16SumsMax only in lists of up to 1000 ops), each into a region of its
 * own among the first half, summing sources from the second half (some read by several runs, or
 * twice by one). Returns 1 when no run is over kB16SumsMax ops.
 */
static bool sums_list(const Regions &a, int nops, int run, bool uneven, uint8_t **x, uint8_t **y)
{
	const int nreg = (int)a.r.size(), ny = nreg / 2;
	int p = 0, g = 0;
	bool fits = true;

	while (p < nops) {
		int len = !uneven			    ? run
			  : nops > 1000 || rnd.range(0, 30) ? rnd.range(1, kB16SumsMax)
							    : kB16SumsMax + rnd.range(1, 2);

		if (len > nops - p)
			len = nops - p;
		fits = fits && len <= kB16SumsMax;
		for (int i = 0; i < len; i++, p++) {
			x[p] = a.r[ny + rnd.range(0, nreg - ny - 1)];
			y[p] = a.r[g];
		}
		g++;
	}
	return fits;
}

/*
 * One random list of @p shape over fresh regions, emulated against the reference; sums lists
 * (kind FWD) in runs of @p run ops (0: a random length).
 */
static void one_list(Shape shape, int kind, int nops, size_t len, bool aligned, int sms,
		     int run = 0)
{
	const bool sum = shape == kSums || shape == kSumsUneven;
	const int nreg = shape == kDisjoint || sum ? 2 * nops
			 : shape == kOrdered	   ? rnd.range(2, 9)
						   : nops;
	Regions a(nreg, len, aligned);
	std::vector<uint8_t *> x(nops), y(nops);
	std::vector<uint16_t> c(nops);
	int flags = 0, want_unit = 0;

	for (int p = 0; p < nops; p++)
		c[p] = rnd.range(0, 4) == 0 ? 0 : rnd.range(0, 4) == 0 ? 1 : (uint16_t)rnd();
	if (sum) {
		const bool fits = sums_list(a, nops, run ? run : rnd.range(1, kB16SumsMax),
					    shape == kSumsUneven, x.data(), y.data());
		const bool one_c = rnd.range(0, 7) == 0; // a product: not a sum, so in order

		flags = GFEC_BFLY_SUMS;
		for (int p = 0; p < nops; p++)
			c[p] = 0;
		if (one_c)
			c[rnd.range(0, nops - 1)] = (uint16_t)rnd.range(1, 65535);
		want_unit = fits && !one_c ? kSumsKernel : 0;
	} else if (shape == kDisjoint) {
		flags = GFEC_BFLY_DISJOINT;
		want_unit = 1;
		for (int p = 0; p < nops; p++) {
			x[p] = a.r[2 * p];
			y[p] = a.r[2 * p + 1];
			if (kind == GFEC_BFLY_MUL && rnd.range(0, 3) == 0)
				y[p] = x[p]; // in place
			else if (kind == GFEC_BFLY_MUL && p && rnd.range(0, 3) == 0)
				y[p] = y[p - 1]; // one source read by two ops
		}
	} else if (shape == kOrdered) {
		for (int p = 0; p < nops; p++) {
			const int i = rnd.range(0, nreg - 1),
				  j = (i + rnd.range(1, nreg - 1)) % nreg;

			x[p] = a.r[i];
			y[p] = kind == GFEC_BFLY_MUL && rnd.range(0, 4) == 0 ? a.r[i] : a.r[j];
		}
	} else {
		flags = GFEC_BFLY_GROUP4;
		want_unit = shape == kGroupOther ? 0 : 4;
		for (int g = 0; g < nops / 4; g++) {
			uint8_t *A = a.r[4 * g], *B = a.r[4 * g + 1], *C = a.r[4 * g + 2],
				*D = a.r[4 * g + 3];
			uint8_t *gx[4], *gy[4];

			if (shape == kGroupFwd) { // fft16.c's forward: (A,C) (B,D) then (A,B) (C,D)
				uint8_t *fx[4] = { A, B, A, C }, *fy[4] = { C, D, B, D };

				memcpy(gx, fx, sizeof(gx));
				memcpy(gy, fy, sizeof(gy));
			} else if (shape == kGroupInv) { // inverse: (A,B) (C,D) then (A,C) (B,D)
				uint8_t *fx[4] = { A, C, A, B }, *fy[4] = { B, D, C, D };

				memcpy(gx, fx, sizeof(gx));
				memcpy(gy, fy, sizeof(gy));
			} else { // a chain (A,B) (B,C) (C,D) (D,A): ordered, not the radix-4 shape
				uint8_t *fx[4] = { A, B, C, D }, *fy[4] = { B, C, D, A };

				memcpy(gx, fx, sizeof(gx));
				memcpy(gy, fy, sizeof(gy));
			}
			for (int i = 0; i < 4; i++) {
				x[4 * g + i] = gx[i];
				y[4 * g + i] = gy[i];
			}
		}
		if (shape == kGroupOther && nops > 4) { // the other groups keep the right shape
			for (int g = 1; g < nops / 4; g++) {
				uint8_t *A = a.r[4 * g], *B = a.r[4 * g + 1], *C = a.r[4 * g + 2],
					*D = a.r[4 * g + 3];
				uint8_t *fx[4] = { A, B, A, C }, *fy[4] = { C, D, B, D };

				for (int i = 0; i < 4; i++) {
					x[4 * g + i] = fx[i];
					y[4 * g + i] = fy[i];
				}
			}
		}
	}
	// the reference on a copy of the pool, the emulation on the pool itself
	std::vector<uint8_t> ref(a.pool);
	std::vector<uint8_t *> rx(nops), ry(nops);

	for (int p = 0; p < nops; p++) {
		rx[p] = ref.data() + (x[p] - a.pool.data());
		ry[p] = ref.data() + (y[p] - a.pool.data());
	}
	gfec_cpu_bfly16_base(kind, nops, len, rx.data(), ry.data(), c.data());
	const int unit = emulate(kind | flags, nops, len, x.data(), y.data(), c.data(), sms);

	CHECK(unit == want_unit);
	if (memcmp(ref.data(), a.pool.data(), ref.size())) {
		fprintf(stderr, "shape %d kind %d ops %d len %zu aligned %d sms %d: differs\n",
			(int)shape, kind, nops, len, (int)aligned, sms);
		failures++;
	}
}

static void test_lists()
{
	static const int sms[] = { 1, 4, 132 };

	for (int iter = 0; iter < 420; iter++) {
		const Shape shape = (Shape)(iter % 7);
		const bool sum = shape == kSums || shape == kSumsUneven;
		const int kind = shape == kGroupFwd || sum ? GFEC_BFLY_FWD
				 : shape == kGroupInv	   ? GFEC_BFLY_INV
							   : rnd.range(0, 2);
		const int nops = shape == kDisjoint || shape == kOrdered ? rnd.range(1, 40)
				 : sum					 ? rnd.range(1, 120)
									 : 4 * rnd.range(1, 10);
		const size_t len =
		    2 * (size_t)(iter % 7 ? rnd.range(1, 300) : rnd.range(1000, 12000));

		one_list(shape, kind, nops, len, iter % 3 != 0, sms[iter % 3]);
	}
	// more ops than one launch takes: ordered (a chain) and grouped, short regions
	one_list(kOrdered, GFEC_BFLY_FWD, kB16MaxOps + 37, 6, true, 132);
	one_list(kGroupFwd, GFEC_BFLY_FWD, kB16MaxOps + 8, 34, false, 132);
	one_list(kDisjoint, GFEC_BFLY_MUL, kB16MaxOps + 3, 18, true, 8);
	one_list(kSums, GFEC_BFLY_FWD, 11 * 6000, 40, true, 132, 11); // launches of whole runs
	one_list(kSums, GFEC_BFLY_FWD, 16 * 4100, 22, false, 4, 16);
	one_list(kSumsUneven, GFEC_BFLY_FWD, kB16MaxOps + 900, 18, true, 132);
}

/* The codec's GPU ops, emulated (fft16.h's bfly), counting the lists the sums kernel ran. */
static int sums_lists;

static int emulated_bfly(void *ctx, int kind, int n, size_t len, uint8_t *const *x,
			 uint8_t *const *y, const uint16_t *c)
{
	(void)ctx;
	sums_lists += emulate(kind, n, len, x, y, c, 132) == kSumsKernel;
	return 0;
}

/*
 * fft16.c's decoder with the emulated ops and disjoint_only (its derivative as two
 * GFEC_BFLY_SUMS lists, as the codec asks for the GPU's ops) against the original chunks and
 * the same decode by the CPU's reference ops (its derivative one ordered list): m losses of data
 * and parity, coset-layout shapes.
 */
static void test_decode()
{
	static const int shapes[][2] = { { 2, 1 }, { 5, 3 }, { 100, 20 }, { 1000, 200 }, { 30, 40 } };

	for (const auto &sh : shapes) {
		const int k = sh[0], m = sh[1], n = k + m;
		const size_t len = 2 * (size_t)rnd.range(1, 40);
		struct gfec_fft16_code *code = NULL;
		const struct gfec_fft16_ops ops = { emulated_bfly, NULL, NULL, NULL, 0, NULL, 1 };
		std::vector<uint8_t> buf((size_t)(n + 2 * m) * len);
		std::vector<const uint8_t *> ch(n);
		std::vector<uint8_t *> out(n, nullptr), ref(n, nullptr), chunk(n);
		std::vector<int> lost;

		for (auto &b : buf)
			b = (uint8_t)rnd();
		for (int i = 0; i < n; i++)
			ch[i] = chunk[i] = buf.data() + (size_t)i * len;
		CHECK(gfec_fft16_code_create(k, m, GFEC_FFT16_COSETS, &code) == 0);
		if (!code)
			continue;
		CHECK(gfec_fft16_encode(code, NULL, len, (const uint8_t *const *)chunk.data(),
					chunk.data() + k) == 0);
		for (int i = rnd.range(0, n - 1); (int)lost.size() < m;
		     i = (i + rnd.range(1, 3)) % n)
			if (ch[i]) {
				ch[i] = nullptr;
				out[i] = buf.data() + (size_t)(n + lost.size()) * len;
				ref[i] = buf.data() + (size_t)(n + m + lost.size()) * len;
				lost.push_back(i);
			}
		sums_lists = 0;
		CHECK(gfec_fft16_decode(code, &ops, len, ch.data(), out.data()) == 0);
		CHECK(sums_lists == 2);
		CHECK(gfec_fft16_decode(code, NULL, len, ch.data(), ref.data()) == 0);
		for (int i : lost) {
			CHECK(memcmp(out[i], chunk[i], len) == 0);
			CHECK(memcmp(ref[i], chunk[i], len) == 0);
		}
		gfec_fft16_code_free(code);
	}
}

static void test_grid()
{
	for (int i = 0; i < 100000; i++) {
		const size_t groups = (size_t)rnd.range(1, 20000),
			     len = 2 * (size_t)rnd.range(1, 1 << 24);
		const int sms = rnd.range(1, 200);
		unsigned pieces;
		size_t span;

		b16_grid(groups, len, sms, &pieces, &span);
		CHECK(span % 16 == 0 && pieces >= 1 && pieces <= 65535);
		CHECK((size_t)pieces * span >= len && (size_t)(pieces - 1) * span < len);
		// pieces of at least half of kB16PieceMin where there are several
		CHECK(pieces == 1 || span >= kB16PieceMin / 2);
	}
}

int main()
{
	test_products();
	test_grid();
	test_lists();
	test_decode();
	if (failures) {
		fprintf(stderr, "bfly16_emulate: %d failures\n", failures);
		return 1;
	}
	printf("bfly16_emulate: products, grids and op lists match the reference\n");
	return 0;
}
