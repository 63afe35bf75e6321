/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file codec_test.h
 * What the codec's end-to-end tests (test_codec.c, test_codec_w16.c, and the GPU's
 * test_multi_gpu.c and test_gpu_pinned.c) share: a codec made from a printf-style profile (the
 * test fails, naming the profile and the error, where it cannot be made) and a stripe (tstripe,
 * test_util.h) encoded in place. Include after cmocka.h, gfec/gfec.h and test_util.h.
 */
#ifndef GFEC_TESTS_CODEC_TEST_H
#define GFEC_TESTS_CODEC_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Appended to every profile that names no backend: " backend=gpu" in a GPU run, else nothing. */
static const char *make_extra = "";

static gfec_codec *make(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static gfec_codec *make(const char *fmt, ...)
{
	char profile[512], err[256];
	gfec_codec *c = NULL;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(profile, sizeof(profile), fmt, ap);
	va_end(ap);
	if (!strstr(profile, "backend="))
		strncat(profile, make_extra, sizeof(profile) - strlen(profile) - 1);
	ret = gfec_codec_create(profile, &c, err, sizeof(err));
	if (ret)
		fail_msg("gfec_codec_create(\"%s\") = %d: %s", profile, ret, err);
	return c;
}

/* The stripe's parity from its data. */
static inline void encode(gfec_codec *c, struct tstripe *s)
{
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)s->c, s->c + s->k, s->len), 0);
}

#endif
