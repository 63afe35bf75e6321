/* SPDX-License-Identifier: BSD-3-Clause */
/** @file registry.c  The knob table, the one number parser, the environment, the techniques. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h" /* GFEC_CPU_PATH_NAMES: a macro, no link to cpu_backend */
#include "gfec/gfec_config.h"
#include "registry.h"

/*
 * backend=auto sends a call in host memory to the GPU when it carries at least gpu_min_bytes
 * data bytes (k * len summed over the stripes of the call); device memory always goes to the GPU.
 * Measured, not guessed: on the H200 machine (16 Xeon cores) 16-thread ISA-L beat the GPU's host
 * pipeline at every size from 40 KB to 160 MB of data per call
 * (perf/results/nvidia-h200/gpu_bench_2026-11-22b.log, "crossover"), so by default host buffers
 * stay on the CPU (2^50). gfec.conf's [gpu] min_bytes sets a machine's own crossover.
 *
 * The ISA-L drop-in's isal_gpu_min is off by default for its own reason: see isal_abi/engine.c.
 */
#define GPU_MIN_BYTES_DEFAULT "1125899906842624"

/*
 * backend=hybrid splits host calls of at least hybrid_min_bytes between the CPU and the GPU
 * (hybrid.h). Below a few MiB one GPU call's fixed 16-21 us (issue 17, H200) is a large part of
 * its share's time, and the CPU alone is as fast. backend=auto splits only from
 * hybrid_auto_bytes, which `gfec tune` writes where it measured the split beating both sides;
 * unmeasured, never (2^50).
 */
#define HYBRID_MIN_BYTES_DEFAULT "4194304"

int gfec_parse_gpu_devices(const char *text, int *ord, int *n)
{
	int v[GFEC_MAX_GPU_CONTEXTS], count = 0;
	const char *p = text;

	if (!text)
		return GFEC_E_INVAL;
	if (strcmp(text, "all") == 0) {
		*n = -1;
		return 0;
	}
	for (;;) {
		int x = 0, digits = 0;

		for (; *p >= '0' && *p <= '9' && digits < 3; p++, digits++)
			x = x * 10 + (*p - '0');
		if (!digits || x > 64 || count == GFEC_MAX_GPU_CONTEXTS)
			return GFEC_E_INVAL;
		v[count++] = x;
		if (*p == '\0')
			break;
		if (*p != ',' && *p != ':')
			return GFEC_E_INVAL;
		p++;
	}
	memcpy(ord, v, sizeof(int) * (size_t)count);
	*n = count;
	return 0;
}

static int check_gpu_devices(const char *text)
{
	int ord[GFEC_MAX_GPU_CONTEXTS], n;

	return gfec_parse_gpu_devices(text, ord, &n);
}

