/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file tool_args.h
 * What gfec-rdma-server and gfec-rdma-bench share in reading their flags: one adapter from
 * gfec's number syntax to the unsigned ranges their flags take.
 */
#ifndef GFEC_RDMA_TOOL_ARGS_H
#define GFEC_RDMA_TOOL_ARGS_H

/**
 * @p s read with gfec_parse_number() (decimal, K/M/G/T suffixes) in 0..@p max (capped at
 * LLONG_MAX) into @p out: 0, or -1 for NULL, a bad number or one out of range.
 */
int rdma_tool_number(const char *s, unsigned long long max, unsigned long long *out);

#endif
