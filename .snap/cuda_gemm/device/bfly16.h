// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file bfly16.h
 * The GPU backend's butterfly16 op and its companions (gemm.h): gfmatrix/fft16.c's region ops on
 * device memory, stream-ordered. A context's ops go in call order onto one stream of its own;
 * their lists travel through a ring of pinned staging slots (one cudaMemcpyAsync per launch,
 * a slot reused once the event recorded behind its launch has passed: the host waits only when
 * it is kB16Slots lists ahead of the GPU); the work regions come from a memory pool of the
 * context, allocated and freed in stream order (no device-wide synchronisation, and memory kept
 * between calls). bfly16_sync waits for the stream. Every entry is thread-safe: concurrent
 * callers' ops interleave on the stream, each caller's in its order. C++ only.
 */
#pragma once

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <mutex>

namespace gfec
{

constexpr int kB16Slots = 8;

/** One context's state (held by backend.cu's Ctx); its CUDA objects are made on first use. */
struct Bfly16 {
	std::mutex lock;
	int dev = 0;
	bool fault = false; // tests (GFEC_FAULT=cuda): every op fails
	bool ready = false;
	int sms = 0;
	size_t work = 0;    // the work hint: 1/8 of the device's memory
	cudaStream_t st = nullptr;
	cudaMemPool_t pool = nullptr;
	struct Slot {
		uint8_t *h = nullptr, *d = nullptr; // pinned, device: a list's x, y, c
		cudaEvent_t ev = nullptr;
		bool used = false;
	} slots[kB16Slots];
	int next = 0;
};

/** gemm.h's butterfly16 on device regions: queued on the stream; 0 or a negative GFEC_E_*. */
int bfly16_run(Bfly16 *b, int kind, int n, size_t len, uint8_t *const *x, uint8_t *const *y,
	       const uint16_t *c);

/** Work regions from the pool, in stream order (NULL when CUDA cannot give them). */
void *bfly16_alloc(Bfly16 *b, size_t bytes);
void bfly16_free(Bfly16 *b, void *p);

/** Waits for every op queued so far: 0 or GFEC_E_DEVICE. */
int bfly16_sync(Bfly16 *b);

/** Bytes of work regions a call may take (whole chunks per slice for the shapes of issue 13). */
size_t bfly16_work(Bfly16 *b);

/** Frees the CUDA objects (after the stream drains). */
void bfly16_release(Bfly16 *b);

} // namespace gfec
