/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file cli.h
 * What the gfec commands (encode.c, decode.c, verify.c, info.c, tune.c, dispatched by main.c)
 * share: meta.c, the FILE.gfec format; io.c, the file plumbing every command needs (whole reads
 * and writes, CRC32C, SHA-256, crash-safe temp files, progress); opts.c, messages, exit codes,
 * options and the codec; job.c, reading an encoded file. meta.c and io.c report plain 0 / -errno;
 * only the commands (through opts.c) turn outcomes into exit codes.
 */
#ifndef GFEC_CLI_H
#define GFEC_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <gfec/gfec.h>

#include "gfec/gfec_limits.h" /* the chunks a metadata file lists: GFEC_MAX_CHUNKS(_GF16) */

/* --- io.c ------------------------------------------------------------------------------------- */

/** A malloc'ed printf result, or NULL when out of memory. */
char *io_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Not an errno: io_open_read()'s answer for a FIFO, a device, a directory, a socket. */
#define IO_E_NOT_REGULAR (-4096)

/**
 * Opens a regular file for reading, without blocking on anything else (a FIFO with no writer
 * would hold open() forever): O_NONBLOCK until fstat() has shown a regular file.
 * @returns the descriptor (with *st filled), -errno, or IO_E_NOT_REGULAR.
 */
int io_open_read(const char *path, struct stat *st);
/** strerror(), knowing IO_E_NOT_REGULAR too. @p neg: a negative code as io_*() return. */
const char *io_strerror(int neg);

/**
 * pread()s until @p len bytes or end of file. @returns 0 and *got (< len only at end of file),
 * or -errno.
 */
int io_pread_full(int fd, void *buf, size_t len, uint64_t off, size_t *got);
/** pwrite()s all @p len bytes. @returns 0 or -errno. */
int io_pwrite_full(int fd, const void *buf, size_t len, uint64_t off);
/** write()s all @p len bytes at the file position. @returns 0 or -errno. */
int io_write_full(int fd, const void *buf, size_t len);

/* CRC32C (Castagnoli, as iSCSI, ext4 and Ceph use it): state = IO_CRC_INIT, update, finish. */
#define IO_CRC_INIT 0xffffffffu
uint32_t io_crc_update(uint32_t state, const void *buf, size_t len);
static inline uint32_t io_crc_finish(uint32_t state)
{
	return state ^ 0xffffffffu;
}

/**
 * A file written under a temporary name next to its final one and renamed into place only when
 * complete, so that a crash or a failed command never leaves half a file under the final name.
 * Pending temp names are also removed when the process dies of SIGINT, SIGTERM or SIGHUP.
 */
struct io_tmp {
	char *final; /* NULL: not open */
	char *tmp;
	int fd;
	int slot; /* index in the signal handler's list */
};

/** Installs the signal handlers that remove pending temp files. Call once, early. */
void io_tmp_init(void);
/** Creates @p final's temp file, mode 0600 until committed. @returns 0 or -errno. */
int io_tmp_open(struct io_tmp *t, const char *final);
/**
 * Gives the temp file @p mode's permission bits (& 0777, umask aside), fsync()s, closes and
 * renames it over the final name. @returns 0, or -errno with t->final still set (for a message)
 * and the temp file left for io_tmp_abort().
 */
int io_tmp_commit(struct io_tmp *t, mode_t mode);
/** Closes and removes the temp file; a no-op on a zeroed or committed @p t. */
void io_tmp_abort(struct io_tmp *t);
/** fsync()s the directory holding @p path, so that renames into it are durable. */
void io_sync_dir(const char *path);

/**
 * Whether writing @p a would replace @p b: the same file (device and inode, links followed) when
 * both exist, else the same name in the same directory. Renaming onto a link replaces the link,
 * but an output that names an input through one is a mistake all the same.
 */
int io_same_file(const char *a, const char *b);


/** Monotonic seconds. */
double io_now(void);

