/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file encode.c
 * gfec encode: FILE into k data and m parity chunk files, then FILE.gfec.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gfec/gfec.h>

#include "cli.h"

const char help_encode[] =
    "usage: gfec encode -k K -m M [-w 8|16] [-t TECHNIQUE] [--backend B] [--threads N] FILE\n"
    "\n"
    "Writes FILE.0 .. FILE.<K+M-1> and FILE.gfec. Every chunk has the same size S (FILE's size\n"
    "divided by K, rounded up to 64 bytes); data chunk i holds bytes [i*S, (i+1)*S) of FILE,\n"
    "zero-padded at the end, and chunks K .. K+M-1 hold the parity. FILE.gfec records K, M,\n"
    "W, the technique, S, FILE's size and SHA-256, and a CRC32C of every chunk. Existing files\n"
    "are replaced. All get FILE's read and write permission bits (umask aside).\n"
    "\n"
    "  -k, --k K              data chunks (2 <= K, 1 <= M <= K, K+M <= 256; 65536 for w=16)\n"
    "  -m, --m M              parity chunks: any M chunks may be lost\n"
    "  -w, --w W              the field GF(2^W): 8 (default) or 16 (2-byte symbols, as\n"
    "                         Jerasure w=16; cauchy, jerasure_reed_sol_van and fft only)\n"
    "  -t, --technique T      cauchy (default), reed_sol_van, jerasure_reed_sol_van,\n"
    "                         cauchy_good (Jerasure CRS, 2048-byte packets) or fft (w=16:\n"
    "                         an O(n log n) additive-FFT Reed-Solomon code, on the CPU)\n"
    "      --backend B        auto (default), cpu, gpu or hybrid (CPU+GPU split)\n"
    "      --threads N        CPU threads (default: all online CPUs)\n"
    "  -h, --help             this text\n";

/*
 * The codec's own name for its technique, as its normalised profile spells it, so that
 * metadata never records an alias; @p asked if the profile does not say.
 */
static void technique_of(const gfec_codec *codec, const char *asked, char *buf, size_t len)
{
	char profile[512];
	const char *t;

	gfec_codec_profile(codec, profile, sizeof(profile));
	t = strstr(profile, "technique=");
	if (t)
		snprintf(buf, len, "%.*s", (int)strcspn(t + 10, " ,"), t + 10);
	if (!t || !buf[0])
		snprintf(buf, len, "%s", asked);
}

