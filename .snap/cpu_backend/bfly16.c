/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file bfly16.c
 * The CPU backend's GF(2^16) butterflies (gfec_backend_ops.butterfly16, enum gfec_bfly_kind):
 * the region operations of gfmatrix/fft16.c's additive FFT. A plain-C reference, and an AVX2
 * kernel with the split nibble tables of gemm16.c (gfec_cpu_gf16_tables(): c * s is the XOR of
 * four vpshufb lookups per byte plane), 64 bytes (32 symbols) at a time: y's symbols are split
 * into a low-byte and a high-byte plane in registers, multiplied, put back in symbol order and
 * XORed into x. A call is threaded over byte slices of the regions (whole 64-byte groups): each
 * task runs the call's ops in order on its slice, which keeps an op's reads of what an earlier
 * op wrote within one thread; a GFEC_BFLY_DISJOINT call of enough ops is split by ops instead,
 * a GFEC_BFLY_GROUP4 call by groups of four (4 tasks per thread, each over every byte).
 */
#include <immintrin.h>
#include <string.h>

#include "cpu_backend.h"
#include "gf16.h"
#include "threadpool.h"

static void xor_region(uint8_t *d, const uint8_t *s, size_t len)
{
	for (size_t b = 0; b < len; b++)
		d[b] ^= s[b];
}

/* One op over len bytes, the reference way (gfec_gf16_region_mul). */
static void op_base(int kind, size_t len, uint8_t *x, uint8_t *y, uint16_t c)
{
	switch (kind) {
	case GFEC_BFLY_FWD:
		gfec_gf16_region_mul(y, x, len, c, 1);
		xor_region(y, x, len);
		break;
	case GFEC_BFLY_INV:
		xor_region(y, x, len);
		gfec_gf16_region_mul(y, x, len, c, 1);
		break;
	default:
		gfec_gf16_region_mul(y, x, len, c, 0);
		break;
	}
}

void gfec_cpu_bfly16_base(int kind, int n, size_t len, uint8_t *const *x, uint8_t *const *y,
			  const uint16_t *c)
{
	for (int p = 0; p < n; p++)
		op_base(kind & ~GFEC_BFLY_FLAGS, len & ~(size_t)1, x[p], y[p], c[p]);
}

#define BF_T(o) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(tbl + (o))))

/* c * (the 32 symbols at v0, v1), in symbol order, from c's nibble tables. */
static inline __attribute__((always_inline, target("avx2"))) void
mul64(const uint8_t *tbl, __m256i v0, __m256i v1, __m256i *p0, __m256i *p1)
{
	const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
					       0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
	const __m256i low4 = _mm256_set1_epi8(0x0f);
	__m256i a = _mm256_shuffle_epi8(v0, split), b = _mm256_shuffle_epi8(v1, split);
	__m256i lo = _mm256_unpacklo_epi64(a, b), hi = _mm256_unpackhi_epi64(a, b);
	__m256i n0 = _mm256_and_si256(lo, low4);
	__m256i n1 = _mm256_and_si256(_mm256_srli_epi16(lo, 4), low4);
	__m256i n2 = _mm256_and_si256(hi, low4);
	__m256i n3 = _mm256_and_si256(_mm256_srli_epi16(hi, 4), low4);
	__m256i pl, ph;

	pl = _mm256_xor_si256(_mm256_shuffle_epi8(BF_T(0), n0), _mm256_shuffle_epi8(BF_T(32), n1));
	ph = _mm256_xor_si256(_mm256_shuffle_epi8(BF_T(16), n0), _mm256_shuffle_epi8(BF_T(48), n1));
	pl = _mm256_xor_si256(pl, _mm256_xor_si256(_mm256_shuffle_epi8(BF_T(64), n2),
						   _mm256_shuffle_epi8(BF_T(96), n3)));
	ph = _mm256_xor_si256(ph, _mm256_xor_si256(_mm256_shuffle_epi8(BF_T(80), n2),
						   _mm256_shuffle_epi8(BF_T(112), n3)));
	*p0 = _mm256_unpacklo_epi8(pl, ph);
	*p1 = _mm256_unpackhi_epi8(pl, ph);
}

#define LD(p) _mm256_loadu_si256((const __m256i *)(p))
#define ST(p, v) _mm256_storeu_si256((__m256i *)(p), v)

