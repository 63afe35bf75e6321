/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file make_corpus.c
 * Writes the non-regression corpus that test_corpus checks (layout and manifest: corpus.h), as
 * Ceph keeps ceph-erasure-code-corpus for its plugins: once written, the chunks are what gfec's
 * encoder must produce forever.
 *
 *   build-X/tests/make_corpus tests/corpus                       writes the sets not there yet
 *   build-X/tests/make_corpus --regenerate-i-know tests/corpus   rewrites every set
 *
 * Objects come from a fixed-seed generator; every parity chunk is checked against ISA-L's
 * ec_encode_data (reed_sol_van, cauchy) or Jerasure (jerasure_reed_sol_van, cauchy_good; at w=16
 * jerasure_matrix_encode with Jerasure's own Vandermonde matrix, or with the Cauchy matrix
 * 1 / ((k+i) ^ j) built by Jerasure's galois_single_divide) before anything is written, and a set
 * without such a reference is refused. Existing sets are kept
 * byte for byte: changing stored bytes takes --regenerate-i-know and a commit that says why.
 * Exit codes: 0 done, 1 a set could not be made or checked, 2 usage, 3 I/O.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <isa-l/erasure_code.h>
#include <jerasure.h>
#include <cauchy.h>
#include <galois.h>
#include <reed_sol.h>

#include "gfec/gfec.h"
#include "corpus.h"

enum { EXIT_BAD = 1, EXIT_USAGE = 2, EXIT_IO = 3 };

/* The manifest's text for one set: its "set" line and its chunk lines. */
struct block {
	char dir[CORPUS_MAXPATH];
	char *text;
};

static const char manifest_head[] =
	"# gfec non-regression corpus: written by tests/corpus/make_corpus.c, checked by\n"
	"# tests/corpus/test_corpus.c. Never edit by hand; a commit that changes a stored byte says why.\n"
	"#   set <dir> <chunk bytes> <profile>\n"
	"#   <sha256>  <dir>/<chunk>\n";

static int mkdirs(const char *path)
{
	char buf[2 * CORPUS_MAXPATH];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1;; p++) {
		const char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return -1;
		if (c == '\0')
			return 0;
		*p = c;
	}
}

/* Writes p[0..n) to path through a temporary file and a rename. */
static int write_file(const char *path, const void *p, size_t n)
{
	char tmp[2 * CORPUS_MAXPATH + 8];
	FILE *f;
	int ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f)
		return -1;
	ok = fwrite(p, 1, n, f) == n;
	ok &= fclose(f) == 0;
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The manifest's blocks, in file order; *nblocks = 0 when there is no manifest yet. */
static int load_manifest(const char *path, struct block *b, size_t max, size_t *nblocks)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t n = 0;

	*nblocks = 0;
	if (!f)
		return errno == ENOENT ? 0 : -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (strncmp(line, "set ", 4) == 0) {
			if (n == max || sscanf(line + 4, "%255s", b[n].dir) != 1) {
				fclose(f);
				return -1;
			}
			b[n].text = calloc(1, 1);
			n++;
		} else if (n == 0) {
			fclose(f);
			return -1;
		}
		size_t had = strlen(b[n - 1].text);
		char *t = realloc(b[n - 1].text, had + strlen(line) + 1);

		if (!t)
			abort();
		strcpy(t + had, line);
		b[n - 1].text = t;
	}
	fclose(f);
	*nblocks = n;
	return 0;
}

/*
 * GF(2^16) parity from Jerasure (gf-complete's w=16 field, polynomial 0x1100B) into ref[0..m),
 * 16-bit little-endian symbols; -1 for a technique without a reference there.
 */
static int reference_parity_w16(const struct corpus_set *s, uint8_t **data, uint8_t **ref,
				size_t len)
{
	const int k = s->k, m = s->m;
	int *mat;

	if (strcmp(s->technique->name, "jerasure_reed_sol_van") == 0) {
		mat = reed_sol_vandermonde_coding_matrix(k, m, 16);
	} else if (strcmp(s->technique->name, "cauchy") == 0) {
		/* parity row i, data column j: 1 / ((k + i) ^ j), ISA-L's cauchy1 form */
		mat = malloc(sizeof(int) * (size_t)k * (size_t)m);
		for (int i = 0; mat && i < m; i++)
			for (int j = 0; j < k; j++)
				mat[i * k + j] = galois_single_divide(1, (k + i) ^ j, 16);
	} else {
		return -1;
	}
	if (!mat)
		abort();
	jerasure_matrix_encode(k, m, 16, mat, (char **)data, (char **)ref, (int)len);
	free(mat);
	return 0;
}

