/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file knobs.c
 * Where a codec's settings come from, in order: the registry's defaults, gfec.conf, the
 * environment (config.c), then the profile (profile.c); and gfec_config_describe(), which shows
 * the outcome knob by knob, and what the backend choice makes of host calls of a few sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfec/gfec_config.h"
#include "cpu_backend.h" /* gfec_cpu_stream_min(), gfec_cpu_gfni_prefetch(): what auto is here */
#include "internal.h"

int gfec_settings_resolve(const char *text, struct gfec_profile *p, char *err, size_t errlen)
{
	struct gfec_settings *s = malloc(sizeof(*s));
	int ret;

	if (!s)
		return GFEC_E_NOMEM;
	ret = gfec_config_load(s, err, errlen);
	if (!ret)
		ret = gfec_profile_parse(text, s, p, err, errlen);
	free(s);
	return ret;
}

#define NEVER (1ll << 50) /* the thresholds' "not at any size" */

/* "64 KiB", "16 MiB": @p bytes, a power of two, in the largest unit that keeps it whole. */
static const char *size_name(long long bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && bytes >= 1024 && bytes % 1024 == 0)
		bytes /= 1024, u++;
	snprintf(buf, len, "%lld %s", bytes, unit[u]);
	return buf;
}

/* "NAME VALUE (ORIGIN)" of knob @p k, or "NAME never (ORIGIN)" at NEVER. */
static const char *knob_said(const struct gfec_settings *s, enum gfec_knob k, char *buf,
			     size_t len)
{
	char origin[GFEC_CONF_PATH_MAX + 32];

	gfec_knob_origin(s, k, origin, sizeof(origin));
	if (s->v[k].num >= NEVER)
		snprintf(buf, len, "%s never (%s%s)", gfec_knobs[k].name, origin,
			 s->v[k].origin == GFEC_FROM_DEFAULT ? ": not measured, see gfec tune" : "");
	else
		snprintf(buf, len, "%s %lld (%s)", gfec_knobs[k].name, s->v[k].num, origin);
	return buf;
}

/* How a split call's GPU share starts: from the rates the settings give, or a first call. */
static void split_said(const struct gfec_settings *s, char *buf, size_t len)
{
	const long long c = s->v[GFEC_KNOB_HYBRID_CPU_RATE].num;
	const long long g = s->v[GFEC_KNOB_HYBRID_GPU_RATE].num;
	char origin[GFEC_CONF_PATH_MAX + 32];

	if (s->v[GFEC_KNOB_HYBRID_ALPHA].num >= 0)
		snprintf(buf, len, "the GPU's share fixed at %lld%% by hybrid_alpha",
			 s->v[GFEC_KNOB_HYBRID_ALPHA].num);
	else if (c > 0 && g > 0)
		snprintf(buf, len,
			 "the GPU's share starts at %.2f = %lld / (%lld + %lld) MB/s, the measured "
			 "GPU and CPU rates (%s), then follows each side's achieved rate",
			 (double)g / (double)(g + c), g, g, c,
			 gfec_knob_origin(s, GFEC_KNOB_HYBRID_GPU_RATE, origin, sizeof(origin)));
	else
		snprintf(buf, len, "the first split call goes 50/50 and measures both sides' rates "
				   "(hybrid_cpu_rate, hybrid_gpu_rate unset)");
}

/* The backend's way with a host call of @p bytes data bytes, as the engine and hybrid.c go. */
static int explain(const struct gfec_profile *p, long long bytes, char *buf, size_t len)
{
	const struct gfec_settings *s = &p->set;
	const int hybrid = p->backend == GFEC_BACKEND_HYBRID;
	const enum gfec_knob split_knob =
	    hybrid ? GFEC_KNOB_HYBRID_MIN_BYTES : GFEC_KNOB_HYBRID_AUTO_BYTES;
	char size[32], a[GFEC_CONF_PATH_MAX + 96], b[GFEC_CONF_PATH_MAX + 96];
	char how[GFEC_CONF_PATH_MAX + 256], why[sizeof(a) + sizeof(how) + 64];
	const char *what;

	size_name(bytes, size, sizeof(size));
	knob_said(s, split_knob, a, sizeof(a));
	knob_said(s, GFEC_KNOB_GPU_MIN_BYTES, b, sizeof(b));
	if (p->backend == GFEC_BACKEND_CPU || p->backend == GFEC_BACKEND_GPU) {
		what = p->backend == GFEC_BACKEND_CPU ? "the CPU" : "the GPU";
		snprintf(why, sizeof(why), "backend=%s", gfec_backend_choice_name(p->backend));
	} else if (s->v[split_knob].num < NEVER && bytes >= s->v[split_knob].num) {
		what = "split between CPU and GPU";
		split_said(s, how, sizeof(how));
		snprintf(why, sizeof(why), "split from %s; %s", a, how);
	} else {
		what = bytes >= s->v[GFEC_KNOB_GPU_MIN_BYTES].num ? "the GPU" : "the CPU";
		snprintf(why, sizeof(why), "GPU from %s; split from %s", b, a);
	}
	return snprintf(buf, len, "%s, %s of data per host call: %s (%s)\n",
			gfec_backend_choice_name(p->backend), size, what, why);
}

