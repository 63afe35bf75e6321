// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file multi.cu
 * Several GPUs (or several contexts on one GPU) behind one backend table: gpu_devices=0,1,...
 *
 * Each entry of gfec_backend_conf.devices gets its own context of the one-device backend
 * (backend.cu: its own streams, pinned staging and lock) and its own host thread, a small
 * persistent worker. A call is cut among the contexts in proportion to their measured rates
 * (split.h), each share coded by one context:
 *
 *   gemm(call) --> stripes in host memory  --> cut by rate among every context --+--> worker 0
 *            \--> stripes in GPU d's memory --> cut among the contexts on GPU d --+--> worker 1
 *                                                                                  ...
 *
 * A stripe is in GPU d's memory when its first source is (cudaPointerGetAttributes); it is then
 * coded by a context on d, as the one-device backend does. Several stripes are cut into whole
 * stripes, one stripe into byte ranges of split_unit() bytes (64, or a CRS block). A call of less
 * than split_min source bytes per share is not cut. Rates are EWMAs of each context's achieved
 * source bytes per second, one for host buffers and one for device buffers; equal at the start.
 *
 * A share that fails with GFEC_E_DEVICE is cut again among the contexts that have not failed in
 * this call and redone there (gemm writes its outputs whole, so a redo gives the same bytes); the
 * failed context sits out the next kDownCalls calls. When no context is left the call fails with
 * GFEC_E_DEVICE and the engine redoes host buffers on the CPU. Updates are not cut (a delta must
 * be applied once): one context runs the call and the next resumes where it stopped.
 */
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <math.h>
#include <mutex>
#include <new>
#include <stdio.h>
#include <string.h>
#include <thread>
#include <vector>

#include "gfec_gpu.h"
#include "split.h"