/* Parity from the technique's reference library into ref[0..m); -1 when there is none. */
static int reference_parity(const struct corpus_set *s, uint8_t **data, uint8_t **ref, size_t len)
{
	const int k = s->k, m = s->m;
	const char *t = s->technique->name;

	if (s->w == 16)
		return reference_parity_w16(s, data, ref, len);
	if (s->w != 8)
		return -1;
	if (strcmp(t, "reed_sol_van") == 0 || strcmp(t, "cauchy") == 0) {
		uint8_t *full = malloc((size_t)(k + m) * k), *tbls = malloc(32u * k * m);

		if (t[0] == 'r')
			gf_gen_rs_matrix(full, k + m, k);
		else
			gf_gen_cauchy1_matrix(full, k + m, k);
		ec_init_tables(k, m, full + k * k, tbls);
		ec_encode_data((int)len, k, m, tbls, data, ref);
		free(full);
		free(tbls);
		return 0;
	}
	if (strcmp(t, "jerasure_reed_sol_van") == 0) {
		int *mat = reed_sol_vandermonde_coding_matrix(k, m, 8);

		jerasure_matrix_encode(k, m, 8, mat, (char **)data, (char **)ref, (int)len);
		free(mat);
		return 0;
	}
	int packetsize;

	if (strcmp(t, "cauchy_good") == 0 &&
	    sscanf(s->technique->extra, " packetsize=%d", &packetsize) == 1) {
		int *mat = cauchy_good_general_coding_matrix(k, m, 8);
		int *bits = jerasure_matrix_to_bitmatrix(k, m, 8, mat);
		int **sched = jerasure_smart_bitmatrix_to_schedule(k, m, 8, bits);

		jerasure_schedule_encode(k, m, 8, sched, (char **)data, (char **)ref, (int)len,
					 packetsize);
		jerasure_free_schedule(sched);
		free(bits);
		free(mat);
		return 0;
	}
	return -1;
}

/*
 * Encodes set @p s, checks it against its reference and writes its chunks under @p root.
 * @returns its manifest block (malloc'd), or NULL after a message; *not_mds when the code does not
 * exist for this shape (nothing to store).
 */
static char *make_set(const char *root, const struct corpus_set *s, int *not_mds)
{
	const int k = s->k, n = s->k + s->m;
	uint8_t *chunk[CORPUS_MAXN] = { 0 }, *ref[CORPUS_MAXN] = { 0 };
	char err[256], path[2 * CORPUS_MAXPATH], hex[65], *text = NULL;
	gfec_codec *c = NULL;
	uint64_t rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)k << 8 | (uint64_t)s->m) ^ s->object_size;
	size_t len, used = 0, cap;
	int ret;

	*not_mds = 0;
	ret = gfec_codec_create(s->profile, &c, err, sizeof(err));
	if (ret == GFEC_E_NOT_MDS) {
		*not_mds = 1;
		return NULL;
	}
	if (ret) {
		fprintf(stderr, "make_corpus: %s: \"%s\": %s\n", s->dir, s->profile, err);
		return NULL;
	}
	len = gfec_codec_chunk_size(c, s->object_size);
	for (int i = 0; i < n; i++) {
		chunk[i] = calloc(1, len);
		ref[i] = calloc(1, len);
		if (!chunk[i] || !ref[i])
			abort();
	}
	/* the object: xorshift64* bytes, split in order over the data chunks, zero-padded */
	for (size_t b = 0; b < s->object_size; b++) {
		rng ^= rng >> 12;
		rng ^= rng << 25;
		rng ^= rng >> 27;
		chunk[b / len][b % len] = (uint8_t)((rng * 0x2545f4914f6cdd1dull) >> 56);
	}
	ret = gfec_encode(c, (const uint8_t *const *)chunk, chunk + k, len);
	if (ret) {
		fprintf(stderr, "make_corpus: %s: gfec_encode: %s\n", s->dir, gfec_strerror(ret));
		goto out;
	}
	if (reference_parity(s, chunk, ref, len) != 0) {
		fprintf(stderr, "make_corpus: %s: no reference encoder to check it against\n", s->dir);
		goto out;
	}
	for (int i = 0; i < s->m; i++)
		if (memcmp(chunk[k + i], ref[i], len) != 0) {
			fprintf(stderr, "make_corpus: %s: parity %d differs from the reference\n",
				s->dir, i);
			goto out;
		}
	snprintf(path, sizeof(path), "%s/%s", root, s->dir);
	if (mkdirs(path) != 0) {
		fprintf(stderr, "make_corpus: mkdir %s: %s\n", path, strerror(errno));
		exit(EXIT_IO);
	}
	cap = CORPUS_MAXPATH * (size_t)(n + 1) * 2;
	text = malloc(cap);
	if (!text)
		abort();
	used += (size_t)snprintf(text, cap, "set %s %zu %s\n", s->dir, len, s->profile);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/%d", root, s->dir, i);
		if (write_file(path, chunk[i], len) != 0) {
			fprintf(stderr, "make_corpus: %s: %s\n", path, strerror(errno));
			exit(EXIT_IO);
		}
		corpus_sha256_hex(chunk[i], len, hex);
		used += (size_t)snprintf(text + used, cap - used, "%s  %s/%d\n", hex, s->dir, i);
	}
