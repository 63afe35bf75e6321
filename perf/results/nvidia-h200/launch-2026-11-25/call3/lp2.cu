// Pinned RS(10,4)-shaped calls from T threads over a rotated pinned pool (cold): a plain XOR
// kernel launched per call (mode 0) against gfec_encode on one shared GPU codec (mode 1).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#include <sys/resource.h>
#include <cuda_runtime.h>
#include <gfec/gfec.h>
__global__ void read_k(const uint8_t *base, size_t chunk, int cols, int rows, size_t units)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i >= units) return;
	int4 acc = make_int4(0, 0, 0, 0);
	for (int j = 0; j < cols; j++) {
		int4 v = ((const int4 *)(base + j * chunk))[i];
		acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w;
	}
	for (int r = 0; r < rows; r++) ((int4 *)(base + (cols + r) * chunk))[i] = acc;
}
static double cpu_s() { struct rusage u; getrusage(RUSAGE_SELF, &u); return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec); }
int main(int argc, char **argv)
{
	int mode = atoi(argv[1]), T = atoi(argv[2]);
	size_t chunk = strtoul(argv[3], 0, 0);
	const char *prof = argc > 4 ? argv[4] : "k=10 m=4 technique=cauchy backend=gpu";
	size_t total = (size_t)1280 << 20, stripe = chunk * 14;
	size_t per = total / T / stripe; if (per < 1) per = 1;
	uint8_t *pool; if (cudaHostAlloc((void **)&pool, per * T * stripe, cudaHostAllocMapped)) return 1;
	for (size_t i = 0; i < per * T * stripe; i += 4096) pool[i] = (uint8_t)i;
	gfec_codec *c = nullptr; char err[256];
	if (mode == 1 && gfec_codec_create(prof, &c, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
	std::atomic<long> calls{0}; std::atomic<bool> stop{false}, go{false}; std::atomic<int> ready{0}, bad{0};
	std::vector<std::thread> th;
	for (int t = 0; t < T; t++) th.emplace_back([&, t] {
		cudaStream_t st; cudaStreamCreateWithFlags(&st, cudaStreamDefault);
		cudaEvent_t ev; cudaEventCreateWithFlags(&ev, cudaEventBlockingSync | cudaEventDisableTiming);
		uint8_t *mine = pool + (size_t)t * per * stripe;
		long n = 0; size_t s = 0; size_t units = chunk / 16;
		// warm-up call
		ready++; while (!go) ;
		while (!stop.load(std::memory_order_relaxed)) {
			uint8_t *b = mine + s * stripe; s = (s + 1) % per;
			if (mode == 0) {
				uint8_t *d; cudaHostGetDevicePointer((void **)&d, b, 0);
				read_k<<<(units + 255) / 256, 256, 0, st>>>(d, chunk, 10, 4, units);
				cudaEventRecord(ev, st); cudaEventSynchronize(ev);
			} else {
				const uint8_t *src[10]; uint8_t *dst[4];
				for (int j = 0; j < 10; j++) src[j] = b + j * chunk;
				for (int r = 0; r < 4; r++) dst[r] = b + (10 + r) * chunk;
				if (gfec_encode(c, src, dst, chunk)) bad++;
			}
			n++;
		}
		calls += n;
	});
	while (ready < T) ;
	double c0 = cpu_s(); go = true;
	auto t0 = std::chrono::steady_clock::now();
	std::this_thread::sleep_for(std::chrono::milliseconds(1500));
	stop = true;
	for (auto &x : th) x.join();
	double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	double gb = calls * chunk * 10 / 1e9;
	printf("mode %d T %2d chunk %7zu: %7.0f calls/s %6.2f GB/s data, %.3f CPU-s/GB, %.1f us CPU/call%s\n", mode, T, chunk,
	       calls / el, gb / el, (cpu_s() - c0) / gb, (cpu_s() - c0) / calls * 1e6, bad ? " ERR" : "");
	if (c) gfec_codec_free(c);
	return 0;
}