namespace gfec {
namespace {

constexpr size_t kDefaultSplitMin = (size_t)1 << 20; // source bytes per share
constexpr uint64_t kDownCalls = 64;		      // calls a failed context sits out
constexpr double kEwma = 0.25;			      // weight of the newest rate sample
constexpr auto kSpin = std::chrono::microseconds(200); // before a thread sleeps (spin())


struct MCtx;

struct MPlan {
	int rows = 0, cols = 0;
	size_t packetsize = 0;
	unsigned w = 8;
	std::vector<void *> p; // the inner plan on each context
};

// What one share covers: stripes of the call (indices) and a byte range of each.
struct Part {
	std::vector<int> stripes;
	size_t off = 0, len = 0;
	int ord = -1; // the GPU whose memory holds the stripes, -1: host memory
};

struct Call {
	std::mutex m;
	std::condition_variable cv;
	std::atomic<int> pending{ 0 }; // decremented under m
};

struct Job {
	MCtx *m = nullptr;
	const MPlan *mp = nullptr;
	Call *call = nullptr;
	int dev = 0; // context index
	Part part;
	std::vector<const uint8_t *> src;
	std::vector<uint8_t *> dst;
	int ret = 0;
};

struct Dev {
	void *ctx = nullptr;
	gfec_backend_device info{}; // counters and rates guarded by MCtx::lock
	uint64_t down_until = 0;    // MCtx::seq before which the context sits out
	std::thread th;
	std::mutex m;
	std::condition_variable cv;
	std::deque<Job *> q;
	std::atomic<int> queued{ 0 }; // q's length, read without m while spinning
	bool stop = false;
};

struct MCtx {
	const gfec_backend_ops *in = nullptr;
	std::vector<Dev *> d;
	size_t split_min = kDefaultSplitMin;
	std::mutex lock;
	uint64_t seq = 0, calls = 0, bytes = 0, redone = 0;
};

// Runs one share on its context and keeps the context's counters and rate.
void exec(Job *j)
{
	MCtx *m = j->m;
	Dev *d = m->d[j->dev];
	const int ns = (int)j->part.stripes.size();
	const uint64_t bytes = (uint64_t)ns * j->part.len * j->mp->cols;
	const auto t0 = std::chrono::steady_clock::now();

	j->ret = m->in->gemm(d->ctx, j->mp->p[j->dev], ns, j->part.len, j->src.data(),
			     j->dst.data());
	const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	std::lock_guard<std::mutex> g(m->lock);

	if (j->ret) {
		d->info.failures++;
		d->down_until = m->seq + kDownCalls;
		return;
	}
	d->info.calls++;
	d->info.bytes_in += bytes;
	if (s > 0) {
		double &r = j->part.ord >= 0 ? d->info.rate_dev : d->info.rate_host;

		r = r > 0 ? (1 - kEwma) * r + kEwma * (bytes / s) : bytes / s;
	}
}

// Waits up to kSpin for @p ready() without sleeping: a wake-up through a condition variable took
// tens of microseconds, as long as a device-memory share of a few hundred MiB takes on an H200.
template <class F> void spin(F ready)
{
	const auto end = std::chrono::steady_clock::now() + kSpin;

	while (!ready() && std::chrono::steady_clock::now() < end)
		std::this_thread::yield();
}

void worker(Dev *d)
{
	for (;;) {
		Job *j;

		spin([d] { return d->queued.load(std::memory_order_acquire) > 0; });
		{
			std::unique_lock<std::mutex> g(d->m);

			d->cv.wait(g, [d] { return d->stop || !d->q.empty(); });
			if (d->q.empty())
				return;
			j = d->q.front();
			d->q.pop_front();
			d->queued.fetch_sub(1, std::memory_order_relaxed);
		}
		exec(j);
		Call *c = j->call;
		std::lock_guard<std::mutex> g(c->m); // the caller takes m before c goes away

		if (c->pending.fetch_sub(1) == 1)
			c->cv.notify_all();
	}
}

// Runs every job, each on its context's worker except the first, which the caller runs.
void run_jobs(std::vector<Job> &jobs)
{
	Call c;

	c.pending = (int)jobs.size() - 1;
	for (size_t i = 1; i < jobs.size(); i++) {
		Dev *d = jobs[i].m->d[jobs[i].dev];

		jobs[i].call = &c;
		{
			std::lock_guard<std::mutex> g(d->m);

			d->q.push_back(&jobs[i]);
			d->queued.fetch_add(1, std::memory_order_release);
		}
		d->cv.notify_one();
	}
	exec(&jobs[0]);
	spin([&c] { return c.pending.load() == 0; });
	// Even after pending reached 0: the last worker still holds c.m until it has notified.
	std::unique_lock<std::mutex> g(c.m);

	c.cv.wait(g, [&c] { return c.pending.load() == 0; });
}

// The GPU whose memory holds @p p, or -1 for host memory.
int where(const void *p)
{
	cudaPointerAttributes at;

	if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
		cudaGetLastError();
		return -1;
	}
	return at.type == cudaMemoryTypeDevice || at.type == cudaMemoryTypeManaged ? at.device : -1;
}

/*
 * Cuts @p part among the contexts that may code it (any for host memory, those on its GPU for
 * device memory; none in @p excl; those not sitting out, unless all are) and appends one job per
 * nonempty share. Returns how many jobs it added: 0 when no context may code it.
 */
int make_jobs(MCtx *m, const MPlan *mp, const Part &part, uint32_t excl,
	      const uint8_t *const *src, uint8_t *const *dst, std::vector<Job> &out)
{
	const int n = (int)m->d.size();
	double rates[GFEC_MAX_GPU_CONTEXTS] = { 0 };
	uint64_t cut[GFEC_MAX_GPU_CONTEXTS + 1];
	int ok[GFEC_MAX_GPU_CONTEXTS] = { 0 }, any = 0, up = 0, on_gpu = 0;

	for (int i = 0; i < n; i++)
		on_gpu += part.ord >= 0 && m->d[i]->info.ordinal == part.ord;
	{
		std::lock_guard<std::mutex> g(m->lock);
		double known = 0;
		int nknown = 0;

		for (int i = 0; i < n; i++) {
			const Dev *d = m->d[i];

			// Device memory on a GPU no context drives: every context may try (the
			// one-device backend's behaviour).
			ok[i] = !(excl >> i & 1) && (!on_gpu || d->info.ordinal == part.ord);
			any += ok[i];
			up += ok[i] && d->down_until <= m->seq;
		}
		for (int i = 0; i < n; i++) {
			ok[i] = ok[i] && (up == 0 || m->d[i]->down_until <= m->seq);
			const double r = part.ord >= 0 ? m->d[i]->info.rate_dev
						       : m->d[i]->info.rate_host;

			rates[i] = r;
			if (ok[i] && r > 0)
				known += r, nknown++;
		}
		// Equal at the start; a context not yet measured counts as the mean of the others.
		for (int i = 0; i < n; i++)
			rates[i] = !ok[i] ? 0 : rates[i] > 0 ? rates[i] : nknown ? known / nknown : 1;
	}
	if (!any)
		return 0;
	const size_t ns = part.stripes.size();
	const uint64_t per = (uint64_t)part.len * mp->cols; // source bytes of one stripe
	const int by_stripe = ns > 1;
	const uint64_t unit = by_stripe ? 1 : gfec_gpu_split_unit(mp->packetsize);
	const uint64_t min = by_stripe ? (m->split_min + per - 1) / per
				       : (m->split_min + mp->cols - 1) / mp->cols;
	int added = 0;

	gfec_gpu_split(by_stripe ? ns : part.len, unit, min, rates, n, cut);
	for (int i = 0; i < n; i++) {
		if (cut[i + 1] == cut[i])
			continue;
		out.emplace_back();
		Job &j = out.back();

		j.m = m, j.mp = mp, j.dev = i;
		j.part.ord = part.ord;
		if (by_stripe) {
			j.part.stripes.assign(part.stripes.begin() + cut[i],
					      part.stripes.begin() + cut[i + 1]);
			j.part.off = part.off, j.part.len = part.len;
		} else {
			j.part.stripes = part.stripes;
			j.part.off = part.off + cut[i], j.part.len = cut[i + 1] - cut[i];
		}
		for (int s : j.part.stripes) {
			for (int c = 0; c < mp->cols; c++)
				j.src.push_back(src[(size_t)s * mp->cols + c] + j.part.off);
			for (int r = 0; r < mp->rows; r++)
				j.dst.push_back(dst[(size_t)s * mp->rows + r] + j.part.off);
		}
		added++;
	}
	return added;
}

int m_init(const struct gfec_backend_conf *conf, void **out)
{
	int count = 0, list[GFEC_MAX_GPU_CONTEXTS], n = 0, ret = 0;
	MCtx *m;

	if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
		cudaGetLastError();
		return GFEC_E_NOBACKEND;
	}
	if (conf && conf->ndevices > GFEC_MAX_GPU_CONTEXTS)
		return GFEC_E_INVAL;
	if (conf && conf->ndevices < 0)
		for (n = 0; n < count && n < GFEC_MAX_GPU_CONTEXTS; n++)
			list[n] = n;
	else if (conf && conf->ndevices > 0)
		for (n = 0; n < conf->ndevices; n++)
			list[n] = conf->devices[n];
	else
		list[n++] = conf ? conf->device : 0;
	m = new (std::nothrow) MCtx;
	if (!m)
		return GFEC_E_NOMEM;
	m->in = gfec_gpu_backend();
	if (conf && conf->split_min)
		m->split_min = conf->split_min;
	for (int i = 0; i < n && !ret; i++) {
		struct gfec_backend_conf one = conf ? *conf : gfec_backend_conf{};
		Dev *d = new (std::nothrow) Dev;
		cudaDeviceProp prop;

		if (!d) {
			ret = GFEC_E_NOMEM;
			break;
		}
		one.device = list[i];
		one.fault = one.fault == 1 || one.fault == 2 + i;
		one.devices = nullptr, one.ndevices = 0;
		ret = m->in->init(&one, &d->ctx);
		if (ret) {
			delete d;
			break;
		}
		m->d.push_back(d);
		d->info.ordinal = list[i];
		if (cudaGetDeviceProperties(&prop, list[i]) == cudaSuccess) {
			snprintf(d->info.name, sizeof(d->info.name), "%.63s", prop.name);
			d->info.mem_gib = (double)prop.totalGlobalMem / (1 << 30);
			d->info.pci_bus = prop.pciBusID;
		}
		cudaGetLastError();
	}
	// Workers only where there is something to spread.
	for (size_t i = 0; !ret && m->d.size() > 1 && i < m->d.size(); i++) {
		try {
			m->d[i]->th = std::thread(worker, m->d[i]);
		} catch (...) {
			ret = GFEC_E_NOMEM;
		}
	}
	if (ret) {
		gfec_gpu_multi_backend()->fini(m);
		return ret;
	}
	*out = m;
	return 0;
}

