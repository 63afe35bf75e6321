/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc.c
 * gfec nc: network coding on files (gfec_nc.h). encode cuts FILE into segments and writes a
 * stream of coded blocks; recode plays a relay that loses a fraction of them and sends recoded
 * ones; decode gets FILE back, each segment from any n independent blocks. The stream (nc.h)
 * carries what the blocks do not: the file's size, its SHA-256 and a CRC32C per segment, so that
 * a corrupt block can never make a wrong segment pass as decoded. simulate is in nc_sim.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <openssl/evp.h>

#include <gfec/gfec.h>
#include <gfec/gfec_nc.h>

#include "cli.h"
#include "nc.h"

const char help_nc[] =
    "usage: gfec nc COMMAND [OPTIONS]\n"
    "\n"
    "Network coding over GF(2^8) on files: a file becomes a stream of coded blocks (random\n"
    "linear coding, or LT), relays recode a stream after losing part of it, and any n\n"
    "independent blocks of a segment give the segment back.\n"
    "\n"
    "  gfec nc encode FILE -o STREAM [-n N] [-B BYTES] [--overhead PCT | --count C]\n"
    "                 [--systematic] [--zero-coefs] [--seed S] [--family rlc|lt]\n"
    "                 [--lt-c C] [--lt-delta D] [--backend auto|cpu|gpu]\n"
    "  gfec nc recode STREAM -o STREAM2 --loss P [--count C] [--seed S]\n"
    "  gfec nc decode STREAM -o FILE [--batch] [--backend auto|cpu|gpu]\n"
    "  gfec nc simulate [-n N] [-B B] [--segments S] [--relays R] [--loss P] [--family rlc|lt]\n"
    "                 [--zero-coefs] [--seed S] [--json F]\n"
    "\n"
    "'gfec nc COMMAND --help' describes each. Exit codes (as 'gfec --help'): 0 success;\n"
    "1 library error or out of memory; 2 usage (bad option or value, empty FILE); 3 a file\n"
    "could not be read or written; 4 the stream is damaged or foreign (its header, a block's\n"
    "header, a block of another stream or code, a truncated block, a segment whose decoded\n"
    "bytes fail their CRC32C or a file that fails its SHA-256); 5 a segment has too few\n"
    "independent blocks to decode; 8 an output would replace the input.\n";

static const char help_nc_encode[] =
    "usage: gfec nc encode FILE -o STREAM [OPTIONS]\n"
    "\n"
    "Cuts FILE into segments of n blocks of B bytes (the last segment zero-padded) and writes\n"
    "C coded blocks per segment to STREAM (a header with FILE's size, SHA-256 and a CRC32C per\n"
    "segment, then the blocks). STREAM appears only when complete.\n"
    "\n"
    "  -o, --output STREAM    the stream to write (required)\n"
    "  -n N                   source blocks per segment  [32; rlc 1..4096, lt 1..65536]\n"
    "  -B BYTES               bytes per block  [4096; n * B at most 1 GiB]\n"
    "      --overhead PCT     C = n + ceil(n * PCT / 100) blocks per segment  [10]\n"
    "      --count C          C blocks per segment instead\n"
    "      --systematic       rlc: sequence numbers below n are the source blocks themselves\n"
    "      --zero-coefs       rlc: coefficients from 0..255 (default 1..255)\n"
    "      --seed S           the blocks carry sequence numbers S .. S + C - 1  [0]\n"
    "      --family F         rlc (random linear coding, default) or lt (fountain code)\n"
    "      --lt-c C           lt: the robust soliton's c > 0, at most 6 decimals  [0.03]\n"
    "      --lt-delta D       lt: the robust soliton's delta, 0 < D < 1, 6 decimals  [0.05]\n"
    "                         (both are stored in STREAM: decode needs nothing else)\n"
    "      --backend B        auto (default; the CPU for files), cpu or gpu (encode on the\n"
    "                         GPU, rlc and lt, the same bytes; exit 2 where no GPU is usable)\n"
    "  -h, --help             this text\n";

static const char help_nc_recode[] =
    "usage: gfec nc recode STREAM -o STREAM2 --loss P [--count C] [--seed S]\n"
    "\n"
    "Plays a relay: for each segment, drops each block of STREAM with probability P, gives the\n"
    "others to a decoder, and writes C coded blocks mixed from what it holds (random\n"
    "combinations, coefficient-carrying) to STREAM2. A segment the relay holds at rank below n\n"
    "is still recoded, with a warning: STREAM2 then cannot give it back. An LT relay cannot\n"
    "recode (a block names its sources by a seed, not by coefficients): it forwards the blocks\n"
    "that survive. The first relay after an encode mixes with the source's coefficients\n"
    "(1..255 unless --zero-coefs), later ones with 0..255.\n"
    "\n"
    "  -o, --output STREAM2   the stream to write (required)\n"
    "      --loss P           fraction of blocks lost, 0 <= P < 1 (required)\n"
    "      --count C          blocks written per segment  [as many as STREAM holds]\n"
    "      --seed S           seed of the losses and of the mixes  [1]\n"
    "  -h, --help             this text\n";

static const char help_nc_decode[] =
    "usage: gfec nc decode STREAM -o FILE [--batch] [--backend auto|cpu|gpu]\n"
    "\n"
    "Decodes each segment of STREAM progressively from its blocks (any mix and order within\n"
    "the segment; blocks beyond the n-th independent one are counted and ignored). Each\n"
    "decoded segment must match its CRC32C and the file its SHA-256. FILE is written under a\n"
    "temporary name and renamed only when every segment decoded; otherwise nothing is written\n"
    "(exit 4 or 5). FILE must be a regular file or not exist.\n"
    "\n"
    "  -o, --output FILE      where to write (required)\n"
    "      --batch            decode many segments per call (gfec_nc_decode_batch: up to\n"
    "                         64 MiB of segments, their blocks held in memory) instead of\n"
    "                         block by block (lt: one segment per thread)\n"
    "      --backend B        rlc: auto (default), cpu or gpu; gpu implies --batch and runs\n"
    "                         the batch decode on the GPU (n up to its decoder's width, else\n"
    "                         the CPU; exit 2 where no GPU is usable). lt: the CPU only\n"
    "  -h, --help             this text\n";

/* --- shared helpers --------------------------------------------------------------------------- */

int nc_parse_u64(const char *cmd, const char *opt, const char *v, uint64_t min, uint64_t max,
		 uint64_t *out)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 10);
	if (!*v || *v == '-' || *v == '+' || *end || errno || x < min || x > max)
		return fail(GFEC_EXIT_USAGE,
			    "%s: %s '%s': want an integer in %" PRIu64 "..%" PRIu64, cmd, opt, v,
			    min, max);
	*out = x;
	return 0;
}

int nc_parse_double(const char *cmd, const char *opt, const char *v, double min, double max,
		    double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (!*v || *end || errno || !(x >= min && x <= max))
		return fail(GFEC_EXIT_USAGE, "%s: %s '%s': want a number in [%g, %g]", cmd, opt, v,
			    min, max);
	*out = x;
	return 0;
}

/* A number with at most 6 decimals in [min, max] millionths, into millionths (the stream's unit
 * for LT's c and delta). @returns 0 or exit 2. */
static int nc_parse_micro(const char *cmd, const char *opt, const char *v, uint32_t min,
			  uint32_t max, uint32_t *out)
{
	char *end;
	double x, u;

	errno = 0;
	x = strtod(v, &end);
	u = x * 1e6;
	if (!*v || *end || errno || !(u >= min - 1e-3 && u <= max + 1e-3) ||
	    fabs(u - nearbyint(u)) > 1e-3)
		return fail(GFEC_EXIT_USAGE,
			    "%s: %s '%s': want a number in [%g, %g] with at most 6 decimals", cmd,
			    opt, v, min / 1e6, max / 1e6);
	*out = (uint32_t)nearbyint(u);
	return 0;
}

