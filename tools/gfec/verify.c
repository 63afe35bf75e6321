/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file verify.c
 * gfec verify: every chunk's CRC32C and, when all are there, the parity, in one pass; then,
 * when every data chunk is intact, FILE's SHA-256 over them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gfec/gfec.h>

#include "cli.h"

const char help_verify[] =
    "usage: gfec verify [--backend B] [--threads N] FILE\n"
    "\n"
    "Checks every chunk of FILE against FILE.gfec: ok, missing, wrong size, unreadable or crc\n"
    "mismatch. When all K+M chunks are there it also recomputes the parity from the data and\n"
    "names each parity chunk that does not match. When every data chunk is intact it also\n"
    "checks that they hold FILE, by the SHA-256 the metadata records (as decode does): chunks\n"
    "and metadata CRC lines that all agree can still belong to another file. Exits 0 only if\n"
    "everything is right, and 7 if anything is not, a SHA-256 mismatch included.\n"
    "\n"
    "      --backend B        auto (default), cpu or gpu\n"
    "      --threads N        CPU threads (default: all online CPUs)\n"
    "  -h, --help             this text\n";

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

/*
 * FILE's SHA-256 from its data chunks, which hold it in order (the last zero-padded), into
 * @p digest. @returns 0 or -errno as sha256_files().
 */
static int data_sha256(const struct job *j, uint8_t digest[SHA256_BYTES])
{
	int *fds = malloc((size_t)j->k * sizeof(*fds));
	uint64_t *lens = malloc((size_t)j->k * sizeof(*lens));
	int ret = -ENOMEM;

	if (fds && lens) {
		for (int i = 0; i < j->k; i++) {
			uint64_t at = (uint64_t)i * j->S,
				 left = at < j->meta.size ? j->meta.size - at : 0;

			fds[i] = j->ck[i].fd;
			lens[i] = left < j->S ? left : j->S;
		}
		ret = sha256_files(fds, lens, j->k, j->buf, j->seg * (size_t)j->n, digest);
	}
	free(fds);
	free(lens);
	return ret;
}

int cmd_verify(int argc, char **argv)
{
	struct opts o = {.backend = "auto"};
	uint8_t *parity_ok = NULL, *seg_ok = NULL; /* m each */
	char what[128];
	struct io_progress prog;
	struct job j;
	char list[64];
	uint8_t digest[SHA256_BYTES];
	int all, usable = 0, problems = 0, crc_bad = 0, data_ok = 1, sha_bad = 0, ret;

	ret = parse_opts("verify", help_verify, argc, argv, "h", 1, 1, 1, &o);
	if (ret >= 0)
		return ret;
	ret = job_open(&j, "verify", &o);
	if (ret)
		goto out;
	parity_ok = malloc((size_t)j.m);
	seg_ok = malloc((size_t)j.m);
	if (!parity_ok || !seg_ok) {
		ret = out_of_memory();
		goto out;
	}

	/* One pass: each segment of every chunk feeds its CRC and, while all k+m are there, the
	 * parity check. */
	memset(parity_ok, 1, (size_t)j.m);
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

	printf("%s: k=%d m=%d w=%d %s, %d chunks of %" PRIu64 " B, size %" PRIu64 " B\n", j.base,
	       j.k, j.m, j.meta.w, j.meta.technique, j.n, j.S, j.meta.size);
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
	/* Intact data chunks are FILE, zero-padded: no decoding needed to hash it. */
	for (int i = 0; i < j.k; i++)
		data_ok &= j.ck[i].state == CK_OK;
	if (j.meta.version < 2) {
		printf("sha256: not recorded (metadata version %d)\n", j.meta.version);
	} else if (!data_ok) {
		printf("sha256: not checked (a data chunk is not intact; decode checks it)\n");
	} else {
		ret = data_sha256(&j, digest);
		if (ret) {
			ret = fail_errno(ret, "verify: cannot read the data chunks of", j.base);
			goto out;
		}
		sha_bad = memcmp(digest, j.meta.sha256, sizeof(digest)) != 0;
		printf("sha256: %s\n",
		       sha_bad ? "MISMATCH: the data chunks are not the file the "
				 "metadata describes"
			       : "the data chunks hold the file the metadata describes");
	}
	printf("decodable: %s (%d of %d chunks usable, need k=%d)\n", usable >= j.k ? "yes" : "no",
	       usable, j.n, j.k);
	if (problems) {
		ret = fail(GFEC_EXIT_VERIFY, "verify: %s: problems in chunk%s %s%s", j.base,
			   problems == 1 ? "" : "s", list,
			   sha_bad ? "; the data's sha256 differs from the metadata's" : "");
		goto out;
	}
	if (sha_bad) {
		ret = fail(GFEC_EXIT_VERIFY,
			   "verify: %s: every chunk matches its CRC32C, but the data's sha256 "
			   "differs from the metadata's",
			   j.base);
		goto out;
	}
	printf("verify %s: ok\n", j.base);
	ret = GFEC_EXIT_OK;
out:
	free(parity_ok);
	free(seg_ok);
	job_close(&j);
	return ret;
}