/* Unset fields are 0/NULL: no profile key, no variable, no file key, not passed on by Ceph. */
const struct gfec_knob_def gfec_knobs[GFEC_NKNOBS] = {
	[GFEC_KNOB_THREADS] = { .name = "threads", .profile = 1, .env = "GFEC_THREADS",
				.section = "cpu", .key = "threads", .type = GFEC_KNOB_NUM,
				.lo = 0, .hi = 1024, .dflt = "0", .ceph = 1,
				.help = "CPU worker threads (0 = online CPUs)" },
	[GFEC_KNOB_CPU_PATH] = { .name = "cpu_path", .profile = 1, .env = "GFEC_CPU_PATH",
				 .section = "cpu", .key = "path", .type = GFEC_KNOB_WORD,
				 .words = GFEC_CPU_PATH_NAMES, .dflt = "auto",
				 .help = "the CPU inner path (auto: the best this CPU runs)" },
	/*
	 * Non-temporal parity stores skip the read-for-ownership of each parity line; whether that
	 * pays depends on the CPU, so auto (the default) is cpu_backend's pick for this one
	 * (gfec_cpu_stream_min(): where each pick was measured) and gfec tune measures it here.
	 */
	[GFEC_KNOB_CPU_STREAM_MIN] = { .name = "cpu_stream_min", .profile = 1,
				       .env = "GFEC_CPU_STREAM_MIN", .section = "cpu",
				       .key = "stream_min", .type = GFEC_KNOB_NUM, .lo = 0,
				       .hi = 1ll << 40, .special = "auto", .dflt = "auto",
				       .ceph = 1,
				       .help = "GFNI paths: chunks of at least this many bytes "
					       "get parity by non-temporal stores (0 = never; auto: "
					       "by CPU maker, gfec tune measures it)" },
	[GFEC_KNOB_DECODE_CACHE] = { .name = "decode_cache", .profile = 1, .type = GFEC_KNOB_NUM,
				     .lo = 1, .hi = 65536, .dflt = "64",
				     .help = "decode matrices kept per codec (LRU)" },
	[GFEC_KNOB_ASYNC_THREADS] = { .name = "async_threads", .profile = 1,
				      .type = GFEC_KNOB_NUM, .lo = 1, .hi = 64, .dflt = "2",
				      .help = "workers behind gfec_submit()" },
	[GFEC_KNOB_GPU_KERNEL] = { .name = "gpu_kernel", .profile = 1, .section = "gpu",
				   .key = "kernel", .type = GFEC_KNOB_TEXT, .lo = 1, .hi = 31,
				   .dflt = "", .ceph = 1,
				   .help = "force a compiled GPU kernel (default: [tune], then the "
					   "best measured)" },
	[GFEC_KNOB_GPU_MIN_BYTES] = { .name = "gpu_min_bytes", .profile = 1, .section = "gpu",
				      .key = "min_bytes", .type = GFEC_KNOB_NUM, .lo = 0,
				      .hi = 1ll << 50, .dflt = GPU_MIN_BYTES_DEFAULT, .ceph = 1,
				      .help = "backend=auto: host calls with at least this many "
					      "data bytes go to the GPU" },
	[GFEC_KNOB_GPU_DEVICE] = { .name = "gpu_device", .profile = 1, .section = "gpu",
				   .key = "device", .type = GFEC_KNOB_NUM, .lo = 0, .hi = 64,
				   .dflt = "0", .ceph = 1, .help = "CUDA device ordinal" },
	[GFEC_KNOB_GPU_DEVICES] = { .name = "gpu_devices", .profile = 1, .env = "GFEC_GPU_DEVICES",
				    .section = "gpu", .key = "devices", .type = GFEC_KNOB_TEXT,
				    .lo = 1, .hi = 127, .dflt = "", .ceph = 1,
				    .check = check_gpu_devices,
				    .expect = "all, or CUDA ordinals 0..64 separated by commas or "
					      "colons (at most 16; repeats allowed)",
				    .help = "several GPUs: one context per listed ordinal (0,1; "
					    "in a profile 0:1), calls split by measured rate "
					    "(default: gpu_device alone)" },
	[GFEC_KNOB_GPU_SPLIT_MIN] = { .name = "gpu_split_min", .profile = 1,
				      .env = "GFEC_GPU_SPLIT_MIN", .section = "gpu",
				      .key = "split_min", .type = GFEC_KNOB_NUM, .lo = 1,
				      .hi = 1ll << 40, .zero = 1, .dflt = "0",
				      .help = "gpu_devices: source bytes per device below which a "
					      "call is not split (0 = the backend's 1 MiB)" },
	[GFEC_KNOB_GPU_STREAMS] = { .name = "gpu_streams", .profile = 1, .section = "gpu",
				    .key = "streams", .type = GFEC_KNOB_NUM, .lo = 0, .hi = 8,
				    .dflt = "0",
				    .help = "host-buffer pipeline depth (0 = the backend's "
					    "default)" },
	[GFEC_KNOB_GPU_SEGMENT] = { .name = "gpu_segment", .profile = 1, .section = "gpu",
				    .key = "segment", .type = GFEC_KNOB_NUM, .lo = 4096,
				    .hi = 1ll << 34, .zero = 1, .dflt = "0",
				    .help = "staging bytes per pipeline slot (0 = the backend's "
					    "default)" },
	[GFEC_KNOB_GPU_LANES] = { .name = "gpu_lanes", .profile = 1, .env = "GFEC_GPU_LANES",
				  .section = "gpu", .key = "lanes", .type = GFEC_KNOB_NUM, .lo = 0,
				  .hi = 16, .dflt = "0",
				  .help = "staged host-buffer calls (pageable, updates, "
					  "gpu_pinned=dma) in flight per GPU, each with its own "
					  "streams and buffers (0 = the backend's default, 8)" },
	[GFEC_KNOB_GPU_PINNED] = { .name = "gpu_pinned", .profile = 1, .env = "GFEC_GPU_PINNED",
				   .section = "gpu", .key = "pinned", .type = GFEC_KNOB_WORD,
				   .words = "map, dma", .dflt = "map",
				   .help = "pinned host buffers: read and written in place by the "
					   "kernels (map), or copied by the DMA engines (dma)" },
	[GFEC_KNOB_GPU_MAP_BYTES] = { .name = "gpu_map_bytes", .profile = 1,
				      .env = "GFEC_GPU_MAP_BYTES", .section = "gpu",
				      .key = "map_bytes", .type = GFEC_KNOB_NUM, .lo = 4096,
				      .hi = 1ll << 40, .zero = 1, .special = "off", .dflt = "0",
				      .help = "bytes (in + out) of calls on pinned memory read in "
					      "place that run at once per GPU; later ones wait (0 = "
					      "the backend's 128M, off = no cap)" },
	[GFEC_KNOB_GPU_RESIDENT_US] = { .name = "gpu_resident_us", .profile = 1,
					.env = "GFEC_GPU_RESIDENT_US", .section = "gpu",
					.key = "resident_us", .type = GFEC_KNOB_NUM, .lo = 0,
					.hi = 1000000, .dflt = "0",
					.help = "calls of one small stripe in device memory go to a "
						"kernel kept running on the GPU (holding 8 "
						"multiprocessors), which leaves after this many "
						"microseconds without one (0 = off: a launch per "
						"call)" },
	[GFEC_KNOB_GPU_RESIDENT_PINNED] = { .name = "gpu_resident_pinned", .profile = 1,
					    .env = "GFEC_GPU_RESIDENT_PINNED", .section = "gpu",
					    .key = "resident_pinned", .type = GFEC_KNOB_NUM,
					    .lo = 0, .hi = 128, .dflt = "0",
					    .help = "calls of one stripe read in place from pinned "
						    "host memory (under 1 MiB of inputs), or "
						    "staged from pageable memory in 1 MiB pieces, "
						    "go to this many kernels kept running on the "
						    "GPU (4 multiprocessors each, each leaving "
						    "after 1 ms without one) instead of a launch "
						    "each (0 = off)" },
	[GFEC_KNOB_HYBRID_MIN_BYTES] = { .name = "hybrid_min_bytes", .profile = 1,
					 .section = "hybrid", .key = "min_bytes",
					 .type = GFEC_KNOB_NUM, .lo = 0, .hi = 1ll << 50,
					 .dflt = HYBRID_MIN_BYTES_DEFAULT, .ceph = 1,
					 .help = "backend=hybrid: host calls with at least this many "
						 "data bytes are split between CPU and GPU" },
	[GFEC_KNOB_HYBRID_AUTO_BYTES] = { .name = "hybrid_auto_bytes", .profile = 1,
					  .section = "hybrid", .key = "auto_min_bytes",
					  .type = GFEC_KNOB_NUM, .lo = 0, .hi = 1ll << 50,
					  .dflt = GPU_MIN_BYTES_DEFAULT, .ceph = 1,
					  .help = "backend=auto: host calls with at least this many "
						  "data bytes are split (gfec tune)" },
	[GFEC_KNOB_HYBRID_CPU_RATE] = { .name = "hybrid_cpu_rate", .profile = 1,
					.section = "hybrid", .key = "cpu_rate",
					.type = GFEC_KNOB_NUM, .lo = 0, .hi = 100000000,
					.dflt = "0",
					.help = "split calls: the CPU's starting rate in MB/s (0: "
						"measured by the first split call; gfec tune)" },
	[GFEC_KNOB_HYBRID_GPU_RATE] = { .name = "hybrid_gpu_rate", .profile = 1,
					.section = "hybrid", .key = "gpu_rate",
					.type = GFEC_KNOB_NUM, .lo = 0, .hi = 100000000,
					.dflt = "0",
					.help = "split calls: the GPU's starting rate in MB/s (0: "
						"measured by the first split call; gfec tune)" },
	[GFEC_KNOB_HYBRID_ALPHA] = { .name = "hybrid_alpha", .profile = 1, .section = "hybrid",
				     .key = "alpha", .type = GFEC_KNOB_NUM, .lo = 0, .hi = 100,
				     .special = "off", .dflt = "off",
				     .help = "split calls: the GPU's fixed share in percent (off: "
					     "R_gpu / (R_gpu + R_cpu), adapted)" },
	[GFEC_KNOB_HYBRID_EWMA] = { .name = "hybrid_ewma", .profile = 1, .section = "hybrid",
				    .key = "ewma", .type = GFEC_KNOB_NUM, .lo = 1, .hi = 100,
				    .dflt = "25",
				    .help = "split calls: weight in percent of each call's measured "
					    "rate in its side's estimate" },
	[GFEC_KNOB_HYBRID_THREADS] = { .name = "hybrid_threads", .profile = 1,
				       .section = "hybrid", .key = "threads",
				       .type = GFEC_KNOB_NUM, .lo = 1, .hi = 1024, .dflt = "64",
				       .help = "split calls: helper threads that run CPU shares "
					       "while callers drive the GPU" },
	/*
	 * Coalescing (coalesce.h): a window holds concurrent GPU calls on host buffers for up to
	 * coalesce_us, or until they carry coalesce_bytes, and runs them as one launch. The
	 * defaults, until a daemon-shaped run on the H200 sets them: 20 us is one synchronous GPU
	 * call's fixed cost (16-21 us at P50 from 4 KiB to 1 MiB chunks, issue 17), so a window
	 * never holds a lone caller longer than a second launch would cost it; 16 MiB is the
	 * piece from which the host pipeline runs at 0.85x pinned H2D (backend.cu's pinned
	 * sweep), past which one launch gains little from more stripes.
	 */
	/*
	 * Off by default, as measured: on the H200 machine (device-run-2026-11-24g/coalesce.log)
	 * 20 us windows lowered every daemon row, RS(10,4) 64 KiB-1 MiB, 16 and 64 callers (pinned
	 * 1 MiB encode, 16 callers: 31.8 GB/s off, 20.0 with windows), because a window of several
	 * stripes is staged through the host pipeline while one pinned stripe is read in place.
	 */
	[GFEC_KNOB_GPU_COALESCE_US] = { .name = "gpu_coalesce_us", .profile = 1,
					.env = "GFEC_GPU_COALESCE_US", .section = "gpu",
					.key = "coalesce_us", .type = GFEC_KNOB_NUM, .lo = 0,
					.hi = 1000000, .dflt = "0", .ceph = 1,
					.help = "hold concurrent GPU calls on host buffers up to "
						"this long to run them as one launch (0 = off)" },
	[GFEC_KNOB_GPU_COALESCE_BYTES] = { .name = "gpu_coalesce_bytes", .profile = 1,
					   .env = "GFEC_GPU_COALESCE_BYTES",
					   .section = "gpu", .key = "coalesce_bytes",
					   .type = GFEC_KNOB_NUM, .lo = 4096, .hi = 1ll << 40,
					   .dflt = "16M", .ceph = 1,
					   .help = "a coalescing window launches once it holds this "
						   "many source bytes" },
	/*
	 * Launch slots (coalesce.h): calls read in place launch at once while fewer than this
	 * many are in flight, and gather into one launch while they are not; only calls of
	 * slot_min source bytes or more. On the H200 machine (perf/results/nvidia-h200/
	 * slots-2026-11-24), pinned RS(10,4) encodes from 16 and 64 callers: 256 KiB chunks from
	 * 64 callers 37.4-37.6 GB/s off, 48.1 with 4 slots (+3-7% from 16 callers), 1 MiB within
	 * the spread; without the minimum 64 KiB calls lost up to half (a window's launch and
	 * wake-ups are paid with the GPU idle), so they are left alone.
	 */
	[GFEC_KNOB_GPU_COALESCE_SLOTS] = { .name = "gpu_coalesce_slots", .profile = 1,
					   .env = "GFEC_GPU_COALESCE_SLOTS", .section = "gpu",
					   .key = "coalesce_slots", .type = GFEC_KNOB_NUM, .lo = 0,
					   .hi = 1024, .dflt = "4", .ceph = 1,
					   .help = "calls on pinned host buffers launch at once while "
						   "fewer than this many are in flight, else together "
						   "when one ends (0 = off)" },
	[GFEC_KNOB_GPU_COALESCE_SLOT_MIN] = { .name = "gpu_coalesce_slot_min", .profile = 1,
					      .env = "GFEC_GPU_COALESCE_SLOT_MIN",
					      .section = "gpu", .key = "coalesce_slot_min",
					      .type = GFEC_KNOB_NUM, .lo = 0, .hi = 1ll << 40,
					      .dflt = "1M", .ceph = 1,
					      .help = "launch slots hold only calls of at least this "
						      "many source bytes" },
	[GFEC_KNOB_FAULT] = { .name = "fault", .env = "GFEC_FAULT", .type = GFEC_KNOB_WORD,
			      .words = "none, cuda, cuda-ctx0, cuda-ctx1, cuda-ctx2, cuda-ctx3, "
				       "cuda-kernel",
			      .dflt = "none",
			      .help = "tests: cuda makes every GPU call fail, cuda-ctxI only "
				      "those of gpu_devices' context I, cuda-kernel every GEMM "
				      "kernel fail on the device (the process loses its CUDA "
				      "context)" },
	[GFEC_KNOB_ISAL_LIB] = { .name = "isal_lib", .env = "GFEC_ISAL_LIB", .type = GFEC_KNOB_TEXT,
				 .lo = 1, .hi = GFEC_KNOB_TEXT_MAX - 1, .dflt = "",
				 .help = "ISA-L drop-in: the real ISA-L to forward to (default: "
					 "Debian's libisal2)" },
	[GFEC_KNOB_ISAL_GPU_MIN] = { .name = "isal_gpu_min", .env = "GFEC_ISAL_GPU_MIN",
				     .type = GFEC_KNOB_NUM, .lo = 0, .hi = 1ll << 50,
				     .special = "off", .dflt = "off",
				     .help = "ISA-L drop-in: source bytes (k * len) from which a "
					     "call tries the GPU" },
};

