/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file io.c
 * The file plumbing behind the gfec tool: reads and writes that finish what they start, CRC32C
 * over buffers of any size, temp files that are renamed into place only when complete (and
 * removed if the user interrupts us), and the progress line.
 */
#include <errno.h>
#include <fcntl.h>
#include <isa-l/crc.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* Redraw the progress line at most this often (seconds): terminals are slow. */
#define PROGRESS_PERIOD 0.2
/* Jobs smaller than this finish before a progress line would help. */
#define PROGRESS_MIN_BYTES (64ull << 20)

char *io_path(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

int io_open_read(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		err = -errno;
	} else if (!S_ISREG(st->st_mode)) {
		err = IO_E_NOT_REGULAR;
	} else {
		/* No effect on a regular file's reads; cleared so that none is ever assumed. */
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0)
			return fd;
		err = -errno;
	}
	close(fd);
	return err;
}

const char *io_strerror(int neg)
{
	return neg == IO_E_NOT_REGULAR ? "not a regular file" : strerror(-neg);
}

int io_pread_full(int fd, void *buf, size_t len, uint64_t off, size_t *got)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	*got = done;
	return 0;
}

int io_pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + done));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)r;
	}
	return 0;
}

int io_write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = write(fd, (const char *)buf + done, len - done);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)r;
	}
	return 0;
}

uint32_t io_crc_update(uint32_t state, const void *buf, size_t len)
{
	/* ISA-L takes an int length and a non-const pointer (it does not write through it). */
	unsigned char *p = (unsigned char *)buf;

	while (len) {
		int n = len > (size_t)INT_MAX / 2 ? INT_MAX / 2 : (int)len;

		state = crc32_iscsi(p, n, state);
		p += n;
		len -= (size_t)n;
	}
	return state;
}

/* --- temp files ------------------------------------------------------------------------------- */

/*
 * Temp names still to be removed if a signal kills us. Slots are filled with a complete string
 * before they become visible and cleared before the string is freed, so the handler only ever
 * sees whole names. k+m chunks, the metadata and an output file fit.
 */
#define TMP_SLOTS (GFEC_MAX_CHUNKS_GF16 + 8)
static char *volatile tmp_pending[TMP_SLOTS];
/* Where io_tmp_open() starts looking for a free slot: past the last one taken, so that opening
 * 65536 chunk files in a row does not scan the taken ones every time. */
static int tmp_next;

