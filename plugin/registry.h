/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file registry.h
 * Every knob gfec reads, in one table (NCCL's param table is the model): its name, environment
 * variable, gfec.conf [section] key, profile key, type, range, default and help line. The profile
 * parser (profile.c), the gfec.conf reader and writer (config.c), the ISA-L drop-in, the Ceph
 * plugin's pass-through list and `gfec info` all work from this table; it is the only place that
 * reads the environment. It sits beneath profile.c and config.c and calls neither, nor the log:
 * the ISA-L drop-in compiles it in on its own.
 *
 * Where a value comes from, highest first:  profile key  >  environment  >  gfec.conf  >  default.
 */
#ifndef GFEC_PLUGIN_REGISTRY_H
#define GFEC_PLUGIN_REGISTRY_H

#include <stddef.h>

#include "gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gfec_knob {
	GFEC_KNOB_THREADS,
	GFEC_KNOB_CPU_PATH,
	GFEC_KNOB_CPU_STREAM_MIN,
	GFEC_KNOB_DECODE_CACHE,
	GFEC_KNOB_ASYNC_THREADS,
	GFEC_KNOB_GPU_KERNEL,
	GFEC_KNOB_GPU_MIN_BYTES,
	GFEC_KNOB_GPU_DEVICE,
	GFEC_KNOB_GPU_DEVICES,
	GFEC_KNOB_GPU_SPLIT_MIN,
	GFEC_KNOB_GPU_STREAMS,
	GFEC_KNOB_GPU_SEGMENT,
	GFEC_KNOB_GPU_LANES,
	GFEC_KNOB_GPU_PINNED,
	GFEC_KNOB_GPU_MAP_BYTES,
	GFEC_KNOB_GPU_RESIDENT_US,
	GFEC_KNOB_GPU_RESIDENT_PINNED,
	GFEC_KNOB_GPU_COALESCE_US,
	GFEC_KNOB_GPU_COALESCE_BYTES,
	GFEC_KNOB_GPU_COALESCE_SLOTS,
	GFEC_KNOB_GPU_COALESCE_SLOT_MIN,
	GFEC_KNOB_HYBRID_MIN_BYTES,
	GFEC_KNOB_HYBRID_AUTO_BYTES,
	GFEC_KNOB_HYBRID_CPU_RATE,
	GFEC_KNOB_HYBRID_GPU_RATE,
	GFEC_KNOB_HYBRID_ALPHA,
	GFEC_KNOB_HYBRID_EWMA,
	GFEC_KNOB_HYBRID_THREADS,
	GFEC_KNOB_FAULT,
	GFEC_KNOB_ISAL_LIB,
	GFEC_KNOB_ISAL_GPU_MIN,
	GFEC_NKNOBS
};

enum gfec_knob_type {
	GFEC_KNOB_NUM,	/* gfec_parse_number() in [lo, hi]; the special word too where set (num = -1) */
	GFEC_KNOB_WORD, /* one of the words "a, b, c" (num = its index) */
	GFEC_KNOB_TEXT, /* any text of lo..hi characters (hi < GFEC_KNOB_TEXT_MAX) */
};

#define GFEC_KNOB_TEXT_MAX 256
/* GFEC_KNOB_FAULT's words by index: 0 none, 1 cuda, 2 + i cuda-ctxI (i < 4), then cuda-kernel
 * (test_config checks it; a new word goes after it, or cuda-ctx4 would take its index) */
#define GFEC_FAULT_KERNEL 6
#define GFEC_CONF_PATH_MAX 1024

struct gfec_knob_def {
	const char *name;	     /* gfec info's name; the profile key when profile is set */
	int profile;		     /* a profile key */
	const char *env;	     /* environment variable, or NULL */
	const char *section, *key;   /* gfec.conf [section] key, or NULL */
	enum gfec_knob_type type;
	long long lo, hi;	     /* GFEC_KNOB_NUM: the range; GFEC_KNOB_TEXT: the length */
	const char *special;	     /* GFEC_KNOB_NUM: a word that is a value too (num = -1):
					"off", "auto"; NULL: none */
	int zero;		     /* GFEC_KNOB_NUM: 0 (the backend's default) is a value too */
	const char *words;	     /* GFEC_KNOB_WORD: the values, "a, b, c" */
	const char *dflt;	     /* the default's text ("" = chosen by the code that uses it) */
	int ceph;		     /* the Ceph plugin passes this profile key on to the codec */
	int (*check)(const char *text); /* GFEC_KNOB_TEXT: 0 when the text is a value */
	const char *expect;	     /* with check: what it accepts, for messages */
	const char *help;
};