out:
	for (int i = 0; i < n; i++) {
		free(chunk[i]);
		free(ref[i]);
	}
	gfec_codec_free(c);
	return text;
}

static void usage(FILE *to)
{
	fprintf(to, "usage: make_corpus [--regenerate-i-know] CORPUS_DIR\n"
		    "Writes the sets of tests/corpus/corpus.h missing from CORPUS_DIR and its MANIFEST.\n"
		    "--regenerate-i-know rewrites existing sets too; the commit must say why.\n");
}

int main(int argc, char **argv)
{
	static struct block old[4 * CORPUS_NSETS], out[4 * CORPUS_NSETS];
	const char *root = NULL;
	char manifest[2 * CORPUS_MAXPATH], path[2 * CORPUS_MAXPATH];
	size_t nold, nout = 0, kept = 0, written = 0, overwritten = 0;
	int regenerate = 0;
	struct stat st;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--regenerate-i-know") == 0)
			regenerate = 1;
		else if (argv[i][0] != '-' && !root)
			root = argv[i];
		else {
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (!root) {
		usage(stderr);
		return EXIT_USAGE;
	}
	snprintf(manifest, sizeof(manifest), "%s/MANIFEST", root);
	if (load_manifest(manifest, old, CORPUS_COUNT(old), &nold) != 0) {
		fprintf(stderr, "make_corpus: %s: unreadable or not a manifest\n", manifest);
		return EXIT_IO;
	}
	for (size_t i = 0; i < CORPUS_NSETS; i++) {
		struct corpus_set s;
		struct block *have = NULL;
		int not_mds;

		corpus_set_get(i, &s);
		for (size_t j = 0; j < nold; j++)
			if (strcmp(old[j].dir, s.dir) == 0)
				have = &old[j];
		snprintf(path, sizeof(path), "%s/%s", root, s.dir);
		if (!regenerate && !have && stat(path, &st) == 0) {
			fprintf(stderr, "make_corpus: %s exists but MANIFEST does not list it; "
					"refusing to overwrite it (--regenerate-i-know)\n", path);
			return EXIT_BAD;
		}
		if (have && !regenerate) {
			out[nout++] = *have;
			have->text = NULL;
			kept++;
			continue;
		}
		snprintf(out[nout].dir, sizeof(out[nout].dir), "%s", s.dir);
		out[nout].text = make_set(root, &s, &not_mds);
		if (not_mds) {
			printf("%s: not MDS, not stored\n", s.dir);
			continue;
		}
		if (!out[nout].text)
			return EXIT_BAD;
		printf("%s: %s\n", s.dir, have ? "overwritten" : "written");
		if (have) {
			free(have->text);
			have->text = NULL;
			overwritten++;
		}
		written++;
		nout++;
	}
	for (size_t j = 0; j < nold; j++)
		if (old[j].text) {
			fprintf(stderr, "make_corpus: MANIFEST lists %s, which corpus.h does not: kept\n",
				old[j].dir);
			out[nout++] = old[j];
		}

	size_t total = sizeof(manifest_head);

	for (size_t j = 0; j < nout; j++)
		total += strlen(out[j].text);
	char *all = malloc(total), *p = all;

	if (!all)
		abort();
	p += sprintf(p, "%s", manifest_head);
	for (size_t j = 0; j < nout; j++)
		p += sprintf(p, "%s", out[j].text);
	if (write_file(manifest, all, (size_t)(p - all)) != 0) {
		fprintf(stderr, "make_corpus: %s: %s\n", manifest, strerror(errno));
		return EXIT_IO;
	}
	free(all);
	for (size_t j = 0; j < nout; j++)
		free(out[j].text);
	printf("%zu sets written (%zu of them overwritten), %zu kept as they were.\n", written,
	       overwritten, kept);
	if (kept)
		printf("Refused to overwrite the %zu existing sets: --regenerate-i-know does that.\n",
		       kept);
	if (written)
		printf("Commit the new chunks with MANIFEST; the commit message must say why the "
		       "corpus changed.\n");
	return 0;
}
