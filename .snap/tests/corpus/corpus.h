/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file corpus.h
 * What make_corpus.c (writes the corpus) and test_corpus.c (checks it) share: the sets the corpus
 * holds, where each lives, SHA-256, and the manifest's format.
 *
 * A set is one object encoded by one code, stored as its k+m chunks:
 *
 *   tests/corpus/w<w>/<technique>/k<k>m<m>/size<object_size>/<i>    i = 0 .. k+m-1
 *
 * data chunks are the object split in order and zero-padded, parity chunks are what gfec_encode()
 * wrote. MANIFEST lists every set and the SHA-256 of every chunk:
 *
 *   set <dir> <chunk bytes> <profile>
 *   <sha256 hex>  <dir>/<i>                      (one per chunk, sha256sum's format)
 *
 * Another field size or technique is more rows in the tables below (and `make_corpus` to write
 * them): the layout names w, and a profile is whatever gfec_codec_create() takes. GF(2^8) sets
 * come first, GF(2^16) sets (w16/, the techniques that field has, fewer shapes) after them.
 */
#ifndef GFEC_TEST_CORPUS_H
#define GFEC_TEST_CORPUS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CORPUS_MAXN 64		/* chunks per set */
#define CORPUS_MAXPATH 256

struct corpus_technique {
	const char *name;  /* directory name */
	const char *extra; /* more profile keys */
};

/* GF(2^8) */
static const struct corpus_technique corpus_techniques[] = {
	{ "reed_sol_van", "" },
	{ "cauchy", "" },
	{ "jerasure_reed_sol_van", "" },
	{ "cauchy_good", " packetsize=16" },
};
static const int corpus_shapes[][2] = { { 2, 1 }, { 3, 2 }, { 4, 2 },  { 6, 3 },
					{ 8, 3 }, { 10, 4 }, { 20, 8 } };
/* GF(2^16) (w=16): the techniques it has, on a few shapes */
static const struct corpus_technique corpus_techniques_w16[] = {
	{ "cauchy", "" },
	{ "jerasure_reed_sol_van", "" },
};
static const int corpus_shapes_w16[][2] = { { 2, 1 }, { 4, 2 }, { 10, 4 }, { 20, 8 } };
/* One size that fills whole chunks, one that leaves padding in the last data chunk. */
static const size_t corpus_sizes[] = { 4096, 1001 };

#define CORPUS_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define CORPUS_NSETS_W8                                                                            \
	(CORPUS_COUNT(corpus_techniques) * CORPUS_COUNT(corpus_shapes) * CORPUS_COUNT(corpus_sizes))
#define CORPUS_NSETS_W16                                                                           \
	(CORPUS_COUNT(corpus_techniques_w16) * CORPUS_COUNT(corpus_shapes_w16) *                   \
	 CORPUS_COUNT(corpus_sizes))
#define CORPUS_NSETS (CORPUS_NSETS_W8 + CORPUS_NSETS_W16)

struct corpus_set {
	int w, k, m;
	size_t object_size;
	const struct corpus_technique *technique;
	char dir[CORPUS_MAXPATH];
	char profile[CORPUS_MAXPATH];
};

/* Set number i (0 <= i < CORPUS_NSETS) of the tables above. */
static inline void corpus_set_get(size_t i, struct corpus_set *s)
{
	const int w16 = i >= CORPUS_NSETS_W8;
	const struct corpus_technique *t = w16 ? corpus_techniques_w16 : corpus_techniques;
	const int(*shapes)[2] = w16 ? corpus_shapes_w16 : corpus_shapes;
	const size_t nsz = CORPUS_COUNT(corpus_sizes),
		     nsh = w16 ? CORPUS_COUNT(corpus_shapes_w16) : CORPUS_COUNT(corpus_shapes);

	i -= w16 ? CORPUS_NSETS_W8 : 0;
	s->object_size = corpus_sizes[i % nsz];
	s->k = shapes[i / nsz % nsh][0];
	s->m = shapes[i / nsz % nsh][1];
	s->technique = &t[i / nsz / nsh];
	s->w = w16 ? 16 : 8;
	snprintf(s->dir, sizeof(s->dir), "w%d/%s/k%dm%d/size%zu", s->w, s->technique->name, s->k,
		 s->m, s->object_size);
	snprintf(s->profile, sizeof(s->profile), "k=%d m=%d technique=%s%s", s->k, s->m,
		 s->technique->name, s->technique->extra);
	/* w=8 is the default and the only field gfec has had; other fields name theirs */
	if (s->w != 8)
		snprintf(s->profile + strlen(s->profile), sizeof(s->profile) - strlen(s->profile),
			 " w=%d", s->w);
}

/* ---- SHA-256 (FIPS 180-4), one shot ---------------------------------------------------------- */

static inline uint32_t corpus_ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static inline void corpus_sha256_block(uint32_t h[8], const uint8_t *p)
{
	static const uint32_t K[64] = {
		0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
		0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
		0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
		0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
		0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
		0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
		0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
		0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
		0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
		0xc67178f2,
	};
	uint32_t w[64], v[8];

	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
		       (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = corpus_ror(w[t - 15], 7) ^ corpus_ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = corpus_ror(w[t - 2], 17) ^ corpus_ror(w[t - 2], 19) ^ (w[t - 2] >> 10);

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	memcpy(v, h, sizeof(v));
	for (int t = 0; t < 64; t++) {
		uint32_t S1 = corpus_ror(v[4], 6) ^ corpus_ror(v[4], 11) ^ corpus_ror(v[4], 25);
		uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint32_t t1 = v[7] + S1 + ch + K[t] + w[t];
		uint32_t S0 = corpus_ror(v[0], 2) ^ corpus_ror(v[0], 13) ^ corpus_ror(v[0], 22);
		uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + S0 + maj;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

/* Lower-case hex digest of p[0..n) into hex[65]. */
static inline void corpus_sha256_hex(const uint8_t *p, size_t n, char hex[65])
{
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	uint8_t tail[128] = { 0 };
	size_t full = n / 64 * 64, rest = n - full, tlen = rest < 56 ? 64 : 128;
	uint64_t bits = (uint64_t)n * 8;

	for (size_t off = 0; off < full; off += 64)
		corpus_sha256_block(h, p + off);
	memcpy(tail, p + full, rest);
	tail[rest] = 0x80;
	for (int i = 0; i < 8; i++)
		tail[tlen - 1 - i] = (uint8_t)(bits >> (8 * i));
	for (size_t off = 0; off < tlen; off += 64)
		corpus_sha256_block(h, tail + off);
	for (int i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08x", h[i]);
}

#endif
