/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file count_lists.c
 * The bytes technique=fft's GPU op lists move, counted on the CPU: gfec_fft16_encode and
 * gfec_fft16_decode (m losses: the first m data chunks) of a (k, m) code through ops that count
 * each list as gfec-fft16-gpu-bench does (per byte of an op: FWD/INV 4 region-bytes, 3 at c = 0;
 * MUL 2; a group of four 8; a GFEC_BFLY_SUMS run of r ops r + 2) and run it by the plain-C op, with
 * the GPU's settings (disjoint_only, work for whole chunks). Prints per data byte the total and,
 * with -v, each list (kind with its flags, ops, bytes). Symbols of 2 bytes: the count scales
 * with the length, so it is the same per data byte at 64 KiB.
 *
 *   cc -O2 -I gfmatrix -I gfmatrix/base -I gfmatrix/base/include -I cpu_backend count_lists.c \
 *      BUILD/plugin/libgfec_static.a [-L/usr/local/cuda/lib64 -lcudart -lstdc++] -lpthread -lm
 *   ./a.out K M [-v]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "fft16.h"
#include "gemm.h"

#define SUMS 64 /* GFEC_BFLY_SUMS (trees before 1f1eba1 have none: never set there) */

static double total;
static int verbose;

static int counting(void *ctx, int kind, int n, size_t len, uint8_t *const *x, uint8_t *const *y,
		    const uint16_t *c)
{
	double b = 0;

	(void)ctx;
	if (kind & GFEC_BFLY_GROUP4)
		b = (double)len * 8 * (n / 4);
	else if (kind & SUMS)
		for (int p = 0; p < n; p++)
			b += (double)len * (p == 0 || y[p] != y[p - 1] ? 3 : 1);
	else
		for (int p = 0; p < n; p++)
			b += (double)len * ((kind & 15) == GFEC_BFLY_MUL ? 2 : c[p] ? 4 : 3);
	total += b;
	if (verbose)
		printf("  list kind %2d (op %d, flags %2d) ops %6d  %7.3f bytes per chunk byte\n",
		       kind, kind & 15, kind & ~15, n, b / (double)len);
	gfec_cpu_bfly16_base(kind & 15, n, len, x, y, c);
	return 0;
}

int main(int argc, char **argv)
{
	const size_t len = 2;
	const int k = argc > 2 ? atoi(argv[1]) : 0, m = argc > 2 ? atoi(argv[2]) : 0;
	struct gfec_fft16_code *code;
	const struct gfec_fft16_ops ops = { counting, NULL, NULL, NULL, (size_t)1 << 34, NULL, 1 };

	verbose = argc > 3;
	if (k < 2 || m < 1 || gfec_fft16_code_create(k, m, GFEC_FFT16_AUTO, &code)) {
		fprintf(stderr, "usage: count_lists K M [-v] (K >= 2, M >= 1, K + M <= 65536)\n");
		return 2;
	}
	uint8_t *buf = calloc((size_t)(k + 2 * m) * len, 1);
	uint8_t **ch = malloc(sizeof(*ch) * (size_t)(k + m));
	uint8_t **out = calloc((size_t)(k + m), sizeof(*out));

	for (int i = 0; i < k + m; i++)
		ch[i] = buf + (size_t)i * len;
	for (size_t i = 0; i < (size_t)k * len; i++)
		buf[i] = (uint8_t)rand();
	if (verbose)
		printf("(%d,%d) encode lists:\n", k, m);
	if (gfec_fft16_encode(code, &ops, len, (const uint8_t *const *)ch, ch + k))
		return 1;
	printf("(%d,%d) encode: %.2f bytes moved per data byte\n", k, m, total / k / len);
	total = 0;
	for (int i = 0; i < m; i++) {
		out[i] = buf + (size_t)(k + m + i) * len;
		ch[i] = NULL;
	}
	if (verbose)
		printf("(%d,%d) decode of %d losses, lists:\n", k, m, m);
	const int r = gfec_fft16_decode(code, &ops, len, (const uint8_t *const *)ch, out);
	const int ok = !r && !memcmp(buf, buf + (size_t)(k + m) * len, (size_t)m * len);

	printf("(%d,%d) decode of %d losses: %.2f bytes moved per data byte (%s)\n", k, m, m,
	       total / k / len, ok ? "decoded right" : "WRONG");
	return ok ? 0 : 1;
}