void m_fini(void *ctx)
{
	MCtx *m = static_cast<MCtx *>(ctx);

	if (!m)
		return;
	for (Dev *d : m->d) {
		{
			std::lock_guard<std::mutex> g(d->m);

			d->stop = true;
		}
		d->cv.notify_one();
		if (d->th.joinable())
			d->th.join();
		m->in->fini(d->ctx);
		delete d;
	}
	delete m;
}

int m_can_implement(void *ctx, const struct gfec_gemm_matrix *a)
{
	MCtx *m = static_cast<MCtx *>(ctx);

	for (Dev *d : m->d) {
		const int ret = m->in->can_implement(d->ctx, a);

		if (ret)
			return ret;
	}
	return 0;
}

void m_plan_free(void *ctx, void *plan)
{
	MCtx *m = static_cast<MCtx *>(ctx);
	MPlan *mp = static_cast<MPlan *>(plan);

	if (!mp)
		return;
	for (size_t i = 0; i < mp->p.size(); i++)
		m->in->plan_free(m->d[i]->ctx, mp->p[i]);
	delete mp;
}

int m_plan_create(void *ctx, const struct gfec_gemm_matrix *a, void **out)
{
	MCtx *m = static_cast<MCtx *>(ctx);
	MPlan *mp = new (std::nothrow) MPlan;

	if (!mp)
		return GFEC_E_NOMEM;
	mp->rows = a->rows, mp->cols = a->cols, mp->packetsize = a->packetsize, mp->w = a->w;
	for (Dev *d : m->d) {
		void *p = nullptr;
		const int ret = m->in->plan_create(d->ctx, a, &p);

		if (ret) {
			m_plan_free(ctx, mp);
			return ret;
		}
		mp->p.push_back(p);
	}
	*out = mp;
	return 0;
}

