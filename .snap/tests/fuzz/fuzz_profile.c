/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file fuzz_profile.c
 * Profile strings ("k=10 m=4 technique=cauchy"): gfec_profile_parse(), then gfec_codec_create()
 * on what parsed. Invariants: a profile that parses has w = 8 or 16, 2 <= k, 1 <= m <= k, k+m
 * within the field's limit (256 for w = 8, 65536 for w = 16) and every knob within its registry
 * range; written back as key=value text it parses to the same
 * profile; a codec built from it (reed_sol_van: where proving it MDS is cheap) reports the same
 * k and m, and its own profile string (gfec_codec_profile) parses to the same code and builds a
 * codec again.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "gfec/gfec.h"
#include "cpu_backend.h"
#include "internal.h"
#include "knobs.h"

/* No gfec.conf, no environment: the same input parses the same way on every machine. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	setenv("GFEC_CONF", "/dev/null", 1);
	for (int k = 0; k < GFEC_NKNOBS; k++)
		if (gfec_knobs[k].env)
			unsetenv(gfec_knobs[k].env);
	return 0;
}

/* @p p as profile text: the code's keys and every knob the profile set. */
static void format_profile(const struct gfec_profile *p, char *buf, size_t len)
{
	int n = snprintf(buf, len, "k=%d m=%d w=%d technique=%s backend=%s packetsize=%d", p->k,
			 p->m, p->w, gfec_technique_name(p->technique),
			 gfec_backend_choice_name(p->backend), p->packetsize);

	for (int k = 0; k < GFEC_NKNOBS; k++)
		if (p->set.v[k].origin == GFEC_FROM_PROFILE && n > 0 && (size_t)n < len)
			n += snprintf(buf + n, len - (size_t)n, " %s=%s", gfec_knobs[k].name,
				      p->set.v[k].text);
	FUZZ_CHECK(n > 0 && (size_t)n < len);
}

static void check_same(const struct gfec_profile *a, const struct gfec_profile *b)
{
	FUZZ_CHECK(a->k == b->k && a->m == b->m && a->w == b->w && a->technique == b->technique);
	FUZZ_CHECK(a->backend == b->backend && a->packetsize == b->packetsize);
	FUZZ_CHECK(a->threads == b->threads && a->decode_cache == b->decode_cache);
	FUZZ_CHECK(a->async_threads == b->async_threads && strcmp(a->cpu_path, b->cpu_path) == 0);
	FUZZ_CHECK(strcmp(a->gpu_kernel, b->gpu_kernel) == 0);
	FUZZ_CHECK(a->gpu_min_bytes == b->gpu_min_bytes && a->gpu_device == b->gpu_device);
	FUZZ_CHECK(a->gpu_streams == b->gpu_streams && a->gpu_segment == b->gpu_segment);
	FUZZ_CHECK(a->gpu_coalesce_us == b->gpu_coalesce_us &&
		   a->gpu_coalesce_bytes == b->gpu_coalesce_bytes &&
		   a->gpu_coalesce_slots == b->gpu_coalesce_slots &&
		   a->gpu_coalesce_slot_min == b->gpu_coalesce_slot_min);
	FUZZ_CHECK(a->gpu_fault == b->gpu_fault);
	knobs_check_same(&a->set, &b->set);
}

/*
 * Whether building (k,m) with reed_sol_van is cheap. Its MDS proof inverts every square
 * submatrix of G, sum over s of C(m,s) C(k,s) s^3 steps (codec.c stops at 10^8): shapes like
 * (246,3), a third of a second in a release build, take over libFuzzer's 10 s timeout with its
 * instrumentation. Those are left to tests/plugin; the target builds shapes under 10^6 steps.
 */
static int mds_proof_cheap(int k, int m)
{
	double ck = 1, cm = 1, steps = 0;

	for (int s = 1; s <= m && s <= k; s++) {
		ck = ck * (k - s + 1) / s;
		cm = cm * (m - s + 1) / s;
		steps += ck * cm * s * s * s;
	}
	return steps <= 1e6;
}

/*
 * 1 when building @p p's codec stays well inside libFuzzer's 10 s per input under the fuzzing
 * instrumentation: reed_sol_van's MDS proof (above), cauchy_good's bitmatrix plan, which
 * grows with k x m (0.05 s at k=140 m=79 in a release build, 14 s in a long run sharing the
 * machine with a CI build), and a w = 16 code's generator and tables, also k x m (k+m reaches
 * 65536 there), which jerasure_reed_sol_van builds in (k+m) k^2 steps (refused as not supported
 * past 1.5e9, gfec.h).
 */
static int codec_cheap(const struct gfec_profile *p)
{
	if (p->w == 16) /* and Jerasure's Vandermonde construction, (k+m) k^2 multiplies */
		return p->k * p->m <= 4096 &&
		       (p->technique != GFEC_TECH_JERASURE_RS_VAN ||
			(double)(p->k + p->m) * p->k * p->k <= 1e7);
	if (p->technique == GFEC_TECH_REED_SOL_VAN)
		return mds_proof_cheap(p->k, p->m);
	if (p->technique == GFEC_TECH_CAUCHY_GOOD)
		return p->k * p->m <= 2048;
	return 1;
}