int nc_parse_backend(const char *cmd, const char *v, int *backend)
{
	if (strcmp(v, "auto") == 0)
		*backend = GFEC_NC_BACKEND_AUTO;
	else if (strcmp(v, "cpu") == 0)
		*backend = GFEC_NC_BACKEND_CPU;
	else if (strcmp(v, "gpu") == 0)
		*backend = GFEC_NC_BACKEND_GPU;
	else
		return fail(GFEC_EXIT_USAGE, "%s: --backend '%s': want auto, cpu or gpu", cmd, v);
	return 0;
}

int nc_parse_family(const char *cmd, const char *v, int *family)
{
	if (strcmp(v, "rlc") == 0)
		*family = GFEC_NC_RLC;
	else if (strcmp(v, "lt") == 0)
		*family = GFEC_NC_LT;
	else
		return fail(GFEC_EXIT_USAGE, "%s: --family '%s': want rlc or lt", cmd, v);
	return 0;
}

const char *nc_family_name(int family)
{
	return family == GFEC_NC_LT ? "lt" : "rlc";
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) | get16(p + 2) << 16;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* The header's CRC (nc.h): bytes 0..87, from version 2 on 92..95, then the table. */
static uint32_t table_crc(const uint8_t *head, const uint32_t *crc, uint64_t segments)
{
	uint32_t c = io_crc_update(IO_CRC_INIT, head, 88);
	uint8_t le[4];

	if (get16(head + 8) >= 2)
		c = io_crc_update(c, head + 92, 4);

	for (uint64_t s = 0; s < segments; s++) {
		put32(le, crc[s]);
		c = io_crc_update(c, le, 4);
	}
	return io_crc_finish(c);
}

int ncs_write_header(int fd, const struct ncs_header *h)
{
	uint8_t head[NCS_HEADER] = {0}, le[4];
	int ret;

	memcpy(head, NCS_MAGIC, 8);
	put16(head + 8, NCS_VERSION);
	head[10] = (uint8_t)h->family;
	head[11] = (uint8_t)h->flags;
	put32(head + 12, h->n);
	put32(head + 16, h->B);
	put32(head + 20, h->tag);
	put64(head + 24, h->size);
	put64(head + 32, h->segments);
	put64(head + 40, h->blocks);
	put32(head + 48, h->hops);
	put32(head + 52, h->lt_c);
	memcpy(head + 56, h->sha256, 32);
	put32(head + 92, h->lt_delta);
	put32(head + 88, table_crc(head, h->crc, h->segments));
	ret = io_pwrite_full(fd, head, sizeof(head), 0);
	for (uint64_t s = 0; !ret && s < h->segments; s++) {
		put32(le, h->crc[s]);
		ret = io_pwrite_full(fd, le, 4, NCS_HEADER + 4 * s);
	}
	return ret;
}

uint32_t nc_max_n(int family)
{
	return family == GFEC_NC_LT ? GFEC_NC_MAX_N : GFEC_NC_RLC_MAX_N;
}

/* A stream header that fails a check: exit 4 with the reason. */
static int bad_stream(struct ncs_reader *r, const char *why)
{
	return fail(GFEC_EXIT_META, "%s: %s: not a valid stream: %s", r->cmd, r->path, why);
}

int ncs_open(const char *cmd, const char *path, struct ncs_reader *r)
{
	uint8_t head[NCS_HEADER];
	struct ncs_header *h = &r->h;
	char why[160];
	size_t got;
	uint64_t seg_bytes;
	uint32_t version;
	int ret;

	memset(r, 0, sizeof(*r));
	r->cmd = cmd;
	r->path = path;
	r->fd = io_open_read(path, &r->st);
	if (r->fd < 0)
		return fail_errno(r->fd, "cannot open", path);
	ret = io_pread_full(r->fd, head, sizeof(head), 0, &got);
	if (ret)
		return fail_errno(ret, "cannot read", path);
	if (got == 0)
		return bad_stream(r, "the file is empty");
	if (got < sizeof(head) || memcmp(head, NCS_MAGIC, 8) != 0)
		return bad_stream(r, got < sizeof(head) ? "shorter than a stream header"
							: "no stream header (bad magic)");
	version = get16(head + 8);
	if (version < 1 || version > NCS_VERSION) {
		snprintf(why, sizeof(why), "version %u (this gfec reads 1..%d)", version,
			 NCS_VERSION);
		return bad_stream(r, why);
	}
	h->family = head[10];
	h->flags = head[11];
	h->n = get32(head + 12);
	h->B = get32(head + 16);
	h->tag = get32(head + 20);
	h->size = get64(head + 24);
	h->segments = get64(head + 32);
	h->blocks = get64(head + 40);
	h->hops = get32(head + 48);
	h->lt_c = get32(head + 52);
	memcpy(h->sha256, head + 56, 32);
	h->lt_delta = get32(head + 92);
	/* the CRC first, so that a damaged field reads as damage, not as a strange code */
	if (h->segments > ((uint64_t)r->st.st_size - NCS_HEADER) / 4)
		return bad_stream(r, "its segment table runs past the end of the file (corrupt or "
				     "truncated header)");
	h->crc = malloc(sizeof(*h->crc) * (h->segments ? h->segments : 1));
	if (!h->crc)
		return out_of_memory();
	for (uint64_t s = 0; s < h->segments; s++) {
		uint8_t le[4];

		ret = io_pread_full(r->fd, le, 4, NCS_HEADER + 4 * s, &got);
		if (ret)
			return fail_errno(ret, "cannot read", path);
		h->crc[s] = get32(le);
	}
	if (table_crc(head, h->crc, h->segments) != get32(head + 88))
		return bad_stream(r, "header CRC32C mismatch (corrupt header)");
	if (h->family != GFEC_NC_RLC && h->family != GFEC_NC_LT) {
		snprintf(why, sizeof(why), "family %d unknown", h->family);
		return bad_stream(r, why);
	}
	if (h->flags & ~(GFEC_NC_SYSTEMATIC | GFEC_NC_ZERO_COEFS) ||
	    (h->family == GFEC_NC_LT && h->flags)) {
		snprintf(why, sizeof(why), "flags 0x%02x not valid for family %s", h->flags,
			 nc_family_name(h->family));
		return bad_stream(r, why);
	}
	if (version == 1 && (h->lt_c || h->lt_delta)) {
		snprintf(why, sizeof(why), "bytes 52 or 92 not 0 in a version 1 stream");
		return bad_stream(r, why);
	}
	if (version == 1 && h->family == GFEC_NC_LT) { /* every v1 LT stream had the defaults */
		h->lt_c = NCS_LT_C_DEFAULT;
		h->lt_delta = NCS_LT_DELTA_DEFAULT;
	}
	if (h->family == GFEC_NC_LT ? h->lt_c < 1 || h->lt_delta < 1 || h->lt_delta > 999999
				    : h->lt_c || h->lt_delta) {
		snprintf(why, sizeof(why),
			 "LT parameters c=%" PRIu32 "e-6 delta=%" PRIu32 "e-6 not valid for family "
			 "%s (LT: c >= 1e-6, 0 < delta < 1; RLC: 0)",
			 h->lt_c, h->lt_delta, nc_family_name(h->family));
		return bad_stream(r, why);
	}
	if (h->n < 1 || h->n > nc_max_n(h->family) || h->B < 1 || h->B > GFEC_NC_MAX_BLOCK ||
	    (uint64_t)h->n * h->B > NCS_MAX_SEGMENT) {
		snprintf(why, sizeof(why),
			 "n=%" PRIu32 " B=%" PRIu32 " out of range (%s: n 1..%" PRIu32
			 ", n * B at most %llu)",
			 h->n, h->B, nc_family_name(h->family), nc_max_n(h->family),
			 (unsigned long long)NCS_MAX_SEGMENT);
		return bad_stream(r, why);
	}
	seg_bytes = (uint64_t)h->n * h->B;
	if (h->size == 0 || h->segments != h->size / seg_bytes + (h->size % seg_bytes != 0) ||
	    h->segments > UINT32_MAX) {
		snprintf(why, sizeof(why),
			 "%" PRIu64 " segments for a file of %" PRIu64
			 " bytes in segments of %" PRIu64,
			 h->segments, h->size, seg_bytes);
		return bad_stream(r, why);
	}
	r->off = ncs_head_bytes(h->segments);
	r->cap = GFEC_NC_HEADER_FIXED + (h->n > 4 ? h->n : 4) + (size_t)h->B;
	/* no block is longer than the file: a header's B alone allocates nothing beyond it */
	if (r->cap > (uint64_t)r->st.st_size)
		r->cap = (size_t)r->st.st_size;
	r->buf = malloc(r->cap);
	if (!r->buf)
		return out_of_memory();
	return 0;
}

/* A block that fails a check: exit 4, naming it. */
static int bad_block(struct ncs_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int bad_block(struct ncs_reader *r, const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return fail(GFEC_EXIT_META, "%s: %s: block %" PRIu64 " at offset %" PRIu64 ": %s", r->cmd,
		    r->path, r->index, r->off, why);
}

int ncs_next(struct ncs_reader *r, struct gfec_nc_block *b, uint64_t *seg)
{
	const struct ncs_header *h = &r->h;
	const uint64_t end = (uint64_t)r->st.st_size;
	size_t got, need;
	uint32_t n, B;
	int kind, ret;

	if (r->off >= end) {
		if (r->index != h->blocks)
			return fail(GFEC_EXIT_META,
				    "%s: %s: the stream ends after %" PRIu64
				    " blocks, its header says %" PRIu64 " (truncated?)",
				    r->cmd, r->path, r->index, h->blocks);
		return -1;
	}
	if (r->index >= h->blocks)
		return bad_block(r,
				 "the header says the stream has %" PRIu64 " blocks; %" PRIu64
				 " more bytes follow them",
				 h->blocks, end - r->off);
	ret = io_pread_full(r->fd, r->buf, r->cap, r->off, &got);
	if (ret)
		return fail_errno(ret, "cannot read", r->path);
	if (got < GFEC_NC_HEADER_FIXED)
		return bad_block(r, "truncated (%zu bytes, less than a block header)", got);
	if (memcmp(r->buf, "GFNC", 4) != 0)
		return bad_block(r, "no block header here (bad magic)");
	if (r->buf[4] != GFEC_NC_VERSION)
		return bad_block(r, "block format version %u unknown", r->buf[4]);
	if (r->buf[5] != h->family)
		return bad_block(r, "family %u in a stream of family %d (%s)", r->buf[5], h->family,
				 nc_family_name(h->family));
	kind = r->buf[6];
	n = get32(r->buf + 8);
	B = get32(r->buf + 12);
	if (kind != GFEC_NC_KIND_SEED && kind != GFEC_NC_KIND_COEF)
		return bad_block(r, "kind %d unknown", kind);
	if (n != h->n || B != h->B)
		return bad_block(r,
				 "n=%" PRIu32 " B=%" PRIu32 ", the stream's code has n=%" PRIu32
				 " B=%" PRIu32,
				 n, B, h->n, h->B);
	need = gfec_nc_header_bytes(kind, n) + B;
	if (got < need)
		return bad_block(r, "truncated (%zu of its %zu bytes)", got, need);
	if (gfec_nc_block_unpack(r->buf, need, b))
		return bad_block(r, "bad header (flags 0x%02x or seed out of range)", r->buf[7]);
	if ((uint32_t)(b->segment >> 32) != h->tag)
		return bad_block(
		    r, "from another stream (tag 0x%08" PRIx32 ", this stream's 0x%08" PRIx32 ")",
		    (uint32_t)(b->segment >> 32), h->tag);
	*seg = (uint32_t)b->segment;
	if (*seg >= h->segments)
		return bad_block(r, "segment %" PRIu64 ", the stream has %" PRIu64, *seg,
				 h->segments);
	r->off += need;
	r->index++;
	return 0;
}

void ncs_close(struct ncs_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r->h.crc);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/* --- options ---------------------------------------------------------------------------------- */

enum {
	OPT_OVERHEAD = 256,
	OPT_COUNT,
	OPT_SYSTEMATIC,
	OPT_ZERO,
	OPT_SEED,
	OPT_FAMILY,
	OPT_LOSS,
	OPT_BACKEND,
	OPT_BATCH,
	OPT_LT_C,
	OPT_LT_DELTA,
};

static const struct option nc_long_opts[] = {
    {"output", required_argument, NULL, 'o'},
    {"overhead", required_argument, NULL, OPT_OVERHEAD},
    {"count", required_argument, NULL, OPT_COUNT},
    {"systematic", no_argument, NULL, OPT_SYSTEMATIC},
    {"zero-coefs", no_argument, NULL, OPT_ZERO},
    {"seed", required_argument, NULL, OPT_SEED},
    {"family", required_argument, NULL, OPT_FAMILY},
    {"loss", required_argument, NULL, OPT_LOSS},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"batch", no_argument, NULL, OPT_BATCH},
    {"lt-c", required_argument, NULL, OPT_LT_C},
    {"lt-delta", required_argument, NULL, OPT_LT_DELTA},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

struct nc_opts {
	const char *output, *n, *B, *overhead, *count, *seed, *family, *loss, *backend, *lt_c,
	    *lt_delta;
	int systematic, zero, batch;
	const char *file;
};

/* Parses @p cmd's options; @p allowed lists the ones it takes, by short letter or long value.
 * @returns -1 to go on, or the exit code (0 after --help). */
static int nc_opts_parse(const char *cmd, const char *help, int argc, char **argv,
			 const int *allowed, struct nc_opts *o)
{
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:n:B:h", nc_long_opts, NULL)) != -1) {
		int ok = c == 'h' || c == ':';

		for (const int *a = allowed; *a && !ok; a++)
			ok = *a == c;
		if (c == '?' || !ok)
			return fail(GFEC_EXIT_USAGE,
				    "%s: unknown option '%s' (see 'gfec %s --help')", cmd,
				    argv[optind - 1], cmd);
		switch (c) {
		case ':':
			return fail(GFEC_EXIT_USAGE, "%s: option '%s' needs a value", cmd,
				    argv[optind - 1]);
		case 'h':
			fputs(help, stdout);
			return GFEC_EXIT_OK;
		case 'o':
			o->output = optarg;
			break;
		case 'n':
			o->n = optarg;
			break;
		case 'B':
			o->B = optarg;
			break;
		case OPT_OVERHEAD:
			o->overhead = optarg;
			break;
		case OPT_COUNT:
			o->count = optarg;
			break;
		case OPT_SYSTEMATIC:
			o->systematic = 1;
			break;
		case OPT_ZERO:
			o->zero = 1;
			break;
		case OPT_SEED:
			o->seed = optarg;
			break;
		case OPT_FAMILY:
			o->family = optarg;
			break;
		case OPT_LOSS:
			o->loss = optarg;
			break;
		case OPT_BACKEND:
			o->backend = optarg;
			break;
		case OPT_BATCH:
			o->batch = 1;
			break;
		case OPT_LT_C:
			o->lt_c = optarg;
			break;
		case OPT_LT_DELTA:
			o->lt_delta = optarg;
			break;
		}
	}
	if (argc - optind > 1)
		return fail(GFEC_EXIT_USAGE, "%s: unexpected argument '%s' (see 'gfec %s --help')",
			    cmd, argv[optind + 1], cmd);
	if (argc - optind < 1)
		return fail(GFEC_EXIT_USAGE, "%s: no input file given (see 'gfec %s --help')", cmd,
			    cmd);
	o->file = argv[optind];
	if (!o->output)
		return fail(GFEC_EXIT_USAGE, "%s: no output given (-o) (see 'gfec %s --help')", cmd,
			    cmd);
	return -1;
}

