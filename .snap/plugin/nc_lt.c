/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc_lt.c
 * The LT family of gfec_nc.h: headers and checks of the public block format around
 * gfmatrix/lt.c, which does the coding. The decoder keeps every distinct block (a small hash set
 * of seeds finds repeats) and asks lt.c, from the n-th block on, whether the blocks held decode
 * (an O(edges) pass on the structure); a pass that says no also says how many blocks are still
 * missing at least (n - rank), so the next pass waits for that many and COMPLETE is still
 * exact. The payload work waits for read(). A freed decoder is kept (one per code) for the next
 * one made, so that a segment after the first finds its payload and scratch pages mapped.
 */
#include "nc_lt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lt.h"
#include "nc_gpu.h"
#include "nc_prng.h"
#include "threadpool.h"

struct nc_lt {
	uint32_t n;
	size_t B;
	struct gfec_lt_dist *dist;
	struct gfec_cpu_pool *pool; /* borrowed from the gfec_nc; NULL on one thread */
	/* one cell, its own allocation so that decoders of a const code can swap it atomically:
	 * the last decoder freed (reset, its memory kept) or NULL. A fresh gfmatrix decoder
	 * touches about 2 n B bytes of new pages (payloads, then scratch): the gfec_nc.h decode
	 * in gfec-lt-bench (n = 10240, B = 1 KiB, a decoder per run) spent 1.5-2 ms of its 16 in
	 * their faults on the shared 2-core VM */
	struct gfec_lt_decoder **spare;
};

struct nc_lt_decoder {
	const struct nc_lt *lt;
	uint64_t segment;
	struct gfec_lt_decoder *dec;
	uint64_t *seen;	    /* open addressing, seed + 1 (0 = empty); seen_cap a power of 2 */
	size_t seen_cap;
	uint32_t next_check; /* blocks held at which the next structural check runs */
	int complete;
	struct gfec_nc_decoder_stats st;
};

int nc_lt_create(const struct gfec_nc_params *p, struct gfec_cpu_pool *pool, struct nc_lt **out)
{
	double c = p->lt_c == 0.0 ? GFEC_LT_DEFAULT_C : p->lt_c;
	double delta = p->lt_delta == 0.0 ? GFEC_LT_DEFAULT_DELTA : p->lt_delta;
	struct nc_lt *lt;
	int ret;

	/* !(x > 0) also refuses NaN; gfec_lt_dist_create checks the rest (n, c < 1e6) */
	if (p->flags || !(c > 0.0) || !(delta > 0.0) || !(delta < 1.0) || p->n > GFEC_NC_MAX_N)
		return GFEC_E_INVAL;
	lt = calloc(1, sizeof(*lt));
	if (!lt)
		return GFEC_E_NOMEM;
	lt->n = p->n;
	lt->B = p->block_size;
	lt->pool = pool;
	lt->spare = calloc(1, sizeof(*lt->spare));
	if (!lt->spare) {
		free(lt);
		return GFEC_E_NOMEM;
	}
	ret = gfec_lt_dist_create(p->n, c, delta, &lt->dist);
	if (ret) {
		free(lt->spare);
		free(lt);
		return ret;
	}
	*out = lt;
	return 0;
}

void nc_lt_free(struct nc_lt *lt)
{
	if (!lt)
		return;
	gfec_lt_decoder_free(*lt->spare); /* every decoder of the code is freed by now */
	free(lt->spare);
	gfec_lt_dist_free(lt->dist);
	free(lt);
}

int nc_lt_encode(const struct nc_lt *lt, struct gfec_nc_gpu *gpu,
		 const struct gfec_nc_segment *segs, int nseg, uint32_t first, uint32_t count,
		 uint8_t *out, size_t out_len)
{
	const size_t hdr = gfec_nc_header_bytes(GFEC_NC_KIND_SEED, lt->n);
	const size_t bytes = hdr + lt->B;

	if (!segs || !out || nseg < 1 || count > INT_MAX || (uint64_t)first + count > (1ull << 32))
		return GFEC_E_INVAL;
	for (int s = 0; s < nseg; s++)
		if (!segs[s].data)
			return GFEC_E_INVAL;
	if (count == 0)
		return 0;
	if ((uint64_t)nseg * count > SIZE_MAX / bytes || (size_t)nseg * count * bytes > out_len)
		return GFEC_E_INVAL;
	/* on the GPU when the code has one and the buffers go there (nc_gpu.h) */
	const int on_gpu = gfec_nc_gpu_lt_encode(gpu, lt->dist, segs, nseg, first, count, out);

	if (on_gpu != GFEC_NC_GPU_PASS)
		return on_gpu;
	for (int s = 0; s < nseg; s++) {
		uint8_t *blk = out + (size_t)s * count * bytes;
		int ret;

		for (uint32_t j = 0; j < count; j++) {
			struct gfec_nc_block b = { .family = GFEC_NC_LT, .kind = GFEC_NC_KIND_SEED,
						   .n = lt->n, .block_size = (uint32_t)lt->B,
						   .segment = segs[s].id, .seed = first + j };

			gfec_nc_block_pack(&b, blk + (size_t)j * bytes, hdr);
		}
		ret = gfec_lt_encode(lt->dist, segs[s].data, lt->B, first, count, blk + hdr, bytes,
				     lt->pool);
		if (ret)
			return ret;
	}
	return 0;
}

