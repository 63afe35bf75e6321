/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_corpus.c
 * The non-regression corpus (corpus.h, written once by make_corpus.c): gfec must still produce
 * the stored bytes. ctest runs this once per CPU path (GFEC_CPU_PATH=isal|base|gfni512|gfni256|
 * avx2; a path this CPU lacks exits 77, skipped).
 *
 *   test_corpus CORPUS_DIR
 *
 * 1. MANIFEST lists exactly the sets of corpus.h's tables (those whose code exists), each with
 *    its k+m chunks, and each set's directory holds nothing else;
 * 2. every chunk has its recorded size and SHA-256;
 * 3. encoding the stored data gives the stored parity, and for every erasure pattern of up to m
 *    lost chunks (a fixed sample of the larger patterns of wide codes) decoding gives the stored
 *    chunks back and re-encoding the decoded data gives the stored parity again.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "cpu_backend.h"
#include "gfec/gfec.h"
#include "corpus.h"
#include "test_util.h"

/* Patterns per set: all of them up to this many, else all of 1 and 2 losses and a sample. */
#define ALL_PATTERNS_MAX 2000
#define SAMPLES_PER_SIZE 100

struct stored {
	char dir[CORPUS_MAXPATH];
	char profile[CORPUS_MAXPATH];
	size_t len;
	int n; /* chunk lines read */
	char hex[CORPUS_MAXN][65];
	char name[CORPUS_MAXN][CORPUS_MAXPATH + 8];
};

static const char *root;
static struct stored sets[CORPUS_NSETS];
static size_t nsets;

static int load_manifest(void **state)
{
	char path[2 * CORPUS_MAXPATH], line[1024];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/MANIFEST", root);
	f = fopen(path, "r");
	if (!f) {
		print_error("%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct stored *s = nsets ? &sets[nsets - 1] : NULL;
		int at = 0;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#')
			continue;
		if (strncmp(line, "set ", 4) == 0) {
			if (nsets == CORPUS_NSETS)
				goto bad;
			s = &sets[nsets++];
			if (sscanf(line + 4, "%255s %zu %n", s->dir, &s->len, &at) != 2 || !at)
				goto bad;
			snprintf(s->profile, sizeof(s->profile), "%s", line + 4 + at);
			continue;
		}
		if (!s || s->n == CORPUS_MAXN ||
		    sscanf(line, "%64s %263s", s->hex[s->n], s->name[s->n]) != 2)
			goto bad;
		s->n++;
	}
	fclose(f);
	return 0;
bad:
	print_error("%s: bad line \"%s\"\n", path, line);
	fclose(f);
	return -1;
}

static const struct stored *find(const char *dir)
{
	for (size_t i = 0; i < nsets; i++)
		if (strcmp(sets[i].dir, dir) == 0)
			return &sets[i];
	return NULL;
}

static uint8_t *read_chunk(const char *name, size_t len)
{
	char path[3 * CORPUS_MAXPATH];
	uint8_t *p = malloc(len + 1);
	FILE *f;
	size_t got;

	assert_non_null(p);
	snprintf(path, sizeof(path), "%s/%s", root, name);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	got = fread(p, 1, len + 1, f);
	fclose(f);
	if (got != len)
		fail_msg("%s: %zu bytes, MANIFEST says %zu", path, got, len);
	return p;
}

static gfec_codec *open_codec(const struct stored *s)
{
	char err[256];
	gfec_codec *c = NULL;
	int ret = gfec_codec_create(s->profile, &c, err, sizeof(err));

	if (ret)
		fail_msg("%s: gfec_codec_create(\"%s\") = %d: %s", s->dir, s->profile, ret, err);
	return c;
}

/* ---- 1. the manifest against corpus.h ------------------------------------------------------ */

static void test_manifest_lists_every_set(void **state)
{
	size_t expected = 0;

	(void)state;
	for (size_t i = 0; i < CORPUS_NSETS; i++) {
		struct corpus_set want;
		const struct stored *s;
		char name[2 * CORPUS_MAXPATH], path[2 * CORPUS_MAXPATH];
		gfec_codec *c = NULL;
		int ret, entries = 0;
		struct dirent *e;
		DIR *d;

		corpus_set_get(i, &want);
		s = find(want.dir);
		ret = gfec_codec_create(want.profile, &c, NULL, 0);
		gfec_codec_free(c);
		if (ret == GFEC_E_NOT_MDS && !s)
			continue;
		expected++;
		if (!s)
			fail_msg("MANIFEST has no set %s", want.dir);
		assert_string_equal(s->profile, want.profile);
		assert_int_equal(s->n, want.k + want.m);
		for (int j = 0; j < s->n; j++) {
			snprintf(name, sizeof(name), "%s/%d", s->dir, j);
			assert_string_equal(s->name[j], name);
		}
		snprintf(path, sizeof(path), "%s/%s", root, s->dir);
		d = opendir(path);
		if (!d)
			fail_msg("%s: %s", path, strerror(errno));
		while ((e = readdir(d)))
			entries += e->d_name[0] != '.';
		closedir(d);
		if (entries != s->n)
			fail_msg("%s holds %d files, MANIFEST lists %d", path, entries, s->n);
	}
	if (nsets != expected)
		fail_msg("MANIFEST lists %zu sets, corpus.h %zu", nsets, expected);
}

/* ---- 2. hashes ----------------------------------------------------------------------------- */

static void test_hashes(void **state)
{
	int files = 0;

	(void)state;
	for (size_t i = 0; i < nsets; i++)
		for (int j = 0; j < sets[i].n; j++) {
			uint8_t *p = read_chunk(sets[i].name[j], sets[i].len);
			char hex[65];

			corpus_sha256_hex(p, sets[i].len, hex);
			if (strcmp(hex, sets[i].hex[j]) != 0)
				fail_msg("%s/%s: SHA-256 %s, MANIFEST says %s", root, sets[i].name[j],
					 hex, sets[i].hex[j]);
			free(p);
			files++;
		}
	print_message("# %d chunks in %zu sets match MANIFEST\n", files, nsets);
}

/* ---- 3. encode, decode, re-encode ---------------------------------------------------------- */

struct run {
	const struct stored *s;
	gfec_codec *c;
	int k, m, n;
	size_t len;
	uint8_t *chunk[CORPUS_MAXN], *out[CORPUS_MAXN], *parity[CORPUS_MAXN];
	long patterns;
};

/* Encodes data[0..k) and compares the parity with the stored chunks. */
static void check_encode(struct run *r, const uint8_t *const *data, const char *what,
			 const int *lost, int nlost)
{
	int ret = gfec_encode(r->c, data, r->parity, r->len);

	if (ret)
		fail_msg("%s: gfec_encode: %s", r->s->dir, gfec_strerror(ret));
	for (int i = 0; i < r->m; i++)
		if (memcmp(r->parity[i], r->chunk[r->k + i], r->len) != 0)
			fail_msg("%s: %s: parity %d differs from the stored chunk (%d lost, first %d)",
				 r->s->dir, what, r->k + i, nlost, nlost ? lost[0] : -1);
}

/* Loses chunks lost[0..nlost), decodes them, compares, re-encodes from the decoded data. */
static void check_pattern(struct run *r, const int *lost, int nlost)
{
	const uint8_t *in[CORPUS_MAXN], *data[CORPUS_MAXN];
	uint8_t *want[CORPUS_MAXN] = { 0 };
	int ret;

	for (int i = 0; i < r->n; i++)
		in[i] = r->chunk[i];
	for (int l = 0; l < nlost; l++) {
		in[lost[l]] = NULL;
		want[lost[l]] = r->out[lost[l]];
		memset(r->out[lost[l]], TEST_POISON, r->len);
	}
	ret = gfec_decode(r->c, in, want, r->len);
	if (ret)
		fail_msg("%s: gfec_decode (%d lost, first %d): %s", r->s->dir, nlost, lost[0],
			 gfec_strerror(ret));
	for (int l = 0; l < nlost; l++)
		if (memcmp(r->out[lost[l]], r->chunk[lost[l]], r->len) != 0) {
			char list[CORPUS_MAXN * 4] = "";

			for (int j = 0; j < nlost; j++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), " %d",
					 lost[j]);
			fail_msg("%s: lost{%s }: chunk %d decoded wrong", r->s->dir, list, lost[l]);
		}
	for (int j = 0; j < r->k; j++)
		data[j] = in[j] ? in[j] : r->out[j];
	check_encode(r, data, "re-encoding decoded data", lost, nlost);
	r->patterns++;
}