/* The output must not be the input, and must be a regular file or not exist. @returns 0 or the
 * exit code. */
static int check_output(const char *cmd, const char *in, const char *out, struct stat *st,
			int *exists)
{
	*exists = 0;
	if (io_same_file(out, in))
		return fail(GFEC_EXIT_CLOBBER, "%s: %s would replace the input %s", cmd, out, in);
	if (lstat(out, st) == 0) {
		if (!S_ISREG(st->st_mode))
			return fail(GFEC_EXIT_USAGE,
				    "%s: %s is %s; the output must be a regular file or not exist",
				    cmd, out,
				    S_ISLNK(st->st_mode)   ? "a symbolic link"
				    : S_ISDIR(st->st_mode) ? "a directory"
							   : "a special file");
		*exists = 1;
	}
	return 0;
}

int nc_make_code(const char *cmd, int family, uint32_t n, uint32_t B, uint32_t flags, int threads,
		 int backend, uint32_t lt_c, uint32_t lt_delta, gfec_nc **nc)
{
	/* millionths over 1e6: correctly rounded, so 30000 is exactly the double 0.03 */
	struct gfec_nc_params p = {.n = n,
				   .block_size = B,
				   .flags = flags,
				   .threads = threads,
				   .family = family,
				   .lt_c = lt_c / 1e6,
				   .lt_delta = lt_delta / 1e6,
				   .backend = backend};
	int ret = gfec_nc_create(&p, nc);

	if (ret)
		return fail(ret == GFEC_E_INVAL || ret == GFEC_E_NOBACKEND || ret == GFEC_E_NOTSUP
				? GFEC_EXIT_USAGE
				: GFEC_EXIT_INTERNAL,
			    "%s: cannot make a %s code n=%" PRIu32 " B=%" PRIu32 ": %s", cmd,
			    nc_family_name(family), n, B, gfec_strerror(ret));
	return 0;
}

/* --- encode ----------------------------------------------------------------------------------- */

/* Input read and encoded per step: big enough for the library's threads. */
#define ENCODE_STEP (32u << 20)
/* The most bytes of coded blocks one segment may make. */
#define ENCODE_MAX_OUT (1ull << 30)

static int nc_encode(int argc, char **argv)
{
	static const int allowed[] = {'o',	     'n',	  'B',	      OPT_OVERHEAD,
				      OPT_COUNT,     OPT_SYSTEMATIC, OPT_ZERO,    OPT_SEED,
				      OPT_FAMILY,    OPT_BACKEND,    OPT_LT_C,	      OPT_LT_DELTA,
				      0};
	const char *cmd = "nc encode";
	struct nc_opts o = {0};
	struct ncs_header h = {.family = GFEC_NC_RLC};
	struct io_tmp out = {0};
	struct io_progress prog;
	struct stat in_st, out_st;
	struct gfec_nc_segment *segs = NULL;
	struct gfec_nc_stats gst;
	EVP_MD_CTX *sha = NULL;
	gfec_nc *nc = NULL;
	uint8_t *data = NULL, *blocks = NULL;
	uint64_t n = 32, B = 4096, count = 0, seed = 0, seg_bytes, wrote, per_step;
	int backend = GFEC_NC_BACKEND_AUTO;
	double overhead = 10, t0 = io_now();
	size_t bb;
	char amt[32];
	int in = -1, exists, ret;

	ret = nc_opts_parse(cmd, help_nc_encode, argc, argv, allowed, &o);
	if (ret >= 0)
		return ret;
	if ((o.family && (ret = nc_parse_family(cmd, o.family, &h.family))) ||
	    (o.backend && (ret = nc_parse_backend(cmd, o.backend, &backend))))
		return ret;
	if ((o.n && (ret = nc_parse_u64(cmd, "-n", o.n, 1, nc_max_n(h.family), &n))) ||
	    (o.B && (ret = nc_parse_u64(cmd, "-B", o.B, 1, GFEC_NC_MAX_BLOCK, &B))) ||
	    (o.overhead &&
	     (ret = nc_parse_double(cmd, "--overhead", o.overhead, 0, 10000, &overhead))) ||
	    (o.count && (ret = nc_parse_u64(cmd, "--count", o.count, 1, UINT32_MAX, &count))) ||
	    (o.seed && (ret = nc_parse_u64(cmd, "--seed", o.seed, 0, UINT32_MAX, &seed))))
		return ret;
	if (o.count && o.overhead)
		return fail(GFEC_EXIT_USAGE, "%s: --overhead and --count: give one of them", cmd);
	if (h.family == GFEC_NC_LT && (o.systematic || o.zero))
		return fail(GFEC_EXIT_USAGE, "%s: --%s: an LT code has no such option", cmd,
			    o.systematic ? "systematic" : "zero-coefs");
	if (h.family != GFEC_NC_LT && (o.lt_c || o.lt_delta))
		return fail(GFEC_EXIT_USAGE, "%s: --%s: only an LT code (--family lt) has it", cmd,
			    o.lt_c ? "lt-c" : "lt-delta");
	if (h.family == GFEC_NC_LT) {
		h.lt_c = NCS_LT_C_DEFAULT;
		h.lt_delta = NCS_LT_DELTA_DEFAULT;
		/* c up to 1000, far past any useful code (the library takes c < 1e6) */
		if ((o.lt_c &&
		     (ret = nc_parse_micro(cmd, "--lt-c", o.lt_c, 1, 1000000000u, &h.lt_c))) ||
		    (o.lt_delta && (ret = nc_parse_micro(cmd, "--lt-delta", o.lt_delta, 1, 999999,
							 &h.lt_delta))))
			return ret;
	}
	if (n * B > NCS_MAX_SEGMENT)
		return fail(GFEC_EXIT_USAGE,
			    "%s: n * B = %" PRIu64 " bytes: at most %llu per segment", cmd, n * B,
			    (unsigned long long)NCS_MAX_SEGMENT);
	if (!o.count)
		count = n + (uint64_t)ceil((double)n * overhead / 100 - 1e-9);
	if (seed + count > (1ull << 32))
		return fail(GFEC_EXIT_USAGE,
			    "%s: --seed %" PRIu64 " with %" PRIu64
			    " blocks per segment passes 2^32",
			    cmd, seed, count);
	h.n = (uint32_t)n;
	h.B = (uint32_t)B;
	h.flags = (o.systematic ? GFEC_NC_SYSTEMATIC : 0) | (o.zero ? GFEC_NC_ZERO_COEFS : 0);
	bb = gfec_nc_header_bytes(GFEC_NC_KIND_SEED, h.n) + B;
	if (count * bb > ENCODE_MAX_OUT)
		return fail(GFEC_EXIT_USAGE,
			    "%s: %" PRIu64 " blocks of %zu bytes per segment: over %llu bytes", cmd,
			    count, bb, (unsigned long long)ENCODE_MAX_OUT);

	in = io_open_read(o.file, &in_st);
	if (in < 0)
		return fail_errno(in, "cannot open", o.file);
	if ((ret = check_output(cmd, o.file, o.output, &out_st, &exists)))
		goto out;
	if (in_st.st_size == 0) {
		ret = fail(GFEC_EXIT_USAGE, "%s: %s is empty: nothing to encode", cmd, o.file);
		goto out;
	}
	seg_bytes = n * B;
	h.size = (uint64_t)in_st.st_size;
	h.segments = h.size / seg_bytes + (h.size % seg_bytes != 0);
	if (h.segments > UINT32_MAX) {
		ret = fail(GFEC_EXIT_USAGE,
			   "%s: %" PRIu64 " segments: at most 2^32 - 1; use a larger n * B", cmd,
			   h.segments);
		goto out;
	}
	h.blocks = h.segments * count;
	if (getrandom(&h.tag, sizeof(h.tag), 0) != sizeof(h.tag))
		h.tag = (uint32_t)(getpid() ^ (uint32_t)(io_now() * 1e9));
	if ((ret = nc_make_code(cmd, h.family, h.n, h.B, h.flags, 0, backend, h.lt_c, h.lt_delta,
				&nc)))
		goto out;
	per_step = ENCODE_STEP / seg_bytes ? ENCODE_STEP / seg_bytes : 1;
	if (per_step > h.segments)
		per_step = h.segments;
	if (per_step * count * bb > ENCODE_MAX_OUT)
		per_step = ENCODE_MAX_OUT / (count * bb) ? ENCODE_MAX_OUT / (count * bb) : 1;
	h.crc = malloc(sizeof(*h.crc) * h.segments);
	data = malloc(per_step * seg_bytes);
	blocks = malloc(per_step * count * bb);
	segs = malloc(sizeof(*segs) * per_step);
	sha = EVP_MD_CTX_new();
	if (!h.crc || !data || !blocks || !segs || !sha ||
	    !EVP_DigestInit_ex(sha, EVP_sha256(), NULL)) {
		ret = out_of_memory();
		goto out;
	}
	ret = io_tmp_open(&out, o.output);
	if (ret) {
		ret = fail_errno(ret, "cannot create", o.output);
		goto out;
	}
	wrote = ncs_head_bytes(h.segments);
	io_progress_start(&prog, "nc encode", h.size);
	for (uint64_t s0 = 0; s0 < h.segments; s0 += per_step) {
		uint64_t ns = h.segments - s0 < per_step ? h.segments - s0 : per_step;
		uint64_t at = s0 * seg_bytes, len = ns * seg_bytes;
		size_t got;

		if (len > h.size - at)
			len = h.size - at;
		ret = io_pread_full(in, data, (size_t)len, at, &got);
		if (!ret && got != len)
			ret = -EIO;
		if (ret) {
			ret = fail_errno(ret, "cannot read", o.file);
			goto out;
		}
		memset(data + len, 0, (size_t)(ns * seg_bytes - len));
		EVP_DigestUpdate(sha, data, (size_t)len);
		for (uint64_t s = 0; s < ns; s++) {
			segs[s].id = (uint64_t)h.tag << 32 | (s0 + s);
			segs[s].data = data + s * seg_bytes;
			h.crc[s0 + s] = io_crc_finish(
			    io_crc_update(IO_CRC_INIT, segs[s].data, (size_t)seg_bytes));
		}
		ret = gfec_nc_encode(nc, segs, (int)ns, (uint32_t)seed, (uint32_t)count, blocks,
				     (size_t)(ns * count * bb));
		if (ret) {
			ret = fail(GFEC_EXIT_INTERNAL, "%s: gfec_nc_encode: %s", cmd,
				   gfec_strerror(ret));
			goto out;
		}
		ret = io_pwrite_full(out.fd, blocks, (size_t)(ns * count * bb), wrote);
		if (ret) {
			ret = fail_errno(ret, "cannot write", out.tmp);
			goto out;
		}
		wrote += ns * count * bb;
		io_progress_update(&prog, at + len);
	}
	io_progress_end(&prog);
	if (!EVP_DigestFinal_ex(sha, h.sha256, NULL)) {
		ret = out_of_memory();
		goto out;
	}
	ret = ncs_write_header(out.fd, &h);
	if (!ret)
		ret = io_tmp_commit(&out, exists ? out_st.st_mode : in_st.st_mode & 0666);
	if (ret) {
		ret = fail_errno(ret, "cannot write", o.output);
		goto out;
	}
	io_sync_dir(o.output);
	printf("encoded %s -> %s: %s, %" PRIu64 " segment%s of n=%" PRIu64 " x B=%" PRIu64
	       ", %" PRIu64 " %s blocks each (",
	       o.file, o.output, amount(h.size, amt, sizeof(amt)), h.segments,
	       h.segments == 1 ? "" : "s", n, B, count, nc_family_name(h.family));
	if (h.family == GFEC_NC_LT)
		printf("c=%g delta=%g", h.lt_c / 1e6, h.lt_delta / 1e6);
	else
		printf("%s", h.flags & GFEC_NC_SYSTEMATIC ? "systematic" : "coded");
	gfec_nc_stats(nc, &gst);
	if (gst.gpu)
		printf("; %" PRIu64 " GPU call%s, %" PRIu64 " redone on the CPU", gst.gpu_calls,
		       gst.gpu_calls == 1 ? "" : "s", gst.fallbacks);
	printf(") in %.3f s\n", io_now() - t0);
	ret = GFEC_EXIT_OK;
out:
	io_tmp_abort(&out);
	if (in >= 0)
		close(in);
	gfec_nc_free(nc);
	EVP_MD_CTX_free(sha);
	free(h.crc);
	free(data);
	free(blocks);
	free(segs);
	return ret;
}

/* --- recode ----------------------------------------------------------------------------------- */

/* One segment's relay: what survived in @p d; writes count recoded blocks. */
static int relay_emit(const char *cmd, gfec_nc_decoder *d, uint64_t seed, uint64_t seg,
		      uint64_t count, uint8_t *buf, size_t bb, struct io_tmp *out, uint64_t *wrote,
		      uint64_t *blocks)
{
	/* The mix weights' seed: one per segment, far from its neighbours'. */
	uint64_t st = seed ^ (seg * 0xD1B54A32D192ED03ull);
	uint32_t s = (uint32_t)(nc_rand(&st) % ((1ull << 32) - count));
	int ret = gfec_nc_recode(d, s, (uint32_t)count, buf, (size_t)count * bb);

	if (ret)
		return fail(GFEC_EXIT_INTERNAL, "%s: gfec_nc_recode: %s", cmd, gfec_strerror(ret));
	ret = io_pwrite_full(out->fd, buf, (size_t)count * bb, *wrote);
	if (ret)
		return fail_errno(ret, "cannot write", out->tmp);
	*wrote += count * bb;
	*blocks += count;
	return 0;
}

static int nc_recode(int argc, char **argv)
{
	static const int allowed[] = {'o', OPT_COUNT, OPT_SEED, OPT_LOSS, 0};
	const char *cmd = "nc recode";
	struct nc_opts o = {0};
	struct ncs_reader r = {.fd = -1};
	struct ncs_header oh;
	struct io_tmp out = {0};
	struct io_progress prog;
	struct stat out_st;
	struct gfec_nc_block b;
	gfec_nc *nc = NULL;
	gfec_nc_decoder *d = NULL;
	uint8_t *buf = NULL;
	uint64_t count = 0, seed = 1, rng, wrote, cur = 0, in_seg = 0, seg, short_segs = 0;
	uint64_t got_in = 0, kept = 0;
	double loss = 0;
	size_t bb;
	int exists, ret, more, have = 0, started = 0;

	ret = nc_opts_parse(cmd, help_nc_recode, argc, argv, allowed, &o);
	if (ret >= 0)
		return ret;
	if (!o.loss)
		return fail(GFEC_EXIT_USAGE, "%s: --loss P is required (0 <= P < 1)", cmd);
	if ((ret = nc_parse_double(cmd, "--loss", o.loss, 0, 0.999999, &loss)) ||
	    (o.count && (ret = nc_parse_u64(cmd, "--count", o.count, 1, 1u << 20, &count))) ||
	    (o.seed && (ret = nc_parse_u64(cmd, "--seed", o.seed, 0, UINT64_MAX, &seed))))
		return ret;
	if ((ret = ncs_open(cmd, o.file, &r)))
		goto out;
	/* each hop its own losses, even with the same --seed */
	rng = seed ^ ((uint64_t)r.h.hops * 0xA0761D6478BD642Full);
	if ((ret = check_output(cmd, o.file, o.output, &out_st, &exists)))
		goto out;
	if (r.h.family == GFEC_NC_LT && o.count) {
		ret = fail(GFEC_EXIT_USAGE,
			   "%s: --count: an LT relay forwards what survives, it cannot make blocks",
			   cmd);
		goto out;
	}
	oh = r.h;
	oh.hops = r.h.hops + 1;
	oh.blocks = 0;
	bb = gfec_nc_header_bytes(GFEC_NC_KIND_COEF, r.h.n) + r.h.B;
	if (r.h.family == GFEC_NC_RLC) {
		/* The first relay takes the source's seeds, so it must share their coefficient
		 * range; behind it only coefficient-carrying blocks travel and it mixes 0..255. */
		uint32_t relay_flags =
		    r.h.hops == 0 ? r.h.flags & GFEC_NC_ZERO_COEFS : GFEC_NC_ZERO_COEFS;

		if ((ret = nc_make_code(cmd, r.h.family, r.h.n, r.h.B, relay_flags, 0,
					GFEC_NC_BACKEND_CPU, 0, 0, &nc)))
			goto out;
		if (count * bb > ENCODE_MAX_OUT) {
			ret = fail(GFEC_EXIT_USAGE,
				   "%s: --count %" PRIu64 ": over %llu bytes per segment", cmd,
				   count, (unsigned long long)ENCODE_MAX_OUT);
			goto out;
		}
	}
	ret = io_tmp_open(&out, o.output);
	if (ret) {
		ret = fail_errno(ret, "cannot create", o.output);
		goto out;
	}
	wrote = ncs_head_bytes(r.h.segments);
	io_progress_start(&prog, "nc recode", (uint64_t)r.st.st_size);
	do {
		more = ncs_next(&r, &b, &seg);
		if (more > 0) {
			ret = more;
			goto out;
		}
		if (have && (more < 0 || seg != cur)) {
			/* segment cur ends: its relay sends what it mixes */
			uint32_t rank = d ? gfec_nc_decoder_rank(d) : 0;
			uint64_t c = count ? count : in_seg;

			if (r.h.family == GFEC_NC_RLC && rank < r.h.n && short_segs++ < 5)
				warn("%s: segment %" PRIu64 ": the relay holds rank %" PRIu32
				     " of n=%" PRIu32 " after losses",
				     cmd, cur, rank, r.h.n);
			if (rank > 0 && c * bb > ENCODE_MAX_OUT) {
				ret = fail(GFEC_EXIT_USAGE,
					   "%s: segment %" PRIu64 ": %" PRIu64
					   " blocks to send, over %llu bytes; give --count",
					   cmd, cur, c, (unsigned long long)ENCODE_MAX_OUT);
				goto out;
			}
			if (rank > 0) {
				uint8_t *nb = realloc(buf, (size_t)c * bb);

				if (!nb) {
					ret = out_of_memory();
					goto out;
				}
				buf = nb;
				if ((ret = relay_emit(cmd, d, seed, cur, c, buf, bb, &out, &wrote,
						      &oh.blocks)))
					goto out;
			}
			gfec_nc_decoder_free(d);
			d = NULL;
			have = 0;
		}
		if (more < 0)
			break;
		if (!have) {
			if (started && seg <= cur) {
				ret =
				    fail(GFEC_EXIT_META,
					 "%s: %s: block %" PRIu64 ": segment %" PRIu64
					 " after segment %" PRIu64 "'s blocks: a stream holds each "
					 "segment's blocks together, in order",
					 cmd, o.file, r.index - 1, seg, cur);
				goto out;
			}
			cur = seg;
			have = started = 1;
			in_seg = 0;
		}
		in_seg++;
		got_in++;
		if (nc_rand_unit(&rng) < loss)
			continue;
		kept++;
		if (r.h.family == GFEC_NC_LT) {
			/* forwarded as it came */
			ret = io_pwrite_full(out.fd, r.buf, (size_t)b.bytes, wrote);
			if (ret) {
				ret = fail_errno(ret, "cannot write", out.tmp);
				goto out;
			}
			wrote += b.bytes;
			oh.blocks++;
			continue;
		}
		if (!d && (ret = gfec_nc_decoder_create(nc, b.segment, &d))) {
			ret = fail(GFEC_EXIT_INTERNAL, "%s: gfec_nc_decoder_create: %s", cmd,
				   gfec_strerror(ret));
			goto out;
		}
		ret = gfec_nc_decoder_add(d, r.buf, (size_t)b.bytes);
		if (ret < 0) {
			ret = fail(GFEC_EXIT_META, "%s: %s: block %" PRIu64 ": %s", cmd, o.file,
				   r.index - 1, gfec_strerror(ret));
			goto out;
		}
		io_progress_update(&prog, r.off);
	} while (1);
	io_progress_end(&prog);
	if (short_segs)
		warn("%s: %" PRIu64 " of %" PRIu64 " segments below rank n at the relay: %s cannot "
		     "give them back",
		     cmd, short_segs, r.h.segments, o.output);
	ret = ncs_write_header(out.fd, &oh);
	if (!ret)
		ret = io_tmp_commit(&out, exists ? out_st.st_mode : r.st.st_mode & 0666);
	if (ret) {
		ret = fail_errno(ret, "cannot write", o.output);
		goto out;
	}
	io_sync_dir(o.output);
	printf("recoded %s -> %s: %" PRIu64 " of %" PRIu64
	       " blocks survived (loss %.1f%%), %" PRIu64 " blocks %s, hop %" PRIu32 "\n",
	       o.file, o.output, kept, got_in, loss * 100, oh.blocks,
	       r.h.family == GFEC_NC_LT ? "forwarded" : "recoded", oh.hops);
	ret = GFEC_EXIT_OK;
out:
	io_tmp_abort(&out);
	gfec_nc_decoder_free(d);
	gfec_nc_free(nc);
	ncs_close(&r);
	free(buf);
	return ret;
}

