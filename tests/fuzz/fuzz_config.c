/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file fuzz_config.c
 * gfec.conf text through gfec_config_parse(), and through gfec_config_update() (what `gfec tune`
 * writes). Invariants: a file that fails leaves the settings exactly as they were and names its
 * own line ("NAME:LINE: ..."); one that parses holds every knob within its registry range and
 * well-formed [tune] rules; written back as gfec.conf text it parses to the same values; and
 * updating one knob of it gives a file that parses, with that knob changed and every other
 * knob as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "internal.h"
#include "knobs.h"

#define NAME "fuzz.conf"

/* @p s as gfec.conf text (malloc'ed): every knob the file set, then the rules. */
static char *format_conf(const struct gfec_settings *s)
{
	size_t len = 64 + GFEC_NKNOBS * (GFEC_KNOB_TEXT_MAX + 80) + (size_t)s->nrules * 160, n = 0;
	char *buf = malloc(len);

	FUZZ_CHECK(buf != NULL);
	for (int k = 0; k < GFEC_NKNOBS; k++)
		if (s->v[k].origin == GFEC_FROM_FILE)
			n += (size_t)snprintf(buf + n, len - n, "[%s]\n%s = %s\n",
					      gfec_knobs[k].section, gfec_knobs[k].key,
					      s->v[k].text);
	n += (size_t)snprintf(buf + n, len - n, "[tune]\n");
	for (int i = 0; i < s->nrules; i++) {
		const struct gfec_tune_rule *r = &s->rules[i];

		n += (size_t)snprintf(buf + n, len - n, "rule = %s k=%d-%d m=%d-%d chunk=%zu-%zu\n",
				      r->kernel, r->cols_min, r->cols_max, r->rows_min, r->rows_max,
				      r->len_min, r->len_max);
	}
	FUZZ_CHECK(n < len);
	return buf;
}

/* A valid value for knob @p k other than its current one, or NULL. */
static const char *another_value(enum gfec_knob k, const struct gfec_knob_value *v, char *buf,
				 size_t len)
{
	const struct gfec_knob_def *d = &gfec_knobs[k];

	switch (d->type) {
	case GFEC_KNOB_NUM:
		snprintf(buf, len, "%lld", v->num == d->lo ? d->hi : d->lo);
		break;
	case GFEC_KNOB_WORD:
		snprintf(buf, len, "%.*s", (int)strcspn(d->words, ","), d->words);
		break;
	case GFEC_KNOB_TEXT: {
		/* a knob with its own check (gpu_devices: GPU ordinals) takes the first it accepts */
		static const char *const texts[] = { "fz", "zf", "0", "1" };

		if (d->hi < 2)
			return NULL;
		for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
			if (strcmp(v->text, texts[i]) && (!d->check || d->check(texts[i]) == 0)) {
				snprintf(buf, len, "%s", texts[i]);
				return buf;
			}
		return NULL;
	}
	}
	return buf;
}

/* Sets one knob of a file that parsed (the one @p pick selects) with gfec_config_update(). */
static void check_update(const char *text, const struct gfec_settings *s, unsigned pick)
{
	struct gfec_settings *u = malloc(sizeof(*u));
	char buf[64], err[256], *out;
	const char *value;
	enum gfec_knob k;
	int n = 0, ret;

	FUZZ_CHECK(u != NULL);
	for (int i = 0; i < GFEC_NKNOBS; i++)
		n += gfec_knobs[i].section != NULL;
	FUZZ_CHECK(n > 0);
	for (k = 0;; k++)
		if (gfec_knobs[k].section && pick-- % (unsigned)n == 0)
			break;
	value = another_value(k, &s->v[k], buf, sizeof(buf));
	if (value) {
		out = gfec_config_update(text, k, value, "fuzz", "");
		FUZZ_CHECK(out != NULL);
		gfec_settings_defaults(u);
		ret = gfec_config_parse(out, NAME, u, err, sizeof(err));
		if (ret)
			fprintf(stderr, "updated to:\n%s\nrefused: %s\n", out, err);
		FUZZ_CHECK(ret == 0 && u->nrules == 0);
		FUZZ_CHECK(strcmp(u->v[k].text, value) == 0);
		for (int i = 0; i < GFEC_NKNOBS; i++)
			FUZZ_CHECK(i == (int)k || (u->v[i].num == s->v[i].num &&
						   strcmp(u->v[i].text, s->v[i].text) == 0));
		free(out);
	}
	free(u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *again, err[256];
	struct gfec_settings *s = malloc(sizeof(*s)), *before = malloc(sizeof(*before));
	struct gfec_settings *q = malloc(sizeof(*q));
	int ret;

	FUZZ_CHECK(s && before && q);
	gfec_settings_defaults(s);
	memcpy(before, s, sizeof(*s));
	memset(err, 'x', sizeof(err));
	ret = gfec_config_parse(text, NAME, s, err, sizeof(err));
	FUZZ_CHECK(ret == 0 || ret == GFEC_E_PROFILE);
	if (ret) {
		/* Nothing half-applied, and the message says where: "fuzz.conf:LINE: ...". */
		FUZZ_CHECK(memcmp(s, before, sizeof(*s)) == 0);
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
		FUZZ_CHECK(strncmp(err, NAME ":", sizeof(NAME)) == 0);
		FUZZ_CHECK(atoi(err + sizeof(NAME)) >= 1 && !strchr(err, '\n'));
	} else {
		knobs_check_ranges(s);
		again = format_conf(s);
		gfec_settings_defaults(q);
		ret = gfec_config_parse(again, NAME, q, err, sizeof(err));
		if (ret)
			fprintf(stderr, "written back as:\n%s\nrefused: %s\n", again, err);
		FUZZ_CHECK(ret == 0);
		knobs_check_same(s, q);
		free(again);
		check_update(text, s, size ? data[0] : 0);
	}
	free(q);
	free(before);
	free(s);
	free(text);
	return 0;
}
