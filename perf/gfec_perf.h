/* SPDX-License-Identifier: BSD-3-Clause */
/** @file gfec_perf.h  gfec-perf's pieces, shared by the tool, `gfec-perf tune` and the tests. */
#ifndef GFEC_PERF_GFEC_PERF_H
#define GFEC_PERF_GFEC_PERF_H

#include <stddef.h>
#include <stdio.h>

#include <gfec/gfec.h>

#include "perf_util.h"

#define PERF_MAX_CODES 16
#define PERF_MAX_LIST 32

enum perf_op { PERF_ENCODE, PERF_DECODE, PERF_UPDATE };
enum perf_data { PERF_PAGEABLE, PERF_PINNED, PERF_GPU };
/* names by enum perf_op, enum perf_data, and backend bit (cpu, gpu, auto) */
extern const char *const perf_op_names[3], *const perf_data_names[3], *const perf_backend_names[3];

struct perf_opts {
	struct {
		int k, m;
	} codes[PERF_MAX_CODES];
	int ncodes;
	const char *technique;
	int w;		   /* the field, GF(2^w): 8 or 16 */
	unsigned ops;	   /* bit per enum perf_op */
	int erasures;	   /* 0: m */
	size_t minb, maxb; /* chunk-size sweep, nccl-tests' -b/-e/-f */
	int factor;
	int batches[PERF_MAX_LIST], nbatches;
	unsigned backends; /* bit 0 cpu, 1 gpu, 2 auto; 0 = cpu (+ gpu when present) */
	const char *kernel;
	int data;	   /* enum perf_data, or -1 for the default */
	int threads, warmup, repeats, check;
	long iters;	   /* 0: about 0.2 s per repeat */
	const char *json, *svg, *ceilings_cache;
	int quick, help;
	const char *isal_lib; /* gfec-perf isal: another libisal.so.2 to run beside the linked one */
	int hot;	      /* gfec-perf isal: one stripe set (in cache) */
	/* the first flag seen that only one mode takes (for perf_check_mode): a short flag of
	 * the main mode, a long one of gfec-perf isal; 0 / NULL if none */
	int main_only;
	const char *isal_only;
};

enum perf_mode { PERF_MODE_MAIN, PERF_MODE_ISAL };

/** Parses gfec-perf's flags. 0, or -1 with a one-line reason in err. */
int perf_parse_args(int argc, char **argv, struct perf_opts *o, char *err, size_t errlen);

struct perf_code_ceil {
	int k, m;
	double isal_1, isal_all; /* raw ISA-L data GB/s, 1 MiB chunks from DRAM */
	double xor_gpu;		 /* GPU XOR-stream bound, data GB/s */
};

/*
 * The CPU XOR-stream ceiling of one row shape: a plain XOR kernel with the row's streams (encode:
 * k read into m written; decode: k read into e written; update: 1 read into m updated in place),
 * on the rows' thread count, in the codec's 64 KiB slices claimed in turn, over buffers laid out
 * and rotated as the row's are; the fastest of its ways over a slice (perf_xor_measure). Every
 * batch size of a shape shares its figure.
 */
struct perf_xor_ceil {
	enum perf_op op;
	int k, m, e;
	size_t chunk;
	double gbps, spread; /* bytes read + written per second, counted as the row counts them */
};
#define PERF_MAX_XOR 192

/** The machine's measured limits (GB/s = 10^9 bytes/s); 0 where not present or not measured. */
struct perf_ceilings {
	int from_cache;
	int cpus, threads; /* threads: what the CPU rows run on (-T, 0 = cpus) */
	/* memory bandwidth, bytes read + written per second, on 1 and on `threads` threads: the
	 * best of a copy, a read-only and a read-modify-write sweep from DRAM, and the spread of
	 * that pattern's runs. The CPU rows' bound. */
	double cpu_mem_1, cpu_mem_1_spread, cpu_mem_t, cpu_mem_t_spread;
	int gpu, gpu_sms, gpu_sm_clock, gpu_mem_clock;
	char gpu_name[128];
	double d2d;		       /* bytes read + written */
	double h2d, d2h, both;
	struct perf_code_ceil codes[PERF_MAX_CODES];
	int ncodes;
	/* the CPU rows' shapes (perf_xor_shapes), on `threads` threads; none past PERF_MAX_XOR */
	struct perf_xor_ceil xors[PERF_MAX_XOR];
	int nxor;
};