/* --- decode ----------------------------------------------------------------------------------- */

/* Segment @p s decoded into @p seg: check its CRC32C, write its bytes of the file. */
static int segment_write(const char *cmd, struct ncs_reader *r, uint64_t s, const uint8_t *seg,
			 struct io_tmp *out, EVP_MD_CTX *sha)
{
	const uint64_t seg_bytes = (uint64_t)r->h.n * r->h.B, at = s * seg_bytes;
	size_t len = (size_t)(r->h.size - at < seg_bytes ? r->h.size - at : seg_bytes);
	uint32_t crc;
	int ret;

	crc = io_crc_finish(io_crc_update(IO_CRC_INIT, seg, (size_t)seg_bytes));
	if (crc != r->h.crc[s])
		return fail(GFEC_EXIT_META,
			    "%s: %s: segment %" PRIu64 " decodes to bytes whose CRC32C 0x%08" PRIx32
			    " is not the stream's 0x%08" PRIx32
			    ": one of its blocks is corrupt; nothing written",
			    cmd, r->path, s, crc, r->h.crc[s]);
	EVP_DigestUpdate(sha, seg, len);
	ret = io_pwrite_full(out->fd, seg, len, at);
	return ret ? fail_errno(ret, "cannot write", out->tmp) : 0;
}

/* Segment @p s is whole in @p d: read it, then segment_write(). */
static int segment_out(const char *cmd, struct ncs_reader *r, gfec_nc_decoder *d, uint64_t s,
		       uint8_t *seg, struct io_tmp *out, EVP_MD_CTX *sha)
{
	int ret = gfec_nc_decoder_read(d, seg, (size_t)r->h.n * r->h.B);

	if (ret)
		return fail(GFEC_EXIT_INTERNAL, "%s: gfec_nc_decoder_read: %s", cmd,
			    gfec_strerror(ret));
	return segment_write(cmd, r, s, seg, out, sha);
}

