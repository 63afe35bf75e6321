/* SPDX-License-Identifier: BSD-3-Clause */
/** @file split.c  Proportional cuts of a call among device contexts (split.h). */
#include "split.h"

#include <math.h>

static int takes_part(double r)
{
	return r > 0 && isfinite(r);
}

/* One pass: cuts in proportion to the rates of the contexts still in (on[i]). */
static void cut_once(uint64_t total, uint64_t unit, const double *rates, const int *on, int n,
		     uint64_t *cut)
{
	double sum = 0, acc = 0;
	int last = -1;

	for (int i = 0; i < n; i++)
		if (on[i]) {
			sum += rates[i];
			last = i;
		}
	cut[0] = 0;
	for (int i = 0; i < n; i++) {
		uint64_t c = cut[i];

		if (on[i]) {
			acc += rates[i];
			if (i == last) {
				c = total;
			} else {
				const double x = (double)total * (acc / sum);
				uint64_t u = x >= (double)total ? total : (uint64_t)x;

				u = u / unit * unit;
				c = u < cut[i] ? cut[i] : u;
			}
		}
		cut[i + 1] = c;
	}
}

int gfec_gpu_split(uint64_t total, uint64_t unit, uint64_t min, const double *rates, int n,
		   uint64_t *cut)
{
	int on[n > 0 ? n : 1], active = 0;

	if (unit == 0)
		unit = 1;
	for (int i = 0; i < n; i++) {
		on[i] = total > 0 && takes_part(rates[i]);
		active += on[i];
	}
	for (int i = 0; i <= n; i++)
		cut[i] = 0;
	if (active == 0)
		return 0;
	for (;;) {
		int drop = -1, nonempty = 0;

		cut_once(total, unit, rates, on, n, cut);
		for (int i = 0; i < n; i++) {
			const uint64_t len = cut[i + 1] - cut[i];

			nonempty += len > 0;
			/* too short (an empty range included): out, slowest first */
			if (on[i] && len < min && (drop < 0 || rates[i] < rates[drop]))
				drop = i;
		}
		if (drop < 0 || active == 1)
			return nonempty;
		on[drop] = 0;
		active--;
	}
}

uint64_t gfec_gpu_split_unit(size_t packetsize)
{
	return packetsize ? 8 * (uint64_t)packetsize : 64;
}
