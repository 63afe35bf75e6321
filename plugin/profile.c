/* SPDX-License-Identifier: BSD-3-Clause */
/** @file profile.c  Ceph-style profile strings: "k=10 m=4 technique=cauchy" or "k=10,m=4". */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "internal.h"
#include "matrix.h"

#define MAX_TOKEN 128

/*
 * backend=auto sends a call in host memory to the GPU when it carries at least this many data
 * bytes (k * len summed over the stripes of the call); device memory always goes to the GPU.
 * Measured, not guessed: on the H200 machine (16 Xeon cores) 16-thread ISA-L beat the GPU's host
 * pipeline at every size from 40 KB to 160 MB of data per call
 * (perf/results/nvidia-h200/gpu_bench_2026-11-22b.log, "crossover"), so by default host buffers
 * stay on the CPU. gfec.conf's [gpu] min_bytes sets a machine's own crossover.
 */
#define GPU_MIN_BYTES_DEFAULT (1ll << 50)

static const char *const technique_names[] = {
	[GFEC_TECH_REED_SOL_VAN] = "reed_sol_van",
	[GFEC_TECH_CAUCHY] = "cauchy",
	[GFEC_TECH_JERASURE_RS_VAN] = "jerasure_reed_sol_van",
	[GFEC_TECH_CAUCHY_GOOD] = "cauchy_good",
};

static const char *const backend_names[] = {
	[GFEC_BACKEND_CPU] = "cpu",
	[GFEC_BACKEND_GPU] = "gpu",
	[GFEC_BACKEND_AUTO] = "auto",
};

const char *gfec_technique_name(enum gfec_technique t)
{
	return technique_names[t];
}

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

int gfec_parse_ll(const char *v, long long lo, long long hi, long long *out)
{
	char *end;
	long long x;

	if (!*v)
		return -1;
	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

/* A whole-string decimal in [lo, hi], for int-sized keys. */
static int parse_int(const char *v, long lo, long hi, int *out)
{
	long long x;

	if (gfec_parse_ll(v, lo, hi, &x))
		return -1;
	*out = (int)x;
	return 0;
}

static int lookup(const char *v, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0)
			return i;
	return -1;
}