extern const struct gfec_knob_def gfec_knobs[GFEC_NKNOBS];

enum gfec_origin { GFEC_FROM_DEFAULT, GFEC_FROM_FILE, GFEC_FROM_ENV, GFEC_FROM_PROFILE };

struct gfec_knob_value {
	long long num;			/* NUM: the number; WORD: the index into words[] */
	char text[GFEC_KNOB_TEXT_MAX];	/* the value as given */
	enum gfec_origin origin;
	char where[GFEC_CONF_PATH_MAX + 16]; /* GFEC_FROM_FILE: "FILE:LINE" */
};

/** Every knob's value and origin, and gfec.conf's [tune] rules. */
struct gfec_settings {
	struct gfec_knob_value v[GFEC_NKNOBS];
	struct gfec_tune_rule rules[GFEC_MAX_TUNE_RULES];
	int nrules;
};

/** Every knob at its default, no rules. */
void gfec_settings_defaults(struct gfec_settings *s);

/**
 * Sets knob @p k from @p text (origin @p o, @p where naming FILE:LINE for a file) when the text
 * is a valid value: 0. Otherwise -1, and nothing changes.
 */
int gfec_knob_set(struct gfec_settings *s, enum gfec_knob k, const char *text,
		  enum gfec_origin o, const char *where);

/** What knob @p k accepts, e.g. "a number in 0..1024", written to @p buf; returns @p buf. */
const char *gfec_knob_expect(enum gfec_knob k, char *buf, size_t len);

/** Where the value came from: "default", "FILE:LINE", "env GFEC_X" or "profile"; returns buf. */
const char *gfec_knob_origin(const struct gfec_settings *s, enum gfec_knob k, char *buf,
			     size_t len);

/** The knob whose profile key is @p key, or -1. */
int gfec_knob_by_profile(const char *key);

/** The knob at gfec.conf's [@p section] @p key, or -1. */
int gfec_knob_by_file(const char *section, const char *key);

/** 1 when gfec.conf has a [@p section] (one of the knobs' sections, or "tune"). */
int gfec_conf_section(const char *section);

/**
 * Applies every knob's environment variable that is set and not empty. A bad value leaves that
 * knob as it was and the others are still applied; the first one is reported as "VAR=value:
 * expected ..." in @p err with GFEC_E_PROFILE.
 */
int gfec_settings_env(struct gfec_settings *s, char *err, size_t errlen);

/**
 * gfec.conf's search order, NCCL's: $GFEC_CONF, then ~/.config/gfec/gfec.conf, then
 * /etc/gfec/gfec.conf. Fills @p paths (each GFEC_CONF_PATH_MAX bytes); returns how many.
 */
int gfec_conf_candidates(char paths[3][GFEC_CONF_PATH_MAX]);

/** The per-user file, ~/.config/gfec/gfec.conf, into @p buf: 0, or -1 when HOME is not set. */
int gfec_conf_user_path(char *buf, size_t len);

/**
 * gpu_devices' value: "all" (*n = -1), or CUDA ordinals in 0..64 separated by commas or colons
 * (a profile string separates its entries by commas: there, "0:1"), at most
 * GFEC_MAX_GPU_CONTEXTS of them, repeats allowed (*n of them into @p ord, which holds
 * GFEC_MAX_GPU_CONTEXTS). 0, or GFEC_E_INVAL (and nothing written) for anything else.
 */
int gfec_parse_gpu_devices(const char *text, int *ord, int *n);

/* The techniques a profile may name: here once, for the profile parser and the Ceph plugin. */
enum gfec_technique {
	GFEC_TECH_REED_SOL_VAN,	   /* ISA-L gf_gen_rs_matrix */
	GFEC_TECH_CAUCHY,	   /* ISA-L gf_gen_cauchy1_matrix */
	GFEC_TECH_JERASURE_RS_VAN, /* Jerasure reed_sol_vandermonde_coding_matrix, w=8 */
	GFEC_TECH_CAUCHY_GOOD,	   /* Jerasure cauchy_good, CRS bitmatrix over packets */
	GFEC_TECH_FFT,		   /* w=16 only: the additive-FFT RS code (gfmatrix/fft16.h) */
};
#define GFEC_NTECHNIQUES 5

const char *gfec_technique_name(enum gfec_technique t);
/** The technique named @p name, or -1. */
int gfec_technique_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif
