/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file main.c
 * The gfec command: cut a file into k data + m parity chunk files and get it back from any k of
 * them. It makes the library usable from a shell, and it is a real program built on the public
 * API (gfec.h) alone, which keeps that API honest.
 *
 *   FILE --encode--> FILE.0 .. FILE.<k-1>       data: FILE cut in order, zero-padded at the end
 *                    FILE.<k> .. FILE.<k+m-1>   parity
 *                    FILE.gfec                  metadata: k, m, sizes, one CRC32C per chunk
 *
 * Every command streams: the same segment of every chunk goes through the library together,
 * so memory stays (k+m) x segment however large FILE is. Every file it writes appears under its
 * final name only when complete (temp file + rename).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gfec/gfec.h>
#include <gfec/gfec_config.h>

#include "cli.h"

/**
 * Exit codes; `gfec --help` lists them too, and scripts rely on them. 1 also covers running out
 * of memory and a rebuilt chunk that fails its CRC; 6 is 5 where wrong-sized chunks were among
 * those left out, which usually means a truncated copy rather than lost disks.
 */
enum gfec_exit {
	GFEC_EXIT_OK = 0,
	GFEC_EXIT_INTERNAL = 1, /* the library failed */
	GFEC_EXIT_USAGE = 2,	/* bad command line or profile */
	GFEC_EXIT_IO = 3,	/* a file could not be read or written */
	GFEC_EXIT_META = 4,	/* FILE.gfec is damaged */
	GFEC_EXIT_TOOFEW = 5,	/* fewer than k usable chunks */
	GFEC_EXIT_SIZE = 6,	/* fewer than k usable chunks, some of wrong size */
	GFEC_EXIT_VERIFY = 7,	/* verify found a problem */
	GFEC_EXIT_CLOBBER = 8,	/* an output would replace a file the command reads */
};

/* Bytes per chunk per segment: big enough that the library's threads have work to share. */
#define SEG_MAX (4u << 20)
/* ...but all k+m segments together stay below this, even for k+m = 256. */
#define SEG_BUDGET (64u << 20)

#ifndef GFEC_TOOL_VERSION
#define GFEC_TOOL_VERSION "unknown"
#endif

/* --- messages --------------------------------------------------------------------------------- */