static int seen_reserve(struct nc_lt_decoder *d, uint32_t held);

int nc_lt_decoder_create(const struct nc_lt *lt, uint64_t segment, struct nc_lt_decoder **out)
{
	struct nc_lt_decoder *d = calloc(1, sizeof(*d));
	int ret;

	if (!d)
		return GFEC_E_NOMEM;
	d->lt = lt;
	d->segment = segment;
	d->next_check = lt->n;
	d->dec = __atomic_exchange_n(lt->spare, NULL, __ATOMIC_ACQ_REL); /* reset when kept */
	ret = d->dec ? 0 : gfec_lt_decoder_create(lt->dist, lt->B, &d->dec);
	if (ret) {
		free(d);
		return ret;
	}
	/* the seen seeds' table at once for about what an exact decode takes (the decoder's first
	 * room too): grown from 64 by doubling, its rehashes and fresh pages made the adds of
	 * n = 10240, B = 1 KiB 0.2-0.8 ms slower (5.52-6.08 against 5.08-5.34 ms with their checks,
	 * alternated, shared 2-core VM at load 5-12) */
	if (seen_reserve(d, lt->n + lt->n / 16 + 16)) {
		nc_lt_decoder_free(d);
		return GFEC_E_NOMEM;
	}
	*out = d;
	return 0;
}

void nc_lt_decoder_free(struct nc_lt_decoder *d)
{
	if (!d)
		return;
	gfec_lt_decoder_reset(d->dec);
	gfec_lt_decoder_free(__atomic_exchange_n(d->lt->spare, d->dec, __ATOMIC_ACQ_REL));
	free(d->seen);
	free(d);
}

static size_t seen_slot(const struct nc_lt_decoder *d, uint32_t seed)
{
	size_t mask = d->seen_cap - 1;
	size_t i = (size_t)gfec_nc_prng_key(seed) & mask;

	while (d->seen[i] && d->seen[i] != (uint64_t)seed + 1)
		i = (i + 1) & mask;
	return i;
}

/* Room for @p held + 1 seeds at a load of at most 1/2; 0 or GFEC_E_NOMEM (set unchanged). */
static int seen_reserve(struct nc_lt_decoder *d, uint32_t held)
{
	size_t cap = d->seen_cap ? d->seen_cap : 64;
	uint64_t *old = d->seen;
	size_t old_cap = d->seen_cap;

	while (cap < 2 * ((size_t)held + 1))
		cap *= 2;
	if (cap == d->seen_cap)
		return 0;
	d->seen = calloc(cap, sizeof(*d->seen));
	if (!d->seen) {
		d->seen = old;
		return GFEC_E_NOMEM;
	}
	d->seen_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			d->seen[seen_slot(d, (uint32_t)(old[i] - 1))] = old[i];
	free(old);
	return 0;
}

/* Whether the blocks held decode: 1, 0, or GFEC_E_NOMEM (then checked again on the next block). */
static int check(struct nc_lt_decoder *d)
{
	uint32_t n = d->lt->n, m = gfec_lt_decoder_count(d->dec);
	int rc;

	if (m < n || m < d->next_check)
		return 0;
	rc = gfec_lt_decoder_check(d->dec, m, 0);
	if (rc == 0) /* each block raises the rank by at most one: no need to look before */
		d->next_check = m + gfec_lt_decoder_deficit(d->dec);
	if (rc == 1)
		d->complete = 1;
	return rc;
}

/* The header checks of gfec_nc_decoder_add for an LT decoder (gfec_nc.h). */
static int take_block(const struct nc_lt_decoder *d, const uint8_t *block, size_t len,
		      struct gfec_nc_block *b)
{
	int ret = gfec_nc_block_unpack(block, len, b);

	if (ret)
		return ret;
	if (b->family != GFEC_NC_LT || b->n != d->lt->n || b->block_size != d->lt->B ||
	    b->segment != d->segment)
		return GFEC_E_FOREIGN;
	if (b->kind != GFEC_NC_KIND_SEED)
		return GFEC_E_NOTSUP;
	if (b->flags)
		return GFEC_E_FOREIGN;
	return 0;
}

