/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file decode.c
 * gfec decode: FILE back from any k good chunks, checked end to end before it appears, and
 * with --repair the chunk files too.
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

const char help_decode[] =
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
    "                         exists, else FILE itself. OUT must be a regular file or not\n"
    "                         exist: a symbolic link, FIFO or device there is refused (exit\n"
    "                         2), not written through. A new OUT gets the chunks' mode, a\n"
    "                         replaced one keeps its own\n"
    "  -r, --repair           also rewrite every missing or damaged chunk file (checks all\n"
    "                         chunks; the rebuilt ones must match the metadata's CRC32C).\n"
    "                         One to rewrite that is a symbolic link (even to a regular\n"
    "                         file), FIFO, device or directory is refused (exit 2), nothing\n"
    "                         written\n"
    "      --backend B        auto (default), cpu, gpu or hybrid (CPU+GPU split)\n"
    "      --threads N        CPU threads (default: all online CPUs)\n"
    "  -h, --help             this text\n";

/* What a name that is no regular file is, for a message: "... is a symbolic link". */
static const char *not_regular(mode_t mode)
{
	return S_ISLNK(mode) ? "a symbolic link" : S_ISDIR(mode) ? "a directory" : "a special file";
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

int cmd_decode(int argc, char **argv)
{
	struct opts o = {.backend = "auto"};
	struct io_tmp out = {0}, *fix = NULL; /* fix[i]: chunk i's repair, when --repair */
	const uint8_t **have = NULL;
	uint8_t **want = NULL;
	char *src = NULL, *rebuild = NULL, what[128];
	char *out_path = NULL;
	struct stat out_st;
	mode_t ck_mode = 0;
	int out_exists = 0;
	struct io_progress prog;
	struct job j;
	uint32_t *used_crc = NULL; /* CRC32C of each chunk as this pass read or rebuilt it */
	uint8_t digest[SHA256_BYTES];
	uint64_t done = 0;
	int usable = 0, wrong_size = 0, nsrc = 0, nrebuild = 0, nfix = 0, ret;
	double t0 = io_now();

	ret = parse_opts("decode", help_decode, argc, argv, "orh", 1, 1, 1, &o);
	if (ret >= 0)
		return ret;
	ret = job_open(&j, "decode", &o);
	if (ret)
		goto out;
	fix = calloc((size_t)j.n, sizeof(*fix));
	have = calloc((size_t)j.n, sizeof(*have));
	want = calloc((size_t)j.n, sizeof(*want));
	src = calloc((size_t)j.n, 1);
	rebuild = calloc((size_t)j.n, 1);
	used_crc = calloc((size_t)j.n, sizeof(*used_crc));
	if (!fix || !have || !want || !src || !rebuild || !used_crc) {
		ret = out_of_memory();
		goto out;
	}
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
	/* The rename would turn a FIFO or a device into a regular file, and replace a symbolic
	 * link rather than write through it: OUT must be a regular file, or not exist. */
	if (lstat(out_path, &out_st) == 0) {
		if (!S_ISREG(out_st.st_mode)) {
			ret = fail(GFEC_EXIT_USAGE,
				   "decode: %s is %s; OUT must be a regular file or not exist",
				   out_path, not_regular(out_st.st_mode));
			goto out;
		}
		out_exists = 1;
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
	/* --repair renames each rebuilt chunk over its name, as OUT: a FIFO, a device or a
	 * directory there is no chunk file to replace, and renaming onto a symbolic link would
	 * replace the link and leave its target as it was. Such names are refused before anything
	 * is written; a link, even to a regular file, is the user's to mend (they know where its
	 * target should live). */
	for (int i = 0; o.repair && i < j.n; i++) {
		struct stat st;

		if (chunk_bad(&j.ck[i]) && lstat(j.ck[i].path, &st) == 0 && !S_ISREG(st.st_mode)) {
			ret = fail(GFEC_EXIT_USAGE,
				   "decode: --repair would rename a chunk over %s (chunk %d), "
				   "which is %s; nothing written",
				   j.ck[i].path, i, not_regular(st.st_mode));
			goto out;
		}
	}

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
			/* Chunks and a new OUT get the chunks' mode: FILE's, as encode gave it. */
			if (!nsrc)
				ck_mode = j.ck[i].mode & 0666;
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
		ret = sha256_files(&out.fd, &j.meta.size, 1, j.buf, j.seg * (size_t)j.n, digest);
		if (ret) {
			ret = fail_errno(ret, "cannot read back", out.tmp);
			goto out;
		}
		if (memcmp(digest, j.meta.sha256, sizeof(digest)) != 0) {
			ret = fail(GFEC_EXIT_INTERNAL,
				   "decode: %s: the decoded file's sha256 differs from the "
				   "metadata's; %s not written",
				   j.base, out_path);
			goto out;
		}
	}
	ret = io_tmp_commit(&out, out_exists ? out_st.st_mode : ck_mode);
	if (ret) {
		ret = fail_errno(ret, "cannot write", out_path);
		goto out;
	}
	for (int i = 0; i < j.n; i++) {
		if (!fix[i].final)
			continue;
		ret = io_tmp_commit(&fix[i], ck_mode);
		if (ret) {
			ret = fail(GFEC_EXIT_IO,
				   "decode: %s written, but repairs stopped at chunk %d: %s: %s",
				   out_path, i, fix[i].final, io_strerror(ret));
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
	for (int i = 0; fix && i < j.n; i++)
		io_tmp_abort(&fix[i]);
	free(fix);
	free(have);
	free(want);
	free(src);
	free(rebuild);
	free(used_crc);
	free(out_path);
	job_close(&j);
	return ret;
}
