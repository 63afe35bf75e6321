/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file ec_api.c
 * ISA-L's erasure-code entry points: ec_init_tables() writes the private table (isal_abi.h), and
 * ec_encode_data() / ec_encode_data_update() send each call to the GPU, gfec's GFNI kernels, the
 * real ISA-L or gfec's plain-C code. Every route gives the same bytes; a GPU error redoes the call on the CPU.
 *
 * A table without our magic was built by a real ISA-L (a "foreign" table). It goes to the real
 * library as it is, since that library can read its own tables; with none loaded, it is read as
 * ISA-L's own _base functions read tables: the coefficient is byte 1 of each 32-byte block.
 *
 * ISA-L reads coefficient l * k + j of the table for row l, column j, whatever shape the table
 * was built for; a table here serves any call with k * rows no larger than its own, read the same
 * way. A call larger than its table would make ISA-L read past the table: it does nothing here.
 */
#include <string.h>

#include "cpu_backend.h"
#include "isal_abi.h"

/* The header's k x rows of our table @p t, or 0 when @p t is not one. */
static uint64_t tbl_size(const unsigned char *t)
{
	uint32_t tk, trows;

	if (memcmp(t, ISAL_TBL_MAGIC, ISAL_TBL_MAGIC_LEN) != 0)
		return 0;
	memcpy(&tk, t + 8, 4);
	memcpy(&trows, t + 12, 4);
	return (uint64_t)tk * trows;
}

/* Where the GFNI matrices of a table of @p n coefficients start. */
static size_t tbl_mats_off(uint64_t n)
{
	return (ISAL_TBL_HDR + (size_t)n + 7) & ~(size_t)7;
}

/*
 * What a call of k x rows reads from table @p t, its header read once: the coefficients (NULL
 * where @p t is not ours or too small) and their GFNI matrices (version '2', aligned where the
 * table lies now; else NULL).
 */
struct tbl_view {
	const uint8_t *coef;
	const uint64_t *mats;
};

static struct tbl_view tbl_view(const unsigned char *t, int k, int rows)
{
	const uint64_t n = tbl_size(t);
	struct tbl_view v = {NULL, NULL};

	if (!n || (uint64_t)k * (uint64_t)rows > n)
		return v;
	const unsigned char *m = t + tbl_mats_off(n);

	v.coef = t + ISAL_TBL_HDR;
	if (t[7] == '2' && (uintptr_t)m % 8 == 0)
		v.mats = (const uint64_t *)(const void *)m;
	return v;
}

const uint8_t *isal_tbl_coef(const unsigned char *t, int k, int rows)
{
	return tbl_view(t, k, rows).coef;
}

static int is_ours(const unsigned char *t)
{
	return memcmp(t, ISAL_TBL_MAGIC, ISAL_TBL_MAGIC_LEN) == 0;
}

ISAL_API void ec_init_tables(int k, int rows, unsigned char *a, unsigned char *g_tbls)
{
	const size_t n = (size_t)k * (size_t)rows;
	const size_t off = tbl_mats_off(n);
	uint32_t hk = (uint32_t)k, hrows = (uint32_t)rows;
	int mats;

	if (k <= 0 || rows <= 0)
		return;
	mats = gfec_cpu_path_gfni(isal_cpu_path()) && (uintptr_t)(g_tbls + off) % 8 == 0;
	memcpy(g_tbls, ISAL_TBL_MAGIC, ISAL_TBL_MAGIC_LEN);
	g_tbls[7] = mats ? '2' : '1';
	memcpy(g_tbls + 8, &hk, 4);
	memcpy(g_tbls + 12, &hrows, 4);
	memcpy(g_tbls + ISAL_TBL_HDR, a, n);
	if (mats)
		gfec_cpu_gfni_matrices(a, n, (uint64_t *)(void *)(g_tbls + off));
}

/* Coefficient (row l, column j) of a table in ISA-L's 32-byte layout: its entry for c * 1. */
static uint8_t isal_coef(const unsigned char *t, int k, int l, int j)
{
	return t[32 * ((size_t)l * k + j) + 1];
}

static void encode_base(int len, int k, int rows, const unsigned char *t, unsigned char **data,
			unsigned char **coding)
{
	const uint8_t *coef = isal_tbl_coef(t, k, rows);

	if (coef) {
		gfec_cpu_gemm_base((size_t)len, k, rows, coef, (const uint8_t *const *)data,
				   coding);
		return;
	}
	if (is_ours(t))
		return;
	for (int l = 0; l < rows; l++) {
		memset(coding[l], 0, (size_t)len);
		for (int j = 0; j < k; j++) {
			uint8_t c = isal_coef(t, k, l, j);

			gfec_cpu_update_base((size_t)len, 1, 1, 0, &c, data[j], &coding[l]);
		}
	}
}

static void update_base(int len, int k, int rows, int vec_i, const unsigned char *t,
			unsigned char *data, unsigned char **coding)
{
	const uint8_t *coef = isal_tbl_coef(t, k, rows);

	if (coef) {
		gfec_cpu_update_base((size_t)len, k, rows, vec_i, coef, data, coding);
		return;
	}
	if (is_ours(t))
		return;
	for (int l = 0; l < rows; l++) {
		uint8_t c = isal_coef(t, k, l, vec_i);

		gfec_cpu_update_base((size_t)len, 1, 1, 0, &c, data, &coding[l]);
	}
}