static void tmp_on_signal(int sig)
{
	for (int i = 0; i < TMP_SLOTS; i++)
		if (tmp_pending[i])
			unlink(tmp_pending[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void io_tmp_init(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tmp_on_signal;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static void tmp_forget(struct io_tmp *t)
{
	if (t->slot >= 0)
		tmp_pending[t->slot] = NULL;
	t->slot = -1;
	free(t->tmp);
	free(t->final);
	t->tmp = t->final = NULL;
	t->fd = -1;
}

int io_tmp_open(struct io_tmp *t, const char *final)
{
	int err = 0;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->slot = -1;
	t->final = io_path("%s", final);
	if (!t->final)
		return -ENOMEM;
	/* Our pid keeps two concurrent runs apart; the counter steps over a stale leftover. */
	for (int n = 0; n < 100 && t->fd < 0; n++) {
		free(t->tmp);
		t->tmp = n ? io_path("%s.tmp.%ld.%d", final, (long)getpid(), n)
			   : io_path("%s.tmp.%ld", final, (long)getpid());
		if (!t->tmp) {
			err = -ENOMEM;
			break;
		}
		/* Readable too: the commands read back what they wrote for its SHA-256. Private
		 * until io_tmp_commit() gives it its mode: it may hold a private file's bytes. */
		t->fd = open(t->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (t->fd < 0 && errno != EEXIST) {
			err = -errno;
			break;
		}
	}
	if (t->fd < 0) {
		tmp_forget(t);
		return err ? err : -EEXIST;
	}
	for (int n = 0; n < TMP_SLOTS; n++) {
		const int i = (tmp_next + n) % TMP_SLOTS;

		if (!tmp_pending[i]) {
			tmp_pending[i] = t->tmp;
			t->slot = i;
			tmp_next = (i + 1) % TMP_SLOTS;
			break;
		}
	}
	return 0;
}

int io_tmp_commit(struct io_tmp *t, mode_t mode)
{
	int err = 0;

	if (fchmod(t->fd, mode & 0777) < 0)
		err = -errno;
	if (!err && fsync(t->fd) < 0 && errno != EINVAL)
		err = -errno;
	if (close(t->fd) < 0 && !err)
		err = -errno;
	t->fd = -1;
	if (!err && rename(t->tmp, t->final) < 0)
		err = -errno;
	/* On failure the names stay, for the caller's message; io_tmp_abort() removes the file. */
	if (!err)
		tmp_forget(t);
	return err;
}

void io_tmp_abort(struct io_tmp *t)
{
	if (!t->final)
		return;
	if (t->fd >= 0)
		close(t->fd);
	unlink(t->tmp);
	tmp_forget(t);
}

void io_sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? io_path("%.*s", (int)(slash - path) + 1, path) : io_path(".");
	int fd;

	if (!dir)
		return;
	/* Best effort: the data is already safe in the files; this only makes the names durable. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* The directory part of @p path ("." if none) and its last component. @returns 0 or -1. */
static int split_path(const char *path, char **dir, const char **name)
{
	const char *slash = strrchr(path, '/');

	*name = slash ? slash + 1 : path;
	*dir = slash ? io_path("%.*s", (int)(slash - path) + 1, path) : io_path(".");
	return *dir ? 0 : -1;
}

int io_same_file(const char *a, const char *b)
{
	struct stat sa, sb, da, db;
	char *dir_a = NULL, *dir_b = NULL;
	const char *name_a, *name_b;
	int same = 0;

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (!split_path(a, &dir_a, &name_a) && !split_path(b, &dir_b, &name_b) &&
	    strcmp(name_a, name_b) == 0 && stat(dir_a, &da) == 0 && stat(dir_b, &db) == 0)
		same = da.st_dev == db.st_dev && da.st_ino == db.st_ino;
	free(dir_a);
	free(dir_b);
	return same;
}

/* --- time and progress ------------------------------------------------------------------------ */

double io_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void io_progress_start(struct io_progress *p, const char *what, uint64_t total)
{
	memset(p, 0, sizeof(*p));
	p->what = what;
	p->unit = "MB/s";
	p->scale = 1e6;
	p->total = total;
	p->t0 = p->last = io_now();
	/* A progress line in a log file or a pipe is only noise full of carriage returns. */
	p->on = total > PROGRESS_MIN_BYTES && isatty(STDERR_FILENO);
}

void io_progress_update(struct io_progress *p, uint64_t done)
{
	double t;

	if (!p->on)
		return;
	t = io_now();
	if (t - p->last < PROGRESS_PERIOD)
		return;
	p->last = t;
	if (done > p->total)
		done = p->total;
	fprintf(stderr, "\r%s: %3d%%  %.1f %s", p->what, (int)((double)done * 100 / (double)p->total),
		(double)done / p->scale / (t - p->t0), p->unit);
	if (done > 0) {
		double left = (double)(p->total - done) * (t - p->t0) / (double)done;
		unsigned secs = left < 1e7 ? (unsigned)(left + 0.5) : 9999999u;

		if (secs < 120)
			fprintf(stderr, ", %u s left", secs);
		else
			fprintf(stderr, ", %u min %02u s left", secs / 60, secs % 60);
	}
	fprintf(stderr, "\033[K");
	p->shown = 1;
}

void io_progress_end(struct io_progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	p->shown = 0;
}