int gfec_parse_number(const char *s, long long lo, long long hi, long long *out)
{
	const char *p = s;
	unsigned long long v = 0, limit;
	int neg = 0, shift = 0;

	if (!s || !out)
		return GFEC_E_INVAL;
	if (*p == '-')
		neg = 1, p++;
	if (*p < '0' || *p > '9')
		return GFEC_E_INVAL;
	limit = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (limit - (unsigned)(*p - '0')) / 10)
			return GFEC_E_INVAL;
		v = v * 10 + (unsigned)(*p - '0');
	}
	switch (*p) {
	case 'T':
		shift += 10;
		/* fall through */
	case 'G':
		shift += 10;
		/* fall through */
	case 'M':
		shift += 10;
		/* fall through */
	case 'K':
		shift += 10;
		p++;
		break;
	}
	if (*p || (shift && v > limit >> shift))
		return GFEC_E_INVAL;
	v <<= shift;
	if (neg) {
		const long long x = v ? -(long long)(v - 1) - 1 : 0;

		if (x < lo || x > hi)
			return GFEC_E_INVAL;
		*out = x;
		return 0;
	}
	if ((long long)v < lo || (long long)v > hi)
		return GFEC_E_INVAL;
	*out = (long long)v;
	return 0;
}

/* The position of @p v in the list "a, b, c", or -1. */
static int word_index(const char *words, const char *v)
{
	const size_t n = strlen(v);

	for (int i = 0; *words; i++) {
		const size_t w = strcspn(words, ",");

		if (w == n && strncmp(words, v, n) == 0)
			return i;
		words += w;
		words += strspn(words, ", ");
	}
	return -1;
}