static int too_few(const char *cmd, struct ncs_reader *r, uint64_t s, uint32_t rank)
{
	if (r->h.family == GFEC_NC_LT && rank)
		return fail(GFEC_EXIT_TOOFEW,
			    "%s: %s: segment %" PRIu64 ": its blocks do not span the n=%" PRIu32
			    " sources; nothing written",
			    cmd, r->path, s, r->h.n);
	return fail(GFEC_EXIT_TOOFEW,
		    "%s: %s: segment %" PRIu64 " has %" PRIu32
		    " independent block%s, needs n=%" PRIu32 "; nothing written",
		    cmd, r->path, s, rank, rank == 1 ? "" : "s", r->h.n);
}

/* Batch mode: the blocks of up to BATCH_BYTES of segments in memory at once. */
#define BATCH_BYTES (64u << 20)

/* Segments gathered for one gfec_nc_decode_batch() call. */
struct batch {
	uint8_t *arena;	  /* the blocks, back to back */
	size_t used, cap; /* bytes of arena */
	size_t *off;	  /* each block's offset in arena (nb of them) */
	const uint8_t **ptr;
	size_t *len;
	uint32_t nb, nbcap;
	struct gfec_nc_batch_segment *segs;
	uint64_t *index; /* each segment's index in the stream */
	uint32_t *first; /* each segment's first block */
	int nseg, max;
	uint8_t *out; /* max segments */
};

static void batch_free(struct batch *bt)
{
	free(bt->arena);
	free(bt->off);
	free(bt->ptr);
	free(bt->len);
	free(bt->segs);
	free(bt->index);
	free(bt->first);
	free(bt->out);
}

/* Appends the block in r->buf to the last segment. @returns 0 or -1 (out of memory). */
static int batch_add(struct batch *bt, const struct ncs_reader *r, size_t bytes)
{
	if (bt->used + bytes > bt->cap) {
		size_t cap = (bt->used + bytes) * 2;
		uint8_t *a = realloc(bt->arena, cap);

		if (!a)
			return -1;
		bt->arena = a;
		bt->cap = cap;
	}
	if (bt->nb == bt->nbcap) {
		uint32_t cap = bt->nbcap ? bt->nbcap * 2 : 1024;
		size_t *off = realloc(bt->off, sizeof(*off) * cap);

		if (!off)
			return -1;
		bt->off = off;
		bt->nbcap = cap;
	}
	memcpy(bt->arena + bt->used, r->buf, bytes);
	bt->off[bt->nb++] = bt->used;
	bt->used += bytes;
	return 0;
}

/* Decodes the segments gathered, checks and writes each. @returns 0 or the exit code. */
static int batch_flush(const char *cmd, struct ncs_reader *r, gfec_nc *nc, struct batch *bt,
		       struct io_tmp *out, EVP_MD_CTX *sha, uint64_t *dependent)
{
	const size_t seg_bytes = (size_t)r->h.n * r->h.B;
	int ret;

	if (!bt->nseg)
		return 0;
	free(bt->ptr);
	free(bt->len);
	bt->ptr = malloc(sizeof(*bt->ptr) * bt->nb);
	bt->len = malloc(sizeof(*bt->len) * bt->nb);
	if (!bt->ptr || !bt->len)
		return out_of_memory();
	for (uint32_t i = 0; i < bt->nb; i++) {
		bt->ptr[i] = bt->arena + bt->off[i];
		bt->len[i] = (i + 1 < bt->nb ? bt->off[i + 1] : bt->used) - bt->off[i];
	}
	for (int i = 0; i < bt->nseg; i++) {
		uint32_t end = i + 1 < bt->nseg ? bt->first[i + 1] : bt->nb;

		bt->segs[i] =
		    (struct gfec_nc_batch_segment){.id = (uint64_t)r->h.tag << 32 | bt->index[i],
						   .blocks = bt->ptr + bt->first[i],
						   .lens = bt->len + bt->first[i],
						   .nblocks = end - bt->first[i],
						   .out = bt->out + (size_t)i * seg_bytes};
	}
	ret = gfec_nc_decode_batch(nc, bt->segs, bt->nseg);
	if (ret && ret != GFEC_E_TOOFEW)
		return fail(GFEC_EXIT_INTERNAL, "%s: gfec_nc_decode_batch: %s", cmd,
			    gfec_strerror(ret));
	for (int i = 0; i < bt->nseg; i++) {
		const struct gfec_nc_batch_segment *sg = &bt->segs[i];

		if (sg->status == GFEC_E_TOOFEW)
			return fail(GFEC_EXIT_TOOFEW,
				    "%s: %s: segment %" PRIu64 ": its %" PRIu32
				    " blocks span fewer than n=%" PRIu32
				    " dimensions; nothing written",
				    cmd, r->path, bt->index[i], sg->nblocks, r->h.n);
		if (sg->status)
			return fail(GFEC_EXIT_META, "%s: %s: segment %" PRIu64 ": %s", cmd, r->path,
				    bt->index[i], gfec_strerror(sg->status));
		*dependent += sg->dependent;
		if ((ret = segment_write(cmd, r, bt->index[i], sg->out, out, sha)))
			return ret;
	}
	bt->nseg = 0;
	bt->nb = 0;
	bt->used = 0;
	return 0;
}

/*
 * Decodes the whole stream in batches through gfec_nc_decode_batch (on the GPU with --backend
 * gpu). The same checks as the progressive path: segments in order, none missing or short.
 */
static int decode_batched(const char *cmd, struct ncs_reader *r, gfec_nc *nc, struct io_tmp *out,
			  EVP_MD_CTX *sha, uint64_t *dependent)
{
	const uint64_t seg_bytes = (uint64_t)r->h.n * r->h.B;
	struct batch bt = {0};
	struct gfec_nc_block b;
	struct io_progress prog;
	uint64_t next = 0, seg;
	int ret = 0, more;

	bt.max = BATCH_BYTES / seg_bytes ? (int)(BATCH_BYTES / seg_bytes) : 1;
	if ((uint64_t)bt.max > r->h.segments)
		bt.max = (int)r->h.segments;
	bt.segs = malloc(sizeof(*bt.segs) * bt.max);
	bt.index = malloc(sizeof(*bt.index) * bt.max);
	bt.first = malloc(sizeof(*bt.first) * bt.max);
	bt.out = malloc((size_t)(bt.max * seg_bytes));
	if (!bt.segs || !bt.index || !bt.first || !bt.out) {
		ret = out_of_memory();
		goto out;
	}
	io_progress_start(&prog, "nc decode", (uint64_t)r->st.st_size);
	while (!ret) {
		more = ncs_next(r, &b, &seg);
		if (more > 0) {
			ret = more;
			break;
		}
		if (more < 0) {
			ret = batch_flush(cmd, r, nc, &bt, out, sha, dependent);
			if (!ret && next < r->h.segments)
				ret = too_few(cmd, r, next, 0);
			break;
		}
		if (!(bt.nseg && seg == bt.index[bt.nseg - 1])) {
			if (seg < next) {
				ret =
				    fail(GFEC_EXIT_META,
					 "%s: %s: block %" PRIu64 ": segment %" PRIu64
					 " after segment %" PRIu64 "'s blocks: a stream holds each "
					 "segment's blocks together, in order",
					 cmd, r->path, r->index - 1, seg, next - 1);
				break;
			}
			if (seg > next) {
				ret = too_few(cmd, r, next, 0);
				break;
			}
			if (bt.nseg == bt.max &&
			    (ret = batch_flush(cmd, r, nc, &bt, out, sha, dependent)))
				break;
			bt.index[bt.nseg] = seg;
			bt.first[bt.nseg++] = bt.nb;
			next = seg + 1;
		}
		if (batch_add(&bt, r, (size_t)b.bytes))
			ret = out_of_memory();
		io_progress_update(&prog, r->off);
	}
	io_progress_end(&prog);
out:
	batch_free(&bt);
	return ret;
}