int gfec_config_describe(const char *profile, char *buf, size_t len)
{
	struct gfec_profile *p = malloc(sizeof(*p));
	char origin[GFEC_CONF_PATH_MAX + 32];
	size_t used = 0;
	int ret;

	if (!buf || !len) {
		free(p);
		return GFEC_E_INVAL;
	}
	if (!p)
		return GFEC_E_NOMEM;
	ret = gfec_settings_resolve(profile, p, buf, len);
	for (int k = 0; k < GFEC_NKNOBS && !ret; k++) {
		const struct gfec_knob_def *d = &gfec_knobs[k];
		const struct gfec_knob_value *v = &p->set.v[k];
		char from[128];
		int n;

		/* where it can be set, highest first */
		snprintf(from, sizeof(from), "%s%s%s%s%s%s%s%s%s", d->profile ? d->name : "",
			     d->profile ? "=" : "", d->env && d->profile ? ", " : "",
			     d->env ? d->env : "", d->section && (d->env || d->profile) ? ", " : "",
			     d->section ? "[" : "", d->section ? d->section : "",
			     d->section ? "] " : "", d->section ? d->key : "");
		n = snprintf(buf + used, len - used, "%-14s %-18s %-24s # %s (%s)\n", d->name,
			     v->text[0] ? v->text : "\"\"",
			     gfec_knob_origin(&p->set, (enum gfec_knob)k, origin, sizeof(origin)),
			     d->help, from);

		if (n < 0 || (size_t)n >= len - used)
			ret = GFEC_E_INVAL;
		else
			used += (size_t)n;
	}
	if (!ret && p->set.v[GFEC_KNOB_CPU_STREAM_MIN].num == -1) {
		const size_t at = gfec_cpu_stream_min(GFEC_STREAM_MIN_AUTO);
		enum gfec_cpu_path path = GFEC_CPU_AUTO;
		int n;

		gfec_cpu_path_parse(p->set.v[GFEC_KNOB_CPU_PATH].text, &path);
		if (path == GFEC_CPU_AUTO)
			path = gfec_cpu_path_best();
		if (path != GFEC_CPU_GFNI512 && path != GFEC_CPU_GFNI256)
			n = snprintf(buf + used, len - used,
				     "cpu_stream_min auto: cpu path %s has no non-temporal stores\n",
				     gfec_cpu_path_name(path));
		else if (at)
			n = snprintf(buf + used, len - used,
				     "cpu_stream_min auto on this CPU: non-temporal parity stores "
				     "from %zu-byte chunks\n",
				     at);
		else
			n = snprintf(buf + used, len - used,
				     "cpu_stream_min auto on this CPU: never non-temporal stores\n");
		if (n >= 0 && (size_t)n < len - used && gfec_cpu_path_gfni(path)) {
			used += (size_t)n;
			n = snprintf(buf + used, len - used,
				     "GFNI kernels on this CPU: sources prefetched ahead %s\n",
				     gfec_cpu_gfni_prefetch(GFEC_GFNI_STREAM) & GFEC_GFNI_PREFETCH
					 ? "whatever the parity stores"
					 : "with ordinary parity stores, not non-temporal ones");
		}
		if (n < 0 || (size_t)n >= len - used)
			ret = GFEC_E_INVAL;
		else
			used += (size_t)n;
	}
	for (int i = 0; i < 4 && !ret; i++) {
		const int n = explain(p, 65536ll << (4 * i), buf + used, len - used);

		if (n < 0 || (size_t)n >= len - used)
			ret = GFEC_E_INVAL;
		else
			used += (size_t)n;
	}
	free(p);
	return ret;
}
