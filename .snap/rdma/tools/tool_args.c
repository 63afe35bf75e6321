/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tool_args.c  The rdma tools' number flags through gfec's one number syntax. */
#include "tool_args.h"

#include <limits.h>

#include "gfec/gfec_config.h"

int rdma_tool_number(const char *s, unsigned long long max, unsigned long long *out)
{
	long long v;

	if (!s || gfec_parse_number(s, 0, max > LLONG_MAX ? LLONG_MAX : (long long)max, &v))
		return -1;
	*out = (unsigned long long)v;
	return 0;
}