/*
 * 1 when an encode of @p len bytes into @p coding through gfec's GFNI kernels should store by
 * non-temporal stores: long encodes into aligned outputs, as the codec's (cpu_stream_min), since
 * ec_encode_data's callers (HDFS, liberasurecode) send parity on to the network or a disk and do
 * not read it back first.
 */
static int gfni_stream(int rows, int len, unsigned char **coding)
{
	const size_t min = isal_stream_min();

	if (!min || (size_t)len < min)
		return 0;
	for (int l = 0; l < rows; l++)
		if ((uintptr_t)coding[l] % 64)
			return 0;
	return 1;
}

/*
 * k <= 0: parity is the empty sum, zero. ISA-L's _base writes zeros at every len, and so does its
 * dispatched ec_encode_data (measured on libisal2 2.30: its short-len _base route and its SIMD
 * route alike, though the SIMD one reads src[0]); here nothing is read.
 */
static int encode_no_sources(int len, int k, int rows, unsigned char **coding)
{
	if (k > 0)
		return 0;
	for (int l = 0; l < rows; l++)
		memset(coding[l], 0, (size_t)len);
	return 1;
}

ISAL_API void ec_encode_data_base(int len, int srcs, int dests, unsigned char *v,
				  unsigned char **src, unsigned char **dest)
{
	if (len > 0 && dests > 0 && !encode_no_sources(len, srcs, dests, dest))
		encode_base(len, srcs, dests, v, src, dest);
}

ISAL_API void ec_encode_data_update_base(int len, int k, int rows, int vec_i, unsigned char *v,
					 unsigned char *data, unsigned char **dest)
{
	if (len > 0 && k > 0 && rows > 0 && vec_i >= 0 && vec_i < k)
		update_base(len, k, rows, vec_i, v, data, dest);
}

void isal_gfni_run(int k, int rows, const uint64_t *mats, int len, int vec_i, unsigned char **data,
		   unsigned char **coding)
{
	const int stream = vec_i < 0 && gfni_stream(rows, len, coding);

	gfec_cpu_gfni_apply(isal_cpu_path(), (size_t)len, k, rows, mats, vec_i,
			    gfec_cpu_gfni_prefetch(stream ? GFEC_GFNI_STREAM : GFEC_GFNI_SET),
			    (const uint8_t *const *)data, coding);
}

void isal_cpu_run(const struct isal_plan *m, int len, int vec_i, unsigned char **data,
		  unsigned char **coding)
{
	const struct isal_real *real = isal_real();

	if (m->mats)
		isal_gfni_run(m->k, m->rows, m->mats, len, vec_i, data, coding);
	else if (m->avx2)
		gfec_cpu_avx2_apply((size_t)len, m->k, m->rows, m->tbls, vec_i,
				    (const uint8_t *const *)data, coding);
	else if (m->tbls && vec_i < 0)
		real->ec_encode_data(len, m->k, m->rows, m->tbls, data, coding);
	else if (m->tbls)
		real->ec_encode_data_update(len, m->k, m->rows, vec_i, m->tbls, data[0], coding);
	else if (vec_i < 0)
		gfec_cpu_gemm_base((size_t)len, m->k, m->rows, m->coef,
				   (const uint8_t *const *)data, coding);
	else
		gfec_cpu_update_base((size_t)len, m->k, m->rows, vec_i, m->coef, data[0], coding);
}

ISAL_API void ec_encode_data(int len, int k, int rows, unsigned char *g_tbls, unsigned char **data,
			     unsigned char **coding)
{
	const struct isal_real *real = isal_real();
	struct tbl_view t;

	if (len <= 0 || rows <= 0 || encode_no_sources(len, k, rows, coding))
		return;
	t = tbl_view(g_tbls, k, rows);
	if (!t.coef) {
		if (real && !is_ours(g_tbls))
			real->ec_encode_data(len, k, rows, g_tbls, data, coding);
		else
			encode_base(len, k, rows, g_tbls, data, coding);
		return;
	}
	if (isal_run(k, rows, t.coef, t.mats, len, -1, data, coding) != 0)
		encode_base(len, k, rows, g_tbls, data, coding);
}

ISAL_API void ec_encode_data_update(int len, int k, int rows, int vec_i, unsigned char *g_tbls,
				    unsigned char *data, unsigned char **coding)
{
	const struct isal_real *real = isal_real();
	struct tbl_view t;

	if (len <= 0 || k <= 0 || rows <= 0)
		return;
	t = tbl_view(g_tbls, k, rows);
	if (!t.coef) {
		if (real && !is_ours(g_tbls))
			real->ec_encode_data_update(len, k, rows, vec_i, g_tbls, data, coding);
		else if (vec_i >= 0 && vec_i < k)
			update_base(len, k, rows, vec_i, g_tbls, data, coding);
		return;
	}
	if (vec_i < 0 || vec_i >= k)
		return;
	/* A GPU error leaves the rest of the update to the CPU; engine.c never applies it twice. */
	if (isal_run(k, rows, t.coef, t.mats, len, vec_i, &data, coding) != 0)
		update_base(len, k, rows, vec_i, g_tbls, data, coding);
}
