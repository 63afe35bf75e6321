/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file job.c
 * Reading an encoded file, for decode, verify and info: FILE.gfec, its codec, and every chunk
 * file opened and sized, then read a segment at a time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gfec/gfec.h>

#include "cli.h"

/* Users may name the metadata file instead of FILE; take them at their word when that is so. */
char *base_name(const char *arg)
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

int load_meta(const char *cmd, const char *base, struct gfec_meta *meta)
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
	c->mode = st.st_mode & 0777;
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
int chunk_read(struct job *j, int i, uint64_t off, size_t len)
{
	size_t got;
	int ret = io_pread_full(j->ck[i].fd, j->p[i], len, off, &got);

	if (ret || got < len) {
		chunk_lost(&j->ck[i], ret, off + got);
		return -1;
	}
	return 0;
}

void chunk_describe(const struct job *j, int i, char *buf, size_t len)
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

int chunk_bad(const struct chunk *c)
{
	return c->state != CK_UNCHECKED && c->state != CK_OK;
}

/*
 * Loads FILE.gfec, makes its codec and opens every chunk file (existence and size only).
 * @returns 0 or the exit code, after saying why.
 */
int job_open(struct job *j, const char *cmd, const struct opts *o)
{
	char k[16], m[16], w[16], *where;
	int n, ret;

	memset(j, 0, sizeof(*j));
	j->base = base_name(o->file);
	if (!j->base)
		return out_of_memory();
	ret = load_meta(cmd, j->base, &j->meta);
	if (ret)
		return ret;
	snprintf(k, sizeof(k), "%d", j->meta.k);
	snprintf(m, sizeof(m), "%d", j->meta.m);
	snprintf(w, sizeof(w), "%d", j->meta.w);
	where = io_path("%s.gfec: ", j->base);
	if (!where)
		return out_of_memory();
	ret = make_codec(cmd, o, k, m, w, j->meta.technique, where, &j->codec);
	free(where);
	if (ret)
		return ret;
	n = j->meta.k + j->meta.m;
	ret = reserve_files(cmd, n);
	if (ret)
		return ret;
	j->ck = calloc((size_t)n, sizeof(*j->ck));
	j->p = calloc((size_t)n, sizeof(*j->p));
	if (!j->ck || !j->p)
		return out_of_memory();
	j->k = j->meta.k;
	j->m = j->meta.m;
	j->n = n;
	for (int i = 0; i < n; i++)
		j->ck[i].fd = -1;
	j->S = j->meta.chunk_size;
	/* The CRC held, so a disagreement here is metadata from a different (or buggy) writer. */
	if (gfec_codec_chunk_size(j->codec, (size_t)j->meta.size) != j->S)
		return fail(GFEC_EXIT_META,
			    "%s: %s.gfec: corrupt metadata: chunk_size %" PRIu64
			    " is not what k=%d w=%d give for size %" PRIu64,
			    cmd, j->base, j->S, j->k, j->meta.w, j->meta.size);
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

void job_close(struct job *j)
{
	for (int i = 0; i < j->n; i++) {
		if (j->ck[i].fd >= 0)
			close(j->ck[i].fd);
		free(j->ck[i].path);
	}
	free(j->ck);
	free(j->p);
	meta_free(&j->meta);
	gfec_free(j->buf);
	gfec_codec_free(j->codec);
	free(j->base);
}
