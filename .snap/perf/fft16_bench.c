/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file fft16_bench.c
 * gfec-fft16-bench: technique=fft (w=16) encode, and decode of m losses (the first m data
 * chunks), through the codec (each decode checked against the data), then the same calls through
 * gfmatrix/fft16.h with the CPU backend's op wrapped to count the bytes every butterfly list
 * moves (FWD/INV 4 region-bytes per byte of an op with a multiply, 3 without: x and y read, what
 * changed written; MUL 2; a group of four ops of two fused layers 8: its four regions read and
 * written once), against the rate of memory traffic measured in the same run on the
 * same threads: lists of XOR ops (y ^= x) over the same work set the code slices its chunks
 * into (gfec_fft16_slice()). bound = bytes moved / that rate: the time the
 * transforms would take if their multiplies were free. The copies in and out of the work regions
 * (memcpy, memset) are not counted, so the bound is lower still than the traffic made. The rate
 * includes the op's per-call and per-op costs, so the bound is one only where the work set holds
 * many regions (not at m = 1, where a list is one op), and only on a machine nobody else loads.
 *
 * usage: gfec-fft16-bench [-k K] [-m M] [-l LEN] [-T THREADS] [-n ITERS]
 * Exit: 0 ok, 1 a decode differed from the data (or a call failed), 2 bad arguments.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_backend.h"
#include "fft16.h"
#include "gemm.h"
#include "gfec/gfec.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The CPU backend's op, counting the bytes each list moves. */
struct counter {
	void *ctx;
	double bytes;
};

static int counting_op(void *arg, int kind, int n, size_t len, uint8_t *const *x,
		       uint8_t *const *y, const uint16_t *c)
{
	struct counter *k = arg;

	if (kind & GFEC_BFLY_GROUP4) /* a group's four regions read and written once */
		k->bytes += (double)len * 8 * (n / 4);
	else
		for (int p = 0; p < n; p++)
			k->bytes += (double)len * ((kind & ~GFEC_BFLY_FLAGS) == GFEC_BFLY_MUL ? 2
						   : c[p]				      ? 4
											      : 3);
	return gfec_cpu_backend()->butterfly16(k->ctx, kind, n, len, x, y, c);
}

/*
 * Bytes per second that lists of XOR ops move over @p nreg regions of the code's slice size
 * (the best of a few), through @p ops: pairs (2i, 2i+1), 3 bytes per byte of an op.
 */
static double xor_rate(const struct gfec_fft16_code *code, const struct gfec_fft16_ops *ops,
		       size_t nreg, size_t len)
{
	const size_t s = gfec_fft16_slice(code, nreg, len);
	uint8_t *buf, **x, **y;
	uint16_t *c;
	double best = 0;

	buf = aligned_alloc(64, (nreg * s + 63) / 64 * 64);
	x = malloc(sizeof(*x) * nreg / 2);
	y = malloc(sizeof(*y) * nreg / 2);
	c = calloc(nreg / 2, sizeof(*c));
	if (!buf || !x || !y || !c) {
		fprintf(stderr, "gfec-fft16-bench: no memory for the traffic measurement\n");
		exit(1);
	}
	memset(buf, 1, nreg * s);
	for (size_t i = 0; i < nreg / 2; i++) {
		x[i] = buf + 2 * i * s;
		y[i] = buf + (2 * i + 1) * s;
	}
	for (int r = 0; r < 7; r++) {
		const double t0 = now();

		ops->bfly(ops->ctx, GFEC_BFLY_FWD | GFEC_BFLY_DISJOINT, (int)(nreg / 2), s, x, y, c);
		const double rate = 3.0 * (double)(nreg / 2) * (double)s / (now() - t0);

		best = rate > best ? rate : best;
	}
	free(buf);
	free(x);
	free(y);
	free(c);
	return best;
}

static unsigned ceil_log2(unsigned x)
{
	unsigned l = 0;

	while ((1u << l) < x)
		l++;
	return l;
}

