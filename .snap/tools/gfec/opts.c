/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file opts.c
 * What every gfec command shares: its messages and exit codes, option parsing, the codec made
 * from options or metadata, and the size of the segments a command streams.
 */
#include <errno.h>
#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <gfec/gfec.h>

#include "cli.h"

/* Bytes per chunk per segment: big enough that the library's threads have work to share. */
#define SEG_MAX (4u << 20)
/* ...but all k+m segments together stay below this, however many chunks there are. */
#define SEG_BUDGET (64u << 20)

/* --- messages --------------------------------------------------------------------------------- */

/* Prints "gfec: <message>" on stderr. @returns @p code, so that callers can `return fail(...)`. */
int fail(int code, const char *fmt, ...)
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

void warn(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("gfec: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int fail_errno(int neg_errno, const char *what, const char *path)
{
	return fail(neg_errno == -ENOMEM ? GFEC_EXIT_INTERNAL : GFEC_EXIT_IO, "%s%s%s: %s", what,
		    *what ? " " : "", path, io_strerror(neg_errno));
}

int out_of_memory(void)
{
	return fail(GFEC_EXIT_INTERNAL, "out of memory");
}

/* Asking for an impossible code is a usage error; anything else the library refuses is its own. */
int lib_exit(int ret)
{
	return ret == GFEC_E_PROFILE || ret == GFEC_E_NOT_MDS ? GFEC_EXIT_USAGE
							      : GFEC_EXIT_INTERNAL;
}

/* --- options ---------------------------------------------------------------------------------- */

enum { OPT_BACKEND = 256, OPT_THREADS };

static const struct option long_opts[] = {
    {"k", required_argument, NULL, 'k'},
    {"m", required_argument, NULL, 'm'},
    {"w", required_argument, NULL, 'w'},
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
int one_word(const char *cmd, const char *opt, const char *name, const char *v)
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
int parse_opts(const char *cmd, const char *help, int argc, char **argv, const char *allowed,
		      int allowed_long, int min_files, int max_files, struct opts *o)
{
	char name[32];
	int c;

	opterr = 0; /* our messages, in our format */
	optind = 1;
	while ((c = getopt_long(argc, argv, ":k:m:w:t:o:rh", long_opts, NULL)) != -1) {
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
		case 'w':
			o->w = optarg;
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
int make_codec(const char *cmd, const struct opts *o, const char *k, const char *m, const char *w,
	       const char *technique, const char *where, gfec_codec **codec)
{
	char profile[256], err[256];
	int ret;

	if (strcmp(w, "8") != 0 && strcmp(w, "16") != 0)
		return fail(GFEC_EXIT_USAGE, "%s: %s-w %s: w must be 8 or 16", cmd, where, w);
	if ((ret = one_word(cmd, "-k", "k", k)) || (ret = one_word(cmd, "-m", "m", m)) ||
	    (ret = one_word(cmd, "-t", "technique", technique)) ||
	    (ret = one_word(cmd, "--backend", "backend", o->backend)) ||
	    (o->threads && (ret = one_word(cmd, "--threads", "threads", o->threads))))
		return ret;
	/* w=8 is the profile's default: left out, the profile is what it was before w=16 */
	snprintf(profile, sizeof(profile), "k=%s m=%s%s technique=%s backend=%s%s%s", k, m,
		 strcmp(w, "16") == 0 ? " w=16" : "", technique, o->backend,
		 o->threads ? " threads=" : "", o->threads ? o->threads : "");
	ret = gfec_codec_create(profile, codec, err, sizeof(err));
	if (ret)
		return fail(lib_exit(ret), "%s: %s%s", cmd, where, err);
	return 0;
}

/*
 * Bytes of each chunk handled per step. Every chunk size the codec gives is a multiple of its
 * smallest one (64 B, or a whole CRS block for cauchy_good), and so is every step.
 */
size_t seg_for(const gfec_codec *codec, uint64_t chunk_size, int n)
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

/* Descriptors beyond the chunks and those open now: FILE or OUT, the metadata, temp files. */
#define FILES_SPARE 32

/* Descriptors this process has open (/proc/self/fd, less the listing's own), 0 if unknown. */
static rlim_t files_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	rlim_t n = 0;

	if (!d)
		return 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n > 3 ? n - 3 : 0; /* ".", ".." and the listing's descriptor */
}

/*
 * Called after the codec exists, so that what the library holds (a GPU driver opens dozens of
 * descriptors: encode -k 300 -m 20 ran out at chunk 314 on the H200 host with 32 spare) counts.
 */
int reserve_files(const char *cmd, int n)
{
	const rlim_t need = (rlim_t)n + files_open() + FILES_SPARE;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= need)
		return 0;
	rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need ? rl.rlim_max : need;
	if (rl.rlim_cur < need || setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return fail(GFEC_EXIT_IO,
			    "%s: %d chunk files open at once need %llu file descriptors, over this "
			    "process's limit (ulimit -n; hard limit %llu)",
			    cmd, n, (unsigned long long)need, (unsigned long long)rl.rlim_max);
	return 0;
}

double mb_per_s(uint64_t bytes, double secs)
{
	return secs > 0 ? (double)bytes / 1e6 / secs : 0;
}

/* "1000 B" or "3.1 MB": a small file in MB reads as 0.0. */
const char *amount(uint64_t bytes, char *buf, size_t len)
{
	if (bytes < 1000000)
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	else
		snprintf(buf, len, "%.1f MB", (double)bytes / 1e6);
	return buf;
}
