/* SPDX-License-Identifier: BSD-3-Clause */
/** @file perf_output.c  gfec-perf's results: the table, the progress bar, JSON and the two SVGs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
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

void perf_print_header(void)
{
	printf("%-6s %-8s %-6s %6s %5s %-4s %-8s %9s %9s %9s %6s %7s %9s %9s %7s %5s %s\n", "op",
	       "code", "tech", "chunk", "batch", "bknd", "data", "data GB/s", "trafGB/s",
	       "GF-op/s", "intens", "%ceil", "p50 us", "p99 us", "cpu-s/GB", "check", "ceiling");
}

void perf_print_row(const struct perf_row *r)
{
	char code[32], size[16], gops[32];

	snprintf(code, sizeof(code), "RS(%d,%d)", r->k, r->m);
	perf_fmt_size(size, sizeof(size), r->chunk);
	snprintf(gops, sizeof(gops), "%.3gG", r->gops);
	printf("%-6s %-8s %-6.6s %6s %5d %-4s %-8s %9.2f %9.2f %9s %6.2f %6.1f%% %9.1f %9.1f %7.3f "
	       "%5s %s%s\n",
	       perf_op_names[r->op], code, r->technique, size, r->batch, r->backend, perf_data_names[r->data],
	       r->gbps.median, r->traffic_gbps, gops, r->intensity, r->pct, r->p50, r->p99,
	       r->cpu_s_per_gb,
	       r->checked == 1	  ? "ok"
	       : r->checked == 0  ? "FAIL"
	       : r->checked == -2 ? "off"
				  : "n/a",
	       r->ceil_name ? r->ceil_name : "-", r->flagged ? " !spread" : "");
	fflush(stdout);
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

static void json_machine(FILE *f, const struct perf_ceilings *c)
{
	char cpu[128];
	struct utsname u;

	perf_cpu_model(cpu, sizeof(cpu));
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	fprintf(f, "\"machine\":{\"cpu_model\":");
	perf_json_str(f, cpu);
	fprintf(f, ",\"cpus\":%d,\"l3_bytes\":%zu,\"kernel\":", c->cpus, perf_l3_bytes());
	perf_json_str(f, u.release);
	fprintf(f, ",\"gpu\":");
	if (c->gpu) {
		fprintf(f, "{\"name\":");
		perf_json_str(f, c->gpu_name);
		fprintf(f, ",\"sms\":%d,\"sm_clock_mhz\":%d,\"mem_clock_mhz\":%d}", c->gpu_sms,
			c->gpu_sm_clock, c->gpu_mem_clock);
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\"gfec_version\":");
	perf_json_str(f, gfec_version());
	fprintf(f, ",\"isal_version\":");
	perf_json_str(f, GFEC_PERF_ISAL_VERSION);
	fprintf(f, ",\"git_revision\":");
	perf_json_str(f, GFEC_PERF_GIT_REV);
	fprintf(f, "}");
}

int perf_write_json(const char *path, const char *cmdline, const struct perf_ceilings *c,
		    const struct perf_row *rows, int nrows)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "{\"schema\":\"gfec-perf/1\",\"units\":{\"GBps\":\"1e9 data bytes per second\","
		   "\"traffic_GBps\":\"1e9 bytes read or written per second\",\"gf_op\":\"one "
		   "GF(2^8) multiply-add of one byte\",\"latency\":\"microseconds per call\"},\n"
		   "\"command\":");
	perf_json_str(f, cmdline);
	fprintf(f, ",\n");
	json_machine(f, c);
	fprintf(f, ",\n\"ceilings\":{\"from_cache\":%s,\"cpu_mem_1core_GBps\":%.4f,"
		   "\"cpu_mem_all_GBps\":%.4f,\"gpu_d2d_GBps\":%.4f,\"pinned_h2d_GBps\":%.4f,"
		   "\"pinned_d2h_GBps\":%.4f,\"pinned_both_GBps\":%.4f,\"codes\":[",
		c->from_cache ? "true" : "false", c->cpu_mem_1, c->cpu_mem_all, c->d2d, c->h2d,
		c->d2h, c->both);
	for (int i = 0; i < c->ncodes; i++)
		fprintf(f, "%s{\"k\":%d,\"m\":%d,\"isal_1thread_GBps\":%.4f,\"isal_all_GBps\":%.4f,"
			   "\"gpu_xor_bound_GBps\":%.4f}",
			i ? "," : "", c->codes[i].k, c->codes[i].m, c->codes[i].isal_1,
			c->codes[i].isal_all, c->codes[i].xor_gpu);
	fprintf(f, "]},\n\"results\":[");
	for (int i = 0; i < nrows; i++) {
		const struct perf_row *r = &rows[i];

		fprintf(f, "%s\n{\"op\":\"%s\",\"k\":%d,\"m\":%d,\"erasures\":%d,\"technique\":",
			i ? "," : "", perf_op_names[r->op], r->k, r->m, r->e);
		perf_json_str(f, r->technique);
		fprintf(f, ",\"chunk\":%zu,\"batch\":%d,\"backend\":\"%s\",\"engine\":", r->chunk,
			r->batch, r->backend);
		perf_json_str(f, r->engine);
		fprintf(f, ",\"on_gpu\":%s,\"data\":\"%s\",\"calls\":%ld,\"repeats\":%d,"
			   "\"data_bytes_per_call\":%.0f,\"traffic_bytes_per_call\":%.0f,"
			   "\"seconds_per_call_median\":%.9f,\"GBps\":%.4f,\"GBps_min\":%.4f,"
			   "\"GBps_max\":%.4f,\"spread\":%.4f,\"flagged\":%s,\"traffic_GBps\":%.4f,"
			   "\"gf_ops_per_s\":%.6g,\"intensity\":%.4f,\"ceiling\":",
			r->on_gpu ? "true" : "false", perf_data_names[r->data], r->n, r->repeats,
			r->data_bytes, r->traffic_bytes, r->p50 * 1e-6, r->gbps.median, r->gbps.min,
			r->gbps.max, r->gbps.spread, r->flagged ? "true" : "false", r->traffic_gbps,
			r->gops * 1e9, r->intensity);
		perf_json_str(f, r->ceil_name ? r->ceil_name : "");
		fprintf(f, ",\"ceiling_GBps\":%.4f,\"pct_of_ceiling\":%.3f,\"latency_us\":{\"p50\":"
			   "%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f},\"cpu_seconds_per_GB\":%.6f,"
			   "\"checked\":%s}",
			r->ceil_gbps, r->pct, r->p50, r->p90, r->p99, r->p999, r->cpu_s_per_gb,
			r->checked == 1 ? "true" : r->checked == 0 ? "false" : "null");
	}
	fprintf(f, "\n]}\n");
	return fclose(f) ? -errno : 0;
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
	if (c->cpu_mem_all > 0)
		roofs[nroofs++] = (struct perf_roof){ "CPU memory, all cores", PERF_ROOF_BANDWIDTH,
						      c->cpu_mem_all * 1e9 };
	if (c->cpu_mem_1 > 0)
		roofs[nroofs++] = (struct perf_roof){ "CPU memory, 1 core", PERF_ROOF_BANDWIDTH,
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
		snprintf(labels[i], sizeof(labels[i]), "%s RS(%d,%d) %s %s/%s", perf_op_names[rows[i].op],
			 rows[i].k, rows[i].m, size, rows[i].backend, perf_data_names[rows[i].data]);
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
