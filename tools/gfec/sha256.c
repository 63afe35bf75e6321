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

int sha256_files(const int *fds, const uint64_t *lens, int n, void *buf, size_t buflen,
		 uint8_t digest[SHA256_BYTES])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int len = 0;
	int ret = -ENOMEM;

	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		goto out;
	for (int i = 0; i < n; i++)
		for (uint64_t off = 0; off < lens[i];) {
			size_t want = lens[i] - off < buflen ? (size_t)(lens[i] - off) : buflen;
			size_t got = 0;

			ret = io_pread_full(fds[i], buf, want, off, &got);
			if (!ret && got < want)
				ret = -EIO;
			if (ret)
				goto out;
			ret = -ENOMEM; /* what a failed EVP call means here: it allocates */
			if (!EVP_DigestUpdate(ctx, buf, got))
				goto out;
			off += got;
		}
	ret = EVP_DigestFinal_ex(ctx, digest, &len) && len == SHA256_BYTES ? 0 : -ENOMEM;
out:
	EVP_MD_CTX_free(ctx);
	return ret;
}
