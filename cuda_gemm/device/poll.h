// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file poll.h
 * How a caller sleeps between looks at a word the GPU writes (backend.cu's done_wait, the
 * resident kernels of pinned calls in resident.cu): every kPollNs, or kPollNsPerCall per caller
 * polling, whichever is longer (at most kPollMaxNs). At Linux's default 50 us timer slack a
 * look costs a few microseconds of CPU; a gap that did not grow with the callers doubled the
 * CPU of 64 callers (perf/results/nvidia-h200/poll-2026-11-26, calls 2-3). Every kQueryLooks
 * looks the waiter queries its stream, so that a failed kernel, which never writes, ends the
 * wait.
 */
#ifndef GFEC_CUDA_GEMM_POLL_H
#define GFEC_CUDA_GEMM_POLL_H

#include <time.h>

namespace gfec {

constexpr long kPollNs = 5000, kPollNsPerCall = 3000, kPollMaxNs = 1000000;
constexpr unsigned kQueryLooks = 16;

/** The gap before the next look, with @p pollers callers polling (atomic). */
inline struct timespec poll_gap(const unsigned *pollers)
{
	const long n = kPollNsPerCall * (long)__atomic_load_n(pollers, __ATOMIC_RELAXED);

	return { 0, n < kPollNs ? kPollNs : n > kPollMaxNs ? kPollMaxNs : n };
}

/*
 * Looks until @p done() holds, sleeping poll_gap()'s gaps between looks and counted in
 * @p pollers (atomic) meanwhile; every kQueryLooks looks @p query() says whether to go on (false:
 * a failed kernel, which never writes the word). The looks it took (1: done at the first), or 0
 * when @p query ended the wait.
 */
template <class Done, class Query> unsigned poll_until(unsigned *pollers, Done done, Query query)
{
	unsigned looks = 1;

	__atomic_fetch_add(pollers, 1, __ATOMIC_RELAXED);
	for (; !done(); looks++) {
		if (looks % kQueryLooks == 0 && !query()) {
			looks = 0;
			break;
		}
		const struct timespec gap = poll_gap(pollers);

		nanosleep(&gap, nullptr);
	}
	__atomic_fetch_sub(pollers, 1, __ATOMIC_RELAXED);
	return looks;
}

} // namespace gfec

#endif
