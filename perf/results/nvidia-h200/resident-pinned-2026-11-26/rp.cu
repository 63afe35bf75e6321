// Pinned RS(10,4)-shaped calls from T threads, cold (each thread rotates over its share of
// 1.25 GiB of mapped pinned memory), three ways in one process:
//   launch:   a kernel launched per call on the thread's stream, blocking-sync event (what a
//             launch per call gets; ../launch-2026-11-25/call3 measured the same loop)
//   resident: one kernel launched once; G blocks, block g serving slot g of a ring in mapped
//             pinned memory; a caller takes a ticket, writes its request into slot ticket % G,
//             then sleeps on the slot's done word (first sleep ~0.75x the recent latency, then
//             max(5 us, 3 us x callers) between looks)
// and pinned H2D / D2H by cudaMemcpyAsync as the ceiling. Each call: 10 chunks read, 4 written
// (a XOR with rotations, no GF work: the transfer is what is measured). A check mode rewrites
// one stripe's inputs before each call and compares every output byte (a stale line in L2 or
// a missing fence would show).
//   nvcc -O2 -std=c++20 -gencode=arch=compute_90,code=sm_90 -o rp rp.cu -lpthread
//   ./rp MODE T CHUNK [G THREADS]      MODE: h2d | launch | resident | check
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <cuda_runtime.h>

#define CK(x)                                                                                     \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

enum { K = 10, M = 4 };

struct alignas(128) Slot {
	unsigned long long req; // lap + 1 once the request below is written
	unsigned long long src; // K chunks, then M outputs, each `len` bytes apart
	unsigned long long len;
	char pad[104];
};
struct alignas(128) Done {
	unsigned long long done; // laps served
	char pad[120];
};

__device__ __forceinline__ uint4 ld_cv(const uint4 *p)
{
	uint4 v;
	asm volatile("ld.global.cv.v4.u32 {%0,%1,%2,%3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "l"(p));
	return v;
}
__device__ __forceinline__ unsigned long long ld_acq(const unsigned long long *p)
{
	unsigned long long v;
	asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}
__device__ __forceinline__ uint32_t rot(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

// One stripe's units [u0, len/16) step `step`: every source loaded before the first output.
__device__ __forceinline__ void stripe(uint8_t *base, size_t len, size_t u0, size_t step)
{
	size_t units = len / 16;
	for (size_t u = u0; u < units; u += step) {
		uint4 x[K];
#pragma unroll
		for (int j = 0; j < K; j++)
			x[j] = ld_cv((const uint4 *)(base + j * len) + u);
#pragma unroll
		for (int r = 0; r < M; r++) {
			uint4 a = make_uint4(0, 0, 0, 0);
#pragma unroll
			for (int j = 0; j < K; j++) {
				a.x ^= rot(x[j].x, r + 1 + j);
				a.y ^= rot(x[j].y, r + 1 + j);
				a.z ^= rot(x[j].z, r + 1 + j);
				a.w ^= rot(x[j].w, r + 1 + j);
			}
			((uint4 *)(base + (K + r) * len))[u] = a;
		}
	}
}

__global__ void launched(uint8_t *base, size_t len)
{
	stripe(base, len, blockIdx.x * (size_t)blockDim.x + threadIdx.x,
	       (size_t)gridDim.x * blockDim.x);
}

__global__ void resident(Slot *slots, Done *done, const volatile int *stop, int poll_ns)
{
	__shared__ unsigned long long s_src, s_len;
	__shared__ int s_go;
	Slot *s = &slots[blockIdx.x];
	unsigned long long lap = 0;
	for (;;) {
		if (threadIdx.x == 0) {
			int go = 0;
			for (;;) {
				if (ld_acq(&s->req) == lap + 1) {
					go = 1;
					break;
				}
				if (*stop)
					break;
				if (poll_ns)
					__nanosleep(poll_ns);
			}
			if (go) {
				s_src = *(volatile unsigned long long *)&s->src;
				s_len = *(volatile unsigned long long *)&s->len;
			}
			s_go = go;
		}
		__syncthreads();
		if (!s_go)
			return;
		stripe((uint8_t *)s_src, s_len, threadIdx.x, blockDim.x);
		__threadfence_system();
		__syncthreads();
		lap++;
		if (threadIdx.x == 0)
			asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(&done[blockIdx.x].done),
				     "l"(lap)
				     : "memory");
	}
}

static double cpu_s()
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_utime.tv_sec + u.ru_stime.tv_sec +
	       1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}