static int set_key(struct gfec_profile *p, const char *key, const char *val, int *seen_k,
		   int *seen_m, char *err, size_t errlen)
{
	int x;

	if (strcmp(key, "k") == 0) {
		if (parse_int(val, -1000000, 1000000, &p->k))
			return fail(err, errlen, "k=%s: k must be a number", val);
		*seen_k = 1;
	} else if (strcmp(key, "m") == 0) {
		if (parse_int(val, -1000000, 1000000, &p->m))
			return fail(err, errlen, "m=%s: m must be a number", val);
		*seen_m = 1;
	} else if (strcmp(key, "technique") == 0) {
		x = lookup(val, technique_names, 4);
		if (x < 0)
			return fail(err, errlen,
				    "technique=%s: unknown technique (reed_sol_van, cauchy, "
				    "jerasure_reed_sol_van, cauchy_good)",
				    val);
		p->technique = (enum gfec_technique)x;
	} else if (strcmp(key, "backend") == 0) {
		x = lookup(val, backend_names, 3);
		if (x < 0)
			return fail(err, errlen, "backend=%s: unknown backend (cpu, gpu, auto)",
				    val);
		p->backend = (enum gfec_backend_choice)x;
	} else if (strcmp(key, "threads") == 0) {
		if (parse_int(val, 0, 1024, &p->threads))
			return fail(err, errlen, "threads=%s: threads must be a number in 0..1024",
				    val);
	} else if (strcmp(key, "cpu_path") == 0) {
		enum gfec_cpu_path path;

		if (gfec_cpu_path_parse(val, &path))
			return fail(err, errlen, "cpu_path=%s: unknown CPU path (" GFEC_CPU_PATH_NAMES
				    ")", val);
		snprintf(p->cpu_path, sizeof(p->cpu_path), "%s", val);
	} else if (strcmp(key, "decode_cache") == 0) {
		if (parse_int(val, 1, 65536, &p->decode_cache))
			return fail(err, errlen,
				    "decode_cache=%s: decode_cache must be a number in 1..65536",
				    val);
	} else if (strcmp(key, "packetsize") == 0) {
		if (parse_int(val, 8, 1 << 24, &p->packetsize) || p->packetsize % 8)
			return fail(err, errlen,
				    "packetsize=%s: packetsize must be a multiple of 8 in 8..2^24",
				    val);
	} else if (strcmp(key, "async_threads") == 0) {
		if (parse_int(val, 1, 64, &p->async_threads))
			return fail(err, errlen, "async_threads=%s: async_threads must be 1..64",
				    val);
	} else if (strcmp(key, "gpu_kernel") == 0) {
		if (!*val || strlen(val) >= sizeof(p->gpu_kernel))
			return fail(err, errlen, "gpu_kernel=%s: not a kernel name", val);
		snprintf(p->gpu_kernel, sizeof(p->gpu_kernel), "%s", val);
	} else if (strcmp(key, "gpu_min_bytes") == 0) {
		if (gfec_parse_ll(val, 0, 1ll << 50, &p->gpu_min_bytes))
			return fail(err, errlen, "gpu_min_bytes=%s: gpu_min_bytes must be a size",
				    val);
	} else if (strcmp(key, "gpu_device") == 0) {
		if (parse_int(val, 0, 64, &p->gpu_device))
			return fail(err, errlen, "gpu_device=%s: gpu_device must be 0..64", val);
	} else if (strcmp(key, "gpu_streams") == 0) {
		if (parse_int(val, 1, 8, &p->gpu_streams))
			return fail(err, errlen, "gpu_streams=%s: gpu_streams must be 1..8", val);
	} else if (strcmp(key, "gpu_segment") == 0) {
		if (gfec_parse_ll(val, 4096, 1ll << 34, &p->gpu_segment))
			return fail(err, errlen, "gpu_segment=%s: gpu_segment must be 4096..2^34",
				    val);
	} else {
		return fail(err, errlen, "%s=%s: unknown key '%s'", key, val, key);
	}
	return 0;
}

/* Environment defaults, applied before the profile so that profile keys win. */
static int env_defaults(struct gfec_profile *p, char *err, size_t errlen)
{
	const char *v = getenv("GFEC_CPU_PATH");

	if (v && *v) {
		enum gfec_cpu_path path;

		if (gfec_cpu_path_parse(v, &path))
			return fail(err, errlen,
				    "GFEC_CPU_PATH=%s: unknown CPU path (" GFEC_CPU_PATH_NAMES ")", v);
		snprintf(p->cpu_path, sizeof(p->cpu_path), "%s", v);
	}
	v = getenv("GFEC_THREADS");
	if (v && *v && parse_int(v, 0, 1024, &p->threads))
		return fail(err, errlen, "GFEC_THREADS=%s: must be a number in 0..1024", v);
	return 0;
}

int gfec_profile_parse(const char *text, struct gfec_profile *p, char *err, size_t errlen)
{
	const char *s = text;
	int seen_k = 0, seen_m = 0, ret;

	if (!text || !p)
		return fail(err, errlen, "profile: no profile given");
	memset(p, 0, sizeof(*p));
	p->technique = GFEC_TECH_CAUCHY;
	p->backend = GFEC_BACKEND_AUTO;
	p->decode_cache = 64;
	p->async_threads = 2;
	p->packetsize = 2048; /* Jerasure's and Ceph's default for cauchy_good */
	p->gpu_min_bytes = GPU_MIN_BYTES_DEFAULT;
	gfec_config_load(p);
	ret = env_defaults(p, err, errlen);
	if (ret)
		return ret;

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
	if (p->k + p->m > GFEC_MAX_CHUNKS)
		return fail(err, errlen, "k=%d m=%d: k+m must be <= %d", p->k, p->m,
			    GFEC_MAX_CHUNKS);
	return 0;
}
