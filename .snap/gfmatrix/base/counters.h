/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file counters.h
 * Statistics counters that a call adds to without a locked instruction. A locked add (what
 * __atomic_fetch_add is on x86) waits until every store before it has left the store buffer; a
 * short call from memory ends with most of its parity stores still waiting for their lines
 * (read for ownership), so a counter bumped after the kernel held the caller for the slowest of
 * them, which the next call's loads would otherwise have overlapped. Here each thread adds to
 * a line of its own with a plain load and store; a reader sums the lines.
 *
 *   owner[s]:  pthread_self() of the thread that claimed line s (0: free), probed from a hash
 *   line s:    GFEC_COUNTERS_MAX counters, 64 bytes, written by that thread only
 *   shared:    locked adds, for threads beyond GFEC_COUNTERS_SLOTS
 *
 * A line is never given back: a thread that ends leaves its counts in it, and a later thread
 * with the same pthread_t (glibc reuses them) carries on in it, one writer at a time.
 */
#ifndef GFEC_BASE_COUNTERS_H
#define GFEC_BASE_COUNTERS_H

#include <pthread.h>
#include <stdint.h>

#define GFEC_COUNTERS_MAX 8	/* counters in a set: one 64-byte line per thread */
#define GFEC_COUNTERS_SLOTS 64	/* threads with a line of their own */

struct gfec_counters {
	int n;
	uint64_t *lines; /* GFEC_COUNTERS_SLOTS x GFEC_COUNTERS_MAX, 64-byte aligned */
	uintptr_t owner[GFEC_COUNTERS_SLOTS];
	uint64_t shared[GFEC_COUNTERS_MAX];
};

/** @p n (1..GFEC_COUNTERS_MAX) counters at 0. @returns 0, GFEC_E_INVAL or GFEC_E_NOMEM. */
int gfec_counters_init(struct gfec_counters *c, int n);

/** Frees the lines; no thread may be adding. A zeroed or failed set is accepted. */
void gfec_counters_fini(struct gfec_counters *c);

/** gfec_counters_line() past its first probe: claims a free line, or finds this thread's. */
uint64_t *gfec_counters_claim(struct gfec_counters *c, uintptr_t me, unsigned slot);

/**
 * The calling thread's line (claimed on its first call), or NULL when all are taken by other
 * threads; pass it to gfec_counters_add() for every counter a call bumps. Inline: it is on every
 * call's path, one load and compare once the thread holds its line.
 */
static inline uint64_t *gfec_counters_line(struct gfec_counters *c)
{
#if defined(__x86_64__) && defined(__GLIBC__)
	/* glibc's thread pointer is its pthread_self(), read without a call */
	const uintptr_t me = (uintptr_t)__builtin_thread_pointer();
#else
	const uintptr_t me = (uintptr_t)pthread_self();
#endif
	/* pthread_t is an aligned address: the product's high bits spread the threads */
	const unsigned s = (unsigned)(((uint64_t)me * 0x9e3779b97f4a7c15ull) >> 32) %
			   GFEC_COUNTERS_SLOTS;

	if (__atomic_load_n(&c->owner[s], __ATOMIC_ACQUIRE) == me)
		return c->lines + (size_t)s * GFEC_COUNTERS_MAX;
	return gfec_counters_claim(c, me, s);
}

/** Counter @p i += @p v, on @p line from gfec_counters_line() (NULL: the shared counter). */
static inline void gfec_counters_add(struct gfec_counters *c, uint64_t *line, int i, uint64_t v)
{
	if (line)
		__atomic_store_n(&line[i], __atomic_load_n(&line[i], __ATOMIC_RELAXED) + v,
				 __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&c->shared[i], v, __ATOMIC_RELAXED);
}

/** Counter @p i: everything added before this call in the reading thread's view. */
uint64_t gfec_counters_get(const struct gfec_counters *c, int i);

#endif
