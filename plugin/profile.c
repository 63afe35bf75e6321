/* SPDX-License-Identifier: BSD-3-Clause */
/** @file profile.c  Ceph-style profile strings: "k=10 m=4 technique=cauchy" or "k=10,m=4". */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "matrix.h"

#define MAX_TOKEN 128

static const char *const backend_names[] = {
	[GFEC_BACKEND_CPU] = "cpu",
	[GFEC_BACKEND_GPU] = "gpu",
	[GFEC_BACKEND_AUTO] = "auto",
	[GFEC_BACKEND_HYBRID] = "hybrid",
};

const char *gfec_backend_choice_name(enum gfec_backend_choice b)
{
	return backend_names[b];
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return GFEC_E_PROFILE;
}

/* A whole number in [lo, hi], for the int-sized keys that are not knobs (k, m, packetsize). */
static int parse_int(const char *v, long lo, long hi, int *out)
{
	long long x;

	if (gfec_parse_number(v, lo, hi, &x))
		return -1;
	*out = (int)x;
	return 0;
}

static int set_key(struct gfec_profile *p, const char *key, const char *val, int *seen_k,
		   int *seen_m, char *err, size_t errlen)
{
	char expect[128];
	int x;

	if (strcmp(key, "k") == 0) {
		if (parse_int(val, -1000000, 1000000, &p->k))
			return fail(err, errlen, "k=%s: k must be a number", val);
		*seen_k = 1;
	} else if (strcmp(key, "m") == 0) {
		if (parse_int(val, -1000000, 1000000, &p->m))
			return fail(err, errlen, "m=%s: m must be a number", val);
		*seen_m = 1;
	} else if (strcmp(key, "w") == 0) {
		if (strcmp(val, "8") != 0 && strcmp(val, "16") != 0)
			return fail(err, errlen, "w=%s: w must be 8 or 16", val);
		p->w = atoi(val);
	} else if (strcmp(key, "technique") == 0) {
		x = gfec_technique_find(val);
		if (x < 0) {
			size_t n = 0;

			for (int t = 0; t < GFEC_NTECHNIQUES; t++)
				n += (size_t)snprintf(expect + n, sizeof(expect) - n, "%s%s",
						      t ? ", " : "",
						      gfec_technique_name((enum gfec_technique)t));
			return fail(err, errlen, "technique=%s: unknown technique (%s)", val, expect);
		}
		p->technique = (enum gfec_technique)x;
	} else if (strcmp(key, "backend") == 0) {
		for (x = GFEC_NBACKENDS - 1; x >= 0 && strcmp(val, backend_names[x]) != 0; x--)
			;
		if (x < 0)
			return fail(err, errlen,
				    "backend=%s: unknown backend (cpu, gpu, auto, hybrid)", val);
		p->backend = (enum gfec_backend_choice)x;
	} else if (strcmp(key, "packetsize") == 0) {
		if (parse_int(val, 8, 1 << 24, &p->packetsize) || p->packetsize % 8)
			return fail(err, errlen,
				    "packetsize=%s: packetsize must be a multiple of 8 in 8..2^24",
				    val);
	} else if ((x = gfec_knob_by_profile(key)) >= 0) {
		if (gfec_knob_set(&p->set, (enum gfec_knob)x, val, GFEC_FROM_PROFILE, NULL))
			return fail(err, errlen, "%s=%s: %s must be %s", key, val, key,
				    gfec_knob_expect((enum gfec_knob)x, expect, sizeof(expect)));
	} else {
		return fail(err, errlen, "%s=%s: unknown key '%s'", key, val, key);
	}
	return 0;
}

