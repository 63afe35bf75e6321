/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file sha256.c
 * SHA-256 of files, for FILE.gfec's whole-file checksum: encode hashes FILE as its data chunks
 * hold it, decode hashes its output before renaming it into place. Apart from io.c so that
 * meta.c and io.c (which the metadata fuzzer compiles) need no crypto library.
 */
#include <errno.h>
#include <openssl/evp.h>

#include "cli.h"

void *sha256_begin(void)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (ctx && !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		ctx = NULL;
	}
	return ctx;
}

int sha256_update(void *ctx, const void *buf, size_t len)
{
	/* What a failed EVP call means here: it allocates. */
	return EVP_DigestUpdate(ctx, buf, len) ? 0 : -ENOMEM;
}

int sha256_end(void *ctx, uint8_t digest[SHA256_BYTES])
{
	uint8_t scratch[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	int ret = EVP_DigestFinal_ex(ctx, digest ? digest : scratch, &len) && len == SHA256_BYTES
		      ? 0
		      : -ENOMEM;

	EVP_MD_CTX_free(ctx);
	return ret;
}

int sha256_files(const int *fds, const uint64_t *lens, int n, void *buf, size_t buflen,
		 uint8_t digest[SHA256_BYTES])
{
	void *ctx = sha256_begin();
	int ret = 0;

	if (!ctx)
		return -ENOMEM;
	for (int i = 0; i < n && !ret; i++)
		for (uint64_t off = 0; off < lens[i] && !ret;) {
			size_t want = lens[i] - off < buflen ? (size_t)(lens[i] - off) : buflen;
			size_t got = 0;

			ret = io_pread_full(fds[i], buf, want, off, &got);
			if (!ret && got < want)
				ret = -EIO;
			if (!ret)
				ret = sha256_update(ctx, buf, got);
			off += got;
		}
	if (ret) {
		sha256_end(ctx, NULL);
		return ret;
	}
	return sha256_end(ctx, digest);
}