int m_gemm(void *ctx, const void *plan, int nstripes, size_t len, const uint8_t *const *src,
	   uint8_t *const *dst)
{
	MCtx *m = static_cast<MCtx *>(ctx);
	const MPlan *mp = static_cast<const MPlan *>(plan);
	std::vector<Part> parts;
	std::vector<Job> jobs;
	uint32_t excl = 0;

	if (m->d.size() == 1)
		return m->in->gemm(m->d[0]->ctx, mp->p[0], nstripes, len, src, dst);
	if (mp->w == 16 && len % 2)
		return GFEC_E_INVAL;
	if (len == 0 || nstripes <= 0)
		return 0;
	{
		std::lock_guard<std::mutex> g(m->lock);

		m->seq++;
		m->calls++;
		m->bytes += (uint64_t)len * mp->cols * nstripes;
	}
	// One part per place the stripes live: host memory, or one GPU's memory.
	for (int s = 0; s < nstripes; s++) {
		const int ord = where(src[(size_t)s * mp->cols]);
		size_t k = 0;

		while (k < parts.size() && parts[k].ord != ord)
			k++;
		if (k == parts.size()) {
			parts.emplace_back();
			parts.back().ord = ord, parts.back().len = len;
		}
		parts[k].stripes.push_back(s);
	}
	for (const Part &p : parts)
		if (!make_jobs(m, mp, p, excl, src, dst, jobs))
			return GFEC_E_DEVICE;
	for (;;) {
		std::vector<Part> failed;

		run_jobs(jobs);
		for (const Job &j : jobs) {
			if (j.ret && j.ret != GFEC_E_DEVICE)
				return j.ret;
			if (j.ret) {
				excl |= 1u << j.dev;
				failed.push_back(j.part);
			}
		}
		if (failed.empty())
			return 0;
		// Redo the failed shares on the contexts that have not failed in this call.
		jobs.clear();
		for (const Part &p : failed)
			if (!make_jobs(m, mp, p, excl, src, dst, jobs))
				return GFEC_E_DEVICE;
		std::lock_guard<std::mutex> g(m->lock);

		m->redone += failed.size();
	}
}