void gfec_settings_defaults(struct gfec_settings *s)
{
	memset(s, 0, sizeof(*s));
	for (int k = 0; k < GFEC_NKNOBS; k++) {
		const struct gfec_knob_def *d = &gfec_knobs[k];
		struct gfec_knob_value *v = &s->v[k];

		snprintf(v->text, sizeof(v->text), "%s", d->dflt);
		if (d->type == GFEC_KNOB_NUM && d->special && strcmp(d->dflt, d->special) == 0)
			v->num = -1;
		else if (d->type == GFEC_KNOB_NUM)
			gfec_parse_number(d->dflt, LLONG_MIN, LLONG_MAX, &v->num);
		else if (d->type == GFEC_KNOB_WORD)
			v->num = word_index(d->words, d->dflt);
	}
}

int gfec_knob_set(struct gfec_settings *s, enum gfec_knob k, const char *text,
		  enum gfec_origin o, const char *where)
{
	const struct gfec_knob_def *d = &gfec_knobs[k];
	struct gfec_knob_value *v = &s->v[k];
	long long x = 0;

	if (!text || !*text || strlen(text) >= sizeof(v->text) ||
	    (d->type == GFEC_KNOB_TEXT && (long long)strlen(text) > d->hi))
		return -1;
	switch (d->type) {
	case GFEC_KNOB_NUM:
		if (d->special && strcmp(text, d->special) == 0)
			x = -1;
		else if (d->zero && strcmp(text, "0") == 0)
			x = 0;
		else if (gfec_parse_number(text, d->lo, d->hi, &x))
			return -1;
		break;
	case GFEC_KNOB_WORD:
		x = word_index(d->words, text);
		if (x < 0)
			return -1;
		break;
	case GFEC_KNOB_TEXT:
		if (d->check && d->check(text))
			return -1;
		break;
	}
	v->num = x;
	snprintf(v->text, sizeof(v->text), "%s", text);
	v->origin = o;
	snprintf(v->where, sizeof(v->where), "%s", where ? where : "");
	return 0;
}

