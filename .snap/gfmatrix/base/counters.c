/* SPDX-License-Identifier: BSD-3-Clause */
/** @file counters.c  Per-thread statistics lines (counters.h). */
#include "counters.h"

#include <stdlib.h>
#include <string.h>

#include "gfec/gfec_errors.h"

int gfec_counters_init(struct gfec_counters *c, int n)
{
	memset(c, 0, sizeof(*c));
	if (n < 1 || n > GFEC_COUNTERS_MAX)
		return GFEC_E_INVAL;
	c->lines = aligned_alloc(64, sizeof(uint64_t) * GFEC_COUNTERS_SLOTS * GFEC_COUNTERS_MAX);
	if (!c->lines)
		return GFEC_E_NOMEM;
	memset(c->lines, 0, sizeof(uint64_t) * GFEC_COUNTERS_SLOTS * GFEC_COUNTERS_MAX);
	c->n = n;
	return 0;
}

void gfec_counters_fini(struct gfec_counters *c)
{
	free(c->lines);
	c->lines = NULL;
}

uint64_t *gfec_counters_claim(struct gfec_counters *c, uintptr_t me, unsigned slot)
{
	for (unsigned k = 0; k < GFEC_COUNTERS_SLOTS; k++) {
		const unsigned s = (slot + k) % GFEC_COUNTERS_SLOTS;
		uintptr_t o = __atomic_load_n(&c->owner[s], __ATOMIC_ACQUIRE);

		/* a free line is claimed once; a thread never holds two (lines are not released) */
		if (o == 0 && __atomic_compare_exchange_n(&c->owner[s], &o, me, 0, __ATOMIC_ACQ_REL,
							  __ATOMIC_ACQUIRE))
			o = me;
		if (o == me)
			return c->lines + (size_t)s * GFEC_COUNTERS_MAX;
	}
	return NULL;
}

uint64_t gfec_counters_get(const struct gfec_counters *c, int i)
{
	uint64_t v = __atomic_load_n(&c->shared[i], __ATOMIC_RELAXED);

	for (int s = 0; c->lines && s < GFEC_COUNTERS_SLOTS; s++)
		v += __atomic_load_n(&c->lines[(size_t)s * GFEC_COUNTERS_MAX + i], __ATOMIC_RELAXED);
	return v;
}
