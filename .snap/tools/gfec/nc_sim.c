/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc_sim.c
 * gfec nc simulate: a source, R relays and a sink in one process, through the public API only,
 * to see what the theory of random linear network coding says and what the library does:
 *
 *     source --hop 1--> relay 1 --hop 2--> ... relay R --hop R+1--> sink
 *
 * Each hop loses each block with probability P. A hop is store-and-forward with ideal feedback:
 * its sender sends blocks until its receiver holds the segment (rank n), then the receiver, a
 * relay, starts sending its own mixes (gfec_nc_recode) to the next hop. So every relay mixes from
 * a full-rank store, and what a receiver gets is the sender's mixing distribution pushed through
 * an invertible matrix, which keeps the dependence statistics of the mixing weights. An LT relay
 * cannot mix (a block's seed names its sources, not coefficients): it forwards what survives, and
 * the source sends until the sink completes.
 *
 * Theory, for a receiver at rank r (codimension k = n - r) and p_r = P(the next block is
 * dependent): expected dependent blocks per segment E = sum_r p_r / (1 - p_r), P(the first n
 * received are not independent) = 1 - prod_r (1 - p_r).
 *   uniform weights 0..255 (relays from the second on, and a --zero-coefs source): the block is
 *   uniform over GF(256)^n, p_r = 256^-k exactly: E = sum_{k=1..n} 1/(256^k - 1) -> 0.003937,
 *   singular -> 0.3922%.
 *   dense weights 1..255 (the default source, and the first relay, which must share the source's
 *   range to take its seeds): p_0 = 0 (never the zero vector); at rank r the block lies in the
 *   held space with probability (256^r - 1)/(256^n - 1) if that space were uniform among r-spaces
 *   (exact: any fixed non-zero vector lies in that fraction of them). The space spanned by dense
 *   vectors is not quite uniform: at n = 2 the second block is dependent with probability 1/255
 *   exactly (used here); at rank n - 1 with a normal of weight w the probability is
 *   (1 - (-1/255)^(w-1))/256, and a normal of weight 2 has probability about C(n,2)/255^(n-2);
 *   at n = 3 that moves the rank-2 term by 1.7e-7 and the rank-1 term (1/255^2 exactly) differs
 *   by 1.8e-7, and both shrink by 255x per unit of n: the model is within 1e-6 per segment.
 * Variances for the z-scores: dependent blocks at rank r are geometric, variance p/(1-p)^2;
 * singular segments binomial.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <gfec/gfec.h>
#include <gfec/gfec_nc.h>

#include "cli.h"
#include "nc.h"

const char help_nc_simulate[] =
    "usage: gfec nc simulate [OPTIONS]\n"
    "\n"
    "Simulates source -> R relays -> sink on random segments: each hop loses each block with\n"
    "probability P; a hop's sender sends until its receiver holds the segment (ideal\n"
    "feedback), then a relay mixes what it holds (RLC) or forwards what survives (LT). Prints,\n"
    "per hop, blocks sent and received per segment (mean, max), dependent blocks and the\n"
    "singular rate (segments whose first n received blocks were not independent) against the\n"
    "theory, with the coefficient distribution it assumes; then the throughput. Every sink\n"
    "segment is compared with its source (exit 1 if one differs).\n"
    "\n"
    "  -n N                   source blocks per segment  [16]\n"
    "  -B BYTES               bytes per block  [1024]\n"
    "      --segments S       segments  [1000]\n"
    "      --relays R         relays between source and sink, 0..16  [2]\n"
    "      --loss P           fraction lost on each hop, 0 <= P <= 0.9  [0.1]\n"
    "      --family F         rlc (default) or lt\n"
    "      --zero-coefs       rlc: the source draws coefficients from 0..255 (default 1..255)\n"
    "      --seed S           seed of the data, the losses and the coefficients  [1]\n"
    "      --json FILE        also write the results as JSON\n"
    "  -h, --help             this text\n";

enum { OPT_SEGMENTS = 256, OPT_RELAYS, OPT_LOSS, OPT_FAMILY, OPT_ZERO, OPT_SEED, OPT_JSON };

static const struct option sim_opts[] = {
    {"segments", required_argument, NULL, OPT_SEGMENTS},
    {"relays", required_argument, NULL, OPT_RELAYS},
    {"loss", required_argument, NULL, OPT_LOSS},
    {"family", required_argument, NULL, OPT_FAMILY},
    {"zero-coefs", no_argument, NULL, OPT_ZERO},
    {"seed", required_argument, NULL, OPT_SEED},
    {"json", required_argument, NULL, OPT_JSON},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

#define MAX_RELAYS 16

/* One hop's counts over the run. */
struct hop {
	int uniform; /* RLC: the sender mixes 0..255 (else 1..255) */
	uint64_t sent, received, dependent, singular, max_received;
	double exp_dep, var_dep, exp_sing; /* per segment */
};

/* Expected dependent blocks per segment, its variance and the singular probability, for n
 * blocks mixed with weights 0..255 (@p uniform) or 1..255; see the file comment. */
static void theory(uint32_t n, int uniform, double *dep, double *var, double *sing)
{
	double prod = 1, tail = pow(256, -(double)n);

	*dep = *var = 0;
	for (uint32_t r = 0; r < n; r++) {
		double p, k = (double)(n - r);

		if (uniform)
			p = pow(256, -k);
		else if (r == 0)
			p = 0;
		else if (n == 2)
			p = 1.0 / 255;
		else
			p = (pow(256, -k) - tail) / (1 - tail);
		*dep += p / (1 - p);
		*var += p / ((1 - p) * (1 - p));
		prod *= 1 - p;
	}
	*sing = 1 - prod;
}

/* A sender's blocks, made K at a time as the hop needs them. */
struct sender {
	gfec_nc *nc;		/* the source's code, or NULL for a relay */
	gfec_nc_decoder *relay; /* the relay's full store */
	struct gfec_nc_segment seg;
	uint32_t next, seed; /* next sequence number (source) / mix seed (relay) */
	uint8_t *buf;
	size_t bb; /* bytes per block */
	uint32_t k, pos, avail;
};

static int sender_block(struct sender *s, const uint8_t **blk)
{
	int ret;

	if (s->pos == s->avail) {
		if (s->relay)
			ret = gfec_nc_recode(s->relay, s->seed + s->next, s->k, s->buf,
					     (size_t)s->k * s->bb);
		else
			ret = gfec_nc_encode(s->nc, &s->seg, 1, s->next, s->k, s->buf,
					     (size_t)s->k * s->bb);
		if (ret)
			return ret;
		s->next += s->k;
		s->pos = 0;
		s->avail = s->k;
	}
	*blk = s->buf + (size_t)s->pos++ * s->bb;
	return 0;
}

struct sim {
	uint32_t n, B;
	uint32_t batch; /* blocks a sender makes per call */
	uint64_t segments;
	int relays, family, zero;
	double loss;
	uint64_t seed, rng;
	struct hop hop[MAX_RELAYS + 1];
	double t_all, t_sink;
	uint64_t sink_max, sink_recv;
};

/* Sends blocks from @p s through a lossy hop into @p d until it completes (or, for the sink of an
 * LT chain, until the survivors of every hop complete it). @returns 0 or a GFEC_E_* code. */
static int run_hop(struct sim *sm, struct hop *h, struct sender *s, gfec_nc_decoder *d,
		   int hops_in_one, int is_sink)
{
	const uint64_t cap = 1000ull * sm->n + 100000; /* far beyond any plausible need */
	uint64_t got = 0, dep = 0;
	int ret = 0;

	for (uint64_t sent = 0; ret != GFEC_NC_COMPLETE; sent++) {
		const uint8_t *blk;
		double t0;
		int lost = 0;

		if (sent == cap)
			return GFEC_E_TOOFEW;
		if ((ret = sender_block(s, &blk)))
			return ret;
		/* an LT chain: the block crosses every hop, each relay forwarding what it got */
		for (int i = 0; i < hops_in_one && !lost; i++) {
			h[i].sent++;
			lost = nc_rand_unit(&sm->rng) < sm->loss;
			h[i].received += !lost;
		}
		if (lost)
			continue;
		got++;
		t0 = is_sink ? io_now() : 0;
		ret = gfec_nc_decoder_add(d, blk, s->bb);
		if (is_sink)
			sm->t_sink += io_now() - t0;
		if (ret < 0)
			return ret;
		dep += ret == GFEC_NC_DEPENDENT;
	}
	h[hops_in_one - 1].dependent += dep;
	h[hops_in_one - 1].singular += dep > 0;
	if (got > h[hops_in_one - 1].max_received)
		h[hops_in_one - 1].max_received = got;
	if (is_sink) {
		sm->sink_recv += got;
		if (got > sm->sink_max)
			sm->sink_max = got;
	}
	return 0;
}

/* One segment through the chain; the sink's result is compared with @p data. */
static int run_segment(struct sim *sm, gfec_nc *const *code, uint64_t id, const uint8_t *data,
		       uint8_t *out, uint8_t *buf)
{
	gfec_nc_decoder *d[MAX_RELAYS + 2] = {0};
	const int nodes = sm->relays + 2; /* source, relays, sink */
	struct sender s = {
	    .nc = code[0], .seg = {.id = id, .data = data}, .buf = buf, .k = sm->batch};
	double t0;
	int ret = 0;

	/* A fresh run of seeds per segment: with the same seeds every segment would replay the
	 * same few coefficient rows, and the statistics would be of those rows, not of the code. */
	s.next = (uint32_t)nc_rand(&sm->rng) >> 1;

	s.bb = gfec_nc_block_bytes(code[0], GFEC_NC_KIND_SEED);
	if (sm->family == GFEC_NC_LT) {
		ret = gfec_nc_decoder_create(code[nodes - 1], id, &d[nodes - 1]);
		if (!ret)
			ret = run_hop(sm, sm->hop, &s, d[nodes - 1], sm->relays + 1, 1);
	} else {
		for (int h = 0; h <= sm->relays && !ret; h++) {
			ret = gfec_nc_decoder_create(code[h + 1], id, &d[h + 1]);
			if (!ret)
				ret = run_hop(sm, &sm->hop[h], &s, d[h + 1], 1, h == sm->relays);
			if (ret)
				break;
			/* the receiver, full, becomes the next hop's sender */
			s = (struct sender){
			    .relay = d[h + 1],
			    .buf = buf,
			    .k = sm->batch,
			    .seed = (uint32_t)nc_rand(&sm->rng) >> 1,
			    .bb = gfec_nc_block_bytes(code[h + 1], GFEC_NC_KIND_COEF)};
			gfec_nc_decoder_free(d[h]);
			d[h] = NULL;
		}
	}
	if (!ret) {
		t0 = io_now();
		ret = gfec_nc_decoder_read(d[nodes - 1], out, (size_t)sm->n * sm->B);
		sm->t_sink += io_now() - t0;
		if (!ret && memcmp(out, data, (size_t)sm->n * sm->B) != 0)
			ret = GFEC_E_MISMATCH;
	}
	for (int i = 0; i < nodes; i++)
		gfec_nc_decoder_free(d[i]);
	return ret;
}

static const char *node_name(int i, int relays, char *buf, size_t len)
{
	if (i == 0)
		snprintf(buf, len, "source");
	else if (i == relays + 1)
		snprintf(buf, len, "sink");
	else
		snprintf(buf, len, "relay %d", i);
	return buf;
}

static double z(double measured, double expected, double var)
{
	return var > 0 ? (measured - expected) / sqrt(var) : 0;
}

static int report(const struct sim *sm, const char *json_path)
{
	const double S = (double)sm->segments, bytes = S * sm->n * sm->B;
	json_t *root = NULL, *hops = NULL;
	char a[16], b[16];
	int ret = 0;

	if (json_path) {
		root = json_pack("{s:s, s:i, s:i, s:I, s:i, s:f, s:b, s:I, s:I}", "family",
				 nc_family_name(sm->family), "n", (int)sm->n, "B", (int)sm->B,
				 "segments", (json_int_t)sm->segments, "relays", sm->relays, "loss",
				 sm->loss, "zero_coefs", sm->zero, "seed", (json_int_t)sm->seed,
				 "decoded", (json_int_t)sm->segments);
		hops = json_array();
		if (!root || !hops || json_object_set_new(root, "hops", hops)) {
			json_decref(root);
			return out_of_memory();
		}
	}
	printf("%-20s %9s %9s %5s %19s %21s  %s\n", "hop", "sent/seg", "recv/seg", "max",
	       "dependent (expect)", "singular % (expect)", "sender's weights");
	for (int i = 0; i <= sm->relays; i++) {
		const struct hop *h = &sm->hop[i];
		const int last = i == sm->relays, lt = sm->family == GFEC_NC_LT;
		char name[48];
		double recv = (double)h->received / S;

		snprintf(name, sizeof(name), "%s->%s", node_name(i, sm->relays, a, sizeof(a)),
			 node_name(i + 1, sm->relays, b, sizeof(b)));
		if (lt && !last) {
			printf("%-20s %9.3f %9.3f %5s %19s %21s  %s\n", name, (double)h->sent / S,
			       recv, "-", "-", "-", "forwarded (LT)");
		} else if (lt) {
			printf("%-20s %9.3f %9.4f %5" PRIu64 " %8" PRIu64 " (%8s) %10s (%8s)  "
			       "LT: blocks over n; no closed form\n",
			       name, (double)h->sent / S, (double)sm->sink_recv / S, sm->sink_max,
			       sm->sink_recv - sm->segments * sm->n, "-", "-", "-");
		} else {
			printf("%-20s %9.3f %9.4f %5" PRIu64 " %8" PRIu64
			       " (%8.2f) %10.3f (%8.3f)  "
			       "%s, z = %+.1f / %+.1f\n",
			       name, (double)h->sent / S, recv, h->max_received, h->dependent,
			       h->exp_dep * S, 100.0 * (double)h->singular / S, 100.0 * h->exp_sing,
			       h->uniform ? "0..255 (uniform, exact)" : "1..255 (dense model)",
			       z((double)h->dependent, h->exp_dep * S, h->var_dep * S),
			       z((double)h->singular, h->exp_sing * S,
				 S * h->exp_sing * (1 - h->exp_sing)));
		}
		if (hops) {
			json_t *o = json_pack(
			    "{s:s, s:I, s:I, s:I, s:I}", "hop", name, "sent", (json_int_t)h->sent,
			    "received", (json_int_t)(lt && last ? sm->sink_recv : h->received),
			    "max_received",
			    (json_int_t)(lt && last ? sm->sink_max : h->max_received), "singular",
			    (json_int_t)h->singular);

			if (o && !lt)
				ret = json_object_set_new(o, "dependent",
							  json_integer((json_int_t)h->dependent)) ||
				      json_object_set_new(o, "dependent_expected",
							  json_real(h->exp_dep * S)) ||
				      json_object_set_new(o, "dependent_sd",
							  json_real(sqrt(h->var_dep * S))) ||
				      json_object_set_new(o, "singular_expected",
							  json_real(h->exp_sing * S)) ||
				      json_object_set_new(
					  o, "weights",
					  json_string(h->uniform ? "0..255" : "1..255"));
			if (o && lt && last)
				ret = json_object_set_new(
				    o, "overhead_blocks",
				    json_integer(
					(json_int_t)(sm->sink_recv - sm->segments * sm->n)));
			if (!o || ret || json_array_append_new(hops, o)) {
				json_decref(root);
				return out_of_memory();
			}
		}
	}
	printf("sink: %" PRIu64 " of %" PRIu64 " segments decoded, each equal to its source\n",
	       sm->segments, sm->segments);
	printf("throughput: %.3f GB/s of decoded data over the whole run (%.3f s wall clock, one "
	       "thread: source encodes, relays' adds and %s, sink adds and reads, the loss draws); "
	       "sink alone %.3f GB/s (its adds and reads)\n",
	       bytes / 1e9 / sm->t_all, sm->t_all,
	       sm->family == GFEC_NC_LT ? "forwards" : "recodes",
	       sm->t_sink > 0 ? bytes / 1e9 / sm->t_sink : 0);
	if (root) {
		if (json_object_set_new(root, "seconds", json_real(sm->t_all)) ||
		    json_object_set_new(root, "throughput_gbps",
					json_real(bytes / 1e9 / sm->t_all)) ||
		    json_object_set_new(root, "sink_gbps",
					json_real(sm->t_sink > 0 ? bytes / 1e9 / sm->t_sink : 0))) {
			json_decref(root);
			return out_of_memory();
		}
		if (json_dump_file(root, json_path, JSON_INDENT(1)) != 0)
			ret = fail(GFEC_EXIT_IO, "nc simulate: cannot write %s", json_path);
		json_decref(root);
	}
	return ret;
}

int nc_simulate(int argc, char **argv)
{
	const char *cmd = "nc simulate", *json_path = NULL;
	struct sim sm = {.n = 16,
			 .B = 1024,
			 .segments = 1000,
			 .relays = 2,
			 .loss = 0.1,
			 .family = GFEC_NC_RLC,
			 .seed = 1};
	gfec_nc *code[MAX_RELAYS + 2] = {0};
	struct io_progress prog;
	uint64_t v;
	uint8_t *data = NULL, *out = NULL, *buf = NULL;
	size_t seg_bytes, bb;
	const int pool = 4; /* distinct random segments, reused in turn */
	double t0;
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":n:B:h", sim_opts, NULL)) != -1) {
		switch (c) {
		case '?':
			return fail(GFEC_EXIT_USAGE,
				    "%s: unknown option '%s' (see 'gfec %s --help')", cmd,
				    argv[optind - 1], cmd);
		case ':':
			return fail(GFEC_EXIT_USAGE, "%s: option '%s' needs a value", cmd,
				    argv[optind - 1]);
		case 'h':
			fputs(help_nc_simulate, stdout);
			return GFEC_EXIT_OK;
		case 'n':
			if ((ret = nc_parse_u64(cmd, "-n", optarg, 1, GFEC_NC_MAX_N, &v)))
				return ret;
			sm.n = (uint32_t)v;
			break;
		case 'B':
			if ((ret = nc_parse_u64(cmd, "-B", optarg, 1, 1u << 24, &v)))
				return ret;
			sm.B = (uint32_t)v;
			break;
		case OPT_SEGMENTS:
			if ((ret = nc_parse_u64(cmd, "--segments", optarg, 1, 1ull << 32,
						&sm.segments)))
				return ret;
			break;
		case OPT_RELAYS:
			if ((ret = nc_parse_u64(cmd, "--relays", optarg, 0, MAX_RELAYS, &v)))
				return ret;
			sm.relays = (int)v;
			break;
		case OPT_LOSS:
			if ((ret = nc_parse_double(cmd, "--loss", optarg, 0, 0.9, &sm.loss)))
				return ret;
			break;
		case OPT_FAMILY:
			if ((ret = nc_parse_family(cmd, optarg, &sm.family)))
				return ret;
			break;
		case OPT_ZERO:
			sm.zero = 1;
			break;
		case OPT_SEED:
			if ((ret = nc_parse_u64(cmd, "--seed", optarg, 0, UINT64_MAX, &sm.seed)))
				return ret;
			break;
		case OPT_JSON:
			json_path = optarg;
			break;
		}
	}
	if (optind < argc)
		return fail(GFEC_EXIT_USAGE, "%s: unexpected argument '%s' (see 'gfec %s --help')",
			    cmd, argv[optind], cmd);
	if (sm.n > nc_max_n(sm.family))
		return fail(GFEC_EXIT_USAGE, "%s: -n %" PRIu32 ": a %s code takes n up to %" PRIu32,
			    cmd, sm.n, nc_family_name(sm.family), nc_max_n(sm.family));
	if (sm.family == GFEC_NC_LT && sm.zero)
		return fail(GFEC_EXIT_USAGE, "%s: --zero-coefs: an LT code has no coefficients",
			    cmd);
	seg_bytes = (size_t)sm.n * sm.B;
	if (seg_bytes > (64u << 20))
		return fail(GFEC_EXIT_USAGE, "%s: n * B = %zu: at most 64 MiB per segment", cmd,
			    seg_bytes);
	sm.rng = sm.seed;

	/* code[0] the source's, code[i] node i's decoders; the first relay shares the source's
	 * coefficient range (it takes its seeds), later nodes mix 0..255. */
	for (int i = 0; i < sm.relays + 2; i++) {
		uint32_t flags = i <= 1 ? (sm.zero ? GFEC_NC_ZERO_COEFS : 0) : GFEC_NC_ZERO_COEFS;

		if (sm.family == GFEC_NC_LT)
			flags = 0;
		if ((ret = nc_make_code(cmd, sm.family, sm.n, sm.B, flags, 1, GFEC_NC_BACKEND_CPU, 0,
					0, &code[i])))
			goto out;
	}
	for (int i = 0; i <= sm.relays; i++) {
		struct hop *h = &sm.hop[i];

		h->uniform = i >= 2 || sm.zero;
		theory(sm.n, h->uniform, &h->exp_dep, &h->var_dep, &h->exp_sing);
	}
	bb = gfec_nc_header_bytes(GFEC_NC_KIND_COEF, sm.n);
	if (bb < gfec_nc_header_bytes(GFEC_NC_KIND_SEED, sm.n))
		bb = gfec_nc_header_bytes(GFEC_NC_KIND_SEED, sm.n);
	bb += sm.B;
	data = malloc(seg_bytes * pool);
	out = malloc(seg_bytes);
	/* what a hop usually needs in one call: n / (1 - P) and a little more */
	sm.batch = (uint32_t)ceil((double)sm.n / (1 - sm.loss) * 1.05) + 2;
	buf = malloc(bb * sm.batch);
	if (!data || !out || !buf) {
		ret = out_of_memory();
		goto out;
	}
	for (size_t i = 0; i < seg_bytes * pool; i++)
		data[i] = (uint8_t)nc_rand(&sm.rng);

	printf("gfec nc simulate: %s n=%" PRIu32 " B=%" PRIu32 ", %" PRIu64
	       " segments, source -> %d relay%s -> sink, loss %.1f%% per hop, seed %" PRIu64 "\n",
	       nc_family_name(sm.family), sm.n, sm.B, sm.segments, sm.relays,
	       sm.relays == 1 ? "" : "s", sm.loss * 100, sm.seed);
	io_progress_start(&prog, "nc simulate", sm.segments * seg_bytes);
	/* by time, not bytes: small segments through many hops take long for their size (the line
	 * is drawn only after 0.2 s, so a short run shows none) */
	prog.on = isatty(STDERR_FILENO);
	t0 = io_now();
	for (uint64_t s = 0; s < sm.segments; s++) {
		ret = run_segment(&sm, code, s, data + (s % pool) * seg_bytes, out, buf);
		if (ret) {
			io_progress_end(&prog);
			ret = fail(GFEC_EXIT_INTERNAL, "%s: segment %" PRIu64 ": %s", cmd, s,
				   ret == GFEC_E_MISMATCH ? "the sink decoded wrong bytes"
				   : ret == GFEC_E_TOOFEW ? "a hop never completed"
							  : gfec_strerror(ret));
			goto out;
		}
		io_progress_update(&prog, (s + 1) * seg_bytes);
	}
	sm.t_all = io_now() - t0;
	io_progress_end(&prog);
	ret = report(&sm, json_path);
out:
	for (int i = 0; i < sm.relays + 2; i++)
		gfec_nc_free(code[i]);
	free(data);
	free(out);
	free(buf);
	return ret;
}