int nc_lt_decoder_add(struct nc_lt_decoder *d, const uint8_t *block, size_t len)
{
	struct gfec_nc_block b;
	size_t slot;
	int ret = take_block(d, block, len, &b);

	if (ret) {
		d->st.refused++;
		return ret;
	}
	if (d->complete) {
		d->st.received++;
		d->st.dependent++;
		return GFEC_NC_DEPENDENT;
	}
	ret = seen_reserve(d, gfec_lt_decoder_count(d->dec));
	if (ret) {
		d->st.refused++;
		return ret;
	}
	slot = seen_slot(d, b.seed);
	d->st.received++;
	if (d->seen[slot]) {
		d->st.dependent++;
		return GFEC_NC_DEPENDENT;
	}
	ret = gfec_lt_decoder_add(d->dec, b.seed, b.payload);
	if (ret < 0) {
		d->st.received--;
		d->st.refused++;
		return ret;
	}
	d->seen[slot] = (uint64_t)b.seed + 1;
	d->st.innovative++;
	/* a failed check (no memory) leaves the block taken: the next add or read checks again */
	return check(d) == 1 ? GFEC_NC_COMPLETE : GFEC_NC_INNOVATIVE;
}

uint32_t nc_lt_decoder_rank(const struct nc_lt_decoder *d)
{
	uint32_t m = gfec_lt_decoder_count(d->dec);

	if (d->complete)
		return d->lt->n;
	return m < d->lt->n ? m : d->lt->n - 1;
}

void nc_lt_decoder_stats(const struct nc_lt_decoder *d, struct gfec_nc_decoder_stats *out)
{
	*out = d->st;
}

int nc_lt_decoder_read(struct nc_lt_decoder *d, uint8_t *out, size_t len)
{
	int ret;

	if (!out)
		return GFEC_E_INVAL;
	if (len < (size_t)d->lt->n * d->lt->B)
		return GFEC_E_INVAL;
	if (!d->complete) {
		ret = check(d); /* runs only if the last add's could not (no memory) */
		if (ret < 0)
			return ret;
		if (!ret)
			return GFEC_E_TOOFEW;
	}
	return gfec_lt_decoder_solve(d->dec, out, 0);
}

struct batch {
	const struct nc_lt *lt;
	struct gfec_nc_batch_segment *segs;
	int fatal; /* GFEC_E_NOMEM from any segment */
};

/* One segment: its blocks in order into a decoder of its own until they decode, then read. */
static void batch_task(void *arg, size_t i)
{
	struct batch *bt = arg;
	struct gfec_nc_batch_segment *sg = &bt->segs[i];
	struct nc_lt_decoder *d = NULL;
	int ret = nc_lt_decoder_create(bt->lt, sg->id, &d), r = GFEC_NC_INNOVATIVE;

	sg->dependent = 0;
	if (!ret && sg->nblocks && (!sg->blocks || !sg->lens))
		ret = GFEC_E_INVAL;
	for (uint32_t j = 0; !ret && j < sg->nblocks && r != GFEC_NC_COMPLETE; j++) {
		r = sg->blocks[j] ? nc_lt_decoder_add(d, sg->blocks[j], sg->lens[j]) : GFEC_E_INVAL;
		if (r < 0)
			ret = r;
		else if (r == GFEC_NC_DEPENDENT)
			sg->dependent++;
	}
	/* out is written only by a read that succeeds: a bad block or too few leave it untouched */
	if (!ret)
		ret = r == GFEC_NC_COMPLETE
			      ? nc_lt_decoder_read(d, sg->out, (size_t)bt->lt->n * bt->lt->B)
			      : GFEC_E_TOOFEW;
	if (ret == GFEC_E_NOMEM)
		__atomic_store_n(&bt->fatal, ret, __ATOMIC_RELAXED);
	nc_lt_decoder_free(d);
	sg->status = ret;
}

int nc_lt_decode_batch(const struct nc_lt *lt, struct gfec_nc_batch_segment *segs, int nseg)
{
	struct batch bt = { .lt = lt, .segs = segs };

	if (lt->pool)
		gfec_cpu_pool_run(lt->pool, (size_t)nseg, batch_task, &bt);
	else
		for (int i = 0; i < nseg; i++)
			batch_task(&bt, (size_t)i);
	if (bt.fatal)
		return bt.fatal;
	for (int i = 0; i < nseg; i++)
		if (segs[i].status)
			return GFEC_E_TOOFEW;
	return 0;
}