/* 1 when @p p names a CPU path that this CPU cannot run. */
static int cpu_path_missing(const struct gfec_profile *p)
{
	enum gfec_cpu_path path;

	return gfec_cpu_path_parse(p->cpu_path, &path) == 0 && !gfec_cpu_path_supported(path);
}

/*
 * The codec for @p text, kept cheap to build whatever the input asks for: later keys win, so
 * the appended ones keep it on one CPU thread.
 */
static void check_codec(const char *text, const struct gfec_profile *p)
{
	static const char cheap[] = " backend=cpu threads=1";
	size_t n = strlen(text);
	char *full = malloc(n + sizeof(cheap)), err[256];
	struct gfec_profile *q = malloc(sizeof(*q));
	gfec_codec *c = NULL, *c2 = NULL;
	char again[1024];
	int ret;

	FUZZ_CHECK(full != NULL && q != NULL);
	memcpy(full, text, n);
	memcpy(full + n, cheap, sizeof(cheap));
	ret = gfec_codec_create(full, &c, err, sizeof(err));
	/*
	 * reed_sol_van is refused where ISA-L's matrix is not MDS (or too large to prove it), and
	 * a cpu_path this CPU cannot run (cpu_path=gfni512 without GFNI) as not supported.
	 */
	FUZZ_CHECK(ret == 0 ||
		   (p->technique == GFEC_TECH_REED_SOL_VAN &&
		    (ret == GFEC_E_NOT_MDS || ret == GFEC_E_BUDGET)) ||
		   (ret == GFEC_E_NOTSUP && cpu_path_missing(p)));
	FUZZ_CHECK(memchr(err, '\0', sizeof(err)) && (ret == 0 || err[0]));
	if (ret == 0) {
		FUZZ_CHECK(gfec_codec_k(c) == p->k && gfec_codec_m(c) == p->m);
		FUZZ_CHECK(gfec_codec_chunk_count(c) == p->k + p->m);
		n = gfec_codec_profile(c, again, sizeof(again));
		FUZZ_CHECK(n > 0 && n < sizeof(again));
		ret = gfec_profile_parse(again, NULL, q, err, sizeof(err));
		if (ret)
			fprintf(stderr, "gfec_codec_profile: '%s' refused: %s\n", again, err);
		FUZZ_CHECK(ret == 0);
		FUZZ_CHECK(q->k == p->k && q->m == p->m && q->technique == p->technique);
		FUZZ_CHECK(q->decode_cache == p->decode_cache);
		FUZZ_CHECK(p->technique != GFEC_TECH_CAUCHY_GOOD || q->packetsize == p->packetsize);
		FUZZ_CHECK(gfec_codec_create(again, &c2, err, sizeof(err)) == 0);
		FUZZ_CHECK(gfec_codec_chunk_size(c2, 12345) == gfec_codec_chunk_size(c, 12345));
		gfec_codec_free(c2);
	}
	gfec_codec_free(c);
	free(q);
	free(full);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), err[256], again[4096];
	struct gfec_profile *p = malloc(sizeof(*p)), *q = malloc(sizeof(*q));
	int ret;

	FUZZ_CHECK(p != NULL && q != NULL);
	memset(err, 'x', sizeof(err));
	ret = gfec_profile_parse(text, NULL, p, err, sizeof(err));
	FUZZ_CHECK(ret == 0 || ret == GFEC_E_PROFILE);
	if (ret) {
		/* A one-line reason. */
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) && err[0] && !strchr(err, '\n'));
	} else {
		FUZZ_CHECK(p->w == 8 || p->w == 16);
		FUZZ_CHECK(p->k >= 2 && p->m >= 1 && p->m <= p->k &&
			   p->k + p->m <= (p->w == 16 ? GFEC_MAX_CHUNKS_GF16 : GFEC_MAX_CHUNKS));
		FUZZ_CHECK(p->technique >= 0 && p->technique < GFEC_NTECHNIQUES);
		FUZZ_CHECK(p->backend >= GFEC_BACKEND_CPU && p->backend <= GFEC_BACKEND_HYBRID);
		FUZZ_CHECK(p->packetsize >= 8 && p->packetsize <= 1 << 24 &&
			   p->packetsize % 8 == 0);
		knobs_check_ranges(&p->set);
		FUZZ_CHECK(p->set.nrules == 0);
		format_profile(p, again, sizeof(again));
		ret = gfec_profile_parse(again, NULL, q, err, sizeof(err));
		if (ret)
			fprintf(stderr, "written back as '%s', refused: %s\n", again, err);
		FUZZ_CHECK(ret == 0);
		check_same(p, q);
		if (codec_cheap(p))
			check_codec(text, p);
	}
	free(q);
	free(p);
	free(text);
	return 0;
}
