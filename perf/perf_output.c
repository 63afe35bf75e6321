/* SPDX-License-Identifier: BSD-3-Clause */
/** @file perf_output.c  gfec-perf's results: the table, the progress bar, JSON and the two SVGs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gfec/gfec.h>

#include "gfec_perf.h"
#include "perf_util.h"
#include "svg.h"

#ifndef GFEC_PERF_ISAL_VERSION
#define GFEC_PERF_ISAL_VERSION "unknown"
#endif
#ifndef GFEC_PERF_GIT_REV
#define GFEC_PERF_GIT_REV "unknown"
#endif

int perf_self_check(const struct perf_row *rows, int nrows, FILE *f)
{
	int above = 0;

	for (int i = 0; i < nrows; i++) {
		const struct perf_row *r = &rows[i];
		const double allowed = r->ceil_gbps * (1 + r->gbps.spread + r->ceil_spread);
		char size[16];

		if (r->ceil_gbps <= 0 || r->gbps.median <= allowed)
			continue;
		perf_fmt_size(size, sizeof(size), r->chunk);
		fprintf(f,
			"gfec-perf: self-check FAILED: %s RS(%d,%d) %s batch %d %s/%s runs at %.2f "
			"GB/s, %.1f%% of its ceiling \"%s\" (%.2f GB/s), more than the measured "
			"spread allows (%.1f%% row + %.1f%% ceiling): that ceiling is not a bound\n",
			perf_op_names[r->op], r->k, r->m, size, r->batch, r->backend,
			perf_data_names[r->data], r->gbps.median, r->pct, r->ceil_name, r->ceil_gbps,
			100 * r->gbps.spread, 100 * r->ceil_spread);
		above++;
	}
	return above;
}

void perf_print_header(void)
{
	printf("%-6s %-8s %2s %-6s %6s %5s %-4s %-8s %9s %9s %9s %6s %7s %9s %9s %7s %5s %s\n", "op",
	       "code", "w", "tech", "chunk", "batch", "bknd", "data", "data GB/s", "trafGB/s",
	       "GF-op/s", "intens", "%ceil", "p50 us", "p99 us", "cpu-s/GB", "check", "ceiling");
}

void perf_print_row(const struct perf_row *r)
{
	char code[32], size[16], gops[32];

	if (r->code[0])
		snprintf(code, sizeof(code), "%s", r->code);
	else
		snprintf(code, sizeof(code), "RS(%d,%d)", r->k, r->m);
	perf_fmt_size(size, sizeof(size), r->chunk);
	snprintf(gops, sizeof(gops), "%.3gG", r->gops);
	printf("%-6s %-8s %2d %-6.6s %6s %5d %-4s %-8s %9.2f %9.2f %9s %6.2f %6.1f%% %9.1f %9.1f "
	       "%7.3f %5s %s%s\n",
	       perf_op_names[r->op], code, r->w, r->technique, size, r->batch, r->backend, perf_data_names[r->data],
	       r->gbps.median, r->traffic_gbps, gops, r->intensity, r->pct, r->p50, r->p99,
	       r->cpu_s_per_gb,
	       r->checked == 1	  ? "ok"
	       : r->checked == 0  ? "FAIL"
	       : r->checked == -2 ? "off"
				  : "n/a",
	       r->ceil_name[0] ? r->ceil_name : "-", r->flagged ? " !spread" : "");
	fflush(stdout);
}

void perf_print_row_contexts(const struct perf_row *r)
{
	if (r->nctx <= 0 || r->skip[0])
		return;
	printf("#   contexts:");
	for (int i = 0; i < r->nctx; i++)
		printf(" ctx %d %.1f%% (%llu shares, %llu failed)%s", i, 100 * r->ctx_share[i],
		       (unsigned long long)r->ctx_calls[i], (unsigned long long)r->ctx_failures[i],
		       i + 1 < r->nctx ? "," : "\n");
}

void perf_print_gpu_contexts(const struct perf_gpu_ctx *x, int n)
{
	printf("# GPU contexts of the GPU rows (GFEC_GPU_DEVICES / gpu_devices=): %d; per GPU: copy "
	       "= D2D bytes read + written, XOR = RS(10,4) xor-stream data bound (64 x 1 MiB), "
	       "pinned H2D / D2H, GB/s\n",
	       n);
	for (int i = 0; i < n; i++)
		printf("#   ctx %d: GPU %d %s (PCI bus %d, %.0f GiB): copy %.1f, XOR %.1f, pinned "
		       "H2D %.1f / D2H %.1f\n",
		       i, x[i].d.ordinal, x[i].d.name, x[i].d.pci_bus, x[i].d.mem_gib, x[i].copy,
		       x[i].xor_bound, x[i].h2d, x[i].d2h);
}

int perf_json_add_gpu_contexts(const char *path, const struct perf_gpu_ctx *x, int n)
{
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err), *list = json_array();
	int ret;

	if (!doc || !list) {
		json_decref(doc);
		json_decref(list);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		json_t *c = json_object();

		json_object_set_new(c, "context", json_integer(i));
		json_object_set_new(c, "ordinal", json_integer(x[i].d.ordinal));
		json_object_set_new(c, "name", json_string(x[i].d.name));
		json_object_set_new(c, "pci_bus", json_integer(x[i].d.pci_bus));
		json_object_set_new(c, "mem_gib", json_real(x[i].d.mem_gib));
		json_object_set_new(c, "copy_GBps", json_real(x[i].copy));
		json_object_set_new(c, "xor_bound_GBps", json_real(x[i].xor_bound));
		json_object_set_new(c, "xor_bound_shape", json_string("RS(10,4), 64 x 1 MiB"));
		json_object_set_new(c, "pinned_h2d_GBps", json_real(x[i].h2d));
		json_object_set_new(c, "pinned_d2h_GBps", json_real(x[i].d2h));
		json_array_append_new(list, c);
	}
	json_object_set_new(doc, "gpu_contexts", list);
	ret = perf_json_write(path, doc);
	json_decref(doc);
	return ret ? -1 : 0;
}

void perf_progress(int done, int total, const char *what)
{
	const int width = 30;
	int fill = total ? done * width / total : width;

	if (!isatty(2))
		return;
	fprintf(stderr, "\r[%.*s%*s] %d/%d %-40.40s", fill, "##############################",
		width - fill, "", done, total, what);
	if (done == total)
		fprintf(stderr, "\r%*s\r", width + 50, "");
}

static json_t *json_machine(const struct perf_ceilings *c)
{
	json_t *m = perf_json_machine(), *gpu = json_null();

	if (c->gpu) {
		gpu = json_object();
		json_object_set_new(gpu, "name", json_string(c->gpu_name));
		json_object_set_new(gpu, "sms", json_integer(c->gpu_sms));
		json_object_set_new(gpu, "sm_clock_mhz", json_integer(c->gpu_sm_clock));
		json_object_set_new(gpu, "mem_clock_mhz", json_integer(c->gpu_mem_clock));
	}
	json_object_set_new(m, "gpu", gpu);
	json_object_set_new(m, "gfec_version", json_string(gfec_version()));
	json_object_set_new(m, "isal_version", json_string(GFEC_PERF_ISAL_VERSION));
	json_object_set_new(m, "git_revision", json_string(GFEC_PERF_GIT_REV));
	return m;
}

static json_t *json_ceilings(const struct perf_ceilings *c)
{
	json_t *o = json_object(), *codes = json_array(), *xors = json_array();

	json_object_set_new(o, "from_cache", json_boolean(c->from_cache));
	json_object_set_new(o, "cpu_threads", json_integer(c->threads));
	json_object_set_new(o, "cpu_mem_1core_GBps", json_real(c->cpu_mem_1));
	json_object_set_new(o, "cpu_mem_1core_spread", json_real(c->cpu_mem_1_spread));
	json_object_set_new(o, "cpu_mem_all_GBps", json_real(c->cpu_mem_t));
	json_object_set_new(o, "cpu_mem_all_spread", json_real(c->cpu_mem_t_spread));
	json_object_set_new(o, "gpu_d2d_GBps", json_real(c->d2d));
	json_object_set_new(o, "pinned_h2d_GBps", json_real(c->h2d));
	json_object_set_new(o, "pinned_d2h_GBps", json_real(c->d2h));
	json_object_set_new(o, "pinned_both_GBps", json_real(c->both));
	for (int i = 0; i < c->ncodes; i++) {
		json_t *pc = json_object();

		json_object_set_new(pc, "k", json_integer(c->codes[i].k));
		json_object_set_new(pc, "m", json_integer(c->codes[i].m));
		json_object_set_new(pc, "isal_1thread_GBps", json_real(c->codes[i].isal_1));
		json_object_set_new(pc, "isal_all_GBps", json_real(c->codes[i].isal_all));
		json_object_set_new(pc, "gpu_xor_bound_GBps", json_real(c->codes[i].xor_gpu));
		json_array_append_new(codes, pc);
	}
	json_object_set_new(o, "codes", codes);
	for (int i = 0; i < c->nxor; i++) {
		const struct perf_xor_ceil *x = &c->xors[i];
		json_t *e = json_object();

		json_object_set_new(e, "op", json_string(perf_op_names[x->op]));
		json_object_set_new(e, "k", json_integer(x->k));
		json_object_set_new(e, "m", json_integer(x->m));
		json_object_set_new(e, "erasures", json_integer(x->e));
		json_object_set_new(e, "chunk", json_integer((json_int_t)x->chunk));
		json_object_set_new(e, "traffic_GBps", json_real(x->gbps));
		json_object_set_new(e, "spread", json_real(x->spread));
		json_array_append_new(xors, e);
	}
	json_object_set_new(o, "cpu_xor_stream", xors);
	return o;
}

static json_t *json_row(const struct perf_row *r)
{
	json_t *o = json_object(), *lat = json_object();

	json_object_set_new(o, "op", json_string(perf_op_names[r->op]));
	json_object_set_new(o, "k", json_integer(r->k));
	json_object_set_new(o, "m", json_integer(r->m));
	json_object_set_new(o, "erasures", json_integer(r->e));
	json_object_set_new(o, "technique", json_string(r->technique));
	json_object_set_new(o, "w", json_integer(r->w));
	json_object_set_new(o, "chunk", json_integer((json_int_t)r->chunk));
	json_object_set_new(o, "batch", json_integer(r->batch));
	json_object_set_new(o, "backend", json_string(r->backend));
	if (r->nctx > 0) { /* a GPU row's contexts (gpu_devices=) */
		json_t *sh = json_array();

		for (int i = 0; i < r->nctx; i++) {
			json_t *e = json_object();

			json_object_set_new(e, "context", json_integer(i));
			json_object_set_new(e, "share", json_real(r->ctx_share[i]));
			json_object_set_new(e, "calls", json_integer((json_int_t)r->ctx_calls[i]));
			json_object_set_new(e, "failures",
					    json_integer((json_int_t)r->ctx_failures[i]));
			json_array_append_new(sh, e);
		}
		json_object_set_new(o, "gpu_context_shares", sh);
	}
	json_object_set_new(o, "engine", json_string(r->engine));
	json_object_set_new(o, "on_gpu", json_boolean(r->on_gpu));
	json_object_set_new(o, "data", json_string(perf_data_names[r->data]));
	json_object_set_new(o, "calls", json_integer(r->n));
	json_object_set_new(o, "repeats", json_integer(r->repeats));
	json_object_set_new(o, "data_bytes_per_call", json_integer((json_int_t)r->data_bytes));
	json_object_set_new(o, "traffic_bytes_per_call",
			    json_integer((json_int_t)r->traffic_bytes));
	json_object_set_new(o, "seconds_per_call_median", json_real(r->p50 * 1e-6));
	json_object_set_new(o, "GBps", json_real(r->gbps.median));
	json_object_set_new(o, "GBps_min", json_real(r->gbps.min));
	json_object_set_new(o, "GBps_max", json_real(r->gbps.max));
	json_object_set_new(o, "spread", json_real(r->gbps.spread));
	json_object_set_new(o, "flagged", json_boolean(r->flagged));
	json_object_set_new(o, "traffic_GBps", json_real(r->traffic_gbps));
	json_object_set_new(o, "gf_ops_per_s", json_real(r->gops * 1e9));
	json_object_set_new(o, "intensity", json_real(r->intensity));
	json_object_set_new(o, "ceiling", json_string(r->ceil_name));
	json_object_set_new(o, "ceiling_GBps", json_real(r->ceil_gbps));
	json_object_set_new(o, "ceiling_spread", json_real(r->ceil_spread));
	json_object_set_new(o, "pct_of_ceiling", json_real(r->pct));
	json_object_set_new(lat, "p50", json_real(r->p50));
	json_object_set_new(lat, "p90", json_real(r->p90));
	json_object_set_new(lat, "p99", json_real(r->p99));
	json_object_set_new(lat, "p999", json_real(r->p999));
	json_object_set_new(o, "latency_us", lat);
	json_object_set_new(o, "cpu_seconds_per_GB", json_real(r->cpu_s_per_gb));
	json_object_set_new(o, "checked", r->checked == 1   ? json_true()
					  : r->checked == 0 ? json_false()
							    : json_null());
	if (r->daemon.callers) {
		json_t *d = json_object();

		json_object_set_new(d, "callers", json_integer(r->daemon.callers));
		json_object_set_new(d, "codec_threads", json_integer(r->daemon.codec_threads));
		json_object_set_new(d, "shared_codec", json_true());
		json_object_set_new(d, "rotated_bytes",
				    json_integer((json_int_t)r->daemon.rotated_bytes));
		json_object_set_new(d, "gpu_calls_per_s", json_real(r->daemon.gpu_calls_per_s));
		json_object_set_new(d, "gpu_call_share", json_real(r->daemon.gpu_call_share));
		json_object_set_new(d, "gpu_launches_per_s", json_real(r->daemon.launches_per_s));
		json_object_set_new(d, "stripes_per_gpu_launch",
				    json_real(r->daemon.stripes_per_launch));
		json_object_set_new(d, "gpu_resident_per_s", json_real(r->daemon.resident_per_s));
		json_object_set_new(d, "gpu_coalesce_us", json_integer(r->daemon.coalesce_us));
		json_object_set_new(d, "gpu_coalesce_slots",
				    json_integer(r->daemon.coalesce_slots));
		json_object_set_new(d, "gpu_windows_per_s", json_real(r->daemon.windows_per_s));
		json_object_set_new(d, "gpu_window_transfer_us",
				    r->daemon.p99_bound_us > 0 ? json_real(r->daemon.window_us)
							       : json_null());
		json_object_set_new(d, "p99_bound_us", r->daemon.p99_bound_us > 0
							   ? json_real(r->daemon.p99_bound_us)
							   : json_null());
		json_object_set_new(d, "staging_copies_GBps",
				    r->daemon.staging_gbps > 0 ? json_real(r->daemon.staging_gbps)
							       : json_null());
		json_object_set_new(d, "staging_copies_threads",
				    json_integer(r->daemon.staging_threads));
		json_object_set_new(o, "daemon", d);
	}
	return o;
}

