/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file cli.h
 * What main.c (the commands) shares with its two helpers: meta.c, the FILE.gfec format, and io.c,
 * the file plumbing every command needs (whole reads and writes, CRC32C, crash-safe temp files,
 * progress). The helpers report plain 0 / -errno; only main.c turns outcomes into exit codes.
 */
#ifndef GFEC_CLI_H
#define GFEC_CLI_H

#include <nettle/sha2.h>
#include <stddef.h>
#include <stdint.h>

#include "gfec/gfec_limits.h" /* GFEC_MAX_CHUNKS bounds the chunks a metadata file lists */
#include <sys/stat.h>

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
/** Creates @p final's temp file. @returns 0 or -errno. */
int io_tmp_open(struct io_tmp *t, const char *final);
/**
 * fsync()s, closes and renames the temp file over the final name. @returns 0, or -errno with
 * t->final still set (for a message) and the temp file left for io_tmp_abort().
 */
int io_tmp_commit(struct io_tmp *t);
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

/**
 * Feeds bytes [0, @p len) of @p fd to @p sha, read through @p buf (@p buflen bytes).
 * @returns 0, -errno, or -EIO if the file ends before @p len.
 */
int io_sha256_fd(struct sha256_ctx *sha, int fd, uint64_t len, void *buf, size_t buflen);

/** Monotonic seconds. */
double io_now(void);

/** A progress line on stderr, only when stderr is a terminal and the job is large. */
struct io_progress {
	const char *what;
	uint64_t total;
	double t0, last;
	int on, shown;
};

void io_progress_start(struct io_progress *p, const char *what, uint64_t total);
void io_progress_update(struct io_progress *p, uint64_t done);
/** Erases the progress line, if one was drawn. */
void io_progress_end(struct io_progress *p);

/* --- meta.c ----------------------------------------------------------------------------------- */

/* meta_load() refuses anything larger: even 256 chunks need under 8 KiB. */
#define META_MAX_BYTES 65536
/* meta_load()'s answer when the file was read but is not valid metadata. */
#define META_CORRUPT 1

/* The version meta_format() writes; meta_parse() reads it and every older one. */
#define META_VERSION 2

/** FILE.gfec: how FILE was cut into FILE.0 ... FILE.<k+m-1>. */
struct gfec_meta {
	int version; /* 1: no sha256; 2: sha256 */
	int k, m;
	char technique[32];
	uint64_t chunk_size;	       /* bytes in every chunk file */
	uint64_t size;		       /* bytes in the original file */
	uint8_t sha256[SHA256_DIGEST_SIZE]; /* of the original file (version >= 2) */
	uint32_t crc[GFEC_MAX_CHUNKS]; /* CRC32C of each whole chunk file */
};

/**
 * Writes @p meta as text into @p buf, as version META_VERSION whatever meta->version says (NUL-terminated, at most @p buflen bytes).
 * @returns the length it needs, excluding the NUL.
 */
size_t meta_format(const struct gfec_meta *meta, char *buf, size_t buflen);
/**
 * Parses metadata text. @returns 0, or META_CORRUPT with a one-line reason in @p why.
 */
int meta_parse(const char *text, size_t len, struct gfec_meta *meta, char *why, size_t whylen);
/**
 * Reads and parses @p path. @returns 0, -errno or IO_E_NOT_REGULAR when it cannot be read, or
 * META_CORRUPT with a reason in @p why.
 */
int meta_load(const char *path, struct gfec_meta *meta, char *why, size_t whylen);

#endif
