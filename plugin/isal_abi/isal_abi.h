/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file isal_abi.h
 * What the files of the ISA-L drop-in (libisal.so.2) share: the private table format, the real
 * ISA-L it forwards small calls to, the CPU executor's per-matrix plan (the real library's
 * tables, GFNI matrices) and the way into gfec's dispatch engine (plugin/engine.c).
 *
 * Who calls what:
 *
 *   HDFS / liberasurecode --> ec_encode_data(g_tbls)            (ec_api.c)
 *                               |  g_tbls: our header + coefficients, or a foreign table
 *                               v
 *                             isal_run(coefficients)            (engine.c)
 *                               |   plugin/engine.c: dispatch, GPU -> CPU redo, plan cache
 *                               |-- GPU plan  (k * len >= GFEC_ISAL_GPU_MIN)
 *                               |-- the table's GFNI matrices --> gfec's GFNI kernels, no cache
 *                               '-- CPU executor (isal_cpu_run, ec_api.c):
 *                                   |-- GFNI matrices --> gfec's GFNI kernels (CPUs with GFNI)
 *                                   |-- the real ISA-L's own tables --> real ec_encode_data
 *                                   '-- neither: gfec's _base code on the coefficients
 */
#ifndef GFEC_ISAL_ABI_H
#define GFEC_ISAL_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "cpu_backend.h"

/* Only the ISA-L names carry this; the version script (libisal.map) lists the same names. */
#define ISAL_API __attribute__((visibility("default")))

/*
 * The table ec_init_tables() writes into the caller's 32 * k * rows bytes (n = k * rows):
 *
 *   +0   magic, 7 bytes ("gfec", 0, "tb"), then the version: '1' or '2'
 *   +8   k, rows: uint32_t each, host order
 *   +16  the rows x k coefficients, row-major (what the caller passed as a)
 *   +m   version '2' only: the n GFNI matrices of the coefficients (gfec_cpu_gfni_matrix(), 8
 *        bytes each, host order), m = 16 + n rounded up to 8
 *
 * 16 + n <= m + 8 n <= 23 + 9 n <= 32 n for every n >= 1. Version '2' is written where the
 * drop-in runs gfec's GFNI kernels and the table's matrices land 8-byte aligned (any malloc'd
 * table): ec_encode_data() then runs straight from the table, as ISA-L runs from its own, with
 * no lookup or lock per call. A copy of it at an address whose matrices would not be aligned is
 * read as version '1': by its coefficients, through the plan cache (engine.c).
 *
 * Keeping ISA-L's expanded tables instead is no way: the real library's table layout depends on
 * its version and the CPU (2.30 stores 32 bytes of nibble products per coefficient; 2.31 and
 * later store an 8-byte GF2P8AFFINE matrix on CPUs with GFNI), so a table built here could never
 * be handed to the real library anyway. Its own tables are built by its own ec_init_tables()
 * (engine.c).
 *
 * Why the magic cannot be mistaken for a table the real ISA-L built (a "foreign" table):
 *  - nibble-product layout: byte 0 of every 32-byte block is c * 0 = 0, and our byte 0 is 'g';
 *  - GFNI layout: the first 8 bytes are the rows of the 8x8 bit matrix of "multiply by c": all
 *    zero for c = 0 (byte 0 again), and all non-zero otherwise, since the matrix is invertible;
 *    our byte 4 is 0.
 * Any other first 7 bytes would be a 2^-56 accident.
 */
#define ISAL_TBL_MAGIC "gfec\0tb"
#define ISAL_TBL_MAGIC_LEN 7
#define ISAL_TBL_HDR 16

/** The coefficients of our table @p t if it is one and covers a call of k x rows, else NULL. */
const uint8_t *isal_tbl_coef(const unsigned char *t, int k, int rows);

/** The real ISA-L's entry points that this library forwards to. */
struct isal_real {
	void (*ec_init_tables)(int k, int rows, unsigned char *a, unsigned char *g_tbls);
	void (*ec_encode_data)(int len, int k, int rows, unsigned char *g_tbls,
			       unsigned char **data, unsigned char **coding);
	void (*ec_encode_data_update)(int len, int k, int rows, int vec_i, unsigned char *g_tbls,
				      unsigned char *data, unsigned char **coding);
};

/**
 * The real ISA-L, loaded on the first call by absolute path ($GFEC_ISAL_LIB, else Debian's
 * /usr/lib/x86_64-linux-gnu/libisal.so.2.0.30), or NULL when it is absent or is this library.
 */
const struct isal_real *isal_real(void);

/** What the CPU routes derive from one coefficient matrix: the plan of the drop-in's CPU executor. */
struct isal_plan {
	int k, rows;
	uint8_t *coef;	     /* rows x k */
	unsigned char *tbls; /* the real ISA-L's own tables for coef (or, avx2, the same bytes from
				gfec_cpu_avx2_tables); NULL without either */
	uint64_t *mats;	     /* gfec_cpu_gfni_matrix() of each coef on a GFNI path, else NULL */
	int avx2;	     /* 1: tbls run through gfec_cpu_gemm_avx2 (the avx2 path) */
};

/**
 * The drop-in's CPU path, read once from GFEC_CPU_PATH: auto (the default, also for a path this
 * CPU lacks) is what the codec's auto is (gfec_cpu_path_best: gfec's GFNI kernels where the CPU
 * has GFNI, its AVX2 kernel on AVX2 CPUs without AVX-512); gfni512, gfni256 and avx2 name gfec's
 * kernels; isal and base keep the real ISA-L (plain C without it).
 */
enum gfec_cpu_path isal_cpu_path(void);

/**
 * GFEC_CPU_STREAM_MIN (the codec's cpu_stream_min, read once): on a GFNI path, an encode of at
 * least this many bytes per chunk whose outputs are all 64-byte aligned writes parity by
 * non-temporal stores (same bytes, no read-for-ownership of parity lines); 0: never; auto (the
 * default): this CPU's pick, gfec_cpu_stream_min().
 */
size_t isal_stream_min(void);

/**
 * parity = A * data (@p vec_i < 0), or parity ^= A(:, vec_i) * data[0], for the rows x k
 * coefficients @p coef, through plugin/engine.c: on the GPU for calls of at least
 * GFEC_ISAL_GPU_MIN source bytes (k * len), else on the CPU routes: straight through gfec's GFNI
 * kernels when the table carries their matrices (@p mats, not NULL: version '2' above), else
 * with the matrix prepared once and cached. 0; GFEC_E_NOTSUP when the only CPU route is gfec's
 * plain C on the table (no real ISA-L, no GFNI: nothing to prepare), or GFEC_E_NOMEM: the
 * caller then runs that plain C.
 */
int isal_run(int k, int rows, const uint8_t *coef, const uint64_t *mats, int len, int vec_i,
	     unsigned char **data, unsigned char **coding);

/** The CPU routes on a prepared matrix: GFNI kernels, else the real ISA-L, else plain C. */
void isal_cpu_run(const struct isal_plan *m, int len, int vec_i, unsigned char **data,
		  unsigned char **coding);

/** isal_cpu_run()'s GFNI route on the rows x k matrices @p mats (non-temporal stores included). */
void isal_gfni_run(int k, int rows, const uint64_t *mats, int len, int vec_i, unsigned char **data,
		   unsigned char **coding);

#endif