const char *gfec_knob_expect(enum gfec_knob k, char *buf, size_t len)
{
	const struct gfec_knob_def *d = &gfec_knobs[k];

	switch (d->type) {
	case GFEC_KNOB_NUM:
		snprintf(buf, len, "a number in %lld..%lld (K, M, G, T: x 2^10, 2^20, 2^30, 2^40)%s%s",
			 d->lo, d->hi, d->special ? ", or " : d->zero ? ", or 0" : "",
			 d->special ? d->special : "");
		break;
	case GFEC_KNOB_WORD:
		snprintf(buf, len, "one of %s", d->words);
		break;
	case GFEC_KNOB_TEXT:
		if (d->expect)
			snprintf(buf, len, "%s", d->expect);
		else
			snprintf(buf, len, "a name of 1..%lld characters", d->hi);
		break;
	}
	return buf;
}

const char *gfec_knob_origin(const struct gfec_settings *s, enum gfec_knob k, char *buf,
			     size_t len)
{
	switch (s->v[k].origin) {
	case GFEC_FROM_DEFAULT:
		snprintf(buf, len, "default");
		break;
	case GFEC_FROM_FILE:
		snprintf(buf, len, "%s", s->v[k].where);
		break;
	case GFEC_FROM_ENV:
		snprintf(buf, len, "env %s", gfec_knobs[k].env);
		break;
	case GFEC_FROM_PROFILE:
		snprintf(buf, len, "profile");
		break;
	}
	return buf;
}

