/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file weights.c
 * gfec weights: the weight distribution A_w and the joint weight distribution J(a,b,c,d) of a
 * binary linear code (gfec_weights.h), from a generator file or a built-in BCH code; a table on
 * stdout, optionally JSON (jansson) and a heat map SVG of J over (a, b).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include <gfec/gfec_config.h>
#include <gfec/gfec_weights.h>

#include "cli.h"

const char help_weights[] =
    "usage: gfec weights (FILE | --bch N,K | --code PROFILE [--dual]) [OPTIONS]\n"
    "\n"
    "Enumerates the weight distribution A_w and the joint weight distribution J(a,b,c,d) of a\n"
    "binary linear code over all ordered pairs (u,v) of codewords: a = |u AND v|,\n"
    "b = wt(u) - a, c = wt(v) - a, d = n - a - b - c. Prints the non-zero bins of both.\n"
    "FILE holds the generator: one row per line of 0/1 characters (spaces ignored, '#' starts\n"
    "a comment), all rows of one length n <= 256. A rank-deficient matrix is reported and the\n"
    "code it spans is enumerated; dimension at most 31 (64-bit counts).\n"
    "\n"
    "  --bch N,K              the narrow-sense primitive BCH code of length N = 2^r - 1 and\n"
    "                         dimension K (127,22: the (127,22) code, designed distance 47)\n"
    "  --code PROFILE         the binary image of a gfec code (\"k=2 m=1 technique=cauchy\"):\n"
    "                         [I | P] of length 8(k+m), dimension 8k, P its bitmatrix\n"
    "  --dual                 with --code: its dual (parity-check) code, dimension 8m\n"
    "  --subcode T            a T-dimensional subcode: the first T rows of the generator's\n"
    "                         reduced row-echelon form, the T-th replaced by the all-ones word\n"
    "                         when the code has it (so the subcode keeps it)\n"
    "  --no-ones              do not use the all-ones reduction (timing, cross-checks)\n"
    "  --popcnt               count with the one-codeword POPCNT kernel even where the CPU has\n"
    "                         AVX-512 VPOPCNTQ (timing, cross-checks)\n"
    "  --backend B            cpu, gpu or auto  [auto; gpu: CUDA builds]\n"
    "  --threads N            CPU threads  [one per online CPU]\n"
    "  --json FILE            also write the result as JSON\n"
    "  --svg FILE             also write a heat map of J over (a, b), summed over c\n"
    "  --verify               check the identities on the result (exit 7 if one fails)\n"
    "  -h, --help             this text\n";

/* Reads a 0/1 matrix. @returns 0 with *gen (rows x n, malloc'ed), or an exit code. */
static int read_matrix(const char *path, uint8_t **gen, int *rows, int *n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return fail(GFEC_EXIT_IO, "weights: %s: %s", path, strerror(errno));
	char line[4096];
	uint8_t *m = NULL;
	int r = 0, len = -1, lineno = 0, ret = 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			ret = fail(GFEC_EXIT_USAGE, "weights: %s:%d: line too long", path, lineno);
			break;
		}
		uint8_t row[GFEC_WEIGHTS_MAX_N];
		int k = 0;
		for (char *p = line; *p && *p != '#' && !ret; p++) {
			if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
				continue;
			if (*p != '0' && *p != '1')
				ret = fail(GFEC_EXIT_USAGE, "weights: %s:%d: '%c' is not 0 or 1", path,
					   lineno, *p);
			else if (k == GFEC_WEIGHTS_MAX_N)
				ret = fail(GFEC_EXIT_USAGE,
					   "weights: %s:%d: rows longer than %d bits are beyond this build",
					   path, lineno, GFEC_WEIGHTS_MAX_N);
			else
				row[k++] = (uint8_t)(*p - '0');
		}
		if (ret || !k)
			continue;
		if (len >= 0 && k != len) {
			ret = fail(GFEC_EXIT_USAGE, "weights: %s:%d: a row of %d bits after rows of %d",
				   path, lineno, k, len);
			break;
		}
		len = k;
		uint8_t *g = realloc(m, (size_t)(r + 1) * (size_t)len);
		if (!g) {
			ret = out_of_memory();
			break;
		}
		m = g;
		memcpy(m + (size_t)r++ * len, row, (size_t)len);
	}
	if (!ret && ferror(f))
		ret = fail(GFEC_EXIT_IO, "weights: %s: read error", path);
	fclose(f);
	if (!ret && !r)
		ret = fail(GFEC_EXIT_USAGE, "weights: %s: no rows", path);
	if (ret) {
		free(m);
		return ret;
	}
	*gen = m;
	*rows = r;
	*n = len;
	return 0;
}