static double binomial(int n, int k)
{
	double b = 1;

	for (int i = 1; i <= k; i++)
		b = b * (n - k + i) / i;
	return b;
}

/* Every combination of @p size lost chunks, in lexicographic order. */
static void all_of_size(struct run *r, int size)
{
	int lost[CORPUS_MAXN];

	for (int i = 0; i < size; i++)
		lost[i] = i;
	for (;;) {
		int i = size - 1;

		check_pattern(r, lost, size);
		while (i >= 0 && lost[i] == r->n - size + i)
			i--;
		if (i < 0)
			return;
		lost[i]++;
		for (int j = i + 1; j < size; j++)
			lost[j] = lost[j - 1] + 1;
	}
}

/* @p count random combinations of @p size lost chunks (test_util.h's seeded generator). */
static void sample_of_size(struct run *r, int size, int count)
{
	for (int t = 0; t < count; t++) {
		int perm[CORPUS_MAXN];

		for (int i = 0; i < r->n; i++)
			perm[i] = i;
		for (int i = 0; i < size; i++) {
			int j = test_range(i, r->n - 1), x = perm[i];

			perm[i] = perm[j];
			perm[j] = x;
		}
		check_pattern(r, perm, size);
	}
}

static void check_set(const struct stored *s)
{
	struct run r = { .s = s, .len = s->len };
	double total = 0;

	r.c = open_codec(s);
	r.k = gfec_codec_k(r.c);
	r.m = gfec_codec_m(r.c);
	r.n = r.k + r.m;
	assert_int_equal(s->n, r.n);
	for (int i = 0; i < r.n; i++) {
		r.chunk[i] = read_chunk(s->name[i], s->len);
		r.out[i] = malloc(s->len);
		r.parity[i] = malloc(s->len);
		assert_true(r.out[i] && r.parity[i]);
	}
	check_encode(&r, (const uint8_t *const *)r.chunk, "encoding the stored data", NULL, 0);
	for (int size = 1; size <= r.m; size++)
		total += binomial(r.n, size);
	for (int size = 1; size <= r.m; size++)
		if (total <= ALL_PATTERNS_MAX || size <= 2)
			all_of_size(&r, size);
		else
			sample_of_size(&r, size, SAMPLES_PER_SIZE);
	print_message("# %-40s %6ld of %.0f erasure patterns\n", s->dir, r.patterns, total);
	for (int i = 0; i < r.n; i++) {
		free(r.chunk[i]);
		free(r.out[i]);
		free(r.parity[i]);
	}
	gfec_codec_free(r.c);
}

static void test_encode_decode(void **state)
{
	(void)state;
	test_seed();
	for (size_t i = 0; i < nsets; i++)
		check_set(&sets[i]);
}

int main(int argc, char **argv)
{
	const char *forced = getenv("GFEC_CPU_PATH") ? getenv("GFEC_CPU_PATH") : "";
	enum gfec_cpu_path path;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manifest_lists_every_set),
		cmocka_unit_test(test_hashes),
		cmocka_unit_test(test_encode_decode),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_corpus CORPUS_DIR\n");
		return 2;
	}
	root = argv[1];
	fprintf(stderr, "# GFEC_CPU_PATH=%s\n", forced);
	if (gfec_cpu_path_parse(forced, &path) == 0 && !gfec_cpu_path_supported(path)) {
		fprintf(stderr, "# this CPU cannot run cpu_path %s: skipped\n", forced);
		return 77;
	}
	return cmocka_run_group_tests(tests, load_manifest, NULL);
}