static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "gfec: <message>" on stderr. @returns @p code, so that callers can `return fail(...)`. */
static int fail(int code, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("gfec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

static void warn(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("gfec: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int fail_errno(int neg_errno, const char *what, const char *path)
{
	return fail(neg_errno == -ENOMEM ? GFEC_EXIT_INTERNAL : GFEC_EXIT_IO, "%s%s%s: %s", what,
		    *what ? " " : "", path, io_strerror(neg_errno));
}

static int out_of_memory(void)
{
	return fail(GFEC_EXIT_INTERNAL, "out of memory");
}

/* Asking for an impossible code is a usage error; anything else the library refuses is its own. */
static int lib_exit(int ret)
{
	return ret == GFEC_E_PROFILE || ret == GFEC_E_NOT_MDS ? GFEC_EXIT_USAGE
							      : GFEC_EXIT_INTERNAL;
}

/* --- help ------------------------------------------------------------------------------------- */

static const char help_main[] =
    "usage: gfec COMMAND [OPTIONS] FILE\n"
    "\n"
    "Erasure-code FILE into k data and m parity chunk files (FILE.0 .. FILE.<k+m-1>) plus\n"
    "metadata (FILE.gfec), and get FILE back from any k intact chunks.\n"
    "\n"
    "commands:\n"
    "  encode   -k K -m M FILE      write the chunks and the metadata of FILE\n"
    "  decode   FILE [-o OUT]       rebuild FILE from its chunks (--repair: also the chunks)\n"
    "  verify   FILE                check every chunk's CRC32C and the parity\n"
    "  info     [FILE]              library, backend and CPUs; with FILE its metadata\n"
    "  tune     [OPTIONS]           tune GPU kernels and the CPU/GPU crossover into gfec.conf\n"
    "  help     [COMMAND]           this text, or a command's\n"
    "\n"
    "'gfec COMMAND --help' describes each command.\n"
    "\n"
    "exit codes:\n"
    "  0  success\n"
    "  1  internal or library error (also: out of memory; a rebuilt chunk or the decoded\n"
    "     file failed its checksum, so the metadata does not describe the chunks)\n"
    "  2  usage error (unknown option, bad k/m/technique/backend)\n"
    "  3  a file could not be read or written\n"
    "  4  corrupt metadata (FILE.gfec)\n"
    "  5  too few usable chunks to decode\n"
    "  6  too few usable chunks, and some were excluded because their size is wrong\n"
    "  7  verify found a problem\n"
    "  8  an output would replace a file the command reads (decode -o naming FILE.gfec or a\n"
    "     chunk, also through a link; encode of a FILE that is one of its own chunk names)\n";

static const char help_encode[] =
    "usage: gfec encode -k K -m M [-t TECHNIQUE] [--backend B] [--threads N] FILE\n"
    "\n"
    "Writes FILE.0 .. FILE.<K+M-1> and FILE.gfec. Every chunk has the same size S (FILE's size\n"
    "divided by K, rounded up to 64 bytes); data chunk i holds bytes [i*S, (i+1)*S) of FILE,\n"
    "zero-padded at the end, and chunks K .. K+M-1 hold the parity. FILE.gfec records K, M,\n"
    "the technique, S, FILE's size and SHA-256, and a CRC32C of every chunk. Existing files\n"
    "are replaced.\n"
    "\n"
    "  -k, --k K              data chunks (2 <= K, 1 <= M <= K, K+M <= 256)\n"
    "  -m, --m M              parity chunks: any M chunks may be lost\n"
    "  -t, --technique T      cauchy (default), reed_sol_van, jerasure_reed_sol_van or\n"
    "                         cauchy_good (Jerasure CRS, 2048-byte packets)\n"
    "      --backend B        auto (default), cpu or gpu\n"
    "      --threads N        CPU threads (default: all online CPUs)\n"
    "  -h, --help             this text\n";

static const char help_decode[] =
    "usage: gfec decode [-o OUT] [--repair] [--backend B] [--threads N] FILE\n"
    "\n"
    "Rebuilds FILE from FILE.gfec and its chunk files. A chunk is used only if it exists, has\n"
    "the right size and its CRC32C matches the metadata; each one that does not is reported on\n"
    "stderr. Any K good chunks are enough. Chunks are checked in order (data first) until K are\n"
    "found, so a damaged chunk beyond those may go unreported: 'gfec verify' checks them all.\n"
    "OUT is written only if every chunk used (read again to decode) or rebuilt matches its\n"
    "CRC32C and OUT matches FILE's SHA-256 (metadata written by gfec 0.1 has no SHA-256).\n"
    "\n"
    "  -o, --output OUT       where to write FILE's bytes; default FILE.decoded if FILE\n"
    "                         exists, else FILE itself\n"
    "  -r, --repair           also rewrite every missing or damaged chunk file (checks all\n"
    "                         chunks; the rebuilt ones must match the metadata's CRC32C)\n"
    "      --backend B        auto (default), cpu or gpu\n"
    "      --threads N        CPU threads (default: all online CPUs)\n"
    "  -h, --help             this text\n";

static const char help_verify[] =
    "usage: gfec verify [--backend B] [--threads N] FILE\n"
    "\n"
    "Checks every chunk of FILE against FILE.gfec: ok, missing, wrong size, unreadable or crc\n"
    "mismatch. When all K+M chunks are there it also recomputes the parity from the data and\n"
    "names each parity chunk that does not match. Exits 0 only if everything is right, and 7\n"
    "if anything is not.\n"
    "\n"
    "      --backend B        auto (default), cpu or gpu\n"
    "      --threads N        CPU threads (default: all online CPUs)\n"
    "  -h, --help             this text\n";

static const char help_info[] =
    "usage: gfec info [--backend B] [--threads N] [FILE]\n"
    "\n"
    "Prints the library version, the backend a default codec (k=4 m=2) runs on, the number\n"
    "of online CPUs, and every knob: its value and where it came from (profile, env VAR,\n"
    "FILE:LINE of gfec.conf, or default; the profile wins over the environment, the\n"
    "environment over gfec.conf). With FILE, also what FILE.gfec records.\n"
    "\n"
    "  --backend B            the default codec's backend: cpu, gpu or auto  [auto]\n"
    "  --threads N            its threads= profile key\n"
    "  -h, --help             this text\n";

static const char help_tune[] =
    "usage: gfec tune [OPTIONS]\n"
    "\n"
    "Runs 'gfec-perf tune' (installed next to gfec): times every compiled GPU kernel per\n"
    "(k,m) and chunk size, measures the CPU/GPU crossover, and writes the winners to\n"
    "~/.config/gfec/gfec.conf (or --config FILE). 'gfec tune --help' shows its options.\n";

static const char help_help[] = "usage: gfec help [COMMAND]\n"
				"\n"
				"Lists the commands and exit codes, or describes COMMAND.\n";

/* --- options ---------------------------------------------------------------------------------- */

struct opts {
	const char *k, *m, *technique, *backend, *threads, *output;
	int repair;
	const char *file;
};

enum { OPT_BACKEND = 256, OPT_THREADS };

static const struct option long_opts[] = {
    {"k", required_argument, NULL, 'k'},
    {"m", required_argument, NULL, 'm'},
    {"technique", required_argument, NULL, 't'},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"output", required_argument, NULL, 'o'},
    {"repair", no_argument, NULL, 'r'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/*
 * A value pasted into the profile must be one word: "-k '4 m=1'" would otherwise smuggle in a
 * key of its own.
 */
static int one_word(const char *cmd, const char *opt, const char *name, const char *v)
{
	if (*v && strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-") ==
		      strlen(v))
		return 0;
	return fail(GFEC_EXIT_USAGE, "%s: %s '%s': %s must be a single word or number", cmd, opt, v,
		    name);
}

/* How an option the command does not take was spelled, for the error message. */
static const char *option_name(int c, char *buf, size_t len)
{
	for (const struct option *lo = long_opts; lo->name; lo++)
		if (c == lo->val && c >= 256) {
			snprintf(buf, len, "--%s", lo->name);
			return buf;
		}
	snprintf(buf, len, "-%c", c);
	return buf;
}

/*
 * Parses a command's options: @p allowed lists the short options it takes, @p allowed_long
 * whether it takes --backend and --threads; it wants @p min_files to @p max_files FILEs.
 * @returns -1 to go on, or the exit code to leave with (0 after --help).
 */
static int parse_opts(const char *cmd, const char *help, int argc, char **argv, const char *allowed,
		      int allowed_long, int min_files, int max_files, struct opts *o)
{
	char name[32];
	int c;

	opterr = 0; /* our messages, in our format */
	optind = 1;
	while ((c = getopt_long(argc, argv, ":k:m:t:o:rh", long_opts, NULL)) != -1) {
		int ok = c < 256 ? strchr(allowed, c) != NULL : allowed_long;

		if (c == '?' || (c != ':' && !ok)) {
			const char *spelled = c != '?'	   ? option_name(c, name, sizeof(name))
					      : optopt > 0 ? option_name(optopt, name, sizeof(name))
							   : argv[optind - 1];

			return fail(GFEC_EXIT_USAGE,
				    "%s: unknown option '%s' (see 'gfec %s --help')", cmd, spelled,
				    cmd);
		}
		switch (c) {
		case ':':
			return fail(GFEC_EXIT_USAGE, "%s: option '%s' needs a value", cmd,
				    argv[optind - 1]);
		case 'h':
			fputs(help, stdout);
			return GFEC_EXIT_OK;
		case 'k':
			o->k = optarg;
			break;
		case 'm':
			o->m = optarg;
			break;
		case 't':
			o->technique = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'r':
			o->repair = 1;
			break;
		case OPT_BACKEND:
			o->backend = optarg;
			break;
		case OPT_THREADS:
			o->threads = optarg;
			break;
		}
	}
	if (argc - optind > max_files)
		return fail(GFEC_EXIT_USAGE, "%s: unexpected argument '%s' (see 'gfec %s --help')",
			    cmd, argv[optind + max_files], cmd);
	if (argc - optind < min_files)
		return fail(GFEC_EXIT_USAGE, "%s: no FILE given (see 'gfec %s --help')", cmd, cmd);
	o->file = optind < argc ? argv[optind] : NULL;
	return -1;
}

/* --- codec ------------------------------------------------------------------------------------ */

/* @p where prefixes the library's message, e.g. "FILE.gfec: " when k and m came from there. */
static int make_codec(const char *cmd, const struct opts *o, const char *k, const char *m,
		      const char *technique, const char *where, gfec_codec **codec)
{
	char profile[256], err[256];
	int ret;

	if ((ret = one_word(cmd, "-k", "k", k)) || (ret = one_word(cmd, "-m", "m", m)) ||
	    (ret = one_word(cmd, "-t", "technique", technique)) ||
	    (ret = one_word(cmd, "--backend", "backend", o->backend)) ||
	    (o->threads && (ret = one_word(cmd, "--threads", "threads", o->threads))))
		return ret;
	snprintf(profile, sizeof(profile), "k=%s m=%s technique=%s backend=%s%s%s", k, m, technique,
		 o->backend, o->threads ? " threads=" : "", o->threads ? o->threads : "");
	ret = gfec_codec_create(profile, codec, err, sizeof(err));
	if (ret)
		return fail(lib_exit(ret), "%s: %s%s", cmd, where, err);
	return 0;
}

/*
 * The codec's own name for its technique, as its normalised profile spells it, so that
 * metadata never records an alias; @p asked if the profile does not say.
 */
static void technique_of(const gfec_codec *codec, const char *asked, char *buf, size_t len)
{
	char profile[512];
	const char *t;

	gfec_codec_profile(codec, profile, sizeof(profile));
	t = strstr(profile, "technique=");
	if (t)
		snprintf(buf, len, "%.*s", (int)strcspn(t + 10, " ,"), t + 10);
	if (!t || !buf[0])
		snprintf(buf, len, "%s", asked);
}

/*
 * Bytes of each chunk handled per step. Every chunk size the codec gives is a multiple of its
 * smallest one (64 B, or a whole CRS block for cauchy_good), and so is every step.
 */
static size_t seg_for(const gfec_codec *codec, uint64_t chunk_size, int n)
{
	const size_t unit = gfec_codec_chunk_size(codec, 1);
	size_t seg = SEG_MAX;

	if ((uint64_t)seg * (uint64_t)n > SEG_BUDGET)
		seg = SEG_BUDGET / (size_t)n;
	seg = seg / unit * unit;
	if (seg == 0)
		seg = unit;
	return chunk_size < seg ? (size_t)chunk_size : seg;
}

static double mb_per_s(uint64_t bytes, double secs)
{
	return secs > 0 ? (double)bytes / 1e6 / secs : 0;
}

/* "1000 B" or "3.1 MB": a small file in MB reads as 0.0. */
static const char *amount(uint64_t bytes, char *buf, size_t len)
{
	if (bytes < 1000000)
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	else
		snprintf(buf, len, "%.1f MB", (double)bytes / 1e6);
	return buf;
}

/* --- encode ----------------------------------------------------------------------------------- */

static int cmd_encode(int argc, char **argv)
{
	struct opts o = {.technique = "cauchy", .backend = "auto"};
	struct io_tmp tmp[GFEC_MAX_CHUNKS + 1] = {0}; /* the chunks, then the metadata */
	uint8_t *buf = NULL, *p[GFEC_MAX_CHUNKS];
	gfec_codec *codec = NULL;
	struct gfec_meta *meta = NULL;
	struct io_progress prog;
	struct sha256_ctx sha;
	char *path = NULL, *text = NULL, num[32];
	uint64_t size, S, off;
	size_t seg, tlen;
	struct stat st;
	int k, m, n = 0, fd = -1, ret;
	double t0 = io_now();

	ret = parse_opts("encode", help_encode, argc, argv, "kmth", 1, 1, 1, &o);
	if (ret >= 0)
		return ret;
	if (!o.k || !o.m)
		return fail(GFEC_EXIT_USAGE, "encode: -k and -m are required");
	ret = make_codec("encode", &o, o.k, o.m, o.technique, "", &codec);
	if (ret)
		return ret;
	k = gfec_codec_k(codec);
	m = gfec_codec_m(codec);
	n = k + m;

	fd = io_open_read(o.file, &st);
	if (fd < 0) {
		ret = fail_errno(fd, "", o.file);
		goto out;
	}
	size = (uint64_t)st.st_size;
	S = gfec_codec_chunk_size(codec, (size_t)size);
	seg = seg_for(codec, S, n);
	buf = gfec_alloc(seg * (size_t)n);
	meta = calloc(1, sizeof(*meta));
	if (!buf || !meta) {
		ret = out_of_memory();
		goto out;
	}
	/* Each output is renamed over its name when complete: none may be FILE itself. */
	for (int i = 0; i <= n; i++) {
		free(path);
		path = i < n ? io_path("%s.%d", o.file, i) : io_path("%s.gfec", o.file);
		if (!path) {
			ret = out_of_memory();
			goto out;
		}
		if (io_same_file(path, o.file)) {
			ret = fail(GFEC_EXIT_CLOBBER, "encode: %s would replace %s, the file encoded",
				   path, o.file);
			goto out;
		}
	}
	for (int i = 0; i < n; i++) {
		p[i] = buf + (size_t)i * seg;
		meta->crc[i] = IO_CRC_INIT;
		free(path);
		path = io_path("%s.%d", o.file, i);
		if (!path) {
			ret = out_of_memory();
			goto out;
		}
		ret = io_tmp_open(&tmp[i], path);
		if (ret) {
			ret = fail_errno(ret, "cannot create", path);
			goto out;
		}
	}

	io_progress_start(&prog, "encode", (uint64_t)k * S);
	for (off = 0; off < S; off += seg) {
		size_t len = S - off < seg ? (size_t)(S - off) : seg;

		/* Data chunk i is FILE's bytes [i*S, (i+1)*S); past the end of FILE, zeros. */
		for (int i = 0; i < k; i++) {
			uint64_t at = (uint64_t)i * S + off;
			size_t want = at >= size ? 0 : size - at < len ? (size_t)(size - at) : len;
			size_t got = 0;

			ret = want ? io_pread_full(fd, p[i], want, at, &got) : 0;
			if (ret) {
				ret = fail_errno(ret, "cannot read", o.file);
				goto out;
			}
			if (got < want) {
				ret = fail(GFEC_EXIT_IO, "%s: file shrank while being encoded",
					   o.file);
				goto out;
			}
			memset(p[i] + got, 0, len - got);
		}
		ret = gfec_encode(codec, (const uint8_t *const *)p, p + k, len);
		if (ret) {
			ret = fail(GFEC_EXIT_INTERNAL, "encode: %s", gfec_strerror(ret));
			goto out;
		}
		for (int i = 0; i < n; i++) {
			meta->crc[i] = io_crc_update(meta->crc[i], p[i], len);
			ret = io_write_full(tmp[i].fd, p[i], len);
			if (ret) {
				ret = fail_errno(ret, "cannot write", tmp[i].tmp);
				goto out;
			}
		}
		io_progress_update(&prog, (uint64_t)k * (off + len));
	}
	io_progress_end(&prog);

	meta->k = k;
	meta->m = m;
	technique_of(codec, o.technique, meta->technique, sizeof(meta->technique));
	meta->chunk_size = S;
	meta->size = size;
	for (int i = 0; i < n; i++)
		meta->crc[i] = io_crc_finish(meta->crc[i]);
	/* FILE's SHA-256, from the data chunks as written (FILE in order): decode checks its
	 * output against it, so that metadata whose every CRC holds still cannot steer it wrong. */
	sha256_init(&sha);
	for (int i = 0; i < k && (uint64_t)i * S < size; i++) {
		uint64_t at = (uint64_t)i * S;

		ret = io_sha256_fd(&sha, tmp[i].fd, size - at < S ? size - at : S, buf, seg * (size_t)n);
		if (ret) {
			ret = fail_errno(ret, "cannot read back", tmp[i].tmp);
			goto out;
		}
	}
	sha256_digest(&sha, sizeof(meta->sha256), meta->sha256);
	tlen = meta_format(meta, NULL, 0);
	text = malloc(tlen + 1);
	free(path);
	path = io_path("%s.gfec", o.file);
	if (!text || !path) {
		ret = out_of_memory();
		goto out;
	}
	meta_format(meta, text, tlen + 1);
	ret = io_tmp_open(&tmp[n], path);
	if (!ret)
		ret = io_write_full(tmp[n].fd, text, tlen);
	if (ret) {
		ret = fail_errno(ret, "cannot write", path);
		goto out;
	}
	/* The metadata goes last: until it is renamed, an older FILE.gfec still describes (and its
	 * CRCs reject) whatever mix of chunks a crash left behind. */
	for (int i = 0; i <= n; i++) {
		ret = io_tmp_commit(&tmp[i]);
		if (ret) {
			ret = fail_errno(ret, "cannot write", tmp[i].final);
			goto out;
		}
	}
	io_sync_dir(o.file);
	printf("encoded %s: k=%d m=%d %s on %s, %d chunks of %" PRIu64 " B, %s in %.3f s "
	       "(%.1f MB/s)\n",
	       o.file, k, m, meta->technique, gfec_codec_backend(codec), n, S,
	       amount(size, num, sizeof(num)), io_now() - t0, mb_per_s(size, io_now() - t0));
	ret = GFEC_EXIT_OK;
out:
	for (int i = 0; i <= n && i <= GFEC_MAX_CHUNKS; i++)
		io_tmp_abort(&tmp[i]);
	if (fd >= 0)
		close(fd);
	free(text);
	free(path);
	free(meta);
	gfec_free(buf);
	gfec_codec_free(codec);
	return ret;
}

/* --- reading encoded files: shared by decode, verify and info --------------------------------- */

enum ck_state {
	CK_UNCHECKED, /* opened, right size, CRC not (yet) computed */
	CK_OK,
	CK_MISSING,
	CK_UNREADABLE,
	CK_WRONG_SIZE,
	CK_CORRUPT,
};

struct chunk {
	char *path;
	int fd;
	enum ck_state state;
	int err;       /* errno for CK_UNREADABLE */
	uint64_t size; /* actual size, for CK_WRONG_SIZE */
	uint32_t crc;  /* running, then final CRC32C */
};

struct job {
	char *base; /* FILE, the name the chunks hang off */
	struct gfec_meta meta;
	gfec_codec *codec;
	int k, m, n;
	uint64_t S;
	size_t seg;
	uint8_t *buf, *p[GFEC_MAX_CHUNKS];
	struct chunk ck[GFEC_MAX_CHUNKS];
};

/* Users may name the metadata file instead of FILE; take them at their word when that is so. */
static char *base_name(const char *arg)
{
	size_t len = strlen(arg);
	char *meta_path;
	int plain;

	if (len > 5 && strcmp(arg + len - 5, ".gfec") == 0) {
		meta_path = io_path("%s.gfec", arg);
		if (!meta_path)
			return NULL;
		plain = access(meta_path, F_OK) == 0;
		free(meta_path);
		if (!plain)
			return io_path("%.*s", (int)(len - 5), arg);
	}
	return io_path("%s", arg);
}

static int load_meta(const char *cmd, const char *base, struct gfec_meta *meta)
{
	char why[160], *path = io_path("%s.gfec", base);
	int ret;

	if (!path)
		return out_of_memory();
	ret = meta_load(path, meta, why, sizeof(why));
	if (ret == META_CORRUPT)
		ret = fail(GFEC_EXIT_META, "%s: %s: corrupt metadata: %s", cmd, path, why);
	else if (ret == -ENOENT)
		ret =
		    fail(GFEC_EXIT_IO, "%s: %s: no such file (was %s encoded with 'gfec encode'?)",
			 cmd, path, base);
	else if (ret)
		ret = fail_errno(ret, "", path);
	free(path);
	return ret;
}

static void chunk_open(struct chunk *c, uint64_t S)
{
	struct stat st;

	c->fd = io_open_read(c->path, &st);
	if (c->fd < 0) {
		c->err = -c->fd;
		c->state = c->fd == -ENOENT ? CK_MISSING : CK_UNREADABLE;
		c->fd = -1;
		return;
	}
	if ((uint64_t)st.st_size != S) {
		c->size = (uint64_t)st.st_size;
		c->state = CK_WRONG_SIZE;
	} else {
		c->state = CK_UNCHECKED;
		c->crc = IO_CRC_INIT;
		return;
	}
	close(c->fd);
	c->fd = -1;
}

/* A chunk that went bad while being read: closed, and marked unreadable or short. */
static void chunk_lost(struct chunk *c, int neg_errno, uint64_t size)
{
	c->state = neg_errno ? CK_UNREADABLE : CK_WRONG_SIZE;
	c->err = -neg_errno;
	c->size = size;
	close(c->fd);
	c->fd = -1;
}

/* Reads segment [off, off+len) of chunk i into job->p[i]. @returns 0, or -1 after chunk_lost(). */
static int chunk_read(struct job *j, int i, uint64_t off, size_t len)
{
	size_t got;
	int ret = io_pread_full(j->ck[i].fd, j->p[i], len, off, &got);

	if (ret || got < len) {
		chunk_lost(&j->ck[i], ret, off + got);
		return -1;
	}
	return 0;
}

static void chunk_describe(const struct job *j, int i, char *buf, size_t len)
{
	const struct chunk *c = &j->ck[i];

	switch (c->state) {
	case CK_UNCHECKED:
		snprintf(buf, len, "not checked");
		break;
	case CK_OK:
		snprintf(buf, len, "ok");
		break;
	case CK_MISSING:
		snprintf(buf, len, "missing");
		break;
	case CK_UNREADABLE:
		snprintf(buf, len, "unreadable (%s)", io_strerror(-c->err));
		break;
	case CK_WRONG_SIZE:
		snprintf(buf, len, "wrong size (%" PRIu64 " B, expected %" PRIu64 " B)", c->size,
			 j->S);
		break;
	case CK_CORRUPT:
		snprintf(buf, len,
			 "crc mismatch (crc32c 0x%08" PRIx32 ", expected 0x%08" PRIx32 ")", c->crc,
			 j->meta.crc[i]);
		break;
	}
}

static int chunk_bad(const struct chunk *c)
{
	return c->state != CK_UNCHECKED && c->state != CK_OK;
}

/*
 * Loads FILE.gfec, makes its codec and opens every chunk file (existence and size only).
 * @returns 0 or the exit code, after saying why.
 */
static int job_open(struct job *j, const char *cmd, const struct opts *o)
{
	char k[16], m[16], *where;
	int ret;

	memset(j, 0, sizeof(*j));
	for (int i = 0; i < GFEC_MAX_CHUNKS; i++)
		j->ck[i].fd = -1;
	j->base = base_name(o->file);
	if (!j->base)
		return out_of_memory();
	ret = load_meta(cmd, j->base, &j->meta);
	if (ret)
		return ret;
	snprintf(k, sizeof(k), "%d", j->meta.k);
	snprintf(m, sizeof(m), "%d", j->meta.m);
	where = io_path("%s.gfec: ", j->base);
	if (!where)
		return out_of_memory();
	ret = make_codec(cmd, o, k, m, j->meta.technique, where, &j->codec);
	free(where);
	if (ret)
		return ret;
	j->k = j->meta.k;
	j->m = j->meta.m;
	j->n = j->k + j->m;
	j->S = j->meta.chunk_size;
	/* The CRC held, so a disagreement here is metadata from a different (or buggy) writer. */
	if (gfec_codec_chunk_size(j->codec, (size_t)j->meta.size) != j->S)
		return fail(GFEC_EXIT_META,
			    "%s: %s.gfec: corrupt metadata: chunk_size %" PRIu64
			    " is not what k=%d gives for size %" PRIu64,
			    cmd, j->base, j->S, j->k, j->meta.size);
	j->seg = seg_for(j->codec, j->S, j->n);
	j->buf = gfec_alloc(j->seg * (size_t)j->n);
	if (!j->buf)
		return out_of_memory();
	for (int i = 0; i < j->n; i++) {
		j->p[i] = j->buf + (size_t)i * j->seg;
		j->ck[i].path = io_path("%s.%d", j->base, i);
		if (!j->ck[i].path)
			return out_of_memory();
		chunk_open(&j->ck[i], j->S);
	}
	return 0;
}

static void job_close(struct job *j)
{
	for (int i = 0; i < j->n; i++) {
		if (j->ck[i].fd >= 0)
			close(j->ck[i].fd);
		free(j->ck[i].path);
	}
	gfec_free(j->buf);
	gfec_codec_free(j->codec);
	free(j->base);
}

/* Streams chunk i through CRC32C and settles it as CK_OK or CK_CORRUPT (or lost). */
static void chunk_check(struct job *j, int i, struct io_progress *prog, uint64_t *done)
{
	struct chunk *c = &j->ck[i];

	for (uint64_t off = 0; off < j->S; off += j->seg) {
		size_t len = j->S - off < j->seg ? (size_t)(j->S - off) : j->seg;

		if (chunk_read(j, i, off, len))
			return;
		c->crc = io_crc_update(c->crc, j->p[i], len);
		*done += len;
		io_progress_update(prog, *done);
	}
	c->crc = io_crc_finish(c->crc);
	c->state = c->crc == j->meta.crc[i] ? CK_OK : CK_CORRUPT;
}

/* --- decode ----------------------------------------------------------------------------------- */

static int cmd_decode(int argc, char **argv)
{
	struct opts o = {.backend = "auto"};
	struct io_tmp out = {0}, fix[GFEC_MAX_CHUNKS] = {{0}};
	const uint8_t *have[GFEC_MAX_CHUNKS];
	uint8_t *want[GFEC_MAX_CHUNKS];
	char src[GFEC_MAX_CHUNKS] = {0}, rebuild[GFEC_MAX_CHUNKS] = {0}, what[128];
	char *out_path = NULL;
	struct io_progress prog;
	struct job j;
	uint32_t used_crc[GFEC_MAX_CHUNKS]; /* CRC32C of each chunk as this pass read or rebuilt it */
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256_ctx sha;
	uint64_t done = 0;
	int usable = 0, wrong_size = 0, nsrc = 0, nrebuild = 0, nfix = 0, ret;
	double t0 = io_now();

	ret = parse_opts("decode", help_decode, argc, argv, "orh", 1, 1, 1, &o);
	if (ret >= 0)
		return ret;
	ret = job_open(&j, "decode", &o);
	if (ret)
		goto out;
	if (o.output)
		out_path = io_path("%s", o.output);
	else
		out_path = access(j.base, F_OK) == 0 ? io_path("%s.decoded", j.base)
						     : io_path("%s", j.base);
	if (!out_path) {
		ret = out_of_memory();
		goto out;
	}
	/* OUT is renamed over its name at the end: never onto the metadata or a chunk, which this
	 * run reads (or, missing, --repair writes), however OUT spells or links to them. */
	for (int i = -1; i < j.n; i++) {
		char *in = i < 0 ? io_path("%s.gfec", j.base) : j.ck[i].path;

		if (!in) {
			ret = out_of_memory();
			goto out;
		}
		if (io_same_file(out_path, in)) {
			snprintf(what, sizeof(what), i < 0 ? "the metadata" : "chunk %d", i);
			ret = fail(GFEC_EXIT_CLOBBER, "decode: %s would replace %s, %s", out_path,
				   in, what);
		}
		if (i < 0)
			free(in);
		if (ret)
			goto out;
	}

	/* Data chunks first (they need no arithmetic), and only until k are known good, unless
	 * --repair needs to know the state of every chunk. */
	io_progress_start(&prog, "decode: checking", (uint64_t)(o.repair ? j.n : j.k) * j.S);
	for (int i = 0; i < j.n && (o.repair || usable < j.k); i++) {
		if (j.ck[i].state == CK_UNCHECKED)
			chunk_check(&j, i, &prog, &done);
		usable += j.ck[i].state == CK_OK;
	}
	io_progress_end(&prog);
	for (int i = 0; i < j.n; i++) {
		if (!chunk_bad(&j.ck[i]))
			continue;
		wrong_size += j.ck[i].state == CK_WRONG_SIZE;
		chunk_describe(&j, i, what, sizeof(what));
		warn("%s: chunk %d: %s; not used", j.ck[i].path, i, what);
	}
	if (usable < j.k) {
		ret = fail(wrong_size ? GFEC_EXIT_SIZE : GFEC_EXIT_TOOFEW,
			   "decode: %s: only %d of %d chunks usable, need k=%d%s", j.base, usable,
			   j.n, j.k, wrong_size ? " (some were excluded for their size)" : "");
		goto out;
	}

	for (int i = 0; i < j.n; i++) {
		used_crc[i] = IO_CRC_INIT;
		if (j.ck[i].state == CK_OK && nsrc < j.k) {
			src[i] = 1;
			nsrc++;
		} else if (i < j.k || (o.repair && chunk_bad(&j.ck[i]))) {
			rebuild[i] = 1;
			nrebuild++;
		}
		if (o.repair && chunk_bad(&j.ck[i])) {
			ret = io_tmp_open(&fix[i], j.ck[i].path);
			if (ret) {
				ret = fail_errno(ret, "cannot create", j.ck[i].path);
				goto out;
			}
			nfix++;
		}
	}

	ret = io_tmp_open(&out, out_path);
	if (ret) {
		ret = fail_errno(ret, "cannot create", out_path);
		goto out;
	}

	io_progress_start(&prog, "decode", (uint64_t)j.k * j.S);
	for (uint64_t off = 0; off < j.S; off += j.seg) {
		size_t len = j.S - off < j.seg ? (size_t)(j.S - off) : j.seg;

		for (int i = 0; i < j.n; i++) {
			have[i] = src[i] ? j.p[i] : NULL;
			want[i] = rebuild[i] ? j.p[i] : NULL;
			if (src[i] && chunk_read(&j, i, off, len)) {
				chunk_describe(&j, i, what, sizeof(what));
				ret = fail(GFEC_EXIT_IO,
					   "decode: %s: chunk %d became %s while being "
					   "decoded",
					   j.ck[i].path, i, what);
				goto out;
			}
		}
		if (nrebuild) {
			ret = gfec_decode(j.codec, have, want, len);
			if (ret) {
				ret = fail(GFEC_EXIT_INTERNAL, "decode: gfec_decode: %s",
					   gfec_strerror(ret));
				goto out;
			}
		}
		for (int i = 0; i < j.n; i++)
			if (src[i] || rebuild[i])
				used_crc[i] = io_crc_update(used_crc[i], j.p[i], len);
		for (int i = 0; i < j.k; i++) {
			uint64_t at = (uint64_t)i * j.S + off;

			if (at >= j.meta.size)
				break;
			ret = io_pwrite_full(
			    out.fd, j.p[i],
			    j.meta.size - at < len ? (size_t)(j.meta.size - at) : len, at);
			if (ret) {
				ret = fail_errno(ret, "cannot write", out.tmp);
				goto out;
			}
		}
		for (int i = 0; i < j.n; i++) {
			if (!fix[i].final)
				continue;
			ret = io_write_full(fix[i].fd, j.p[i], len);
			if (ret) {
				ret = fail_errno(ret, "cannot write", fix[i].tmp);
				goto out;
			}
		}
		io_progress_update(&prog, (uint64_t)j.k * (off + len));
	}
	io_progress_end(&prog);

	/* The check above read each chunk once and this pass read it again: only if the bytes
	 * decoded are the bytes checked does the check cover the output. */
	for (int i = 0; i < j.n; i++)
		if (src[i] && io_crc_finish(used_crc[i]) != j.meta.crc[i]) {
			ret = fail(GFEC_EXIT_IO,
				   "decode: %s: chunk %d changed while being decoded (crc32c "
				   "0x%08" PRIx32 ", was 0x%08" PRIx32 "); %s not written",
				   j.ck[i].path, i, io_crc_finish(used_crc[i]), j.meta.crc[i],
				   out_path);
			goto out;
		}

	/* A rebuilt chunk that disagrees with the metadata means wrong metadata or a bug, not bad
	 * luck: write nothing, neither the output nor another wrong chunk file. */
	for (int i = 0; i < j.n; i++)
		if (rebuild[i] && io_crc_finish(used_crc[i]) != j.meta.crc[i]) {
			ret = fail(GFEC_EXIT_INTERNAL,
				   "decode: %s: rebuilt chunk %d has crc32c "
				   "0x%08" PRIx32 ", metadata says 0x%08" PRIx32 "; %s not written",
				   j.ck[i].path, i, io_crc_finish(used_crc[i]), j.meta.crc[i],
				   out_path);
			goto out;
		}
	/* Every CRC held; the file as written must also be the one encode saw. */
	if (j.meta.version >= 2) {
		sha256_init(&sha);
		ret = io_sha256_fd(&sha, out.fd, j.meta.size, j.buf, j.seg * (size_t)j.n);
		if (ret) {
			ret = fail_errno(ret, "cannot read back", out.tmp);
			goto out;
		}
		sha256_digest(&sha, sizeof(digest), digest);
		if (memcmp(digest, j.meta.sha256, sizeof(digest)) != 0) {
			ret = fail(GFEC_EXIT_INTERNAL,
				   "decode: %s: the decoded file's sha256 differs from the "
				   "metadata's; %s not written",
				   j.base, out_path);
			goto out;
		}
	}
	ret = io_tmp_commit(&out);
	if (ret) {
		ret = fail_errno(ret, "cannot write", out_path);
		goto out;
	}
	for (int i = 0; i < j.n; i++) {
		if (!fix[i].final)
			continue;
		ret = io_tmp_commit(&fix[i]);
		if (ret) {
			ret = fail_errno(ret, "cannot write", fix[i].final);
			goto out;
		}
	}
	io_sync_dir(out_path);
	if (nfix)
		io_sync_dir(j.base);
	printf("decoded %s -> %s: %s from %d of %d chunks (%d rebuilt", j.base, out_path,
	       amount(j.meta.size, what, sizeof(what)), nsrc, j.n, nrebuild);
	if (o.repair)
		printf(", %d chunk file%s repaired", nfix, nfix == 1 ? "" : "s");
	printf(") in %.3f s (%.1f MB/s)\n", io_now() - t0, mb_per_s(j.meta.size, io_now() - t0));
	ret = GFEC_EXIT_OK;
out:
	io_tmp_abort(&out);
	for (int i = 0; i < GFEC_MAX_CHUNKS; i++)
		io_tmp_abort(&fix[i]);
	free(out_path);
	job_close(&j);
	return ret;
}

/* Appends chunk @p i to a short "2, 4, 5" list, ending it with "..." once full. */
static void list_add(char *list, size_t len, int i, int *count)
{
	size_t used = *count ? strlen(list) : 0;

	if (!*count)
		list[0] = '\0';
	(*count)++;
	if (used + 16 >= len) {
		if (!strstr(list, "..."))
			snprintf(list + used, len - used, ", ...");
		return;
	}
	snprintf(list + used, len - used, "%s%d", used ? ", " : "", i);
}

/* --- verify ----------------------------------------------------------------------------------- */

static int cmd_verify(int argc, char **argv)
{
	struct opts o = {.backend = "auto"};
	uint8_t parity_ok[GFEC_MAX_CHUNKS], seg_ok[GFEC_MAX_CHUNKS];
	char what[128];
	struct io_progress prog;
	struct job j;
	char list[64];
	int all, usable = 0, problems = 0, crc_bad = 0, ret;

	ret = parse_opts("verify", help_verify, argc, argv, "h", 1, 1, 1, &o);
	if (ret >= 0)
		return ret;
	ret = job_open(&j, "verify", &o);
	if (ret)
		goto out;

	/* One pass: each segment of every chunk feeds its CRC and, while all k+m are there, the
	 * parity check. */
	memset(parity_ok, 1, sizeof(parity_ok));
	all = 1;
	for (int i = 0; i < j.n; i++)
		all &= j.ck[i].state == CK_UNCHECKED;
	io_progress_start(&prog, "verify", (uint64_t)j.n * j.S);
	for (uint64_t off = 0; off < j.S; off += j.seg) {
		size_t len = j.S - off < j.seg ? (size_t)(j.S - off) : j.seg;

		for (int i = 0; i < j.n; i++) {
			if (j.ck[i].state != CK_UNCHECKED)
				continue;
			if (chunk_read(&j, i, off, len)) {
				all = 0;
				continue;
			}
			j.ck[i].crc = io_crc_update(j.ck[i].crc, j.p[i], len);
		}
		if (all) {
			ret = gfec_verify(j.codec, (const uint8_t *const *)j.p, len, seg_ok);
			if (ret && ret != GFEC_E_MISMATCH) {
				ret = fail(GFEC_EXIT_INTERNAL, "verify: gfec_verify: %s",
					   gfec_strerror(ret));
				goto out;
			}
			for (int i = 0; i < j.m; i++)
				parity_ok[i] &= seg_ok[i];
		}
		io_progress_update(&prog, (uint64_t)j.n * (off + len));
	}
	io_progress_end(&prog);
	for (int i = 0; i < j.n; i++)
		if (j.ck[i].state == CK_UNCHECKED) {
			j.ck[i].crc = io_crc_finish(j.ck[i].crc);
			j.ck[i].state = j.ck[i].crc == j.meta.crc[i] ? CK_OK : CK_CORRUPT;
		}

	printf("%s: k=%d m=%d %s, %d chunks of %" PRIu64 " B, size %" PRIu64 " B\n", j.base, j.k,
	       j.m, j.meta.technique, j.n, j.S, j.meta.size);
	for (int i = 0; i < j.n; i++) {
		chunk_describe(&j, i, what, sizeof(what));
		printf("chunk %d (%s) %s: %s\n", i, i < j.k ? "data" : "parity", j.ck[i].path,
		       what);
		if (j.ck[i].state == CK_OK) {
			usable++;
		} else {
			crc_bad += j.ck[i].state == CK_CORRUPT;
			list_add(list, sizeof(list), i, &problems);
		}
	}
	if (all) {
		int bad = 0;

		for (int i = 0; i < j.m; i++)
			if (!parity_ok[i]) {
				printf("parity: chunk %d (%s) does not match the data%s\n", j.k + i,
				       j.ck[j.k + i].path,
				       crc_bad ? " (expected while a chunk fails its CRC)" : "");
				/* Only news when every CRC held: stale parity under fresh metadata.
				 */
				if (!crc_bad)
					list_add(list, sizeof(list), j.k + i, &problems);
				bad++;
			}
		if (!bad)
			printf("parity: consistent with the data\n");
	} else {
		printf(
		    "parity: not checked (not all %d chunks are readable and of the right size)\n",
		    j.n);
	}
	printf("decodable: %s (%d of %d chunks usable, need k=%d)\n", usable >= j.k ? "yes" : "no",
	       usable, j.n, j.k);
	if (problems) {
		ret = fail(GFEC_EXIT_VERIFY, "verify: %s: problems in chunk%s %s", j.base,
			   problems == 1 ? "" : "s", list);
		goto out;
	}
	printf("verify %s: ok\n", j.base);
	ret = GFEC_EXIT_OK;
out:
	job_close(&j);
	return ret;
}

/* --- info ------------------------------------------------------------------------------------- */

static int cmd_info(int argc, char **argv)
{
	struct opts o = {.backend = "auto"};
	struct gfec_meta meta;
	gfec_codec *codec = NULL;
	char err[256], *base;
	int ret, status = GFEC_EXIT_OK;

	char profile[256], knobs[8192];

	ret = parse_opts("info", help_info, argc, argv, "h", 1, 0, 1, &o);
	if (ret >= 0)
		return ret;
	if ((ret = one_word("info", "--backend", "backend", o.backend)) ||
	    (o.threads && (ret = one_word("info", "--threads", "threads", o.threads))))
		return ret;
	snprintf(profile, sizeof(profile), "k=4 m=2 backend=%s%s%s", o.backend,
		 o.threads ? " threads=" : "", o.threads ? o.threads : "");
	printf("gfec tool %s, library %s\n", GFEC_TOOL_VERSION, gfec_version());
	ret = gfec_config_describe(profile, knobs, sizeof(knobs));
	if (ret)
		return fail(lib_exit(ret), "info: %s", knobs);
	ret = gfec_codec_create(profile, &codec, err, sizeof(err));
	if (ret) {
		printf("default backend: none (%s)\n", err);
		status = fail(GFEC_EXIT_INTERNAL, "info: a default codec cannot be made: %s", err);
	} else {
		printf("default backend: %s (k=4 m=2)\n", gfec_codec_backend(codec));
		gfec_codec_free(codec);
	}
	printf("online CPUs: %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	printf("knobs (profile > env > gfec.conf > default):\n%s", knobs);
	if (!o.file)
		return status;

	base = base_name(o.file);
	if (!base)
		return out_of_memory();
	ret = load_meta("info", base, &meta);
	if (!ret) {
		printf("file: %s\n", base);
		printf("metadata: %s.gfec\n", base);
		printf("k: %d\nm: %d\ntechnique: %s\n", meta.k, meta.m, meta.technique);
		printf("size: %" PRIu64 " B\nchunk size: %" PRIu64 " B\n", meta.size,
		       meta.chunk_size);
		if (meta.version >= 2) {
			printf("sha256: ");
			for (size_t i = 0; i < sizeof(meta.sha256); i++)
				printf("%02x", meta.sha256[i]);
			printf("\n");
		}
		for (int i = 0; i < meta.k + meta.m; i++)
			printf("chunk %d (%s) %s.%d: crc32c 0x%08" PRIx32 "\n", i,
			       i < meta.k ? "data" : "parity", base, i, meta.crc[i]);
	}
	free(base);
	return ret ? ret : status;
}

/* --- dispatch --------------------------------------------------------------------------------- */

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
};

/*
 * gfec tune is gfec-perf's tune mode: the sweep needs GPU memory and timing code that belongs in
 * perf/. Found next to this program (installed), or in the build tree's perf/ beside tools/.
 */
static int cmd_tune(int argc, char **argv)
{
	char self[4096], path[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash, **args;

	if (n <= 0)
		return fail(GFEC_EXIT_INTERNAL, "tune: cannot find my own path");
	self[n] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args)
		return out_of_memory();
	args[0] = (char *)"gfec-perf";
	for (int i = 0; i < argc; i++)
		args[i + 1] = argv[i]; /* argv[0] is "tune" */
	snprintf(path, sizeof(path), "%s/gfec-perf", self);
	execv(path, args);
	snprintf(path, sizeof(path), "%s/../perf/gfec-perf", self);
	execv(path, args);
	execvp("gfec-perf", args);
	free(args);
	return fail(GFEC_EXIT_INTERNAL, "tune: gfec-perf not found next to %s or on PATH", self);
}

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
    {"encode", cmd_encode, help_encode}, {"decode", cmd_decode, help_decode},
    {"verify", cmd_verify, help_verify}, {"info", cmd_info, help_info},
    {"tune", cmd_tune, help_tune}, {"help", cmd_help, help_help},
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(argc < 2 ? help_main : help_help, stdout);
		return GFEC_EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c)
		return fail(GFEC_EXIT_USAGE, "help: unknown command '%s' (see 'gfec --help')",
			    argv[1]);
	fputs(c->help, stdout);
	return GFEC_EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct command *c;

	io_tmp_init();
	if (argc < 2)
		return fail(GFEC_EXIT_USAGE, "no command given (see 'gfec --help')");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(help_main, stdout);
		return GFEC_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("gfec %s (library %s)\n", GFEC_TOOL_VERSION, gfec_version());
		return GFEC_EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c)
		return fail(GFEC_EXIT_USAGE, "%s '%s' (see 'gfec --help')",
			    argv[1][0] == '-' ? "unknown option" : "unknown command", argv[1]);
	/* The command sees itself as argv[0], as getopt expects. */
	return c->run(argc - 1, argv + 1);
}