int gfec_knob_by_profile(const char *key)
{
	for (int k = 0; k < GFEC_NKNOBS; k++)
		if (gfec_knobs[k].profile && strcmp(gfec_knobs[k].name, key) == 0)
			return k;
	return -1;
}

int gfec_knob_by_file(const char *section, const char *key)
{
	for (int k = 0; k < GFEC_NKNOBS; k++)
		if (gfec_knobs[k].section && strcmp(gfec_knobs[k].section, section) == 0 &&
		    strcmp(gfec_knobs[k].key, key) == 0)
			return k;
	return -1;
}

int gfec_conf_section(const char *section)
{
	if (strcmp(section, "tune") == 0)
		return 1;
	for (int k = 0; k < GFEC_NKNOBS; k++)
		if (gfec_knobs[k].section && strcmp(gfec_knobs[k].section, section) == 0)
			return 1;
	return 0;
}

int gfec_settings_env(struct gfec_settings *s, char *err, size_t errlen)
{
	int rc = 0;

	for (int k = 0; k < GFEC_NKNOBS; k++) {
		const char *v = gfec_knobs[k].env ? getenv(gfec_knobs[k].env) : NULL;
		char expect[128];

		if (!v || !*v)
			continue;
		if (gfec_knob_set(s, (enum gfec_knob)k, v, GFEC_FROM_ENV, NULL) && rc == 0) {
			snprintf(err, errlen, "%s=%s: expected %s", gfec_knobs[k].env, v,
				 gfec_knob_expect((enum gfec_knob)k, expect, sizeof(expect)));
			rc = GFEC_E_PROFILE;
		}
	}
	return rc;
}