int perf_write_json(const char *path, const char *cmdline, const struct perf_ceilings *c,
		    const struct perf_row *rows, int nrows)
{
	json_t *doc = json_object(), *units = json_object(), *results = json_array();
	int ret;

	json_object_set_new(doc, "schema", json_string("gfec-perf/1"));
	json_object_set_new(units, "GBps", json_string("1e9 data bytes per second"));
	json_object_set_new(units, "traffic_GBps",
			    json_string("1e9 bytes read or written per second"));
	json_object_set_new(units, "gf_op",
			    json_string("one GF(2^w) multiply-add of one w-bit symbol (results.w)"));
	json_object_set_new(units, "latency", json_string("microseconds per call"));
	json_object_set_new(doc, "units", units);
	json_object_set_new(doc, "command", json_string(cmdline));
	json_object_set_new(doc, "machine", json_machine(c));
	json_object_set_new(doc, "ceilings", json_ceilings(c));
	for (int i = 0; i < nrows; i++)
		json_array_append_new(results, json_row(&rows[i]));
	json_object_set_new(doc, "results", results);
	ret = perf_json_write(path, doc);
	json_decref(doc);
	return ret;
}

int perf_write_svgs(const char *prefix, const struct perf_ceilings *c, const struct perf_row *rows,
		      int nrows)
{
	struct perf_roof roofs[8];
	struct perf_point *pts = calloc((size_t)nrows + 1, sizeof(*pts));
	struct perf_cdf *cdf = calloc((size_t)nrows + 1, sizeof(*cdf));
	char (*labels)[64] = calloc((size_t)nrows + 1, sizeof(*labels));
	char path[1024], note[512], cpu[96];
	int nroofs = 0, ret;

	if (!pts || !cdf || !labels) {
		ret = -ENOMEM;
		goto out;
	}
	if (c->cpu_mem_t > 0)
		roofs[nroofs++] = (struct perf_roof){ "CPU memory, rows' threads", PERF_ROOF_BANDWIDTH,
						      c->cpu_mem_t * 1e9 };
	if (c->cpu_mem_1 > 0)
		roofs[nroofs++] = (struct perf_roof){ "CPU memory, 1 thread", PERF_ROOF_BANDWIDTH,
						      c->cpu_mem_1 * 1e9 };
	if (c->d2d > 0)
		roofs[nroofs++] = (struct perf_roof){ "GPU copy (HBM)", PERF_ROOF_BANDWIDTH,
						      c->d2d * 1e9 };
	if (c->h2d > 0)
		roofs[nroofs++] = (struct perf_roof){ "PCIe pinned H2D", PERF_ROOF_BANDWIDTH,
						      c->h2d * 1e9 };
	if (c->ncodes && c->codes[0].isal_all > 0)
		/* raw ISA-L does m GF ops per data byte */
		roofs[nroofs++] = (struct perf_roof){ "raw ISA-L, all cores", PERF_ROOF_COMPUTE,
						      c->codes[0].isal_all * 1e9 * c->codes[0].m };
	if (c->ncodes && c->codes[0].isal_1 > 0)
		roofs[nroofs++] = (struct perf_roof){ "raw ISA-L, 1 thread", PERF_ROOF_COMPUTE,
						      c->codes[0].isal_1 * 1e9 * c->codes[0].m };
	for (int i = 0; i < nrows; i++) {
		char size[16];

		perf_fmt_size(size, sizeof(size), rows[i].chunk);
		if (rows[i].code[0])
			snprintf(labels[i], sizeof(labels[i]), "%.6s %.12s %s %s/%s", rows[i].technique,
				 rows[i].code, size, rows[i].backend, perf_data_names[rows[i].data]);
		else if (rows[i].daemon.callers)
			snprintf(labels[i], sizeof(labels[i]), "%s RS(%d,%d) %s %s/%s x%d",
				 perf_op_names[rows[i].op], rows[i].k, rows[i].m, size,
				 rows[i].backend, perf_data_names[rows[i].data],
				 rows[i].daemon.callers);
		else
			snprintf(labels[i], sizeof(labels[i]), "%s RS(%d,%d) %s %s/%s",
				 perf_op_names[rows[i].op], rows[i].k, rows[i].m, size,
				 rows[i].backend, perf_data_names[rows[i].data]);
		pts[i] = (struct perf_point){ labels[i], rows[i].intensity, rows[i].gops * 1e9,
					      rows[i].flagged };
		cdf[i] = (struct perf_cdf){ labels[i], rows[i].lat, rows[i].nlat };
	}
	perf_cpu_model(cpu, sizeof(cpu));
	snprintf(note, sizeof(note), "measured by gfec-perf on %s%s%s; roofs from this run%s", cpu,
		 c->gpu ? " + " : "", c->gpu ? c->gpu_name : "",
		 c->from_cache ? " (ceilings cache)" : "");
	snprintf(path, sizeof(path), "%s-roofline.svg", prefix);
	ret = perf_svg_roofline(path, "gfec roofline (GF ops/s vs GF ops per byte of traffic)", note,
				roofs, nroofs, pts, nrows);
	if (ret == 0) {
		snprintf(path, sizeof(path), "%s-latency.svg", prefix);
		ret = perf_svg_latency_cdf(path, "gfec latency per call (CDF)", cdf, nrows);
	}
out:
	free(pts);
	free(cdf);
	free(labels);
	return ret;
}
