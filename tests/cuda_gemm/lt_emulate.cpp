// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file lt_emulate.cpp
 * The GPU LT encoder's index math (cuda_gemm/kernel/lt_gpu.cuh), run on the CPU so that CI checks
 * it without a GPU. The device draws degrees with lt_dist.h's gfec_lt_degree itself, but its
 * neighbours come from a warp-parallel form of Floyd's sampler (32 draws per round, the in-round
 * dependences settled by iterating a recurrence over the lanes), and its blocks are split into
 * items whose partial XORs are combined at the end; those are new code, so:
 *
 *  - the rounds, emulated lane by lane with lt_gpu.cuh's functions (the match/ballot of the warp
 *    computed over the 32 lanes), give gfec_lt_neighbours()' indices for every d of small n,
 *    d around the round and bitmap edges (31, 32, 33, 64, 65) and large d up to n = 65536, and
 *    the bitmap holds exactly the chosen indices before it is cleared (odd rounds run their lanes
 *    from the last: a lane's bit may be set before another lane of its round tests its draw);
 *  - with degrees from real tables (gfec_lt_dist_create), the indices equal gfec_lt_block()'s;
 *  - the whole pipeline (degrees, the multi-item blocks' list and item ranges in an order other
 *    than the blocks', their indices and item table, lt_xor's units per lane with the blocks of
 *    one item drawing their own neighbours, lt_combine_block) gives gfec_lt_encode()'s bytes, for
 *    n in {1, 2, 5, 128, 1024, 10240}, the vector and byte paths, B from 1 to 1040, outputs at a
 *    stride with poisoned guard bytes, several segments.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "lt_gpu.cuh"
#include "kernel_check.h"

extern "C" {
#include "lt.h"
}

using namespace gfec;

static Xorshift32 rnd{88172645u};

/** Rounds settled by the first step, and rounds that needed more (in-round dependences). */
static size_t g_fast, g_slow;

/**
 * lt_indices' loop body for one block, the warp's 32 lanes run one after another between its
 * collective operations: out[0..d-1]; @p bm (ceil(n / 32) words, zero) is left zero.
 */
static void emulate_block(uint32_t key, uint32_t n, uint32_t d, uint32_t *bm, uint32_t *out)
{
	const int multi = d > 32;

	for (uint32_t t0 = 0; t0 < d; t0 += 32) {
		const uint32_t jbase = n - d + t0;
		uint32_t v[32], j[32], c = 0, prev;
		int in_bm[32], same[32], active[32], steps = 0;

		for (uint32_t lane = 0; lane < 32; lane++) {
			const uint32_t t = t0 + lane;

			active[lane] = t < d;
			j[lane] = n - d + t;
			v[lane] = active[lane] ? lt_draw(key, j[lane], t) : 0xFFFFFFFFu;
		}
		for (uint32_t lane = 0; lane < 32; lane++) {
			same[lane] = 0; // (__match_any_sync(v) & lanemask_lt) != 0
			for (uint32_t s = 0; s < lane; s++)
				same[lane] |= v[s] == v[lane];
			in_bm[lane] = active[lane] && t0 && lt_bit(bm, v[lane]);
			c |= (uint32_t)in_bm[lane] << lane;
		}
		do {
			uint32_t next = 0;

			prev = c;
			for (uint32_t lane = 0; lane < 32; lane++)
				if (active[lane] &&
				    lt_conflict(v[lane], jbase, lane, in_bm[lane], same[lane], prev))
					next |= 1U << lane;
			c = next;
			steps++;
		} while (c != prev && steps <= 33);
		CHECK(steps <= 33, "n=%u d=%u: a round did not settle in 33 steps", n, d);
		if (steps == 1)
			g_fast++;
		else
			g_slow++;
		// the lanes are not in lock step: odd rounds run them from the last one
		for (uint32_t k = 0; k < 32; k++) {
			const uint32_t lane = (t0 / 32) % 2 ? 31 - k : k;

			if (!active[lane])
				continue;
			const uint32_t x = c >> lane & 1 ? j[lane] : v[lane];

			out[t0 + lane] = x;
			if (multi)
				bm[x >> 5] |= 1U << (x & 31);
		}
	}
	if (multi) {
		size_t bits = 0;

		for (uint32_t t = 0; t < d; t++)
			CHECK(out[t] < n && lt_bit(bm, out[t]),
			      "n=%u d=%u: index %u not in the bitmap", n, d, out[t]);
		for (uint32_t w = 0; w < (n + 31) / 32; w++) {
			bits += (size_t)__builtin_popcount(bm[w]);
			bm[w] = 0;
		}
		CHECK(bits == d, "n=%u d=%u: %zu bits set in the bitmap", n, d, bits);
	}
}

static void check_degree(uint32_t n, uint32_t d, uint32_t key)
{
	std::vector<uint32_t> bm((n + 31) / 32), got(d), want(d);

	emulate_block(key, n, d, bm.data(), got.data());
	gfec_lt_neighbours(key, n, d, want.data());
	CHECK(got == want, "n=%u d=%u key=%08x: the warp rounds differ from lt_dist.h", n, d, key);
}

static void test_rounds(void)
{
	const uint32_t small[] = { 1, 2, 3, 31, 32, 33, 64, 65, 100 };

	for (uint32_t n : small)
		for (uint32_t d = 1; d <= n; d++)
			for (int r = 0; r < 20; r++)
				check_degree(n, d, rnd());
	const uint32_t big[] = { 128, 1024, 10240, 65536 };
	const uint32_t ds[] = { 1, 2, 17, 31, 32, 33, 63, 64, 65, 96, 97, 276, 1000, 2500 };

	for (uint32_t n : big)
		for (uint32_t d : ds)
			for (int r = 0; r < 10 && d <= n; r++)
				check_degree(n, d, rnd());
	check_degree(1024, 1024, rnd());
	check_degree(2048, 2047, rnd());
	CHECK(g_fast > 1000 && g_slow > 1000, "rounds: %zu fast, %zu slow: a path went untested",
	      g_fast, g_slow);
}

static void test_tables(void)
{
	const uint32_t ns[] = { 1, 2, 7, 128, 1024, 10240, 65536 };

	for (uint32_t n : ns) {
		struct gfec_lt_dist *dist;
		std::vector<uint32_t> want(n), got(n), bm((n + 31) / 32);

		CHECK(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &dist) == 0,
		      "dist n=%u", n);
		for (uint32_t s = 0; s < (n >= 10240 ? 3000u : 20000u); s++) {
			const uint32_t seed = s * 2654435761u, key = gfec_nc_prng_key(seed);
			const uint32_t d = gfec_lt_degree(dist->cdf, dist->len, key);

			CHECK(gfec_lt_block(dist, seed, want.data()) == d, "n=%u seed %u: degree",
			      n, seed);
			emulate_block(key, n, d, bm.data(), got.data());
			CHECK(memcmp(got.data(), want.data(), d * 4) == 0,
			      "n=%u seed %u d=%u: the warp rounds differ from gfec_lt_block", n,
			      seed, d);
		}
		gfec_lt_dist_free(dist);
	}
}

