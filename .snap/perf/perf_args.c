/* SPDX-License-Identifier: BSD-3-Clause */
/** @file perf_args.c  gfec-perf's flags (the roofline run, `tune` and `isal` share one parser). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <gfec/gfec_config.h>
#include <gfec/gfec_limits.h>

#include "gfec_perf.h"
#include "perf_util.h"

const char *const perf_op_names[3] = { "encode", "decode", "update" };
const char *const perf_data_names[3] = { "pageable", "pinned", "gpu" };
const char *const perf_backend_names[3] = { "cpu", "gpu", "auto" };

void perf_usage(FILE *f)
{
	fprintf(f,
		"usage: gfec-perf [OPTIONS]\n"
		"       gfec-perf tune [OPTIONS]     (see gfec-perf tune --help)\n"
		"       gfec-perf isal [OPTIONS]     (see gfec-perf isal --help)\n"
		"\n"
		"Measures this machine's ceilings, then gfec's encode/decode/update throughput and\n"
		"latency against them. GB/s = 10^9 data bytes per second.\n"
		"\n"
		"  -k, --codes LIST      (k,m) pairs, e.g. \"10,4 4,2\"           [10,4]\n"
		"  -t, --technique T     cauchy, reed_sol_van, jerasure_reed_sol_van, cauchy_good,\n"
		"                        fft (w=16, CPU only)                   [cauchy]\n"
		"  -w, --w W             the field GF(2^W): 8, or 16 (cauchy,\n"
		"                        jerasure_reed_sol_van, fft; k+m <= 65536) [8]\n"
		"  -o, --ops LIST        encode,decode,update                   [encode,decode]\n"
		"  -E, --erasures E      chunks lost per decode (0: m)          [0]\n"
		"  -b, --minbytes SIZE   smallest chunk size (K/M/G suffixes)   [1M]\n"
		"  -e, --maxbytes SIZE   largest chunk size                     [1M]\n"
		"  -f, --stepfactor F    chunk size multiplier per step         [4]\n"
		"  -B, --batch LIST      stripes per call, e.g. 1,64            [1]\n"
		"  -a, --backends LIST   cpu,gpu,auto                           [cpu, and gpu if present]\n"
		"  -K, --kernel NAME     GPU kernel (gfec info lists them)      [the default]\n"
		"  -d, --data WHERE      pageable, pinned or gpu                [pageable; gpu for the\n"
		"                                                               GPU backend if present]\n"
		"  -T, --threads N       CPU threads for the codec (0: all)     [0]\n"
		"  -W, --warmup N        untimed calls per row                  [2]\n"
		"  -n, --iters N         timed calls per repeat (0: ~0.2 s)     [0]\n"
		"  -r, --repeats N       repeats per row (spread, '!' > 10%%)    [5]\n"
		"  -c, --check 0|1       compare results with the CPU reference [1]\n"
		"  -j, --json FILE       every number, the machine and the command line\n"
		"  -s, --svg PREFIX      PREFIX-roofline.svg and PREFIX-latency.svg\n"
		"  -C, --ceilings-cache FILE  reuse ceilings measured on this machine (else measure\n"
		"                        and write them there)\n"
		"  -q, --quick           a ~10 s summary: RS(10,4), 1 MiB, encode+decode\n"
		"  -h, --help            this text\n"
		"\n"
		"Exit status: 0 ok; 1 a row differs from the CPU reference (or no row ran); 2 bad\n"
		"arguments; 3 the JSON or SVG could not be written; 4 a row ran above its ceiling by\n"
		"more than the measured spread (the self-check: that ceiling is not a bound).\n");
}

void perf_isal_usage(FILE *f)
{
	fprintf(f,
		"usage: gfec-perf isal [OPTIONS]\n"
		"\n"
		"gfec_encode on the CPU backend (technique=cauchy) against raw ISA-L ec_encode_data on\n"
		"the same data and matrix, on 1 thread and on T, parity checked equal first.\n"
		"GB/s = 10^9 data bytes per second.\n"
		"\n"
		"  -k, --codes LIST      (k,m) pairs, e.g. \"10,4 4,2\"           [10,4]\n"
		"  -b, --minbytes SIZE   smallest chunk size (K/M/G suffixes)   [1M]\n"
		"  -e, --maxbytes SIZE   largest chunk size                     [1M]\n"
		"  -f, --stepfactor F    chunk size multiplier per step         [4]\n"
		"  -T, --threads T       the second thread count (0: all CPUs)  [0]\n"
		"  -W, --warmup N        untimed encodes per implementation     [2]\n"
		"  -n, --iters N         timed encodes per repeat (0: ~0.2 s)   [0]\n"
		"  -r, --repeats N       repeats per row (spread, '!' > 10%%)    [5]\n"
		"      --hot             one stripe set: in-cache numbers       [DRAM: >= max(256 MiB,\n"
		"                                                               4 x L3) rotated]\n"
		"      --isal-lib PATH   also time this libisal.so.2's raw ec_encode_data (dlopened,\n"
		"                        RTLD_DEEPBIND), e.g. an upstream ISA-L build\n"
		"  -j, --json FILE       every number, the machine and the command line\n"
		"  -h, --help            this text\n"
		"\n"
		"Exit status: 0 ok; 1 parity differs from raw ISA-L's (or the run failed); 2 bad\n"
		"arguments or --isal-lib; 3 the JSON could not be written.\n");
}

static int parse_list(const char *s, int *out, int max, int *n)
{
	char buf[256], *save = NULL, *tok;
	long v;

	*n = 0;
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		if (*n == max || perf_parse_long(tok, 1, 1 << 24, &v))
			return -1;
		out[(*n)++] = (int)v;
	}
	return *n ? 0 : -1;
}

static int parse_codes(const char *s, struct perf_opts *o)
{
	char buf[256], *save = NULL, *tok;

	o->ncodes = 0;
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, " ;", &save); tok; tok = strtok_r(NULL, " ;", &save)) {
		char *comma = strchr(tok, ',');
		long long k, m;

		if (!comma || o->ncodes == PERF_MAX_CODES)
			return -1;
		*comma = '\0';
		if (gfec_parse_number(tok, 2, GFEC_MAX_CHUNKS_GF16 - 1, &k) ||
		    gfec_parse_number(comma + 1, 1, k, &m) || k + m > GFEC_MAX_CHUNKS_GF16)
			return -1;
		o->codes[o->ncodes].k = (int)k;
		o->codes[o->ncodes++].m = (int)m;
	}
	return o->ncodes ? 0 : -1;
}

static int parse_names(const char *s, const char *const *names, int nnames, unsigned *mask)
{
	char buf[128], *save = NULL, *tok;

	*mask = 0;
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		int i = 0;

		while (i < nnames && strcmp(tok, names[i]) != 0)
			i++;
		if (i == nnames)
			return -1;
		*mask |= 1u << i;
	}
	return *mask ? 0 : -1;
}

int perf_parse_args(int argc, char **argv, struct perf_opts *o, char *err, size_t errlen)
{
	enum { OPT_ISAL_LIB = 256, OPT_HOT };
	/* the short flags gfec-perf isal does not take */
	static const char main_only[] = "twoEBaKdcsCq";
	static const struct option lopts[] = {
		{ "codes", required_argument, NULL, 'k' },
		{ "technique", required_argument, NULL, 't' },
		{ "w", required_argument, NULL, 'w' },
		{ "ops", required_argument, NULL, 'o' },
		{ "erasures", required_argument, NULL, 'E' },
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "batch", required_argument, NULL, 'B' },
		{ "backends", required_argument, NULL, 'a' },
		{ "kernel", required_argument, NULL, 'K' },
		{ "data", required_argument, NULL, 'd' },
		{ "threads", required_argument, NULL, 'T' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "iters", required_argument, NULL, 'n' },
		{ "repeats", required_argument, NULL, 'r' },
		{ "check", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, 's' },
		{ "ceilings-cache", required_argument, NULL, 'C' },
		{ "quick", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "isal-lib", required_argument, NULL, OPT_ISAL_LIB },
		{ "hot", no_argument, NULL, OPT_HOT },
		{ NULL, 0, NULL, 0 },
	};
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->codes[0].k = 10, o->codes[0].m = 4, o->ncodes = 1;
	o->technique = "cauchy";
	o->w = 8;
	o->ops = 1u << PERF_ENCODE | 1u << PERF_DECODE;
	o->minb = o->maxb = 1 << 20;
	o->factor = 4;
	o->batches[0] = 1, o->nbatches = 1;
	o->data = -1;
	o->warmup = 2;
	o->repeats = 5;
	o->check = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":k:t:w:o:E:b:e:f:B:a:K:d:T:W:n:r:c:j:s:C:qh", lopts,
				NULL)) != -1) {
		if (c > 0 && c < 256 && strchr(main_only, c) && !o->main_only)
			o->main_only = c;
		if ((c == OPT_ISAL_LIB || c == OPT_HOT) && !o->isal_only)
			o->isal_only = c == OPT_HOT ? "--hot" : "--isal-lib";
		switch (c) {
		case 'k':
			if (parse_codes(optarg, o))
				goto bad;
			break;
		case 't':
			o->technique = optarg;
			break;
		case 'w':
			/* GF(2^16) codes go up to 65536 chunks: -k is checked against w below */
			if (perf_parse_long(optarg, 8, 16, &v) || (v != 8 && v != 16))
				goto bad;
			o->w = (int)v;
			break;
		case 'o':
			if (parse_names(optarg, perf_op_names, 3, &o->ops))
				goto bad;
			break;
		case 'E':
			if (perf_parse_long(optarg, 0, GFEC_MAX_CHUNKS_GF16 - 1, &v))
				goto bad;
			o->erasures = (int)v;
			break;
		case 'b':
			if (perf_parse_size(optarg, &o->minb))
				goto bad;
			break;
		case 'e':
			if (perf_parse_size(optarg, &o->maxb))
				goto bad;
			break;
		case 'f':
			if (perf_parse_long(optarg, 2, 1024, &v))
				goto bad;
			o->factor = (int)v;
			break;
		case 'B':
			if (parse_list(optarg, o->batches, PERF_MAX_LIST, &o->nbatches))
				goto bad;
			break;
		case 'a':
			if (parse_names(optarg, perf_backend_names, 3, &o->backends))
				goto bad;
			break;
		case 'K':
			o->kernel = optarg;
			break;
		case 'd': {
			unsigned m;

			if (parse_names(optarg, perf_data_names, 3, &m) || (m & (m - 1)))
				goto bad;
			o->data = __builtin_ctz(m);
			break;
		}
		case 'T':
			if (perf_parse_long(optarg, 0, 1024, &v))
				goto bad;
			o->threads = (int)v;
			break;
		case 'W':
			if (perf_parse_long(optarg, 0, 1000000, &v))
				goto bad;
			o->warmup = (int)v;
			break;
		case 'n':
			if (perf_parse_long(optarg, 0, 100000000, &v))
				goto bad;
			o->iters = v;
			break;
		case 'r':
			if (perf_parse_long(optarg, 1, 1000, &v))
				goto bad;
			o->repeats = (int)v;
			break;
		case 'c':
			if (perf_parse_long(optarg, 0, 1, &v))
				goto bad;
			o->check = (int)v;
			break;
		case 'j':
			o->json = optarg;
			break;
		case 's':
			o->svg = optarg;
			break;
		case 'C':
			o->ceilings_cache = optarg;
			break;
		case 'q':
			o->quick = 1;
			break;
		case OPT_ISAL_LIB:
			o->isal_lib = optarg;
			break;
		case OPT_HOT:
			o->hot = 1;
			break;
		case 'h':
			o->help = 1;
			return 0;
		case ':':
			snprintf(err, errlen, "option %s needs a value", argv[optind - 1]);
			return -1;
		default:
			snprintf(err, errlen, "unknown option %s", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	for (int i = 0; i < o->ncodes; i++) {
		const int cap = o->w == 8 ? GFEC_MAX_CHUNKS : GFEC_MAX_CHUNKS_GF16;

		if (o->codes[i].k + o->codes[i].m > cap) {
			snprintf(err, errlen, "-k %d,%d: k+m is over %d for w=%d (-w 16 takes %d)",
				 o->codes[i].k, o->codes[i].m, cap, o->w, GFEC_MAX_CHUNKS_GF16);
			return -1;
		}
	}
	if (o->minb > o->maxb) {
		snprintf(err, errlen, "-b %zu is larger than -e %zu", o->minb, o->maxb);
		return -1;
	}
	if (o->quick) {
		o->repeats = o->repeats > 3 ? 3 : o->repeats;
		o->warmup = 1;
	}
	return 0;
bad:
	snprintf(err, errlen, "%s: bad value '%s' (see --help)", argv[optind - 1], optarg);
	return -1;
}

int perf_check_mode(const struct perf_opts *o, enum perf_mode mode, char *err, size_t errlen)
{
	if (mode == PERF_MODE_ISAL && o->main_only) {
		snprintf(err, errlen, "-%c is not a flag of gfec-perf isal (see --help)", o->main_only);
		return -1;
	}
	if (mode == PERF_MODE_MAIN && o->isal_only) {
		snprintf(err, errlen, "%s goes with gfec-perf isal (see gfec-perf isal --help)",
			 o->isal_only);
		return -1;
	}
	return 0;
}

int perf_sizes(const struct perf_opts *o, size_t sizes[64])
{
	int n = 0;

	for (size_t s = o->minb; s <= o->maxb && n < 64; s *= (size_t)o->factor)
		sizes[n++] = s;
	return n;
}

int perf_erasures(const struct perf_opts *o, enum perf_op op, int m)
{
	if (op != PERF_DECODE)
		return 0;
	return o->erasures && o->erasures <= m ? o->erasures : m;
}
