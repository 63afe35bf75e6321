/* SPDX-License-Identifier: BSD-3-Clause */
/** @file internal.h  What plugin/'s files share: the parsed profile, logging, backends. */
#ifndef GFEC_PLUGIN_INTERNAL_H
#define GFEC_PLUGIN_INTERNAL_H

#include <stddef.h>

#include "gemm.h"
#include "gfec/gfec.h"
#include "gfec/gfec_config.h"
#include "log_sink.h"
#include "registry.h"

enum gfec_backend_choice {
	GFEC_BACKEND_CPU,
	GFEC_BACKEND_GPU,
	GFEC_BACKEND_AUTO,
	GFEC_BACKEND_HYBRID, /* large host calls split CPU+GPU; without a GPU, the CPU (hybrid.h) */
};
#define GFEC_NBACKENDS 4

struct gfec_profile {
	int k, m;
	int w;			/* field width: 8 (GF(2^8), the default) or 16 (GF(2^16)) */
	enum gfec_technique technique;
	enum gfec_backend_choice backend;
	int threads;		/* 0 = online CPUs */
	char cpu_path[8];	/* "" or "auto" = best, else gfec_cpu_path_parse()'s names */
	long long cpu_stream_min; /* non-temporal parity stores from this chunk size; 0 = never */
	int decode_cache;	/* decode plans kept */
	int async_threads;	/* workers behind gfec_submit() */
	int packetsize;		/* cauchy_good: bytes per packet (a multiple of 8) */
	/* GPU knobs */
	char gpu_kernel[32];	/* "" = the default kernel for the shape */
	long long gpu_min_bytes; /* backend=auto: GPU when a call has at least this much data */
	int gpu_device;
	int gpu_ndevices;	/* gpu_devices: 0 unset (gpu_device alone), -1 all, else entries */
	int gpu_devices[GFEC_MAX_GPU_CONTEXTS];
	long long gpu_split_min; /* 0 = backend default */
	int gpu_streams;	/* 0 = backend default */
	long long gpu_segment;	/* 0 = backend default */
	int gpu_lanes;		/* host-buffer calls in flight per device, 0 = backend default */
	int gpu_pinned_dma;	/* pinned host buffers staged (1) or read in place (0) */
	long long gpu_map_bytes; /* in-place bytes in flight per device; 0 default, -1 no cap */
	long long gpu_resident_us; /* the resident kernel's idle lifetime; 0 = off */
	int gpu_resident_pinned;   /* resident kernels for pinned stripes; 0 = off */
	int gpu_coalesce_us;	/* coalescing window (coalesce.h); 0 = off */
	long long gpu_coalesce_bytes;
	int gpu_coalesce_slots;	/* launches of in-place calls in flight (coalesce.h); 0 = off */
	long long gpu_coalesce_slot_min; /* ... of calls of at least this many source bytes */
	int gpu_fault;		  /* GFEC_FAULT: 1 = cuda, every GPU call fails; 2 + i = cuda-ctxI;
				     GFEC_FAULT_KERNEL = cuda-kernel */
	struct gfec_settings set; /* every knob with its origin, and gfec.conf's [tune] rules */
};

/**
 * The settings from outside a profile: the defaults, then the first gfec.conf found
 * (gfec_conf_candidates()), then the environment. A file that cannot be parsed is reported
 * through the log (file and line) and ignored as a whole; a bad environment value is an error
 * (GFEC_E_PROFILE, "VAR=value: expected ...").
 */
int gfec_config_load(struct gfec_settings *s, char *err, size_t errlen);

/**
 * Parses gfec.conf text (INI: [section], key = value, # comments; the sections and keys are the
 * registry's, plus [tune] rule = ...) into @p s, each value's origin "NAME:LINE". On a bad line
 * nothing is applied: "NAME:LINE: reason" in err and GFEC_E_PROFILE.
 */
int gfec_config_parse(const char *text, const char *name, struct gfec_settings *s, char *err,
		      size_t errlen);