int m_update(void *ctx, const void *plan, int col, size_t len, const uint8_t *src,
	     uint8_t *const *dst, size_t *done)
{
	MCtx *m = static_cast<MCtx *>(ctx);
	const MPlan *mp = static_cast<const MPlan *>(plan);
	const int n = (int)m->d.size();
	int order[GFEC_MAX_GPU_CONTEXTS], norder = 0, ret = GFEC_E_DEVICE;
	std::vector<uint8_t *> rest((size_t)mp->rows);
	size_t total = 0;

	if (n == 1)
		return m->in->update(m->d[0]->ctx, mp->p[0], col, len, src, dst, done);
	*done = 0;
	if (col < 0 || col >= mp->cols)
		return GFEC_E_INVAL;
	const int ord = where(src);
	int on_gpu = 0;

	for (int i = 0; i < n; i++)
		on_gpu += ord >= 0 && m->d[i]->info.ordinal == ord;
	{
		// The contexts that may run it, those not sitting out first, in turn from seq.
		std::lock_guard<std::mutex> g(m->lock);
		const uint64_t seq = m->seq++;

		m->calls++;
		m->bytes += len;
		for (int pass = 0; pass < 2; pass++)
			for (int k = 0; k < n; k++) {
				const int i = (int)((seq + k) % n);
				const Dev *d = m->d[i];

				if ((!on_gpu || d->info.ordinal == ord) &&
				    (d->down_until <= m->seq) == (pass == 0))
					order[norder++] = i;
			}
	}
	for (int k = 0; k < norder; k++) {
		Dev *d = m->d[order[k]];
		const size_t left = len - total;
		size_t part = 0;

		for (int i = 0; i < mp->rows; i++)
			rest[i] = dst[i] + total;
		ret = m->in->update(d->ctx, mp->p[order[k]], col, left, src + total, rest.data(),
				    &part);
		total += part;
		std::lock_guard<std::mutex> g(m->lock);

		if (ret == 0) {
			d->info.calls++;
			d->info.bytes_in += left;
			*done = len;
			return 0;
		}
		if (ret != GFEC_E_DEVICE)
			break;
		d->info.failures++;
		d->down_until = m->seq + kDownCalls;
		if (k + 1 < norder)
			m->redone++;
	}
	*done = total;
	return ret;
}

int m_is_device_ptr(void *ctx, const void *p)
{
	MCtx *m = static_cast<MCtx *>(ctx);

	return m->in->is_device_ptr(m->d[0]->ctx, p);
}

int m_in_place(void *ctx, const void *p)
{
	MCtx *m = static_cast<MCtx *>(ctx);

	return m->in->in_place ? m->in->in_place(m->d[0]->ctx, p)
			       : m->in->is_device_ptr(m->d[0]->ctx, p);
}

void m_stats(void *ctx, struct gfec_backend_stats *out)
{
	MCtx *m = static_cast<MCtx *>(ctx);

	if (m->d.size() == 1)
		return m->in->stats(m->d[0]->ctx, out);
	std::lock_guard<std::mutex> g(m->lock);

	out->calls = m->calls;
	out->bytes_in = m->bytes;
	out->fallbacks = m->redone;
	out->resident = out->staged = 0;
	for (const Dev *d : m->d) {
		struct gfec_backend_stats one;

		m->in->stats(d->ctx, &one);
		out->resident += one.resident;
		out->staged += one.staged;
	}
}

