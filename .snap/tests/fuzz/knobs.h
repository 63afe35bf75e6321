/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file knobs.h
 * Checks on plugin/registry.h's settings that the profile and gfec.conf targets share: every
 * knob's value within what its table entry allows, and two settings holding the same values.
 */
#ifndef GFEC_FUZZ_KNOBS_H
#define GFEC_FUZZ_KNOBS_H

#include <string.h>

#include "fuzz.h"
#include "internal.h"

static inline void knobs_check_ranges(const struct gfec_settings *s)
{
	for (int k = 0; k < GFEC_NKNOBS; k++) {
		const struct gfec_knob_def *d = &gfec_knobs[k];
		const struct gfec_knob_value *v = &s->v[k];
		size_t len = strnlen(v->text, sizeof(v->text));

		FUZZ_CHECK(len < sizeof(v->text));
		if (v->origin == GFEC_FROM_DEFAULT)
			continue;
		FUZZ_CHECK(len > 0);
		if (d->type == GFEC_KNOB_NUM)
			FUZZ_CHECK((v->num >= d->lo && v->num <= d->hi) ||
				   (d->special && v->num == -1) || (d->zero && v->num == 0));
		else if (d->type == GFEC_KNOB_TEXT)
			FUZZ_CHECK((long long)len >= d->lo && (long long)len <= d->hi);
		else
			FUZZ_CHECK(v->num >= 0);
	}
	FUZZ_CHECK(s->nrules >= 0 && s->nrules <= GFEC_MAX_TUNE_RULES);
	for (int i = 0; i < s->nrules; i++) {
		const struct gfec_tune_rule *r = &s->rules[i];

		FUZZ_CHECK(memchr(r->kernel, '\0', sizeof(r->kernel)) && r->kernel[0]);
		FUZZ_CHECK(!strpbrk(r->kernel, " \t\n#"));
		FUZZ_CHECK(r->cols_min >= 1 && r->cols_min <= r->cols_max && r->cols_max <= 255);
		FUZZ_CHECK(r->rows_min >= 1 && r->rows_min <= r->rows_max && r->rows_max <= 255);
		FUZZ_CHECK(r->len_min <= r->len_max && r->len_max <= 1ull << 50);
	}
}

/* Same values (not origins) for every knob, and the same rules. */
static inline void knobs_check_same(const struct gfec_settings *a, const struct gfec_settings *b)
{
	for (int k = 0; k < GFEC_NKNOBS; k++)
		FUZZ_CHECK(a->v[k].num == b->v[k].num && strcmp(a->v[k].text, b->v[k].text) == 0);
	FUZZ_CHECK(a->nrules == b->nrules);
	for (int i = 0; i < a->nrules; i++) {
		const struct gfec_tune_rule *r = &a->rules[i], *s = &b->rules[i];

		FUZZ_CHECK(strcmp(r->kernel, s->kernel) == 0);
		FUZZ_CHECK(r->cols_min == s->cols_min && r->cols_max == s->cols_max);
		FUZZ_CHECK(r->rows_min == s->rows_min && r->rows_max == s->rows_max);
		FUZZ_CHECK(r->len_min == s->len_min && r->len_max == s->len_max);
	}
}

#endif
