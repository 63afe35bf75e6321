/* SPDX-License-Identifier: BSD-3-Clause */
/** @file internal.h  What plugin/'s files share: the parsed profile, logging, backends. */
#ifndef GFEC_PLUGIN_INTERNAL_H
#define GFEC_PLUGIN_INTERNAL_H

#include <stddef.h>

#include "gemm.h"
#include "gfec/gfec.h"

enum gfec_technique {
	GFEC_TECH_REED_SOL_VAN,	       /* ISA-L gf_gen_rs_matrix */
	GFEC_TECH_CAUCHY,	       /* ISA-L gf_gen_cauchy1_matrix */
	GFEC_TECH_JERASURE_RS_VAN,     /* Jerasure reed_sol_vandermonde_coding_matrix, w=8 */
};

enum gfec_backend_choice { GFEC_BACKEND_CPU, GFEC_BACKEND_GPU, GFEC_BACKEND_AUTO };

struct gfec_profile {
	int k, m;
	enum gfec_technique technique;
	enum gfec_backend_choice backend;
	int threads;		/* 0 = online CPUs */
	char cpu_path[8];	/* "" = best, "isal", "base" */
	int decode_cache;	/* decode plans kept */
};

/** Parses a profile; on error writes "key=value: reason" to err and returns GFEC_E_PROFILE. */
int gfec_profile_parse(const char *text, struct gfec_profile *p, char *err, size_t errlen);

const char *gfec_technique_name(enum gfec_technique t);
const char *gfec_backend_choice_name(enum gfec_backend_choice b);

/** Logs through the user's callback, if one is set and the level passes. printf-style. */
void gfec_log(enum gfec_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * The backend for a choice, or NULL with a reason in err (for "gpu" in a build without one).
 * "auto" resolves to the best backend this build has.
 */
const struct gfec_backend_ops *gfec_backend_select(enum gfec_backend_choice choice, char *err,
						   size_t errlen);

#endif
