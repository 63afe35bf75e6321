/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc.h
 * What `gfec nc` (nc.c: encode, recode, decode; nc_sim.c: simulate) shares: the stream file that
 * carries a file's coded blocks, its reader, and the option helpers. Kept apart from cli.h, which
 * belongs to the erasure-coding commands.
 *
 * A stream, every integer little-endian:
 *
 *     offset  size  field
 *      0      8     magic "GFNCSTRM"
 *      8      2     version (2; 1 is read too: see below)
 *     10      1     family: 1 = RLC, 2 = LT (as the block format)
 *     11      1     the source code's flags (GFEC_NC_SYSTEMATIC, GFEC_NC_ZERO_COEFS)
 *     12      4     n
 *     16      4     B
 *     20      4     tag: a random number of the encode run; every block's segment id is
 *                   tag << 32 | segment index, so a block of another stream is told apart
 *     24      8     the file's size in bytes (>= 1)
 *     32      8     segments = ceil(size / (n * B)); the last one zero-padded
 *     40      8     blocks in the stream
 *     48      4     hops: how many recodes the blocks went through
 *     52      4     LT: the robust soliton's c in millionths (>= 1); RLC: 0
 *     56     32     SHA-256 of the file
 *     88      4     CRC32C of bytes 0..87, 92..95 and of the segment table (version 1:
 *                   0..87 and the table)
 *     92      4     LT: the robust soliton's delta in millionths (1..999999); RLC: 0
 *     96      4 x segments   the table: CRC32C of each segment's n * B decoded bytes
 *     then    the blocks, back to back (gfec_nc.h's block format), each segment's together and
 *             the segments in order
 *
 * c and delta are not in a block (gfec_nc.h) but set every LT block's neighbours, so the stream
 * carries them: a decoder needs nothing but the stream. Millionths, so that the defaults 0.03 and
 * 0.05 (30000 and 50000) give the very doubles the library's defaults are, and an option value
 * such as 0.1 gives the double that strtod gives. Version 1 streams had 0 at 52 and 92 and were
 * all encoded with the library's defaults: they are read with c = 0.03, delta = 0.05. Both values
 * are under the header's CRC and checked for range on input.
 */
#ifndef GFEC_CLI_NC_H
#define GFEC_CLI_NC_H

#include <stdint.h>
#include <sys/stat.h>

#include <gfec/gfec_nc.h>

#define NCS_MAGIC "GFNCSTRM"
#define NCS_VERSION 2
/* An LT stream's c and delta without options, and those of every version 1 stream: the
 * library's defaults (gfec_nc.h: lt_c 0 = 0.03, lt_delta 0 = 0.05), in millionths. */
#define NCS_LT_C_DEFAULT 30000u
#define NCS_LT_DELTA_DEFAULT 50000u
#define NCS_HEADER 96
/* The CLI's bound on a segment (n * B): its decoder holds about this much, twice in deferred
 * mode, and a stream header asking for more is refused before anything is allocated. */
#define NCS_MAX_SEGMENT (1ull << 30)

/** A stream's header, as read or to be written. */
struct ncs_header {
	int family;	/* enum gfec_nc_family */
	uint32_t flags; /* the source code's flags */
	uint32_t n, B, tag, hops;
	uint32_t lt_c, lt_delta; /* LT: c and delta in millionths; RLC: 0 */
	uint64_t size, segments, blocks;
	uint8_t sha256[32];
	uint32_t *crc; /* segments entries (malloc'ed) */
};

/** Bytes of the header and its segment table. */
static inline uint64_t ncs_head_bytes(uint64_t segments)
{
	return NCS_HEADER + 4 * segments;
}

/**
 * Writes @p h (header and table) at offset 0 of @p fd, its CRC computed here.
 * @returns 0 or -errno.
 */
int ncs_write_header(int fd, const struct ncs_header *h);

/** A stream open for reading, block by block. */
struct ncs_reader {
	const char *cmd, *path;
	int fd;
	struct stat st;
	struct ncs_header h;
	uint64_t off;	/* where the next block starts */
	uint64_t index; /* blocks read so far */
	uint8_t *buf;	/* one block */
	size_t cap;
};

/**
 * Opens @p path as a stream and checks its header and table (every field, the CRC, the sizes
 * against the file's). @returns 0, or the exit code after a one-line message.
 */
int ncs_open(const char *cmd, const char *path, struct ncs_reader *r);
/**
 * The next block: checked by gfec_nc_block_unpack(), then against the stream (family, n, B,
 * tag, segment in range). @returns 0 with *b (pointing into r->buf) and its segment index in
 * *seg; -1 at the end of a stream that holds all its header's blocks; or the exit code after a
 * one-line message that names the block and its offset.
 */
int ncs_next(struct ncs_reader *r, struct gfec_nc_block *b, uint64_t *seg);
void ncs_close(struct ncs_reader *r);

/* --- option values: each @returns 0, or exit 2 after saying what was wanted ------------------- */

int nc_parse_u64(const char *cmd, const char *opt, const char *v, uint64_t min, uint64_t max,
		 uint64_t *out);
int nc_parse_double(const char *cmd, const char *opt, const char *v, double min, double max,
		    double *out);
/** "rlc" or "lt" into enum gfec_nc_family. */
int nc_parse_family(const char *cmd, const char *v, int *family);
const char *nc_family_name(int family);
/** The largest n of a family's codes. */
uint32_t nc_max_n(int family);
/** A code of a family and shape (@p threads: 0 = the knob; @p backend: enum gfec_nc_backend;
 *  @p lt_c, @p lt_delta: LT's c and delta in millionths, 0 = the library's default; RLC: 0).
 *  @returns 0 or the exit code. */
int nc_make_code(const char *cmd, int family, uint32_t n, uint32_t B, uint32_t flags, int threads,
		 int backend, uint32_t lt_c, uint32_t lt_delta, gfec_nc **nc);
/** "auto", "cpu" or "gpu" into enum gfec_nc_backend. */
int nc_parse_backend(const char *cmd, const char *v, int *backend);

/** splitmix64: the CLI's loss and data generator (not the coefficients: those are the library's).
 */
static inline uint64_t nc_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/** A uniform double in [0, 1). */
static inline double nc_rand_unit(uint64_t *s)
{
	return (double)(nc_rand(s) >> 11) * 0x1.0p-53;
}

extern const char help_nc[], help_nc_simulate[];
int cmd_nc(int argc, char **argv);
int nc_simulate(int argc, char **argv);

#endif
