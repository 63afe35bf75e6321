/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file isal_abi.h
 * What the files of the ISA-L drop-in (libisal.so.2) share: the private table format, the real
 * ISA-L it forwards small calls to, and the per-matrix state (the real library's tables, a GPU
 * plan) that encode calls look up by coefficients.
 *
 * Who calls what:
 *
 *   HDFS / liberasurecode --> ec_encode_data(g_tbls)            (ec_api.c)
 *                               |  g_tbls: our header + coefficients, or a foreign table
 *                               v
 *                             isal_matrix_get(coefficients)     (engine.c, one cache)
 *                               |-- GPU plan  (k * len >= GFEC_ISAL_GPU_MIN)
 *                               |-- GFNI matrices --> gfec's GFNI kernels (CPUs with GFNI)
 *                               |-- the real ISA-L's own tables --> real ec_encode_data
 *                               '-- neither: gfec's _base code on the coefficients
 */
#ifndef GFEC_ISAL_ABI_H
#define GFEC_ISAL_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "cpu_backend.h"

/* Only the ISA-L names carry this; the version script (libisal.map) lists the same names. */
#define ISAL_API __attribute__((visibility("default")))

/*
 * The table ec_init_tables() writes into the caller's 32 * k * rows bytes:
 *
 *   +0   magic, 8 bytes ("gfec", 0, "tb1")
 *   +8   k, rows: uint32_t each, host order
 *   +16  the rows x k coefficients, row-major (what the caller passed as a)
 *
 * 16 + k * rows <= 32 * k * rows for every k, rows >= 1. Keeping only the coefficients, and not
 * ISA-L's expanded tables, is deliberate: the real library's table layout depends on its version
 * and the CPU (2.30 stores 32 bytes of nibble products per coefficient; 2.31 and later store an
 * 8-byte GF2P8AFFINE matrix on CPUs with GFNI), so a table built here could never be handed to
 * the real library anyway. Its own tables are built by its own ec_init_tables() (engine.c).
 *
 * Why the magic cannot be mistaken for a table the real ISA-L built (a "foreign" table):
 *  - nibble-product layout: byte 0 of every 32-byte block is c * 0 = 0, and our byte 0 is 'g';
 *  - GFNI layout: the first 8 bytes are the rows of the 8x8 bit matrix of "multiply by c": all
 *    zero for c = 0 (byte 0 again), and all non-zero otherwise, since the matrix is invertible;
 *    our byte 4 is 0.
 * Any other first 8 bytes would be a 2^-64 accident.
 */
#define ISAL_TBL_MAGIC "gfec\0tb1"
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

/** One coefficient matrix that encode calls have used, and what was derived from it. */
struct isal_matrix {
	int k, rows;
	uint64_t hash;
	uint8_t *coef;	     /* rows x k */
	unsigned char *tbls; /* the real ISA-L's own tables for coef; NULL without it */
	uint64_t *mats;	     /* gfec_cpu_gfni_matrix() of each coef on a GFNI path, else NULL */
	void *plan;	     /* the GPU backend's plan, made on the first large call */
	int gpu;	     /* 0: not tried yet, 1: plan ready, -1: the GPU cannot run it */
	unsigned refs;	     /* callers using it now; only unused entries are evicted */
	uint64_t last_use;
	int cached;	     /* 0: a one-off made while every cache slot was busy */
};

/**
 * The drop-in's CPU path, read once from GFEC_CPU_PATH: auto (the default, also for a GFNI path
 * this CPU lacks) is gfec's GFNI kernels where the CPU has GFNI; any other value keeps the real
 * ISA-L (plain C without it).
 */
enum gfec_cpu_path isal_cpu_path(void);

/** Finds or makes the entry for @p coef (rows x k) and holds it; NULL when out of memory. */
struct isal_matrix *isal_matrix_get(int k, int rows, const uint8_t *coef);
void isal_matrix_put(struct isal_matrix *m);

/** 1 when a call moving @p k * @p len source bytes should try the GPU. */
int isal_gpu_wanted(int len, int k, int rows);

/** parity = A * data on the GPU. 0, or a negative GFEC_E_* code (coding is then unspecified). */
int isal_gpu_encode(struct isal_matrix *m, int len, unsigned char **data, unsigned char **coding);

/**
 * coding[i] ^= A(i, vec_i) * data on the GPU. On error *done says how many leading bytes of
 * every coding buffer are final; the rest are untouched.
 */
int isal_gpu_update(struct isal_matrix *m, int len, int vec_i, unsigned char *data,
		    unsigned char **coding, size_t *done);

#endif