static double now_us()
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}
static void sleep_us(double us)
{
	struct timespec t = {0, (long)(us * 1000)};
	nanosleep(&t, nullptr);
}

static void host_ref(const uint8_t *base, size_t len, uint8_t *out)
{
	for (size_t u = 0; u < len / 4; u++)
		for (int r = 0; r < M; r++) {
			uint32_t a = 0;
			for (int j = 0; j < K; j++) {
				uint32_t x;
				memcpy(&x, base + j * len + u * 4, 4);
				int s = r + 1 + j;
				a ^= (x << s) | (x >> (32 - s));
			}
			memcpy(out + r * len + u * 4, &a, 4);
		}
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: rp h2d|launch|resident|check T CHUNK [G THREADS POLL_NS]\n");
		return 2;
	}
	const char *mode = argv[1];
	int T = atoi(argv[2]);
	size_t chunk = strtoul(argv[3], 0, 0);
	int G = argc > 4 ? atoi(argv[4]) : 32, NT = argc > 5 ? atoi(argv[5]) : 512;
	int poll_ns = argc > 6 ? atoi(argv[6]) : 0;
	bool check = !strcmp(mode, "check");
	size_t stripe_b = chunk * (K + M), total = check ? 64 * stripe_b : (size_t)1280 << 20;
	size_t per = total / T / stripe_b;
	if (per < 1)
		per = 1;
	uint8_t *pool;
	CK(cudaHostAlloc((void **)&pool, per * T * stripe_b, cudaHostAllocMapped));
	for (size_t i = 0; i < per * T * stripe_b; i += 4096)
		pool[i] = (uint8_t)i;

	if (!strcmp(mode, "h2d")) {
		size_t n = (size_t)256 << 20;
		uint8_t *d;
		cudaStream_t st;
		cudaEvent_t a, b;
		CK(cudaMalloc(&d, n));
		CK(cudaStreamCreate(&st));
		CK(cudaEventCreate(&a));
		CK(cudaEventCreate(&b));
		for (int dir = 0; dir < 2; dir++) {
			float best = 1e9;
			for (int i = 0; i < 6; i++) {
				cudaEventRecord(a, st);
				for (int rep = 0; rep < 4; rep++)
					cudaMemcpyAsync(dir ? pool + rep * n : d, dir ? d : pool + rep * n,
							n, dir ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice,
							st);
				cudaEventRecord(b, st);
				CK(cudaEventSynchronize(b));
				float ms;
				cudaEventElapsedTime(&ms, a, b);
				best = ms < best ? ms : best;
			}
			printf("%s: %.2f GB/s (best of 6, 4 x 256 MiB)\n", dir ? "d2h" : "h2d",
			       4 * n / (best * 1e-3) / 1e9);
		}
		return 0;
	}

	bool res = !strcmp(mode, "resident") || check;
	Slot *slots = nullptr;
	Done *done = nullptr;
	int *stopw = nullptr;
	cudaStream_t kst;
	std::atomic<unsigned long long> ticket{0};
	std::atomic<int> pollers{0};
	if (res) {
		CK(cudaHostAlloc((void **)&slots, G * sizeof(Slot), cudaHostAllocMapped));
		CK(cudaHostAlloc((void **)&done, G * sizeof(Done), cudaHostAllocMapped));
		CK(cudaHostAlloc((void **)&stopw, 64, cudaHostAllocMapped));
		memset(slots, 0, G * sizeof(Slot));
		memset(done, 0, G * sizeof(Done));
		*stopw = 0;
		CK(cudaStreamCreateWithFlags(&kst, cudaStreamNonBlocking));
		resident<<<G, NT, 0, kst>>>(slots, done, stopw, poll_ns);
		CK(cudaGetLastError());
	}
	std::atomic<long> calls{0}, bad{0};
	std::atomic<bool> stop{false}, go{false}, go_done{false};
	std::atomic<int> ready{0};
	std::atomic<double> lat_sum{0};
	std::vector<std::thread> th;
	for (int t = 0; t < T; t++)
		th.emplace_back([&, t] {
			cudaStream_t st = nullptr;
			cudaEvent_t ev = nullptr;
			if (!res) {
				CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
				CK(cudaEventCreateWithFlags(&ev, cudaEventBlockingSync |
									 cudaEventDisableTiming));
			}
			uint8_t *mine = pool + (size_t)t * per * stripe_b;
			std::vector<uint8_t> ref(M * chunk);
			unsigned rng = 12345 + t;
			long n = 0;
			size_t s = 0;
			double est = 0, lsum = 0;
			ready++;
			while (!go)
				sleep_us(100);
			while (!stop.load(std::memory_order_relaxed)) {
				uint8_t *b = mine + s * stripe_b;
				s = (s + 1) % per;
				if (check) {
					for (size_t i = 0; i < K * chunk; i++) {
						rng = rng * 1103515245u + 12345u;
						b[i] = (uint8_t)(rng >> 16);
					}
					memset(b + K * chunk, 0xA5, M * chunk);
				}
				double t0 = now_us();
				if (!res) {
					launched<<<(unsigned)((chunk / 16 + 255) / 256), 256, 0, st>>>(b,
												  chunk);
					cudaEventRecord(ev, st);
					if (cudaEventSynchronize(ev) != cudaSuccess)
						bad++;
				} else {
					unsigned long long tk = ticket.fetch_add(1);
					int g = (int)(tk % G);
					unsigned long long lap = tk / G;
					std::atomic_ref<unsigned long long> d(done[g].done);
					while (d.load(std::memory_order_acquire) < lap)
						sleep_us(5);
					slots[g].src = (unsigned long long)b;
					slots[g].len = chunk;
					std::atomic_ref<unsigned long long>(slots[g].req)
						.store(lap + 1, std::memory_order_release);
					int np = ++pollers;
					if (est > 0)
						sleep_us(0.75 * est);
					while (d.load(std::memory_order_acquire) < lap + 1)
						sleep_us(np * 3 > 5 ? np * 3 : 5);
					pollers--;
				}
				double l = now_us() - t0;
				est = est > 0 ? 0.9 * est + 0.1 * l : l;
				lsum += l;
				if (check) {
					host_ref(b, chunk, ref.data());
					if (memcmp(ref.data(), b + K * chunk, M * chunk))
						bad++;
				}
				n++;
			}
			calls += n;
			double cur = lat_sum.load();
			while (!lat_sum.compare_exchange_weak(cur, cur + lsum))
				;
		});
	while (ready < T)
		sleep_us(100);
	double c0 = cpu_s();
	go = true;
	auto t0 = std::chrono::steady_clock::now();
	std::this_thread::sleep_for(std::chrono::milliseconds(check ? 500 : 1500));
	stop = true;
	std::thread dog([&] {
		// A caller still waiting 5 s after the window: print the ring's state and leave.
		for (int i = 0; i < 500 && !go_done; i++)
			sleep_us(10000);
		if (go_done)
			return;
		fprintf(stderr, "stuck: ticket %llu\n", ticket.load());
		for (int g = 0; res && g < G; g++)
			fprintf(stderr, "  slot %d req %llu done %llu\n", g,
				std::atomic_ref<unsigned long long>(slots[g].req).load(),
				std::atomic_ref<unsigned long long>(done[g].done).load());
		fflush(stderr);
		_exit(3);
	});
	for (auto &x : th)
		x.join();
	go_done = true;
	dog.join();
	double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	double c1 = cpu_s();
	if (res) {
		*(volatile int *)stopw = 1;
		CK(cudaStreamSynchronize(kst));
	}
	double gb = calls * chunk * K / 1e9;
	printf("%-8s T %2d chunk %7zu G %3d NT %4d poll %4d: %7.0f calls/s %6.2f GB/s data, %.3f "
	       "CPU-s/GB, %.1f us CPU/call, mean latency %.1f us%s\n",
	       mode, T, chunk, res ? G : 0, res ? NT : 256, poll_ns, calls / el, gb / el,
	       (c1 - c0) / gb, (c1 - c0) / calls * 1e6, lat_sum / calls,
	       bad ? " MISMATCH" : (check ? " (outputs checked: identical)" : ""));
	return bad ? 1 : 0;
}