/** A progress line on stderr, only when stderr is a terminal and the job is large. */
struct io_progress {
	const char *what;
	const char *unit; /* the rate's unit, "MB/s" unless the caller sets another */
	double scale;	  /* units of work per unit of the rate (1e6 for MB/s) */
	uint64_t total;
	double t0, last;
	int on, shown;
};

void io_progress_start(struct io_progress *p, const char *what, uint64_t total);
void io_progress_update(struct io_progress *p, uint64_t done);
/** Erases the progress line, if one was drawn. */
void io_progress_end(struct io_progress *p);

/* --- sha256.c -------------------------------------------------------------------------------- */

#define SHA256_BYTES 32

/**
 * The SHA-256 of bytes [0, lens[i]) of fds[i], for i = 0 .. n-1 in order, as one stream, read
 * through @p buf (@p buflen bytes) into @p digest. OpenSSL's libcrypto: it uses the CPU's SHA
 * instructions, at about 3.5x nettle's speed on the machines gfec targets.
 * @returns 0, -errno, -EIO if a file ends early, or -ENOMEM.
 */
int sha256_files(const int *fds, const uint64_t *lens, int n, void *buf, size_t buflen,
		 uint8_t digest[SHA256_BYTES]);

/* One SHA-256 fed piece by piece, for bytes that come from no single file (verify's decode). */
/** A new digest, or NULL when out of memory. */
void *sha256_begin(void);
/** Adds @p len bytes. @returns 0 or -ENOMEM. */
int sha256_update(void *ctx, const void *buf, size_t len);
/** The digest into @p digest (NULL: discarded), and frees @p ctx. @returns 0 or -ENOMEM. */
int sha256_end(void *ctx, uint8_t digest[SHA256_BYTES]);

/* --- meta.c ----------------------------------------------------------------------------------- */

/* meta_load() refuses anything larger: 65536 chunks (w = 16) need under 1.6 MiB. */
#define META_MAX_BYTES (2 << 20)
/* meta_load()'s answer when the file was read but is not valid metadata. */
#define META_CORRUPT 1

/* The version meta_format() writes; meta_parse() reads it and every older one. */
#define META_VERSION 3

/** FILE.gfec: how FILE was cut into FILE.0 ... FILE.<k+m-1>. */
struct gfec_meta {
	int version; /* 1: no sha256; 2: sha256; 3: sha256 and w */
	int w;	     /* the field, GF(2^w): 8 or 16 (8 in versions 1 and 2) */
	int k, m;
	char technique[32];
	uint64_t chunk_size;	      /* bytes in every chunk file */
	uint64_t size;		      /* bytes in the original file */
	uint8_t sha256[SHA256_BYTES]; /* of the original file (version >= 2) */
	uint32_t *crc;		      /* k+m: CRC32C of each whole chunk file (malloc'ed) */
};

/** The most chunks a code over GF(2^w) has (w = 8 or 16). */
static inline int meta_max_chunks(int w)
{
	return w == 16 ? GFEC_MAX_CHUNKS_GF16 : GFEC_MAX_CHUNKS;
}

/**
 * Writes @p meta as text into @p buf, as version META_VERSION whatever meta->version says
 * (NUL-terminated, at most @p buflen bytes).
 * @returns the length it needs, excluding the NUL.
 */
size_t meta_format(const struct gfec_meta *meta, char *buf, size_t buflen);
/**
 * Parses metadata text into a fresh @p meta, whose crc array it allocates when it succeeds (free
 * it with meta_free()). @returns 0, META_CORRUPT with a one-line reason in @p why, or -ENOMEM.
 */
int meta_parse(const char *text, size_t len, struct gfec_meta *meta, char *why, size_t whylen);
/**
 * Reads and parses @p path (as meta_parse()). @returns 0, -errno or IO_E_NOT_REGULAR when it
 * cannot be read, or META_CORRUPT with a reason in @p why.
 */
int meta_load(const char *path, struct gfec_meta *meta, char *why, size_t whylen);
/** Frees meta->crc; a zeroed @p meta is fine. */
void meta_free(struct gfec_meta *meta);