int main(int argc, char **argv)
{
	int k = 1000, m = 200, threads = 0, iters = 3, opt;
	size_t len = 65536;

	while ((opt = getopt(argc, argv, "k:m:l:T:n:h")) != -1) {
		switch (opt) {
		case 'k': k = atoi(optarg); break;
		case 'm': m = atoi(optarg); break;
		case 'l': len = strtoull(optarg, NULL, 0); break;
		case 'T': threads = atoi(optarg); break;
		case 'n': iters = atoi(optarg); break;
		case 'h':
			printf("usage: gfec-fft16-bench [-k K] [-m M] [-l LEN] [-T THREADS] [-n ITERS]\n"
			       "technique=fft (w=16) encode and decode of m losses through the codec,\n"
			       "checked, against the memory traffic of the transforms' passes measured\n"
			       "in the same run. Exit: 0 ok, 1 wrong output or failure, 2 bad arguments.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (k < 2 || m < 1 || m > k || k + m > 65536 || len < 2 || len % 2 || iters < 1 ||
	    threads < 0) {
		fprintf(stderr, "gfec-fft16-bench: need 1 <= m <= k, k+m <= 65536, even -l, -n >= 1\n");
		return 2;
	}
	char prof[128], err[256];
	gfec_codec *c;

	snprintf(prof, sizeof(prof), "k=%d m=%d w=16 technique=fft threads=%d", k, m, threads);
	if (gfec_codec_create(prof, &c, err, sizeof(err))) {
		fprintf(stderr, "gfec-fft16-bench: %s\n", err);
		return 1;
	}
	const int n = k + m;
	uint8_t **ch = malloc(sizeof(*ch) * n), **out = calloc((size_t)n, sizeof(*out));
	const uint8_t **in = malloc(sizeof(*in) * n);
	uint8_t *blk = aligned_alloc(64, (size_t)n * len), *oblk = aligned_alloc(64, (size_t)m * len);

	if (!ch || !out || !in || !blk || !oblk) {
		fprintf(stderr, "gfec-fft16-bench: out of memory\n");
		return 1;
	}
	for (size_t b = 0; b < (size_t)k * len; b++)
		blk[b] = (uint8_t)(b * 2654435761u >> 13);
	for (int i = 0; i < n; i++)
		ch[i] = blk + (size_t)i * len;

	/* encode */
	double te = 1e30, td = 1e30;

	for (int r = 0; r < iters; r++) {
		const double t0 = now();

		if (gfec_encode(c, (const uint8_t *const *)ch, ch + k, len)) {
			fprintf(stderr, "gfec-fft16-bench: encode failed\n");
			return 1;
		}
		const double t = now() - t0;

		te = t < te ? t : te;
	}
	/* decode of m losses: the first data chunks, then parity if m > k (never: m <= k) */
	for (int r = 0; r < iters; r++) {
		for (int i = 0; i < n; i++) {
			in[i] = i < m ? NULL : ch[i];
			out[i] = i < m ? oblk + (size_t)i * len : NULL;
		}
		memset(oblk, 0xA5, (size_t)m * len);
		const double t0 = now();

		if (gfec_decode(c, in, out, len)) {
			fprintf(stderr, "gfec-fft16-bench: decode failed\n");
			return 1;
		}
		const double t = now() - t0;

		td = t < td ? t : td;
		if (memcmp(oblk, blk, (size_t)m * len) != 0) {
			fprintf(stderr, "gfec-fft16-bench: decode differs from the data\n");
			return 1;
		}
	}

	/* the same calls through fft16.h, counting the bytes the op lists move */
	struct gfec_backend_conf conf = { .threads = threads };
	struct counter cnt = { 0 };
	struct gfec_fft16_code *code;
	const unsigned logm = ceil_log2((unsigned)m), M = 1u << logm;
	const int cosets = M + (unsigned)k <= 65536;
	const unsigned logn = ceil_log2(cosets ? M + (unsigned)k : (unsigned)n);
	const unsigned groups = ((unsigned)k + M - 1) / M;

	if (gfec_cpu_backend()->init(&conf, &cnt.ctx) ||
	    gfec_fft16_code_create(k, m, GFEC_FFT16_AUTO, &code)) {
		fprintf(stderr, "gfec-fft16-bench: no backend or code\n");
		return 1;
	}
	const struct gfec_fft16_ops ops = { .bfly = counting_op, .ctx = &cnt };
	double be, bd, re, rd;

	if (gfec_fft16_encode(code, &ops, len, (const uint8_t *const *)ch, ch + k)) {
		fprintf(stderr, "gfec-fft16-bench: encode failed\n");
		return 1;
	}
	be = cnt.bytes;
	cnt.bytes = 0;
	if (gfec_fft16_decode(code, &ops, len, in, out)) {
		fprintf(stderr, "gfec-fft16-bench: decode failed\n");
		return 1;
	}
	bd = cnt.bytes;
	re = xor_rate(code, &ops, cosets ? (groups > 1 ? 2 * (size_t)M : M) : (size_t)1 << logn,
		      len);
	rd = xor_rate(code, &ops, (size_t)1 << logn, len);
	gfec_fft16_code_free(code);
	gfec_cpu_backend()->fini(cnt.ctx);

	const double data = (double)k * (double)len;

	printf("# gfec-fft16-bench -k %d -m %d -l %zu -T %d -n %d  (codec backend %s, %s layout, "
	       "M=%u, N=%u)\n",
	       k, m, len, threads, iters, gfec_codec_backend(c), cosets ? "coset" : "general", M,
	       1u << logn);
	printf("op      GB/s     ms        moved/data  xor_GB/s  bound_ms  bound/ms\n");
	printf("encode  %7.3f  %8.2f  %8.1f  %8.2f  %8.2f  %5.2f\n", data / te / 1e9, te * 1e3,
	       be / data, re / 1e9, be / re * 1e3, be / re / te);
	printf("decode  %7.3f  %8.2f  %8.1f  %8.2f  %8.2f  %5.2f   (%d losses, checked)\n",
	       data / td / 1e9, td * 1e3, bd / data, rd / 1e9, bd / rd * 1e3, bd / rd / td, m);
	gfec_codec_free(c);
	free(ch);
	free(out);
	free(in);
	free(blk);
	free(oblk);
	return 0;
}