/**
 * The generic memory sweeps (perf_membw.c), over @p streams interleaved parts of [p, p + n) at
 * once, n / streams / 64 whole 64-byte blocks of each (1: one sequential stream). perf_mem_read
 * reads them and returns their XOR fold (so the reads are kept); perf_mem_rmw XORs each byte with
 * 0x5a in place. Bytes past the last whole block of a part are not touched.
 */
uint64_t perf_mem_read(const uint8_t *p, size_t n, int streams);
void perf_mem_rmw(uint8_t *p, size_t n, int streams);

/** The widest vectors perf_xor_streams_group() can use on this CPU: 512, 256 or 128 bits. */
int perf_xor_width(void);
/** How perf_xor_streams_group() writes its outputs. */
enum perf_xor_mode {
	PERF_XOR_SET,	 /**< output = the XOR, by ordinary stores */
	PERF_XOR_RMW,	 /**< output ^= the XOR, in place */
	PERF_XOR_STREAM, /**< output = the XOR, by non-temporal stores (ordinary where an output
			      is not aligned to the vector) */
};
/**
 * OR'ed into a mode: each source is also prefetched PERF_XOR_PREFETCH_AHEAD bytes ahead of the
 * block being XORed (within @p n), as gfec's GFNI kernels prefetch theirs (gfni.c).
 */
#define PERF_XOR_PREFETCH 0x100
#define PERF_XOR_PREFETCH_AHEAD 512 /* gfni.c's GFNI_PREFETCH */
/** A mode without PERF_XOR_PREFETCH: the enum perf_xor_mode it writes by. */
#define PERF_XOR_BASE(mode) ((mode) & ~PERF_XOR_PREFETCH)
_Static_assert(PERF_XOR_STREAM < PERF_XOR_PREFETCH, "PERF_XOR_PREFETCH is a bit above the modes");

/**
 * The XOR-stream kernel (perf_membw.c): [0, n) of each of @p ndst outputs becomes the XOR of the
 * @p nsrc >= 1 sources, written as @p mode (enum perf_xor_mode, | PERF_XOR_PREFETCH) says. Built
 * for AVX-512, AVX2 and the baseline; @p width (a figure perf_xor_width() returned, or smaller)
 * picks one. The outputs go @p group >= 1 per pass over the sources (>= ndst: all in one pass; 1:
 * one output after another, the sources read again, from cache where they fit). No alignment
 * needed; outputs must not overlap the sources.
 */
void perf_xor_streams_group(int width, size_t n, int nsrc, const uint8_t *const *src, int ndst,
			    uint8_t *const *dst, int mode, int group);

/** Bytes every CPU figure and every row rotates over: max(64 MiB --quick / 256 MiB, 4 x L3). */
size_t perf_rotate_bytes(const struct perf_opts *o);

/*
 * A CPU ceiling's sweeps (the memory sweeps, the XOR stream): each covers the rotation this many
 * times (long enough that starting the threads is noise), and the best of this many is kept (a
 * ceiling is what the machine can do, even when shared). --quick: one pass, the best of two; its
 * rotation is 4 x L3 all the same, which on a 2-vCPU Xeon VM reporting 480 MiB of L3 made four
 * passes, the best of five, cost 102 of --quick's 108 CPU-s.
 */
#define PERF_SWEEP_TRIALS_MAX 5
static inline int perf_sweep_passes(const struct perf_opts *o)
{
	return o->quick ? 1 : 4;
}
static inline int perf_sweep_trials(const struct perf_opts *o)
{
	return o->quick ? 2 : PERF_SWEEP_TRIALS_MAX;
}

