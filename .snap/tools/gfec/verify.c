/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file verify.c
 * gfec verify: every chunk's CRC32C and, when all are there, the parity, in one pass; then
 * FILE's SHA-256, over the data chunks or, where one is not intact, as decoded.
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
    "names each parity chunk that does not match. Then, when K chunks are intact, it checks\n"
    "FILE's SHA-256, which the metadata records, over the data chunks or, where one is not\n"
    "intact, over FILE as decode would rebuild it (nothing is written): chunks and CRC lines\n"
    "that all agree can still belong to another file. Exits 0 only if everything is right,\n"
    "and 7 if anything is not, a SHA-256 mismatch included.\n"
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
 * FILE's SHA-256 as the chunks hold it, into @p digest: each data chunk's bytes in order, up to
 * FILE's size (the last is zero-padded). An intact data chunk is read; another is decoded a
 * segment at a time from the first k intact chunks (data first), as decode would rebuild it.
 * Needs k intact chunks. @returns 0 with *lost = -1 and the digest, or with *lost the chunk that
 * went bad while being read (as verify's pass marks it, and no digest); or the exit code, after
 * saying why.
 */
static int file_sha256(struct job *j, uint8_t digest[SHA256_BYTES], int *lost)
{
	const uint8_t **have = calloc((size_t)j->n, sizeof(*have));
	uint8_t **want = calloc((size_t)j->n, sizeof(*want));
	void *sha = sha256_begin();
	struct io_progress prog;
	int nsrc = 0, ret = 0;

	*lost = -1;
	if (!have || !want || !sha) {
		ret = out_of_memory();
		goto out;
	}
	for (int i = 0; i < j->n && nsrc < j->k; i++)
		if (j->ck[i].state == CK_OK) {
			have[i] = j->p[i];
			nsrc++;
		}
	io_progress_start(&prog, "verify: sha256", j->meta.size);
	for (int i = 0; i < j->k && !ret && *lost < 0; i++) {
		/* FILE's bytes in chunk i */
		uint64_t at = (uint64_t)i * j->S, left = at < j->meta.size ? j->meta.size - at : 0;

		if (left > j->S)
			left = j->S;

		for (uint64_t off = 0; off < left && !ret && *lost < 0; off += j->seg) {
			/* A decode takes whole segments; only FILE's bytes are hashed. */
			size_t len = j->S - off < j->seg ? (size_t)(j->S - off) : j->seg;
			size_t use = left - off < len ? (size_t)(left - off) : len;

			for (int s = 0; s < j->n && *lost < 0; s++)
				if ((s == i || !have[i]) && have[s] &&
				    chunk_read(j, s, off, s == i ? use : len))
					*lost = s;
			if (*lost >= 0)
				break;
			if (!have[i]) {
				want[i] = j->p[i];
				ret = gfec_decode(j->codec, have, want, len);
				want[i] = NULL;
				if (ret) {
					ret = fail(GFEC_EXIT_INTERNAL, "verify: gfec_decode: %s",
						   gfec_strerror(ret));
					break;
				}
			}
			if (sha256_update(sha, j->p[i], use))
				ret = out_of_memory();
			io_progress_update(&prog, at + off + use);
		}
	}
	io_progress_end(&prog);
out:
	if (sha && sha256_end(sha, ret || *lost >= 0 ? NULL : digest) && !ret && *lost < 0)
		ret = out_of_memory();
	free(have);
	free(want);
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
	int all, usable = 0, problems = 0, crc_bad = 0, data_ok = 1, sha_bad = 0, lost, ret;

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
	/* The CRCs and the parity say that the chunks agree with the metadata and each other; only
	 * the SHA-256 says that they hold FILE. */
	for (int i = 0; i < j.k; i++)
		data_ok &= j.ck[i].state == CK_OK;
	if (j.meta.version < 2) {
		printf("sha256: not recorded (metadata version %d)\n", j.meta.version);
	} else if (usable < j.k) {
		printf("sha256: not checked (too few intact chunks to decode)\n");
	} else {
		ret = file_sha256(&j, digest, &lost);
		if (ret)
			goto out;
		if (lost >= 0) {
			/* Gone bad since the first pass: a problem as that pass reports one, not a
			 * failure of verify. */
			chunk_describe(&j, lost, what, sizeof(what));
			printf("sha256: not checked (chunk %d, %s, became %s while being read)\n",
			       lost, j.ck[lost].path, what);
			list_add(list, sizeof(list), lost, &problems);
		} else {
			sha_bad = memcmp(digest, j.meta.sha256, sizeof(digest)) != 0;
			printf("sha256: %s (%s %s)\n",
			       sha_bad ? "MISMATCH: not the file the metadata describes"
				       : "matches the metadata",
			       j.base, data_ok ? "as its data chunks hold it" : "as decoded");
		}
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
