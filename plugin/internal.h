/* SPDX-License-Identifier: BSD-3-Clause */
/** @file internal.h  What plugin/'s files share: the parsed profile, logging, backends. */
#ifndef GFEC_PLUGIN_INTERNAL_H
#define GFEC_PLUGIN_INTERNAL_H

#include <stddef.h>

#include "gemm.h"
#include "gfec/gfec.h"
#include "log_sink.h"

enum gfec_technique {
	GFEC_TECH_REED_SOL_VAN,	       /* ISA-L gf_gen_rs_matrix */
	GFEC_TECH_CAUCHY,	       /* ISA-L gf_gen_cauchy1_matrix */
	GFEC_TECH_JERASURE_RS_VAN,     /* Jerasure reed_sol_vandermonde_coding_matrix, w=8 */
	GFEC_TECH_CAUCHY_GOOD,	       /* Jerasure cauchy_good, CRS bitmatrix over packets */
};

enum gfec_backend_choice { GFEC_BACKEND_CPU, GFEC_BACKEND_GPU, GFEC_BACKEND_AUTO };

struct gfec_profile {
	int k, m;
	enum gfec_technique technique;
	enum gfec_backend_choice backend;
	int threads;		/* 0 = online CPUs */
	char cpu_path[8];	/* "" or "auto" = best, else gfec_cpu_path_parse()'s names */
	int decode_cache;	/* decode plans kept */
	int async_threads;	/* workers behind gfec_submit() */
	int packetsize;		/* cauchy_good: bytes per packet (a multiple of 8) */
	/* GPU knobs: from the config file, then the profile (gpu_* keys) */
	char gpu_kernel[32];	/* "" = the default kernel for the shape */
	long long gpu_min_bytes; /* backend=auto: GPU when a call has at least this much data */
	int gpu_device;
	int gpu_streams;	/* 0 = backend default */
	long long gpu_segment;	/* 0 = backend default */
	struct gfec_tune_rule rules[GFEC_MAX_TUNE_RULES]; /* gfec.conf [tune] */
	int nrules;
};

/**
 * Fills the GPU knobs of @p p from the first config file found: $GFEC_CONF, then
 * ~/.config/gfec/gfec.conf, then /etc/gfec/gfec.conf. A file that cannot be parsed is reported
 * through the log (file and line) and ignored as a whole: the built-in defaults stay.
 */
void gfec_config_load(struct gfec_profile *p);

/** Parses config text (INI: [gpu] section, key = value, # comments) into @p p. */
int gfec_config_parse(const char *text, const char *name, struct gfec_profile *p, char *err,
		      size_t errlen);

/** Parses a profile; on error writes "key=value: reason" to err and returns GFEC_E_PROFILE. */
int gfec_profile_parse(const char *text, struct gfec_profile *p, char *err, size_t errlen);

/** A whole-string decimal in [lo, hi] (profile values and gfec.conf alike): 0, or -1. */
int gfec_parse_ll(const char *v, long long lo, long long hi, long long *out);

const char *gfec_technique_name(enum gfec_technique t);
const char *gfec_backend_choice_name(enum gfec_backend_choice b);

/* async.c: a codec's request queue and its worker threads. */
struct gfec_async;
struct gfec_async *gfec_async_create(gfec_codec *c, int nthreads);
void gfec_async_destroy(struct gfec_async *a); /* runs what is queued, then joins */
int gfec_async_submit(struct gfec_async *a, struct gfec_request *r);
int gfec_async_wait(struct gfec_async *a, struct gfec_request *r);

/** The GPU backend's table, or NULL when this build has none. */
const struct gfec_backend_ops *gfec_backend_gpu(void);

/** The GPU kernels this build has, comma-separated ("" without a GPU backend). */
const char *gfec_backend_gpu_kernels(void);

#endif