/**
 * The ceilings cache's key: the machine and what the figures depend on (@p threads, the rotation
 * size, --quick), so that a cache written on another machine, by a -T run or by a --quick run is
 * not reused by another kind of run.
 */
void perf_ceilings_key(char *buf, size_t len, const struct perf_opts *o,
		       const struct perf_ceilings *c, int threads);
/** A --ceilings-cache file's first line; a file without it (an older format) is not used. */
#define PERF_CEILINGS_VERSION "gfec-perf ceilings 5" /* 5: XOR streams also prefetched */

/**
 * Reads a ceilings cache written by perf_ceilings_save() with the same @p key into @p c: 0; 1 if
 * there is no such file; -1 with the reason in @p why if it cannot be read, has another version
 * or key, or any line is malformed (every line must have exactly its fields).
 */
int perf_ceilings_load(const char *path, const char *key, struct perf_ceilings *c, char *why,
		       size_t len);
/** Writes @p c under @p key to a temporary file renamed over @p path: 0, or -1 (errno set). */
int perf_ceilings_save(const char *path, const char *key, const struct perf_ceilings *c);

void perf_measure_ceilings(const struct perf_opts *o, struct perf_ceilings *c);
/** The ceilings of RS(k,m), or NULL. */
const struct perf_code_ceil *perf_code_ceil(const struct perf_ceilings *c, int k, int m);

/** The chunk sizes of the run's sweep (-b, -e, -f) into @p sizes (64 at most): their number. */
int perf_sizes(const struct perf_opts *o, size_t sizes[64]);
/** The erasures a row of @p op on RS(k,@p m) decodes: -E (when <= m) or m; 0 for other ops. */
int perf_erasures(const struct perf_opts *o, enum perf_op op, int m);
/** The shapes of the run's CPU rows (PERF_MAX_XOR at most), gbps and spread 0: their number. */
int perf_xor_shapes(const struct perf_opts *o, struct perf_xor_ceil *out);
/** The XOR-stream ceiling of a row's shape, or NULL where it was not measured. */
const struct perf_xor_ceil *perf_xor_ceil(const struct perf_ceilings *c, enum perf_op op, int k,
					  int m, int e, size_t chunk);
/**
 * Measures @p x's XOR-stream ceiling on @p threads threads (perf_run.c, beside the rows' buffers):
 * a few sweeps in each way of perf_xor_streams_group(): all outputs per pass, one per pass, and
 * the GFNI kernels' groups with the sources prefetched; written outputs also by non-temporal
 * stores. The best sweep of the fastest way into x->gbps, that way's spread into x->spread. 0, or
 * -1 where the buffers or the threads cannot be had (then both 0).
 */
int perf_xor_measure(const struct perf_opts *o, int threads, struct perf_xor_ceil *x);

/** Most GPU contexts a row or a run lists (gpu_devices= takes up to 16). */
#define PERF_MAX_CTX 16

/**
 * A GPU context of the run's GPU codes (gpu_devices=, GFEC_GPU_DEVICES: one per entry) and its
 * GPU's ceilings, GB/s: the D2D copy (read + written), the XOR-stream bound of RS(10,4) on 64
 * stripes of 1 MiB (data bytes), pinned H2D and D2H.
 */
struct perf_gpu_ctx {
	struct gfec_gpu_device d;
	double copy, xor_bound, h2d, d2h;
};

/**
 * Measures the ceilings of @p n contexts, once per GPU (contexts on one GPU share its figures);
 * afterwards the first context's GPU is the one perf_gpu_* calls use. Zeros without CUDA.
 */
void perf_gpu_contexts_measure(struct perf_gpu_ctx *x, int n, int quick);
/** The comment lines that list the contexts in the table. */
void perf_print_gpu_contexts(const struct perf_gpu_ctx *x, int n);
/** Adds "gpu_contexts" (the contexts and their ceilings) to the JSON file at @p path: 0 or -1. */
int perf_json_add_gpu_contexts(const char *path, const struct perf_gpu_ctx *x, int n);