#define JAT(w, a, b, c) (w)->J[(((size_t)(a)) * ((w)->n + 1) + (b)) * ((w)->n + 1) + (c)]

/* The identities of every J (and the permutation symmetry when 1 is in the code). */
static int verify(const struct gfec_weights *w)
{
	int n = w->n;
	uint64_t sum = 0;
	for (int a = 0; a <= n; a++)
		for (int b = 0; a + b <= n; b++)
			for (int c = 0; a + b + c <= n; c++) {
				uint64_t x = JAT(w, a, b, c);
				int d = n - a - b - c;
				sum += x;
				if (x != JAT(w, a, c, b))
					return fail(GFEC_EXIT_VERIFY,
						    "weights: verify: J(%d,%d,%d,%d) != J(%d,%d,%d,%d)",
						    a, b, c, d, a, c, b, d);
				if (w->has_ones && (x != JAT(w, b, a, c) || x != JAT(w, b, c, d)))
					return fail(GFEC_EXIT_VERIFY,
						    "weights: verify: J(%d,%d,%d,%d) is not invariant "
						    "under permutations though 1 is in the code",
						    a, b, c, d);
			}
	if (sum != (uint64_t)1 << (2 * w->k))
		return fail(GFEC_EXIT_VERIFY, "weights: verify: sum of J is %" PRIu64 ", not 2^%d",
			    sum, 2 * w->k);
	for (int x = 0; x <= n; x++) {
		if (JAT(w, x, 0, 0) != w->A[x])
			return fail(GFEC_EXIT_VERIFY, "weights: verify: J(%d,0,0,%d) != A_%d", x, n - x,
				    x);
		uint64_t row = 0;
		for (int a = 0; a <= x; a++)
			for (int c = 0; x + c <= n; c++)
				row += JAT(w, a, x - a, c);
		if (row != w->A[x] << w->k)
			return fail(GFEC_EXIT_VERIFY, "weights: verify: J over a+b=%d is not 2^%d A_%d",
				    x, w->k, x);
	}
	return 0;
}

static int write_json(const char *path, const struct gfec_weights *w, double secs,
		      const char *source)
{
	json_t *root = json_object(), *a = json_array(), *j = json_array();
	int n = w->n;
	for (int x = 0; x <= n; x++)
		if (w->A[x])
			json_array_append_new(a, json_pack("[i,I]", x, (json_int_t)w->A[x]));
	for (int x = 0; x <= n; x++)
		for (int b = 0; x + b <= n; b++)
			for (int c = 0; x + b + c <= n; c++)
				if (JAT(w, x, b, c))
					json_array_append_new(
					    j, json_pack("[i,i,i,i,I]", x, b, c, n - x - b - c,
							 (json_int_t)JAT(w, x, b, c)));
	json_object_set_new(root, "code", json_string(source));
	json_object_set_new(root, "n", json_integer(n));
	json_object_set_new(root, "k", json_integer(w->k));
	json_object_set_new(root, "has_ones", json_boolean(w->has_ones));
	json_object_set_new(root, "seconds", json_real(secs));
	json_object_set_new(root, "A", a);
	json_object_set_new(root, "J", j);
	int rc = json_dump_file(root, path, JSON_COMPACT);
	json_decref(root);
	return rc ? fail(GFEC_EXIT_IO, "weights: cannot write %s", path) : 0;
}

/* A heat map of log10 of J summed over c, a across, b down. */
static int write_svg(const char *path, const struct gfec_weights *w)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return fail(GFEC_EXIT_IO, "weights: %s: %s", path, strerror(errno));
	int n = w->n, cell = n > 64 ? 4 : 8, pad = 40;
	double top = 0;
	for (int a = 0; a <= n; a++)
		for (int b = 0; a + b <= n; b++) {
			uint64_t s = 0;
			for (int c = 0; a + b + c <= n; c++)
				s += JAT(w, a, b, c);
			if (s && log10((double)s) > top)
				top = log10((double)s);
		}
	int side = (n + 1) * cell;
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"16\" font-family=\"sans-serif\" font-size=\"12\">J summed over c:"
		" a = |u AND v| across, b = wt(u) - a down, colour log10(count), max %.1f</text>\n",
		side + 2 * pad, side + 2 * pad, pad, top);
	for (int a = 0; a <= n; a++)
		for (int b = 0; a + b <= n; b++) {
			uint64_t s = 0;
			for (int c = 0; a + b + c <= n; c++)
				s += JAT(w, a, b, c);
			if (!s)
				continue;
			double t = top > 0 ? log10((double)s) / top : 1;
			fprintf(f,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				"fill=\"rgb(%d,%d,%d)\"><title>a=%d b=%d: %" PRIu64 "</title></rect>\n",
				pad + a * cell, pad + b * cell, cell, cell, (int)(255 * t),
				(int)(64 * (1 - t)), (int)(255 * (1 - t)), a, b, s);
		}
	fputs("</svg>\n", f);
	return fclose(f) ? fail(GFEC_EXIT_IO, "weights: cannot write %s", path) : 0;
}

