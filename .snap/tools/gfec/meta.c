/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file meta.c
 * FILE.gfec, the record of how FILE was cut into chunks. It is plain text so that a person can
 * read it and a script can grep it, and it carries its own CRC so that a damaged copy is
 * refused instead of steering a decode wrong:
 *
 *     gfec-meta 3
 *     k 4
 *     m 2
 *     technique cauchy
 *     w 8                          the field, GF(2^8) or GF(2^16)
 *     chunk_size 1048576
 *     size 4000000
 *     sha256 9f86d0...             SHA-256 of the original file, 64 lowercase hex digits
 *     crc32c 0 0x1c291ca3          one line per chunk, 0 .. k+m-1, in order
 *     ...
 *     meta_crc32c 0x5d0f2a61       CRC32C of every byte above this line
 *
 * The parser is strict (fixed order, single spaces, lowercase hex, no extra lines): the writer
 * is this file, so anything else is damage. Version 1 had no sha256 line and version 2 no w
 * line (both mean w = 8); they are still read, and meta->version tells the commands which checks
 * they can make.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

size_t meta_format(const struct gfec_meta *meta, char *buf, size_t buflen)
{
	size_t n = 0;
	int r;

/* Appends to buf while there is room, and counts what would be needed either way. */
#define PUT(...)                                                                                   \
	do {                                                                                       \
		r = snprintf(n < buflen ? buf + n : NULL, n < buflen ? buflen - n : 0,             \
			     __VA_ARGS__);                                                         \
		n += r > 0 ? (size_t)r : 0;                                                        \
	} while (0)

	if (buflen)
		buf[0] = '\0';
	PUT("gfec-meta %d\n", META_VERSION);
	PUT("k %d\n", meta->k);
	PUT("m %d\n", meta->m);
	PUT("technique %s\n", meta->technique);
	PUT("w %d\n", meta->w);
	PUT("chunk_size %" PRIu64 "\n", meta->chunk_size);
	PUT("size %" PRIu64 "\n", meta->size);
	PUT("sha256 ");
	for (int i = 0; i < SHA256_BYTES; i++)
		PUT("%02x", meta->sha256[i]);
	PUT("\n");
	for (int i = 0; i < meta->k + meta->m; i++)
		PUT("crc32c %d 0x%08" PRIx32 "\n", i, meta->crc[i]);
	if (n < buflen)
		PUT("meta_crc32c 0x%08" PRIx32 "\n",
		    io_crc_finish(io_crc_update(IO_CRC_INIT, buf, n)));
	else
		PUT("meta_crc32c 0x%08x\n", 0u);
#undef PUT
	return n;
}