struct perf_row {
	enum perf_op op;
	int k, m, e, batch;
	size_t chunk;
	char technique[32], backend[8], engine[64];
	char code[24]; /* the code as printed when not RS(k,m): gfec-perf nc's "RLC(n)" */
	int w; /* the codec's field, GF(2^w) */
	enum perf_data data;
	int on_gpu;
	long n;
	int repeats;
	double data_bytes, traffic_bytes, gf_ops; /* per call */
	double *rep_gbps;			  /* data GB/s of each repeat */
	struct perf_summary gbps;
	double traffic_gbps, gops, intensity;
	char ceil_name[48];			  /* "" where no ceiling bounds the row */
	double ceil_gbps, ceil_spread, pct;
	double *lat;				  /* microseconds per call, sorted */
	int nlat;
	double p50, p90, p99, p999;
	double cpu_s_per_gb;
	int checked;				  /* 1 ok, 0 differs, -1 n/a, -2 off */
	int flagged;
	char skip[256];				  /* why the row could not run */
	/* GPU rows: the code's contexts after the row, each one's share of its bytes, shares
	 * run and failures (gpu_devices=; nctx 0: not known) */
	int nctx;
	double ctx_share[PERF_MAX_CTX];
	uint64_t ctx_calls[PERF_MAX_CTX], ctx_failures[PERF_MAX_CTX];
	/* gfec-perf daemon's rows (callers > 0): concurrent callers sharing one codec */
	struct {
		int callers, codec_threads;
		size_t rotated_bytes;
		double gpu_calls_per_s, gpu_call_share; /* from the codec's gpu_calls */
		/* GPU launches: the coalescer's (plugin/coalesce.h), else one per GPU call */
		double launches_per_s, stripes_per_launch;
		double resident_per_s; /* GPU calls served by kernels kept running (no launch) */
		double windows_per_s; /* launches that carried two callers or more */
		int coalesce_us; /* the codec's coalescing window, 0: off */
		int coalesce_slots; /* its launch slots (gpu_coalesce_slots), 0: off */
		/* coalesced GPU rows: the mean launch's PCIe time, and the P99 bound: the
		 * deadline + 2 x that (0: no bound) */
		double window_us, p99_bound_us;
		/* pageable GPU rows: the staging copies alone (perf_daemon.c: daemon_stage), data
		 * GB/s on that many threads (0: not measured) */
		double staging_gbps;
		int staging_threads;
	} daemon;
};

int perf_run_row(const struct perf_opts *o, const struct perf_ceilings *ce, enum perf_op op, int k,
		 int m, size_t chunk, int batch, const char *backend, enum perf_data data,
		 struct perf_row *r);

/**
 * gfec-perf's own honesty check: every row at most its ceiling plus the spread measured on both
 * (the row's repeats, the ceiling's runs). 0, or the number of rows above, each named on @p f.
 */
int perf_self_check(const struct perf_row *rows, int nrows, FILE *f);

void perf_print_header(void);
void perf_print_row(const struct perf_row *r);
/** After a GPU row with contexts (nctx > 0): a comment line with each one's share of it. */
void perf_print_row_contexts(const struct perf_row *r);
/** A progress bar on stderr when it is a terminal. */
void perf_progress(int done, int total, const char *what);

int perf_write_json(const char *path, const char *cmdline, const struct perf_ceilings *c,
		    const struct perf_row *rows, int nrows);

/** Writes PREFIX-roofline.svg and PREFIX-latency.svg. 0 or -errno. */
int perf_write_svgs(const char *prefix, const struct perf_ceilings *c, const struct perf_row *rows,
		    int nrows);

/** A flag of the other mode is an error: 0, or -1 with a one-line reason in err. */
int perf_check_mode(const struct perf_opts *o, enum perf_mode mode, char *err, size_t errlen);

void perf_usage(FILE *f);
void perf_isal_usage(FILE *f);

/** `gfec-perf ...`: ceilings, workloads, table, JSON, SVG. The process exit status. */
int perf_main(int argc, char **argv);

/** `gfec-perf tune ...` (argv[0] is "tune"). */
int perf_tune_main(int argc, char **argv);

#endif