/* gfec_weights_progress_fn: the progress line, started at the first report (the total of pairs
 * is known only then). */
static void show_progress(void *arg, uint64_t done, uint64_t total)
{
	struct io_progress *p = arg;

	if (!p->what) {
		io_progress_start(p, "weights", total);
		p->unit = "G pairs/s";
		p->scale = 1e9;
	}
	io_progress_update(p, done);
}

int cmd_weights(int argc, char **argv)
{
	enum { O_BCH = 256, O_CODE, O_DUAL, O_SUB, O_NOONES, O_POPCNT, O_BACKEND, O_THREADS, O_JSON,
	       O_SVG, O_VERIFY };
	static const struct option longs[] = {
	    {"bch", required_argument, NULL, O_BCH},	      {"subcode", required_argument, NULL, O_SUB},
	    {"no-ones", no_argument, NULL, O_NOONES},	      {"backend", required_argument, NULL, O_BACKEND},
	    {"threads", required_argument, NULL, O_THREADS}, {"json", required_argument, NULL, O_JSON},
	    {"svg", required_argument, NULL, O_SVG},	      {"verify", no_argument, NULL, O_VERIFY},
	    {"code", required_argument, NULL, O_CODE},     {"dual", no_argument, NULL, O_DUAL},
	    {"popcnt", no_argument, NULL, O_POPCNT},	      {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *bch = NULL, *code = NULL, *json = NULL, *svg = NULL;
	long long sub = 0, threads = 0;
	int noones = 0, popcnt = 0, check = 0, dual = 0, opt;
	enum gfec_weights_backend backend = GFEC_WEIGHTS_AUTO;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		switch (opt) {
		case 'h': fputs(help_weights, stdout); return 0;
		case O_BCH: bch = optarg; break;
		case O_CODE: code = optarg; break;
		case O_DUAL: dual = 1; break;
		case O_SUB:
			if (gfec_parse_number(optarg, 1, GFEC_WEIGHTS_MAX_K, &sub))
				return fail(GFEC_EXIT_USAGE, "weights: --subcode %s: want 1..%d", optarg,
					    GFEC_WEIGHTS_MAX_K);
			break;
		case O_NOONES: noones = 1; break;
		case O_POPCNT: popcnt = 1; break;
		case O_BACKEND:
			if (!strcmp(optarg, "cpu"))
				backend = GFEC_WEIGHTS_CPU;
			else if (!strcmp(optarg, "gpu"))
				backend = GFEC_WEIGHTS_GPU;
			else if (strcmp(optarg, "auto"))
				return fail(GFEC_EXIT_USAGE, "weights: --backend %s: want cpu, gpu or auto",
					    optarg);
			break;
		case O_THREADS:
			if (gfec_parse_number(optarg, 1, 1024, &threads))
				return fail(GFEC_EXIT_USAGE, "weights: --threads %s: want 1..1024", optarg);
			break;
		case O_JSON: json = optarg; break;
		case O_SVG: svg = optarg; break;
		case O_VERIFY: check = 1; break;
		default:
			return fail(GFEC_EXIT_USAGE, "weights: unknown option or missing value: %s",
				    argv[optind - 1]);
		}
	}
	if ((optind < argc) + (bch != NULL) + (code != NULL) != 1 || argc - optind > 1)
		return fail(GFEC_EXIT_USAGE, "weights: give one generator FILE, --bch N,K or --code "
					     "PROFILE (gfec weights --help)");
	if (dual && !code)
		return fail(GFEC_EXIT_USAGE, "weights: --dual goes with --code");

	uint8_t *gen = NULL;
	int rows = 0, n = 0, ret;
	char source[300];
	if (bch) {
		char nbuf[32];
		const char *comma = strchr(bch, ',');
		long long nn, kk;
		int delta;
		if (!comma || (size_t)(comma - bch) >= sizeof(nbuf))
			return fail(GFEC_EXIT_USAGE, "weights: --bch %s: want N,K", bch);
		memcpy(nbuf, bch, (size_t)(comma - bch));
		nbuf[comma - bch] = 0;
		if (gfec_parse_number(nbuf, 1, 255, &nn) || gfec_parse_number(comma + 1, 1, 255, &kk) ||
		    gfec_weights_bch((int)nn, (int)kk, NULL, &delta))
			return fail(GFEC_EXIT_USAGE,
				    "weights: --bch %s: no narrow-sense primitive BCH code of length "
				    "N = 2^r - 1 (3 <= r <= 8) and dimension K",
				    bch);
		n = (int)nn;
		rows = (int)kk;
		if (!(gen = malloc((size_t)rows * n)))
			return out_of_memory();
		gfec_weights_bch(n, rows, gen, &delta);
		snprintf(source, sizeof(source), "BCH(%d,%d), designed distance %d", n, rows, delta);
	} else if (code) {
		char err[256];
		if ((ret = gfec_weights_code(code, dual, &gen, &rows, &n, err, sizeof(err))))
			return ret == GFEC_E_PROFILE ? fail(GFEC_EXIT_USAGE, "weights: --code: %s", err)
						     : fail(GFEC_EXIT_INTERNAL, "weights: --code: %s",
							    gfec_strerror(ret));
		snprintf(source, sizeof(source), "%s%s", dual ? "dual of " : "", code);
	} else {
		if ((ret = read_matrix(argv[optind], &gen, &rows, &n)))
			return ret;
		snprintf(source, sizeof(source), "%s", argv[optind]);
	}
	int rank = gfec_weights_rank(gen, rows, n);
	if (rank < 0) {
		free(gen);
		return fail(lib_exit(rank), "weights: %s", gfec_strerror(rank));
	}
	if (rank < rows && !sub)
		warn("weights: the %d rows have rank %d: enumerating the %d-dimensional code they span",
		     rows, rank, rank);
	if (sub) {
		if (sub > rank) {
			free(gen);
			return fail(GFEC_EXIT_USAGE, "weights: --subcode %lld exceeds the dimension %d",
				    sub, rank);
		}
		gfec_weights_subcode(gen, rows, n, (int)sub);
		rows = rank = (int)sub;
		size_t len = strlen(source);
		snprintf(source + len, sizeof(source) - len, ", subcode t=%d", rank);
	}
	if (rank > GFEC_WEIGHTS_MAX_K) {
		free(gen);
		return fail(GFEC_EXIT_USAGE,
			    "weights: dimension %d means 2^%d pairs, beyond 64-bit counts (at most %d; "
			    "try --subcode)",
			    rank, 2 * rank, GFEC_WEIGHTS_MAX_K);
	}

	struct gfec_weights w;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct io_progress prog = {0};
	ret = gfec_weights_enumerate_progress(
	    gen, rows, n, backend, (int)threads,
	    (noones ? GFEC_WEIGHTS_NO_ONES : 0) | (popcnt ? GFEC_WEIGHTS_POPCNT : 0), show_progress,
	    &prog, &w);
	io_progress_end(&prog);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	free(gen);
	if (ret)
		return fail(ret == GFEC_E_NOBACKEND ? GFEC_EXIT_USAGE : GFEC_EXIT_INTERNAL,
			    "weights: %s", gfec_strerror(ret));
	double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);

	int bins = 0;
	uint64_t big = 0;
	for (size_t i = 0; i < (size_t)(n + 1) * (n + 1) * (n + 1); i++)
		if (w.J[i]) {
			bins++;
			big = w.J[i] > big ? w.J[i] : big;
		}
	printf("# %s: n=%d k=%d, all-ones word %s; %d non-zero bins of J, largest %" PRIu64
	       "; %.3f s\n",
	       source, n, w.k, w.has_ones ? "in the code" : "not in the code", bins, big, secs);
	printf("# A_w: w count\n");
	for (int x = 0; x <= n; x++)
		if (w.A[x])
			printf("A %d %" PRIu64 "\n", x, w.A[x]);
	printf("# J: a b c d count\n");
	for (int a = 0; a <= n; a++)
		for (int b = 0; a + b <= n; b++)
			for (int c = 0; a + b + c <= n; c++)
				if (JAT(&w, a, b, c))
					printf("J %d %d %d %d %" PRIu64 "\n", a, b, c, n - a - b - c,
					       JAT(&w, a, b, c));
	ret = check ? verify(&w) : 0;
	if (!ret && check)
		fprintf(stderr, "gfec: weights: verify: all identities hold\n");
	if (!ret && json)
		ret = write_json(json, &w, secs, source);
	if (!ret && svg)
		ret = write_svg(svg, &w);
	gfec_weights_free(&w);
	return ret;
}