/**
 * @p old (a gfec.conf's text) with knob @p k set to @p value (commented with @p comment when
 * not NULL) in its section, and the [tune] section replaced by @p tune ("[tune]\nrule = ...";
 * "" drops it; NULL keeps it as it is). Every other line stays. The result must parse: NULL when
 * it would not, or when memory runs out. Free it with free().
 */
char *gfec_config_update(const char *old, enum gfec_knob k, const char *value,
			 const char *comment, const char *tune);

/**
 * Parses a profile over @p base (gfec_config_load()'s settings; NULL: the defaults): profile
 * keys win. On error writes "key=value: reason" to err and returns GFEC_E_PROFILE.
 */
int gfec_profile_parse(const char *text, const struct gfec_settings *base, struct gfec_profile *p,
		       char *err, size_t errlen);

const char *gfec_backend_choice_name(enum gfec_backend_choice b);

/**
 * A codec's settings: gfec_config_load() (defaults, gfec.conf, environment), then the profile
 * @p text over them (knobs.c). Errors as gfec_profile_parse().
 */
int gfec_settings_resolve(const char *text, struct gfec_profile *p, char *err, size_t errlen);

/*
 * async.c: a request queue and its worker threads. The queue knows nothing of codecs: each
 * request is run by the executor its owner handed in (the codec's synchronous calls), so the
 * queue never calls back up into the codec.
 */
typedef int (*gfec_async_exec_fn)(void *owner, struct gfec_request *r);
struct gfec_async;
/** A queue of @p nthreads workers, started by the first submit. NULL when out of memory. */
struct gfec_async *gfec_async_create(gfec_async_exec_fn exec, void *owner, int nthreads);
void gfec_async_destroy(struct gfec_async *a); /* runs what is queued, then joins */
/** 0, or GFEC_E_SYSTEM when no worker thread could be started. */
int gfec_async_submit(struct gfec_async *a, struct gfec_request *r);
/** The request's status; GFEC_E_INVAL before anything was submitted to @p a. */
int gfec_async_wait(struct gfec_async *a, struct gfec_request *r);
/**
 * Jobs (coalesce.h: a queued window) share the workers with requests, ahead of them, each run
 * once job->at (gfec_async_now()'s clock, ns) has come. 0, or GFEC_E_SYSTEM when no worker
 * thread could be started.
 */
struct gfec_job;
int gfec_async_post(struct gfec_async *a, struct gfec_job *job);
/** Makes a posted (or about to be posted) job due now. */
void gfec_async_hurry(struct gfec_async *a, struct gfec_job *job);
/** CLOCK_MONOTONIC in nanoseconds. */
uint64_t gfec_async_now(void);
/** A request that completes elsewhere (gfec_submit_coalesced): it is pending from here ... */
void gfec_async_begin(struct gfec_async *a, struct gfec_request *r);
/** ... until this, which sets its status and calls its callback or wakes gfec_async_wait ... */
void gfec_async_complete(struct gfec_async *a, struct gfec_request *r, int status);
/** ... or this: it will not complete (withdrawn); gfec_async_wait returns GFEC_E_INVAL. */
void gfec_async_abandon(struct gfec_async *a, struct gfec_request *r);

/** The GPU backend's table, or NULL when this build has none. */
const struct gfec_backend_ops *gfec_backend_gpu(void);
/** The same over several GPUs (gpu_devices=), or NULL. */
const struct gfec_backend_ops *gfec_backend_gpu_multi(void);

/** The GPU kernels this build has, comma-separated ("" without a GPU backend). */
const char *gfec_backend_gpu_kernels(void);

/** gfec_gpu_dmabuf_alloc()/_free() of the GPU backend; GFEC_E_NOBACKEND in a build without. */
int gfec_backend_gpu_dmabuf(int device, size_t len, void **ptr, int *fd, char *why,
			    size_t whylen);
void gfec_backend_gpu_dmabuf_free(int device, void *ptr);

#endif