/**
 * The four launches of one gfec_gpu_lt_encode call on host memory; vec as the host picks it (0
 * bytes, 1 16-byte units stored whole, 2 stored in 4-byte words).
 */
static void emulate_encode(const struct gfec_lt_dist *dist, size_t B, uint32_t seed0,
			   uint32_t count, const std::vector<const uint8_t *> &segs, uint8_t *out,
			   size_t stride, int vec)
{
	const uint32_t n = dist->n;
	std::vector<uint32_t> deg(count), ioff(count, 0xDDDDDDDDu), multi, bm((n + 31) / 32);
	uint32_t items = 0;

	// lt_degrees, its atomic adds in the reverse order of the blocks (any order is valid)
	for (uint32_t k = 0; k < count; k++) {
		const uint32_t i = count - 1 - k;

		deg[i] = gfec_lt_degree(dist->cdf, dist->len, gfec_nc_prng_key(seed0 + i));
		if (deg[i] > kLtItem) {
			multi.push_back(i);
			ioff[i] = items;
			items += lt_items(deg[i]);
		}
	}
	std::vector<uint32_t> idx((size_t)items * kLtItem, 0xEEEEEEEEu);
	std::vector<LtPair> item(items, LtPair{ 0xFFFFFFFFu, 0xFFFFFFFFu });
	std::vector<uint8_t> part((size_t)items * B * segs.size() + 1, 0xA5);

	for (uint32_t i : multi) { // lt_indices
		for (uint32_t g = 0; g < lt_items(deg[i]); g++)
			item[ioff[i] + g] = LtPair{ i, g };
		emulate_block(gfec_nc_prng_key(seed0 + i), n, deg[i], bm.data(),
			      idx.data() + (size_t)ioff[i] * kLtItem);
	}
	for (uint32_t it = 0; it < items; it++)
		CHECK(item[it].blk < count && ioff[item[it].blk] + item[it].g == it,
		      "item %u not written", it);
	LtArgs a{};

	a.segs = segs.data(), a.out = out, a.partial = part.data(), a.deg = deg.data();
	a.ioff = ioff.data(), a.idx = idx.data(), a.item = item.data(), a.B = B;
	a.stride = stride, a.units = B / 16, a.count = count, a.items = items, a.n = n;
	a.seed0 = seed0, a.nseg = (int)segs.size(), a.vec = vec != 0, a.out16 = vec == 1;
	size_t drawn = 0;

	for (size_t w = 0; w < (size_t)count + items; w++) { // lt_xor, unit by unit
		uint32_t nb[kLtItem];

		std::fill(nb, nb + kLtItem, 0xEEEEEEEEu);
		if (lt_unit_draws(a, w)) {
			emulate_block(gfec_nc_prng_key(seed0 + (uint32_t)w), n, deg[w], bm.data(), nb);
			drawn++;
		}
		for (int s = 0; s < a.nseg; s++)
			for (uint32_t lane = 0; lane < 32; lane++)
				lt_unit(a, w, nb, s, lane);
	}
	for (uint32_t i : multi) // lt_combine
		for (int s = 0; s < a.nseg; s++)
			for (uint32_t lane = 0; lane < 32; lane++)
				lt_combine_block(a, i, s, lane);
	CHECK(drawn + multi.size() == count, "units: %zu drawn, %zu multi-item of %u", drawn,
	      multi.size(), count);
}

static void test_encode(uint32_t n, size_t B, uint32_t count, int nseg, int vec)
{
	struct gfec_lt_dist *dist;
	// vec 2: payloads after a 28-byte block header, 4-byte aligned
	const size_t stride = vec == 1 ? B + 32 : vec ? B + 28 : B + 7, seg_bytes = (size_t)n * B;
	const uint32_t seed0 = rnd() % 1000000;
	// 16-byte aligned storage; the byte path starts segments and outputs at odd addresses
	std::vector<LtU4> src_store((nseg * seg_bytes + 32) / 16 + 1);
	std::vector<LtU4> out_store(((size_t)nseg * count * stride + 64) / 16 + 1);
	uint8_t *src = (uint8_t *)src_store.data() + (vec ? 0 : 3);
	uint8_t *out = (uint8_t *)out_store.data() + (vec == 1 ? 0 : vec ? 28 : 5);
	std::vector<uint8_t> want(B);
	std::vector<const uint8_t *> segs(nseg);

	CHECK(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &dist) == 0, "dist");
	for (size_t b = 0; b < nseg * seg_bytes; b++)
		src[b] = (uint8_t)rnd();
	memset(out, 0x5A, (size_t)nseg * count * stride);
	for (int s = 0; s < nseg; s++)
		segs[s] = src + s * seg_bytes;
	int pv, p16; // the paths lt.cu picks for these buffers: the ones this case means to take

	lt_paths(B, segs.data(), nseg, out, stride, &pv, &p16);
	CHECK(pv == (vec != 0) && p16 == (vec == 1), "n=%u B=%zu vec=%d: lt_paths picks %d, %d", n,
	      B, vec, pv, p16);
	emulate_encode(dist, B, seed0, count, segs, out, stride, vec);
	for (int s = 0; s < nseg; s++) {
		std::vector<uint8_t> ref((size_t)count * B);

		CHECK(gfec_lt_encode(dist, segs[s], B, seed0, count, ref.data(), B, nullptr) == 0,
		      "gfec_lt_encode");
		for (uint32_t r = 0; r < count; r++) {
			const uint8_t *g = out + ((size_t)s * count + r) * stride;

			CHECK(memcmp(g, ref.data() + (size_t)r * B, B) == 0,
			      "encode n=%u B=%zu vec=%d seg %d block %u (seed %u) differs", n, B,
			      vec, s, r, seed0 + r);
			for (size_t k = B; k < stride; k++)
				CHECK(g[k] == 0x5A, "encode n=%u B=%zu: wrote past block %u", n, B,
				      r);
		}
	}
	gfec_lt_dist_free(dist);
}

int main(void)
{
	test_rounds();
	test_tables();
	const uint32_t ns[] = { 1, 2, 5, 128, 1024 };
	const size_t vec_B[] = { 16, 48, 1024, 1040 }, byte_B[] = { 1, 15, 1023 };

	for (uint32_t n : ns) {
		for (size_t B : vec_B)
			for (int vec = 1; vec <= 2; vec++)
				test_encode(n, B, n >= 1024 ? 300 : 200, 1 + (int)(rnd() % 3), vec);
		for (size_t B : byte_B)
			test_encode(n, B, n >= 1024 ? 100 : 200, 1 + (int)(rnd() % 2), 0);
	}
	test_encode(10240, 1024, 400, 1, 1);
	test_encode(10240, 1024, 400, 2, 2);
	test_encode(10240, 33, 200, 2, 0);
	if (failures) {
		fprintf(stderr, "lt_emulate: %d failures\n", failures);
		return 1;
	}
	printf("lt_emulate: ok (%zu rounds settled in one step, %zu in more)\n", g_fast, g_slow);
	return 0;
}
