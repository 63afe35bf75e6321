/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_perf.c
 * gfec-perf: how close each gfec path comes to this machine's limits, measured here and now.
 *
 * First the ceilings (each only where the hardware is there): GPU device-to-device copy, the
 * GPU XOR-stream bound for every requested (k,m) (read k chunks, write m, no GF work), pinned H2D
 * and D2H alone and together, CPU memory bandwidth (the best of a copy, and of read-only and
 * read-modify-write sweeps of 1 and 8 streams per thread) on one thread and on the rows' thread
 * count, the CPU XOR-stream bound of every CPU row's shape (a plain XOR kernel with the row's
 * streams, threads and slices), raw ISA-L ec_encode_data on one thread and on all (a reference,
 * not a bound). Then the workloads through the public API (encode, decode with e erasures,
 * update) over the requested codes, chunk sizes, batch sizes, backends and data locations. Every
 * row is compared with the ceiling that bounds it by construction, measured in the same process,
 * and a row above its ceiling by more than the measured spread fails the run (exit 4): then the
 * ceiling was not one.
 *
 * Honesty rules: nothing is typed in (a ceilings cache is used only when asked for, and says so);
 * results are checked against the CPU reference unless -c 0; every call is synchronous and timed
 * with CLOCK_MONOTONIC; buffer sets covering at least 4 x L3 are rotated so that no row (and no
 * CPU ceiling) is served from cache; a row whose
 * repeats spread by more than 10% is flagged. GB/s = 10^9 bytes of DATA per second (k x chunk per
 * encoded stripe), "traffic" counts every byte read or written. A GF op is one GF(2^8)
 * multiply-add of one byte.
 *
 * `gfec-perf tune` sweeps the compiled GPU kernels and the CPU/GPU crossover, and writes the
 * winners to gfec.conf (perf_tune.c); `gfec-perf isal` times gfec's CPU path against raw ISA-L
 * (perf_isal.c).
 *
 * With gpu_devices= (GFEC_GPU_DEVICES) the GPU rows' codecs run on several contexts: the run lists
 * them with their GPUs' ceilings and, after each GPU row, each context's share of it (table
 * comment lines; JSON gpu_contexts and the rows' gpu_context_shares; the SVGs as before).
 *
 * The pieces: perf_args.c (flags), perf_ceilings.c, perf_run.c (one row), perf_output.c (table,
 * JSON, SVG); this file runs them in order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gfec/gfec.h>

#include "gfec_perf.h"
#include "perf_util.h"

#define MAX_ROWS 4096

/*
 * The contexts the run's GPU codecs get with gpu_devices= (GFEC_GPU_DEVICES), each with its GPU's
 * ceilings; 0 for a codec on one GPU (no list: the GPU line above is its).
 */
static int gpu_contexts(const struct perf_opts *o, struct perf_gpu_ctx *x)
{
	struct gfec_gpu_device d[PERF_MAX_CTX];
	gfec_codec *c;
	int n;

	if (gfec_codec_create("k=10 m=4 backend=gpu", &c, NULL, 0))
		return 0;
	n = gfec_codec_gpu_devices(c, d, PERF_MAX_CTX);
	gfec_codec_free(c);
	n = n < 0 ? 0 : n > PERF_MAX_CTX ? PERF_MAX_CTX : n;
	for (int i = 0; i < n; i++)
		x[i] = (struct perf_gpu_ctx){.d = d[i]};
	perf_gpu_contexts_measure(x, n, o->quick);
	return n;
}

int perf_main(int argc, char **argv)
{
	struct perf_opts o;
	struct perf_ceilings ce;
	struct perf_row *rows;
	char err[256], cmd[2048];
	int nrows = 0, total = 0, done = 0, failed = 0, above, unwritten = 0;
	size_t sizes[64];
	int nsizes, nctx = 0;
	struct perf_gpu_ctx ctxs[PERF_MAX_CTX];

	if (perf_parse_args(argc, argv, &o, err, sizeof(err)) ||
	    perf_check_mode(&o, PERF_MODE_MAIN, err, sizeof(err))) {
		fprintf(stderr, "gfec-perf: %s\n", err);
		return 2;
	}
	if (o.help) {
		perf_usage(stdout);
		return 0;
	}
	perf_command_line(argc, argv, cmd, sizeof(cmd));
	perf_measure_ceilings(&o, &ce);
	if (!o.backends)
		o.backends = 1u << 0 | (ce.gpu ? 1u << 1 : 0);
	nsizes = perf_sizes(&o, sizes);

	printf("# reproduce: %s\n", cmd);
	printf("# gfec %s, CPU: %d cpus, memory (read + written, the best of copy, read, "
	       "read-modify-write, 1 and 8 streams) %.1f GB/s on 1 thread, %.1f GB/s on %d%s\n",
	       gfec_version(), ce.cpus, ce.cpu_mem_1, ce.cpu_mem_t, ce.threads,
	       ce.from_cache ? " [ceilings from cache]" : "");
	printf("# CPU figures and rows rotate over >= %zu MiB (4 x L3) of what they touch\n",
	       perf_rotate_bytes(&o) >> 20);
	for (int i = 0; i < ce.nxor; i++) {
		const struct perf_xor_ceil *x = &ce.xors[i];
		char size[16];

		perf_fmt_size(size, sizeof(size), x->chunk);
		printf("# CPU XOR-stream %s RS(%d,%d) %s (%d read, %d %s, no GF work): %.1f GB/s "
		       "read + written on %d thread%s\n",
		       perf_op_names[x->op], x->k, x->m, size, x->op == PERF_UPDATE ? 1 : x->k,
		       x->op == PERF_DECODE ? x->e : x->m,
		       x->op == PERF_UPDATE ? "updated in place" : "written", x->gbps, ce.threads,
		       ce.threads == 1 ? "" : "s");
	}
	for (int i = 0; i < ce.ncodes; i++)
		if (ce.codes[i].k + ce.codes[i].m <= GFEC_MAX_CHUNKS) /* wider: w = 16, no ISA-L */
			printf("# raw ISA-L RS(%d,%d) 1 MiB chunks (a reference, not a bound): "
			       "%.2f GB/s (1 thread), %.2f GB/s (%d threads)\n",
			       ce.codes[i].k, ce.codes[i].m, ce.codes[i].isal_1,
			       ce.codes[i].isal_all, ce.cpus);
	if (ce.gpu) {
		printf("# GPU %s: copy %.0f GB/s (read+write), pinned H2D %.1f / D2H %.1f / both "
		       "%.1f GB/s\n",
		       ce.gpu_name, ce.d2d, ce.h2d, ce.d2h, ce.both);
		for (int i = 0; i < ce.ncodes; i++)
			printf("# GPU XOR-stream bound RS(%d,%d): %.0f GB/s of data\n", ce.codes[i].k,
			       ce.codes[i].m, ce.codes[i].xor_gpu);
		nctx = gpu_contexts(&o, ctxs);
		if (nctx)
			perf_print_gpu_contexts(ctxs, nctx);
	}
	printf("# GB/s = 10^9 data bytes/s; GF-op = one GF(2^%d) multiply-add of a%s; '!spread' = "
	       "repeats differ by > 10%%\n",
	       o.w, o.w == 16 ? " 2-byte symbol" : " byte");

	for (int op = 0; op < 3; op++)
		for (int b = 0; b < 3; b++)
			if ((o.ops >> op & 1) && (o.backends >> b & 1))
				total += o.ncodes * nsizes * o.nbatches;
	rows = calloc(MAX_ROWS, sizeof(*rows));
	if (!rows)
		return 1;
	perf_print_header();
	for (int op = 0; op < 3; op++) {
		if (!(o.ops >> op & 1))
			continue;
		for (int ci = 0; ci < o.ncodes; ci++)
			for (int si = 0; si < nsizes; si++)
				for (int bi = 0; bi < o.nbatches; bi++)
					for (int be = 0; be < 3; be++) {
						struct perf_row *r = &rows[nrows];
						enum perf_data data;
						char what[96];

						if (!(o.backends >> be & 1) || nrows == MAX_ROWS)
							continue;
						data = o.data >= 0 ? (enum perf_data)o.data
						       : be != 0 && ce.gpu ? PERF_GPU
									   : PERF_PAGEABLE;
						snprintf(what, sizeof(what), "%s RS(%d,%d) %zu B %s",
							 perf_op_names[op], o.codes[ci].k, o.codes[ci].m,
							 sizes[si], perf_backend_names[be]);
						perf_progress(done, total, what);
						/* the CPU cannot read device memory; without a GPU
						 * there is no pinned or device memory to be had */
						if ((be == 0 && data == PERF_GPU) ||
						    (data != PERF_PAGEABLE && !ce.gpu)) {
							done++;
							continue;
						}
						if (perf_run_row(&o, &ce, (enum perf_op)op,
								 o.codes[ci].k, o.codes[ci].m,
								 sizes[si], o.batches[bi],
								 perf_backend_names[be], data, r)) {
							fprintf(stderr, "gfec-perf: %s: skipped: %s\n",
								what, r->skip);
						} else {
							perf_print_row(r);
							perf_print_row_contexts(r);
							failed += r->checked == 0;
							nrows++;
						}
						done++;
					}
	}
	perf_progress(total, total, "");
	above = perf_self_check(rows, nrows, stderr);
	if (!above)
		printf("# self-check: every row is within its ceiling and the measured spread\n");
	if (o.json) {
		int ret = perf_write_json(o.json, cmd, &ce, rows, nrows);

		if (!ret && nctx && perf_json_add_gpu_contexts(o.json, ctxs, nctx))
			ret = -EIO;

		if (ret)
			fprintf(stderr, "gfec-perf: %s: %s\n", o.json, strerror(-ret));
		else
			printf("# wrote %s\n", o.json);
		unwritten |= ret != 0;
	}
	if (o.svg) {
		int ret = perf_write_svgs(o.svg, &ce, rows, nrows);

		if (ret)
			fprintf(stderr, "gfec-perf: %s-*.svg: %s\n", o.svg, strerror(-ret));
		else
			printf("# wrote %s-roofline.svg and %s-latency.svg\n", o.svg, o.svg);
		unwritten |= ret != 0;
	}
	for (int i = 0; i < nrows; i++) {
		free(rows[i].lat);
		free(rows[i].rep_gbps);
	}
	free(rows);
	if (failed) {
		fprintf(stderr, "gfec-perf: %d row(s) FAILED the check against the CPU reference\n",
			failed);
		return 1;
	}
	if (!nrows)
		return 1;
	return unwritten ? 3 : above ? 4 : 0;
}