static int corrupt(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int corrupt(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return META_CORRUPT;
}

/* A cursor over the text, one line at a time. */
struct lines {
	const char *p, *end;
	int no; /* 1-based number of the line last taken */
};

/* Takes the next line, without its '\n', into buf. @returns 0, or -1 if there is none whole. */
static int next_line(struct lines *l, char *buf, size_t buflen)
{
	const char *nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	size_t len;

	if (!nl)
		return -1;
	len = (size_t)(nl - l->p);
	if (len >= buflen || memchr(l->p, '\0', len))
		return -1;
	memcpy(buf, l->p, len);
	buf[len] = '\0';
	l->p = nl + 1;
	l->no++;
	return 0;
}

/* A decimal number with no sign, no leading zeros and nothing after it. */
static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

/* "0x" and exactly eight lowercase hex digits, as meta_format() writes them. */
static int parse_crc(const char *s, uint32_t *out)
{
	uint32_t v = 0;

	if (strncmp(s, "0x", 2) != 0 || strlen(s) != 10)
		return -1;
	for (s += 2; *s; s++) {
		int d = *s >= '0' && *s <= '9'	 ? *s - '0'
			: *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
						 : -1;

		if (d < 0)
			return -1;
		v = v << 4 | (uint32_t)d;
	}
	*out = v;
	return 0;
}

/* Exactly 2 x @p len lowercase hex digits, as meta_format() writes them. */
static int parse_hex(const char *s, uint8_t *out, size_t len)
{
	if (strlen(s) != 2 * len)
		return -1;
	for (size_t i = 0; i < 2 * len; i++) {
		int d = s[i] >= '0' && s[i] <= '9'   ? s[i] - '0'
			: s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10
						     : -1;

		if (d < 0)
			return -1;
		out[i / 2] = (uint8_t)(out[i / 2] << 4 | d);
	}
	return 0;
}

/* A line "key value": @returns value, or NULL when the key differs. */
static const char *value_of(const char *line, const char *key)
{
	size_t n = strlen(key);

	return strncmp(line, key, n) == 0 && line[n] == ' ' ? line + n + 1 : NULL;
}

static int field_u64(struct lines *l, const char *key, uint64_t *out, char *why, size_t whylen)
{
	char line[128];
	const char *v;

	if (next_line(l, line, sizeof(line)))
		return corrupt(why, whylen, "line %d: expected '%s N'", l->no + 1, key);
	v = value_of(line, key);
	if (!v || parse_u64(v, out))
		return corrupt(why, whylen, "line %d: expected '%s N'", l->no, key);
	return 0;
}

int meta_parse(const char *text, size_t len, struct gfec_meta *meta, char *why, size_t whylen)
{
	struct lines l = {text, text + len, 0};
	char line[128];
	const char *v, *crc_line;
	uint64_t x, k, m;
	uint32_t want, have;
	int i, ret;

	memset(meta, 0, sizeof(*meta));
	/* Check the CRC first: past it, every problem is a bug in the writer, not damage. */
	if (len == 0 || text[len - 1] != '\n')
		return corrupt(why, whylen, "truncated (no final newline)");
	crc_line = text + len - 1;
	while (crc_line > text && crc_line[-1] != '\n')
		crc_line--;
	/* text has no NUL: look only at bytes that are there (strncmp may read all 12) */
	if ((size_t)(text + len - crc_line) < 13 || (size_t)(text + len - crc_line) > 40 ||
	    memcmp(crc_line, "meta_crc32c ", 12) != 0)
		return corrupt(why, whylen, "last line is not 'meta_crc32c 0x...'");
	memcpy(line, crc_line + 12, (size_t)(text + len - crc_line) - 13);
	line[text + len - crc_line - 13] = '\0';
	if (parse_crc(line, &want))
		return corrupt(why, whylen, "last line is not 'meta_crc32c 0x...'");
	have = io_crc_finish(io_crc_update(IO_CRC_INIT, text, (size_t)(crc_line - text)));
	if (have != want)
		return corrupt(why, whylen,
			       "checksum mismatch (meta_crc32c 0x%08" PRIx32
			       ", contents 0x%08" PRIx32 ")",
			       want, have);
	l.end = crc_line;

	ret = field_u64(&l, "gfec-meta", &x, why, whylen);
	if (ret)
		return ret;
	if (x < 1 || x > META_VERSION)
		return corrupt(why, whylen,
			       "unsupported format version %" PRIu64 " (this gfec "
			       "reads versions 1 to %d)",
			       x, META_VERSION);
	meta->version = (int)x;
	ret = field_u64(&l, "k", &k, why, whylen);
	if (!ret)
		ret = field_u64(&l, "m", &m, why, whylen);
	if (ret)
		return ret;
	if (next_line(&l, line, sizeof(line)) || !(v = value_of(line, "technique")) || !*v ||
	    strlen(v) >= sizeof(meta->technique) ||
	    strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(v))
		return corrupt(why, whylen, "line %d: expected 'technique NAME'", l.no);
	strcpy(meta->technique, v);
	meta->w = 8;
	if (meta->version >= 3) {
		ret = field_u64(&l, "w", &x, why, whylen);
		if (ret)
			return ret;
		if (x != 8 && x != 16)
			return corrupt(
			    why, whylen,
			    "w=%" PRIu64 ": unknown field (this gfec reads w=8 and w=16)", x);
		meta->w = (int)x;
	}
	/* gfec.h's bounds (2 <= k, 1 <= m <= k, k+m <= 256, or 65536 for w=16), each checked
	 * before k + m is: two huge values would wrap into a small sum, and narrowing would keep
	 * their low bits. */
	if (k < 2 || k > GFEC_MAX_CHUNKS_GF16 || m < 1 || m > k ||
	    k + m > (uint64_t)meta_max_chunks(meta->w))
		return corrupt(why, whylen, "k=%" PRIu64 " m=%" PRIu64 " out of range for w=%d", k,
			       m, meta->w);
	meta->k = (int)k;
	meta->m = (int)m;

	ret = field_u64(&l, "chunk_size", &meta->chunk_size, why, whylen);
	if (!ret)
		ret = field_u64(&l, "size", &meta->size, why, whylen);
	if (ret)
		return ret;
	/* Every offset into FILE or a chunk must fit an off_t. */
	if (meta->chunk_size == 0 || meta->chunk_size > (uint64_t)INT64_MAX / (uint64_t)meta->k)
		return corrupt(why, whylen, "chunk_size %" PRIu64 " out of range for k=%d",
			       meta->chunk_size, meta->k);
	/* GF(2^16) symbols are 2 bytes: a w=16 chunk is a whole number of them. */
	if (meta->w == 16 && meta->chunk_size % 2)
		return corrupt(why, whylen,
			       "chunk_size %" PRIu64 " is odd, but w=16 chunks hold 2-byte symbols",
			       meta->chunk_size);
	if (meta->size > meta->chunk_size * (uint64_t)meta->k)
		return corrupt(why, whylen,
			       "size %" PRIu64 " does not fit k=%d chunks of %" PRIu64 " bytes",
			       meta->size, meta->k, meta->chunk_size);
	if (meta->version >= 2 &&
	    (next_line(&l, line, sizeof(line)) || !(v = value_of(line, "sha256")) ||
	     parse_hex(v, meta->sha256, sizeof(meta->sha256))))
		return corrupt(why, whylen, "line %d: expected 'sha256 HEX'", l.no);

	meta->crc = calloc((size_t)(meta->k + meta->m), sizeof(*meta->crc));
	if (!meta->crc)
		return -ENOMEM;
	for (i = 0; i < meta->k + meta->m; i++) {
		char *sp;

		if (next_line(&l, line, sizeof(line)) || !(v = value_of(line, "crc32c")) ||
		    !(sp = strchr(v, ' ')))
			goto bad_crc;
		*sp = '\0';
		if (parse_u64(v, &x) || x != (uint64_t)i || parse_crc(sp + 1, &meta->crc[i]))
			goto bad_crc;
	}
	if (l.p != l.end) {
		meta_free(meta);
		return corrupt(why, whylen, "line %d: unexpected text after the chunk list",
			       l.no + 1);
	}
	return 0;
bad_crc:
	meta_free(meta);
	return corrupt(why, whylen, "line %d: expected 'crc32c %d 0x...'", l.no, i);
}

void meta_free(struct gfec_meta *meta)
{
	free(meta->crc);
	meta->crc = NULL;
}

int meta_load(const char *path, struct gfec_meta *meta, char *why, size_t whylen)
{
	struct stat st;
	char *buf;
	size_t got;
	int fd, ret;

	fd = io_open_read(path, &st);
	if (fd < 0)
		return fd;
	/* One byte more than allowed, to tell "exactly the limit" from "too long". */
	buf = malloc(META_MAX_BYTES + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	ret = io_pread_full(fd, buf, META_MAX_BYTES + 1, 0, &got);
	close(fd);
	if (!ret)
		ret = got > META_MAX_BYTES
			  ? corrupt(why, whylen, "larger than %d bytes", META_MAX_BYTES)
			  : meta_parse(buf, got, meta, why, whylen);
	free(buf);
	return ret;
}