// One context: its own answer, with its plan; several: a lane unless read in place, as without.
int m_holds_lane(void *ctx, const void *plan, int nstripes, size_t len, const uint8_t *const *src,
		 uint8_t *const *dst)
{
	MCtx *m = static_cast<MCtx *>(ctx);

	if (m->d.size() == 1 && m->in->holds_lane)
		return m->in->holds_lane(m->d[0]->ctx, static_cast<const MPlan *>(plan)->p[0],
					 nstripes, len, src, dst);
	return !m_in_place(ctx, src[0]) && !m_in_place(ctx, dst[0]);
}

// One context: its own answer; several: never (their calls are cut and launched).
int m_runs_resident(void *ctx, const void *plan, int nstripes, size_t len,
		    const uint8_t *const *src, uint8_t *const *dst)
{
	MCtx *m = static_cast<MCtx *>(ctx);

	return m->d.size() == 1 && m->in->runs_resident &&
	       m->in->runs_resident(m->d[0]->ctx, static_cast<const MPlan *>(plan)->p[0],
				    nstripes, len, src, dst);
}

const char *m_path_name(void *ctx)
{
	MCtx *m = static_cast<MCtx *>(ctx);

	return m->in->path_name(m->d[0]->ctx);
}

int m_devices(void *ctx, struct gfec_backend_device *out, int max)
{
	MCtx *m = static_cast<MCtx *>(ctx);
	const int n = (int)m->d.size();
	struct gfec_backend_stats one;
	uint64_t sum = 0;

	if (n == 1) { // one context: its own counters
		m->in->stats(m->d[0]->ctx, &one);
		std::lock_guard<std::mutex> g(m->lock);

		m->d[0]->info.calls = one.calls;
		m->d[0]->info.bytes_in = one.bytes_in;
		m->d[0]->info.failures = one.fallbacks;
	}
	std::lock_guard<std::mutex> g(m->lock);

	for (const Dev *d : m->d)
		sum += d->info.bytes_in;
	for (int i = 0; i < n && i < max; i++) {
		out[i] = m->d[i]->info;
		out[i].share = sum ? (double)out[i].bytes_in / sum : 0;
	}
	return n;
}

const struct gfec_backend_ops multi_ops = {
	"gpu",	      m_init,	m_fini,		  m_can_implement, m_plan_create, m_plan_free,
	m_gemm,	      m_update, m_is_device_ptr, m_stats,	   m_path_name,	  m_devices,
	nullptr, // butterfly16: the CPU backend's alone
	nullptr, nullptr, nullptr, nullptr, // its companions
	m_in_place,   m_holds_lane, m_runs_resident,
	0, // checks_device_ptrs: stripes are placed by their pointers, so the codec checks them first
};

} // namespace
} // namespace gfec

extern "C" const struct gfec_backend_ops *gfec_gpu_multi_backend(void)
{
	return &gfec::multi_ops;
}

extern "C" int gfec_gpu_device_count(void)
{
	int count = 0;

	if (cudaGetDeviceCount(&count) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return count;
}

extern "C" int gfec_gpu_ptr_device(const void *p)
{
	return gfec::where(p);
}

extern "C" void gfec_gpu_device_info(int ordinal, struct gfec_backend_device *out)
{
	cudaDeviceProp prop;

	*out = gfec_backend_device{};
	out->ordinal = ordinal;
	if (cudaGetDeviceProperties(&prop, ordinal) == cudaSuccess) {
		snprintf(out->name, sizeof(out->name), "%.63s", prop.name);
		out->mem_gib = (double)prop.totalGlobalMem / (1 << 30);
		out->pci_bus = prop.pciBusID;
	}
	cudaGetLastError();
}