static int nc_decode(int argc, char **argv)
{
	static const int allowed[] = {'o', OPT_BACKEND, OPT_BATCH, 0};
	const char *cmd = "nc decode";
	struct nc_opts o = {0};
	struct ncs_reader r = {.fd = -1};
	struct io_tmp out = {0};
	struct io_progress prog;
	struct stat out_st;
	struct gfec_nc_block b;
	struct gfec_nc_decoder_stats ds;
	EVP_MD_CTX *sha = NULL;
	gfec_nc *nc = NULL;
	gfec_nc_decoder *d = NULL;
	uint8_t *seg_buf = NULL, digest[32];
	uint64_t next = 0, seg, extra = 0, dependent = 0;
	struct gfec_nc_stats ns;
	double t0 = io_now();
	char amt[32];
	int exists, ret, more, done = 0, backend = GFEC_NC_BACKEND_AUTO, batch;

	ret = nc_opts_parse(cmd, help_nc_decode, argc, argv, allowed, &o);
	if (ret >= 0)
		return ret;
	if (o.backend && (ret = nc_parse_backend(cmd, o.backend, &backend)))
		return ret;
	batch = o.batch || backend == GFEC_NC_BACKEND_GPU;
	if ((ret = ncs_open(cmd, o.file, &r)))
		goto out;
	if ((ret = check_output(cmd, o.file, o.output, &out_st, &exists)))
		goto out;
	/* Before any segment-sized allocation: a damaged or crafted header must not make us
	 * allocate what the file cannot fill, so a stream too short for the n blocks of even one
	 * segment ends here. */
	{
		const uint64_t least = (uint64_t)(r.h.n < 4 ? GFEC_NC_HEADER_FIXED + r.h.n : 28) +
				       r.h.B,
			       have = (uint64_t)r.st.st_size - ncs_head_bytes(r.h.segments);

		if (have / least < r.h.n) {
			ret = fail(GFEC_EXIT_TOOFEW,
				   "%s: %s: %" PRIu64 " bytes of blocks cannot hold the n=%" PRIu32
				   " blocks of a segment; nothing written",
				   cmd, o.file, have, r.h.n);
			goto out;
		}
	}
	if (backend == GFEC_NC_BACKEND_GPU && r.h.family == GFEC_NC_LT) {
		ret = fail(GFEC_EXIT_USAGE,
			   "%s: --backend gpu: an LT stream decodes on the CPU (gfec has no GPU LT "
			   "decoder; --batch decodes its segments in parallel on the CPU's threads)",
			   cmd);
		goto out;
	}
	if ((ret = nc_make_code(cmd, r.h.family, r.h.n, r.h.B, r.h.flags, 0, backend, r.h.lt_c,
				r.h.lt_delta, &nc)))
		goto out;
	seg_buf = malloc((size_t)r.h.n * r.h.B);
	sha = EVP_MD_CTX_new();
	if (!seg_buf || !sha || !EVP_DigestInit_ex(sha, EVP_sha256(), NULL)) {
		ret = out_of_memory();
		goto out;
	}
	ret = io_tmp_open(&out, o.output);
	if (ret) {
		ret = fail_errno(ret, "cannot create", o.output);
		goto out;
	}
	if (batch) {
		if ((ret = decode_batched(cmd, &r, nc, &out, sha, &dependent)))
			goto out;
		next = r.h.segments;
		goto decoded;
	}
	/* Segment next - 1 is in d (done: complete and written); next is the first not yet met. */
	io_progress_start(&prog, "nc decode", (uint64_t)r.st.st_size);
	do {
		more = ncs_next(&r, &b, &seg);
		if (more > 0) {
			ret = more;
			goto out;
		}
		if (more == 0 && seg + 1 < next) {
			ret = fail(GFEC_EXIT_META,
				   "%s: %s: block %" PRIu64 ": segment %" PRIu64
				   " after segment %" PRIu64 "'s blocks: a stream holds each "
				   "segment's blocks together, in order",
				   cmd, o.file, r.index - 1, seg, next - 1);
			goto out;
		}
		if (d && (more < 0 || seg != next - 1)) {
			if (!done) {
				ret = too_few(cmd, &r, next - 1, gfec_nc_decoder_rank(d));
				goto out;
			}
			gfec_nc_decoder_stats(d, &ds);
			dependent += ds.dependent;
			gfec_nc_decoder_free(d);
			d = NULL;
		}
		if (more < 0)
			break;
		if (!d) {
			if (seg > next) {
				ret = too_few(cmd, &r, next, 0);
				goto out;
			}
			ret = gfec_nc_decoder_create(nc, b.segment, &d);
			if (ret) {
				ret = fail(GFEC_EXIT_INTERNAL, "%s: gfec_nc_decoder_create: %s",
					   cmd, gfec_strerror(ret));
				goto out;
			}
			next = seg + 1;
			done = 0;
		}
		ret = gfec_nc_decoder_add(d, r.buf, (size_t)b.bytes);
		if (ret < 0) {
			ret = fail(GFEC_EXIT_META, "%s: %s: block %" PRIu64 ": %s", cmd, o.file,
				   r.index - 1, gfec_strerror(ret));
			goto out;
		}
		if (done) {
			extra++;
		} else if (ret == GFEC_NC_COMPLETE) {
			done = 1;
			if ((ret = segment_out(cmd, &r, d, seg, seg_buf, &out, sha)))
				goto out;
		}
		io_progress_update(&prog, r.off);
	} while (1);
	io_progress_end(&prog);
	if (next < r.h.segments) {
		ret = too_few(cmd, &r, next, 0);
		goto out;
	}
decoded:
	if (!EVP_DigestFinal_ex(sha, digest, NULL)) {
		ret = out_of_memory();
		goto out;
	}
	if (memcmp(digest, r.h.sha256, sizeof(digest)) != 0) {
		ret =
		    fail(GFEC_EXIT_META,
			 "%s: %s: the decoded file's SHA-256 is not the stream's; nothing written",
			 cmd, o.file);
		goto out;
	}
	ret = io_tmp_commit(&out, exists ? out_st.st_mode : r.st.st_mode & 0666);
	if (ret) {
		ret = fail_errno(ret, "cannot write", o.output);
		goto out;
	}
	io_sync_dir(o.output);
	printf("decoded %s -> %s: %s, %" PRIu64 " segments from %" PRIu64 " blocks (%" PRIu64
	       " dependent before completion",
	       o.file, o.output, amount(r.h.size, amt, sizeof(amt)), r.h.segments, r.index,
	       dependent - extra);
	gfec_nc_stats(nc, &ns);
	if (batch)
		printf("; batch decode, %" PRIu64 " GPU call%s, %" PRIu64 " redone on the CPU",
		       ns.gpu_calls, ns.gpu_calls == 1 ? "" : "s", ns.fallbacks);
	else
		printf(", %" PRIu64 " after", extra);
	printf(") in %.3f s\n", io_now() - t0);
	ret = GFEC_EXIT_OK;
out:
	io_tmp_abort(&out);
	gfec_nc_decoder_free(d);
	gfec_nc_free(nc);
	ncs_close(&r);
	EVP_MD_CTX_free(sha);
	free(seg_buf);
	return ret;
}

/* --- dispatch --------------------------------------------------------------------------------- */

int cmd_nc(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} sub[] = {
	    {"encode", nc_encode},
	    {"recode", nc_recode},
	    {"decode", nc_decode},
	    {"simulate", nc_simulate},
	};

	if (argc < 2)
		return fail(GFEC_EXIT_USAGE, "nc: no command given (see 'gfec nc --help')");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(help_nc, stdout);
		return GFEC_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++)
		if (strcmp(argv[1], sub[i].name) == 0)
			return sub[i].run(argc - 1, argv + 1);
	return fail(GFEC_EXIT_USAGE, "nc: unknown command '%s' (see 'gfec nc --help')", argv[1]);
}
