/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file knobs.c
 * Where a codec's settings come from, in order: the registry's defaults, gfec.conf, the
 * environment (config.c), then the profile (profile.c); and gfec_config_describe(), which shows
 * the outcome knob by knob.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfec/gfec_config.h"
#include "internal.h"

int gfec_settings_resolve(const char *text, struct gfec_profile *p, char *err, size_t errlen)
{
	struct gfec_settings *s = malloc(sizeof(*s));
	int ret;

	if (!s)
		return GFEC_E_NOMEM;
	ret = gfec_config_load(s, err, errlen);
	if (!ret)
		ret = gfec_profile_parse(text, s, p, err, errlen);
	free(s);
	return ret;
}

int gfec_config_describe(const char *profile, char *buf, size_t len)
{
	struct gfec_profile *p = malloc(sizeof(*p));
	char origin[GFEC_CONF_PATH_MAX + 32];
	size_t used = 0;
	int ret;

	if (!buf || !len) {
		free(p);
		return GFEC_E_INVAL;
	}
	if (!p)
		return GFEC_E_NOMEM;
	ret = gfec_settings_resolve(profile, p, buf, len);
	for (int k = 0; k < GFEC_NKNOBS && !ret; k++) {
		const struct gfec_knob_def *d = &gfec_knobs[k];
		const struct gfec_knob_value *v = &p->set.v[k];
		char from[128];
		int n;

		/* where it can be set, highest first */
		snprintf(from, sizeof(from), "%s%s%s%s%s%s%s%s%s", d->profile ? d->name : "",
			     d->profile ? "=" : "", d->env && d->profile ? ", " : "",
			     d->env ? d->env : "", d->section && (d->env || d->profile) ? ", " : "",
			     d->section ? "[" : "", d->section ? d->section : "",
			     d->section ? "] " : "", d->section ? d->key : "");
		n = snprintf(buf + used, len - used, "%-14s %-18s %-24s # %s (%s)\n", d->name,
			     v->text[0] ? v->text : "\"\"",
			     gfec_knob_origin(&p->set, (enum gfec_knob)k, origin, sizeof(origin)),
			     d->help, from);

		if (n < 0 || (size_t)n >= len - used)
			ret = GFEC_E_INVAL;
		else
			used += (size_t)n;
	}
	free(p);
	return ret;
}
