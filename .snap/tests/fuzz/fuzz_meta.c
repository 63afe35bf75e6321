/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file fuzz_meta.c
 * FILE.gfec text through meta_parse() (tools/gfec/meta.c, compiled from the tree). Each input
 * is parsed twice: as it is, and with its last line replaced by the right meta_crc32c line, so
 * the fuzzer also reaches everything behind the checksum. Invariants: the answer is 0 or
 * META_CORRUPT with a one-line reason; metadata that parses has w = 8 or 16, 1 <= k, k+m <= 256
 * (65536 for w = 16), a non-zero chunk size (even for w = 16) and a size that fits k chunks;
 * meta_format() writes it as text that parses back to the same code, sizes and CRCs; and writing
 * that again gives the same bytes.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz.h"

/* meta_format()'s text for @p meta (malloc'ed), which must parse into *again. */
static char *write_back(const struct gfec_meta *meta, struct gfec_meta *again, size_t *len)
{
	size_t n = meta_format(meta, NULL, 0);
	char *out = malloc(n + 1), why[256];
	int ret;

	FUZZ_CHECK(n > 0 && n <= META_MAX_BYTES && out != NULL);
	FUZZ_CHECK(meta_format(meta, out, n + 1) == n && strlen(out) == n);
	ret = meta_parse(out, n, again, why, sizeof(why));
	if (ret)
		fprintf(stderr, "written back as:\n%s\nrefused: %s\n", out, why);
	FUZZ_CHECK(ret == 0);
	*len = n;
	return out;
}

static void check(const char *text, size_t len)
{
	struct gfec_meta meta = {0}, again = {0}, third = {0};
	char why[256], *out, *out2;
	size_t n, n2;
	int ret;

	memset(why, 'x', sizeof(why));
	ret = meta_parse(text, len, &meta, why, sizeof(why));
	FUZZ_CHECK(ret == 0 || ret == META_CORRUPT);
	if (ret) {
		FUZZ_CHECK(memchr(why, '\0', sizeof(why)) && why[0] && !strchr(why, '\n'));
		return;
	}
	/* gfec.h: k+m <= 256, or 65536 for w=16 */
	FUZZ_CHECK(meta.w == 8 || meta.w == 16);
	FUZZ_CHECK(meta.k >= 1 && meta.m >= 0 && meta.k + meta.m <= (meta.w == 16 ? 65536 : 256));
	FUZZ_CHECK(meta.chunk_size > 0 && meta.chunk_size <= UINT64_MAX / (uint64_t)meta.k);
	FUZZ_CHECK(meta.w == 8 || meta.chunk_size % 2 == 0);
	FUZZ_CHECK(meta.size <= meta.chunk_size * (uint64_t)meta.k);
	FUZZ_CHECK(memchr(meta.technique, '\0', sizeof(meta.technique)) && meta.technique[0]);

	/* Written back (in the current version, which may be newer than the input's), it says
	 * the same; and writing that again changes nothing. */
	out = write_back(&meta, &again, &n);
	FUZZ_CHECK(again.k == meta.k && again.m == meta.m && again.w == meta.w &&
		   again.size == meta.size);
	FUZZ_CHECK(again.chunk_size == meta.chunk_size);
	FUZZ_CHECK(strcmp(again.technique, meta.technique) == 0);
	FUZZ_CHECK(memcmp(again.crc, meta.crc, sizeof(meta.crc[0]) * (size_t)(meta.k + meta.m)) ==
		   0);
	out2 = write_back(&again, &third, &n2);
	FUZZ_CHECK(n2 == n && memcmp(out, out2, n) == 0);
	free(out2);
	free(out);
	meta_free(&third);
	meta_free(&again);
	meta_free(&meta);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	size_t body, end = size, nl, len;
	char *fixed, line[32];
	uint32_t crc;
	int n;

	check(text, size);

	/* The same text with a checksum that matches: drop a last line that is one, append. */
	if (end && text[end - 1] == '\n')
		end--;
	body = end;
	while (body && text[body - 1] != '\n')
		body--;
	if (end - body < 12 || memcmp(text + body, "meta_crc32c ", 12) != 0)
		body = size;
	nl = body && text[body - 1] != '\n';
	crc = io_crc_update(IO_CRC_INIT, text, body);
	if (nl)
		crc = io_crc_update(crc, "\n", 1);
	n = snprintf(line, sizeof(line), "meta_crc32c 0x%08" PRIx32 "\n", io_crc_finish(crc));
	len = body + nl + (size_t)n;
	/* Exactly its size, as the input itself: ASan sees any read past the end. */
	fixed = malloc(len);
	FUZZ_CHECK(fixed != NULL);
	memcpy(fixed, text, body);
	if (nl)
		fixed[body] = '\n';
	memcpy(fixed + body + nl, line, (size_t)n);
	check(fixed, len);
	free(fixed);
	return 0;
}