int cmd_encode(int argc, char **argv)
{
	struct opts o = {.w = "8", .technique = "cauchy", .backend = "auto"};
	struct io_tmp *tmp = NULL; /* n + 1: the chunks, then the metadata */
	uint8_t *buf = NULL, **p = NULL;
	gfec_codec *codec = NULL;
	struct gfec_meta *meta = NULL;
	struct io_progress prog;
	int *data_fd = NULL;
	uint64_t *data_len = NULL;
	char *path = NULL, *text = NULL, num[32];
	uint64_t size, S, off;
	size_t seg, tlen;
	struct stat st;
	int k, m, n = 0, fd = -1, ret;
	double t0 = io_now();

	ret = parse_opts("encode", help_encode, argc, argv, "kmwth", 1, 1, 1, &o);
	if (ret >= 0)
		return ret;
	if (!o.k || !o.m)
		return fail(GFEC_EXIT_USAGE, "encode: -k and -m are required");
	ret = make_codec("encode", &o, o.k, o.m, o.w, o.technique, "", &codec);
	if (ret)
		return ret;
	k = gfec_codec_k(codec);
	m = gfec_codec_m(codec);
	n = k + m;
	ret = reserve_files("encode", n);
	if (ret)
		goto out;
	tmp = calloc((size_t)n + 1, sizeof(*tmp));
	p = calloc((size_t)n, sizeof(*p));
	data_fd = calloc((size_t)k, sizeof(*data_fd));
	data_len = calloc((size_t)k, sizeof(*data_len));
	meta = calloc(1, sizeof(*meta));
	if (meta)
		meta->crc = calloc((size_t)n, sizeof(*meta->crc));
	if (!tmp || !p || !data_fd || !data_len || !meta || !meta->crc) {
		ret = out_of_memory();
		goto out;
	}

	fd = io_open_read(o.file, &st);
	if (fd < 0) {
		ret = fail_errno(fd, "", o.file);
		goto out;
	}
	size = (uint64_t)st.st_size;
	S = gfec_codec_chunk_size(codec, (size_t)size);
	seg = seg_for(codec, S, n);
	buf = gfec_alloc(seg * (size_t)n);
	if (!buf) {
		ret = out_of_memory();
		goto out;
	}
	/* Each output is renamed over its name when complete: none may be FILE itself. */
	for (int i = 0; i <= n; i++) {
		free(path);
		path = i < n ? io_path("%s.%d", o.file, i) : io_path("%s.gfec", o.file);
		if (!path) {
			ret = out_of_memory();
			goto out;
		}
		if (io_same_file(path, o.file)) {
			ret = fail(GFEC_EXIT_CLOBBER, "encode: %s would replace %s, the file encoded",
				   path, o.file);
			goto out;
		}
	}
	for (int i = 0; i < n; i++) {
		p[i] = buf + (size_t)i * seg;
		meta->crc[i] = IO_CRC_INIT;
		free(path);
		path = io_path("%s.%d", o.file, i);
		if (!path) {
			ret = out_of_memory();
			goto out;
		}
		ret = io_tmp_open(&tmp[i], path);
		if (ret) {
			ret = fail_errno(ret, "cannot create", path);
			goto out;
		}
	}

	io_progress_start(&prog, "encode", (uint64_t)k * S);
	for (off = 0; off < S; off += seg) {
		size_t len = S - off < seg ? (size_t)(S - off) : seg;

		/* Data chunk i is FILE's bytes [i*S, (i+1)*S); past the end of FILE, zeros. */
		for (int i = 0; i < k; i++) {
			uint64_t at = (uint64_t)i * S + off;
			size_t want = at >= size ? 0 : size - at < len ? (size_t)(size - at) : len;
			size_t got = 0;

			ret = want ? io_pread_full(fd, p[i], want, at, &got) : 0;
			if (ret) {
				ret = fail_errno(ret, "cannot read", o.file);
				goto out;
			}
			if (got < want) {
				ret = fail(GFEC_EXIT_IO, "%s: file shrank while being encoded",
					   o.file);
				goto out;
			}
			memset(p[i] + got, 0, len - got);
		}
		ret = gfec_encode(codec, (const uint8_t *const *)p, p + k, len);
		if (ret) {
			ret = fail(GFEC_EXIT_INTERNAL, "encode: %s", gfec_strerror(ret));
			goto out;
		}
		for (int i = 0; i < n; i++) {
			meta->crc[i] = io_crc_update(meta->crc[i], p[i], len);
			ret = io_write_full(tmp[i].fd, p[i], len);
			if (ret) {
				ret = fail_errno(ret, "cannot write", tmp[i].tmp);
				goto out;
			}
		}
		io_progress_update(&prog, (uint64_t)k * (off + len));
	}
	io_progress_end(&prog);

	meta->k = k;
	meta->m = m;
	meta->w = gfec_codec_w(codec);
	technique_of(codec, o.technique, meta->technique, sizeof(meta->technique));
	meta->chunk_size = S;
	meta->size = size;
	for (int i = 0; i < n; i++)
		meta->crc[i] = io_crc_finish(meta->crc[i]);
	/* FILE's SHA-256, from the data chunks as written (FILE in order): decode checks its
	 * output against it, so that metadata whose every CRC holds still cannot steer it wrong. */
	for (int i = 0; i < k; i++) {
		uint64_t at = (uint64_t)i * S;

		data_fd[i] = tmp[i].fd;
		data_len[i] = at >= size ? 0 : size - at < S ? size - at : S;
	}
	ret = sha256_files(data_fd, data_len, k, buf, seg * (size_t)n, meta->sha256);
	if (ret) {
		ret = fail_errno(ret, "cannot read back the chunks of", o.file);
		goto out;
	}
	tlen = meta_format(meta, NULL, 0);
	text = malloc(tlen + 1);
	free(path);
	path = io_path("%s.gfec", o.file);
	if (!text || !path) {
		ret = out_of_memory();
		goto out;
	}
	meta_format(meta, text, tlen + 1);
	ret = io_tmp_open(&tmp[n], path);
	if (!ret)
		ret = io_write_full(tmp[n].fd, text, tlen);
	if (ret) {
		ret = fail_errno(ret, "cannot write", path);
		goto out;
	}
	/* The metadata goes last: until it is renamed, an older FILE.gfec still describes (and its
	 * CRCs reject) whatever mix of chunks a crash left behind. */
	for (int i = 0; i <= n; i++) {
		ret = io_tmp_commit(&tmp[i], st.st_mode & 0666);
		if (ret) {
			ret = fail_errno(ret, "cannot write", tmp[i].final);
			goto out;
		}
	}
	io_sync_dir(o.file);
	printf("encoded %s: k=%d m=%d %s w=%d on %s, %d chunks of %" PRIu64 " B, %s in %.3f s "
	       "(%.1f MB/s)\n",
	       o.file, k, m, meta->technique, meta->w, gfec_codec_backend(codec), n, S,
	       amount(size, num, sizeof(num)), io_now() - t0, mb_per_s(size, io_now() - t0));
	ret = GFEC_EXIT_OK;
out:
	for (int i = 0; tmp && i <= n; i++)
		io_tmp_abort(&tmp[i]);
	if (fd >= 0)
		close(fd);
	free(text);
	free(path);
	free(tmp);
	free(p);
	free(data_fd);
	free(data_len);
	if (meta)
		meta_free(meta);
	free(meta);
	gfec_free(buf);
	gfec_codec_free(codec);
	return ret;
}