int gfec_conf_user_path(char *buf, size_t len)
{
	const char *home = getenv("HOME");

	if (!home || !*home)
		return -1;
	snprintf(buf, len, "%s/.config/gfec/gfec.conf", home);
	return 0;
}

int gfec_conf_candidates(char paths[3][GFEC_CONF_PATH_MAX])
{
	const char *env = getenv("GFEC_CONF");
	int n = 0;

	if (env && *env)
		snprintf(paths[n++], GFEC_CONF_PATH_MAX, "%s", env);
	if (gfec_conf_user_path(paths[n], GFEC_CONF_PATH_MAX) == 0)
		n++;
	snprintf(paths[n++], GFEC_CONF_PATH_MAX, "/etc/gfec/gfec.conf");
	return n;
}

/* Each reproduces a stock Ceph plugin's chunks: isa reed_sol_van, isa cauchy, jerasure
 * reed_sol_van, jerasure cauchy_good. */
static const char *const techniques[GFEC_NTECHNIQUES] = {
	[GFEC_TECH_REED_SOL_VAN] = "reed_sol_van",
	[GFEC_TECH_CAUCHY] = "cauchy",
	[GFEC_TECH_JERASURE_RS_VAN] = "jerasure_reed_sol_van",
	[GFEC_TECH_CAUCHY_GOOD] = "cauchy_good",
	[GFEC_TECH_FFT] = "fft",
};

const char *gfec_technique_name(enum gfec_technique t)
{
	return techniques[t];
}

int gfec_technique_find(const char *name)
{
	for (int t = 0; t < GFEC_NTECHNIQUES; t++)
		if (strcmp(techniques[t], name) == 0)
			return t;
	return -1;
}