/* One op over the whole 64-byte groups of [0, n); tbl: c's tables (unused when c is 0). */
static __attribute__((target("avx2"))) void op_avx2(int kind, size_t n, uint8_t *x, uint8_t *y,
						    uint16_t c, const uint8_t *tbl)
{
	for (size_t g = 0; g < n; g += 64) {
		__m256i x0 = LD(x + g), x1 = LD(x + g + 32), y0, y1, p0, p1;

		if (kind == GFEC_BFLY_MUL) {
			if (c == 1) { /* a copy */
				p0 = LD(y + g);
				p1 = LD(y + g + 32);
			} else if (c) {
				mul64(tbl, LD(y + g), LD(y + g + 32), &p0, &p1);
			} else {
				p0 = _mm256_setzero_si256();
				p1 = p0;
			}
			ST(x + g, p0);
			ST(x + g + 32, p1);
			continue;
		}
		y0 = LD(y + g);
		y1 = LD(y + g + 32);
		if (kind == GFEC_BFLY_INV) {
			y0 = _mm256_xor_si256(y0, x0);
			y1 = _mm256_xor_si256(y1, x1);
		}
		if (c) {
			mul64(tbl, y0, y1, &p0, &p1);
			x0 = _mm256_xor_si256(x0, p0);
			x1 = _mm256_xor_si256(x1, p1);
			ST(x + g, x0);
			ST(x + g + 32, x1);
		}
		if (kind == GFEC_BFLY_FWD) {
			y0 = _mm256_xor_si256(y0, x0);
			y1 = _mm256_xor_si256(y1, x1);
		}
		ST(y + g, y0);
		ST(y + g + 32, y1);
	}
}

struct bfly_job {
	int kind, n, avx2;
	int per;	/* a split list: ops per task (0: the bytes are split) */
	size_t len, slice;
	uint8_t *const *x, *const *y;
	const uint16_t *c;
};

/* Bytes [off, off + len) of every region, every op in order. */
static void bfly_range(const struct bfly_job *j, size_t off, size_t len)
{
	const size_t vlen = j->avx2 ? len / 64 * 64 : 0;
	uint8_t tbl[GFEC_CPU_GF16_TABLE];
	uint16_t have = 0;

	for (int p = 0; p < j->n; p++) {
		const uint16_t c = j->c[p];

		if (vlen) {
			if (c && c != have && !(c == 1 && j->kind == GFEC_BFLY_MUL)) {
				gfec_cpu_gf16_tables(&c, 1, tbl);
				have = c;
			}
			op_avx2(j->kind, vlen, j->x[p] + off, j->y[p] + off, c, tbl);
		}
		if (vlen < len)
			op_base(j->kind, (len - vlen) & ~(size_t)1, j->x[p] + off + vlen,
				j->y[p] + off + vlen, c);
	}
}

static void bfly_task(void *arg, size_t index)
{
	const struct bfly_job *j = arg;
	const size_t off = index * j->slice;

	if (j->per) { /* ops [index * per, ...) over every byte */
		struct bfly_job sub = *j;
		const int a = (int)index * j->per;

		sub.n = j->n - a < j->per ? j->n - a : j->per;
		sub.x += a;
		sub.y += a;
		sub.c += a;
		bfly_range(&sub, 0, j->len);
		return;
	}
	bfly_range(j, off, j->len - off < j->slice ? j->len - off : j->slice);
}

/* Below this many bytes of regions touched (n * len * 2), a call runs on the caller alone. */
#define BFLY_PARALLEL_MIN (256u * 1024)
/* The least bytes per task when the bytes are split (each task walks the whole list). */
#define BFLY_SLICE_MIN 256u

int gfec_cpu_bfly16_run(struct gfec_cpu_pool *pool, int base, int kind, int n, size_t len,
			uint8_t *const *x, uint8_t *const *y, const uint16_t *c)
{
	/* ops per unit the list may be split into: 1 (disjoint), 4 (groups), 0 (bytes only) */
	const int unit = kind & GFEC_BFLY_GROUP4 ? 4 : kind & GFEC_BFLY_DISJOINT ? 1 : 0;
	struct bfly_job j = { .kind = kind & ~GFEC_BFLY_FLAGS, .n = n, .len = len & ~(size_t)1,
			      .x = x, .y = y, .c = c };

	if (n < 0 || (j.kind != GFEC_BFLY_FWD && j.kind != GFEC_BFLY_INV &&
		      j.kind != GFEC_BFLY_MUL) || (n && (!x || !y || !c)) || (unit == 4 && n % 4))
		return GFEC_E_INVAL;
	if (n == 0 || j.len == 0)
		return 0;
	j.avx2 = !base && gfec_cpu_avx2_supported();
	if (!pool || (uint64_t)n * j.len * 2 < BFLY_PARALLEL_MIN || j.len < 128) {
		bfly_range(&j, 0, j.len);
		return 0;
	}
	const size_t threads = (size_t)gfec_cpu_pool_threads(pool);
	size_t slice = (j.len + threads - 1) / threads;

	slice = slice < BFLY_SLICE_MIN ? BFLY_SLICE_MIN : slice;
	/* disjoint ops or groups: whole units per task where there are enough of them */
	if (unit && (size_t)n >= 4 * threads * (size_t)unit) {
		const size_t ntasks = 4 * threads;

		j.per = (int)(((size_t)n / (size_t)unit + ntasks - 1) / ntasks) * unit;
		gfec_cpu_pool_run(pool, ((size_t)n + (size_t)j.per - 1) / (size_t)j.per, bfly_task,
				  &j);
		return 0;
	}

	slice = (slice + 63) / 64 * 64;
	j.slice = slice;
	gfec_cpu_pool_run(pool, (j.len + slice - 1) / slice, bfly_task, &j);
	return 0;
}