/* --- opts.c: what every command shares ------------------------------------------------------- */

#ifndef GFEC_TOOL_VERSION
#define GFEC_TOOL_VERSION "unknown"
#endif

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

/** Prints "gfec: <message>" on stderr. @returns @p code, so that callers can `return fail(...)`. */
int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Prints "gfec: warning: <message>" on stderr. */
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** "WHAT PATH: reason" for a -errno (or IO_E_NOT_REGULAR): exit 3, or 1 when out of memory. */
int fail_errno(int neg_errno, const char *what, const char *path);
int out_of_memory(void);
/** The exit code for a GFEC_E_* the library returned while making a codec. */
int lib_exit(int ret);

/** A command's options, as given (NULL: not given). */
struct opts {
	const char *k, *m, *w, *technique, *backend, *threads, *output;
	int repair;
	const char *file;
};

/** Refuses (exit 2) a value that is not one word, before it is pasted into a profile. */
int one_word(const char *cmd, const char *opt, const char *name, const char *v);
/**
 * Parses a command's options: @p allowed lists the short options it takes, @p allowed_long
 * whether it takes --backend and --threads; it wants @p min_files to @p max_files FILEs.
 * @returns -1 to go on, or the exit code to leave with (0 after --help).
 */
int parse_opts(const char *cmd, const char *help, int argc, char **argv, const char *allowed,
	       int allowed_long, int min_files, int max_files, struct opts *o);
/**
 * A codec for k, m, w (8 or 16), technique and o's backend and threads. @returns 0 or the exit
 * code.
 */
int make_codec(const char *cmd, const struct opts *o, const char *k, const char *m, const char *w,
	       const char *technique, const char *where, gfec_codec **codec);
/** Bytes of each of @p n chunks handled per step. */
size_t seg_for(const gfec_codec *codec, uint64_t chunk_size, int n);
double mb_per_s(uint64_t bytes, double secs);
/**
 * Makes room for @p n more open files (a code over GF(2^16) may have 65536 chunk files, all open
 * at once): raises the soft limit towards the hard one. @returns 0 or the exit code, after
 * saying why.
 */
int reserve_files(const char *cmd, int n);
/** "1000 B" or "3.1 MB". */
const char *amount(uint64_t bytes, char *buf, size_t len);

/* --- job.c: reading an encoded file (decode, verify, info) ------------------------------------ */

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
	mode_t mode;   /* permission bits, when it could be opened; else 0 */
	uint32_t crc;  /* running, then final CRC32C */
};

struct job {
	char *base; /* FILE, the name the chunks hang off */
	struct gfec_meta meta;
	gfec_codec *codec;
	int k, m, n;
	uint64_t S;
	size_t seg;
	uint8_t *buf, **p; /* p[i]: chunk i's segment in buf, i < n */
	struct chunk *ck;  /* n */
};

/** FILE from what the user named (FILE or FILE.gfec). NULL when out of memory. */
char *base_name(const char *arg);
/** Loads BASE.gfec. @returns 0 or the exit code, after saying why. */
int load_meta(const char *cmd, const char *base, struct gfec_meta *meta);
/** Reads segment [off, off+len) of chunk i into j->p[i]. @returns 0, or -1 with the chunk lost. */
int chunk_read(struct job *j, int i, uint64_t off, size_t len);
/** The chunk's state in words: "ok", "missing", "crc mismatch (...)"... */
void chunk_describe(const struct job *j, int i, char *buf, size_t len);
/** Whether the chunk is known to be unusable. */
int chunk_bad(const struct chunk *c);
/** Loads FILE.gfec, makes its codec and opens every chunk. @returns 0 or the exit code. */
int job_open(struct job *j, const char *cmd, const struct opts *o);
void job_close(struct job *j);

/* --- the commands, one file each: run with argv[0] the command's name ------------------------- */

extern const char help_encode[], help_decode[], help_verify[], help_info[], help_tune[],
    help_weights[];
int cmd_encode(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_weights(int argc, char **argv);

#endif