/* The typed fields codec.c reads, from the settings. */
static void apply_knobs(struct gfec_profile *p)
{
	const struct gfec_knob_value *v = p->set.v;

	p->threads = (int)v[GFEC_KNOB_THREADS].num;
	/* the registry's word list and length limit make both fit */
	snprintf(p->cpu_path, sizeof(p->cpu_path), "%.*s", (int)sizeof(p->cpu_path) - 1,
		 v[GFEC_KNOB_CPU_PATH].text);
	p->cpu_stream_min = v[GFEC_KNOB_CPU_STREAM_MIN].num;
	p->decode_cache = (int)v[GFEC_KNOB_DECODE_CACHE].num;
	p->async_threads = (int)v[GFEC_KNOB_ASYNC_THREADS].num;
	snprintf(p->gpu_kernel, sizeof(p->gpu_kernel), "%.*s", (int)sizeof(p->gpu_kernel) - 1,
		 v[GFEC_KNOB_GPU_KERNEL].text);
	p->gpu_min_bytes = v[GFEC_KNOB_GPU_MIN_BYTES].num;
	p->gpu_device = (int)v[GFEC_KNOB_GPU_DEVICE].num;
	p->gpu_ndevices = 0; /* unset, or checked by the registry when set */
	/* gpu_device set where it outranks gpu_devices (in the profile, say, over the
	 * environment's list): that one device alone */
	if (v[GFEC_KNOB_GPU_DEVICES].text[0] &&
	    v[GFEC_KNOB_GPU_DEVICE].origin <= v[GFEC_KNOB_GPU_DEVICES].origin &&
	    gfec_parse_gpu_devices(v[GFEC_KNOB_GPU_DEVICES].text, p->gpu_devices, &p->gpu_ndevices))
		p->gpu_ndevices = 0;
	p->gpu_split_min = v[GFEC_KNOB_GPU_SPLIT_MIN].num;
	p->gpu_streams = (int)v[GFEC_KNOB_GPU_STREAMS].num;
	p->gpu_segment = v[GFEC_KNOB_GPU_SEGMENT].num;
	p->gpu_lanes = (int)v[GFEC_KNOB_GPU_LANES].num;
	p->gpu_pinned_dma = (int)v[GFEC_KNOB_GPU_PINNED].num; /* the word's index: map, dma */
	p->gpu_map_bytes = v[GFEC_KNOB_GPU_MAP_BYTES].num;
	p->gpu_resident_us = v[GFEC_KNOB_GPU_RESIDENT_US].num;
	p->gpu_resident_pinned = (int)v[GFEC_KNOB_GPU_RESIDENT_PINNED].num;
	p->gpu_coalesce_us = (int)v[GFEC_KNOB_GPU_COALESCE_US].num;
	p->gpu_coalesce_bytes = v[GFEC_KNOB_GPU_COALESCE_BYTES].num;
	p->gpu_coalesce_slots = (int)v[GFEC_KNOB_GPU_COALESCE_SLOTS].num;
	p->gpu_coalesce_slot_min = v[GFEC_KNOB_GPU_COALESCE_SLOT_MIN].num;
	p->gpu_fault = (int)v[GFEC_KNOB_FAULT].num; /* the word's index (registry.h) */
}

int gfec_profile_parse(const char *text, const struct gfec_settings *base, struct gfec_profile *p,
		       char *err, size_t errlen)
{
	const char *s = text;
	int seen_k = 0, seen_m = 0, ret;

	if (!text || !p)
		return fail(err, errlen, "profile: no profile given");
	memset(p, 0, sizeof(*p));
	p->w = 8;
	p->technique = GFEC_TECH_CAUCHY;
	p->backend = GFEC_BACKEND_AUTO;
	p->packetsize = 2048; /* Jerasure's and Ceph's default for cauchy_good */
	if (base)
		p->set = *base;
	else
		gfec_settings_defaults(&p->set);

	while (*s) {
		char tok[MAX_TOKEN];
		size_t n = strcspn(s, " \t\n,");
		char *eq;

		if (n == 0) {
			s++;
			continue;
		}
		if (n >= sizeof(tok))
			return fail(err, errlen, "profile: entry '%.20s...' is too long", s);
		memcpy(tok, s, n);
		tok[n] = '\0';
		s += n;
		eq = strchr(tok, '=');
		if (!eq || eq == tok)
			return fail(err, errlen, "%s: expected key=value", tok);
		*eq = '\0';
		ret = set_key(p, tok, eq + 1, &seen_k, &seen_m, err, errlen);
		if (ret)
			return ret;
	}
	apply_knobs(p);

	if (!seen_k)
		return fail(err, errlen, "k: missing (the profile must set k and m)");
	if (!seen_m)
		return fail(err, errlen, "m: missing (the profile must set k and m)");
	if (p->k < 2)
		return fail(err, errlen, "k=%d: k must be >= 2", p->k);
	if (p->m < 1)
		return fail(err, errlen, "m=%d: m must be >= 1", p->m);
	if (p->m > p->k)
		return fail(err, errlen, "m=%d: m must be <= k (%d)", p->m, p->k);
	if (p->w == 16) {
		if (p->k + p->m > GFEC_MAX_CHUNKS_GF16)
			return fail(err, errlen, "k=%d m=%d: k+m must be <= %d with w=16", p->k,
				    p->m, GFEC_MAX_CHUNKS_GF16);
		/* ISA-L's matrices and CRS bitmatrices are GF(2^8) constructions. */
		if (p->technique != GFEC_TECH_CAUCHY && p->technique != GFEC_TECH_JERASURE_RS_VAN &&
		    p->technique != GFEC_TECH_FFT)
			return fail(err, errlen,
				    "technique=%s: not available with w=16 (cauchy, "
				    "jerasure_reed_sol_van, fft)",
				    gfec_technique_name(p->technique));
		/* its butterflies run on the CPU (host buffers) or the GPU (device buffers) */
		if (p->technique == GFEC_TECH_FFT && p->backend == GFEC_BACKEND_HYBRID)
			return fail(err, errlen,
				    "technique=fft: backend=cpu, gpu or auto (a call runs on one "
				    "of them, not %s)",
				    gfec_backend_choice_name(p->backend));
		return 0;
	}
	if (p->technique == GFEC_TECH_FFT)
		return fail(err, errlen, "technique=fft: only with w=16 (add w=16)");
	if (p->k + p->m > GFEC_MAX_CHUNKS)
		return fail(err, errlen, "k=%d m=%d: k+m must be <= %d (up to %d with w=16)", p->k,
			    p->m, GFEC_MAX_CHUNKS, GFEC_MAX_CHUNKS_GF16);
	return 0;
}
