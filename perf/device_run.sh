#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On the lent GPU machine: build, run the GPU tests and the CPU-path tests that need a CPU this
# repository's development VM lacks (GFNI, AVX-512), then the benchmarks whose figures the README
# and perf/results quote. Every step logs to OUT/<step>.log and a failed step does not stop the
# next; the logs come back as one archive (the device tool returns at most 8 files). All steps
# take longer than one call may run: split them over two calls in a row, with GFEC_BUILD set to a
# directory outside the carried tree (e.g. /tmp/gfec-build) so that the second call reuses the
# first one's build (the machine stays warm only briefly between calls).
#   source .device/env.sh && GFEC_BUILD=/tmp/gfec-build bash perf/device_run.sh "$OUT" [STEP ...]
# Steps (default: all): build gputest cputest gpubench nc w16 ncli perf isal ceil lt weights
# ncperf daemon hybrid nt coalesce multi small ncsizes ltdec fft gate ncctx w16q stress cpu16 nccpu
# fftgpu ncpapers lanes slots p99 tunecpu resident
# .device/ (../shared/device/pack.sh) must carry the Debian libraries, nasm and
# isa-l-2.32.1.tar.gz (the upstream ISA-L that gfec-perf isal --isal-lib compares against).
set -uo pipefail
out=${1:?usage: device_run.sh OUTDIR [STEP ...]}
shift
steps=${*:-build gputest cputest gpubench nc w16 ncli perf isal ceil lt weights ncperf daemon hybrid
	nt coalesce multi small ncsizes ltdec fft gate ncctx w16q stress cpu16 nccpu fftgpu ncpapers
	lanes slots p99 tunecpu resident}
cd "$(dirname "$0")/.."
log=$out/logs
mkdir -p "$log"
b=${GFEC_BUILD:-build-gpu}
jobs=$(nproc)

# The ISA-L drop-in tests compare with Debian's libisal by path; on the device it is carried.
ref=$PWD/.device/root/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30
if [[ ! -e /usr/lib/x86_64-linux-gnu/libisal.so.2.0.30 && -e $ref ]]; then
	export GFEC_ISAL_REF=$ref GFEC_ISAL_LIB=$ref
fi

step() { # name command...: runs, logs, prints one status line
	local name=$1 t0=$SECONDS rc
	shift
	[[ " $steps " == *" $name "* ]] || return 0
	{ echo "# $(date -u +%FT%TZ) $*"; "$@"; } >"$log/$name.log" 2>&1
	rc=$?
	echo "== $name: exit $rc in $((SECONDS - t0)) s"
	tail -n 25 "$log/$name.log"
}

build() {
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
	lscpu | grep -E 'Model name|^CPU\(s\)|L3'
	cmake -S . -B $b -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null &&
		cmake --build $b -j"$jobs"
}
gputest() { ctest --test-dir $b -L gpu --output-on-failure --timeout 600; }
cputest() {
	ctest --test-dir $b -j"$jobs" --output-on-failure --timeout 600 \
		-R '^(gfni|cpu_backend|codec_.*|corpus_.*|isal_abi.*|nc|nc_.*|lt|weights|gf16|gemm16|config|perf_ceilings|perf_daemon)$'
}
stress() { # the GPU tests all at once, three rounds: work queued by a test on the legacy stream must
	# land before gfec's streams read it (they failed so beside each other with non-blocking streams)
	local i
	for i in 1 2 3; do
		ctest --test-dir $b -L gpu -j"$jobs" --output-on-failure --timeout 600 | tail -n 25
	done
}
gpubench() { $b/perf/gfec-gpu-bench --json "$log/gpu_bench.json"; }
nc() { $b/perf/gfec-nc-gpu-bench --json "$log/nc_gpu_bench.json"; }
perf() {
	$b/perf/gfec-perf --quick --json "$log/quick.json" &&
		$b/perf/gfec-perf -k 10,4 -b 1M -e 16M -f 16 -o encode,decode,update -a cpu,gpu \
			--json "$log/sweep.json"
}
upstream_isal() { # upstream ISA-L 2.32.1 (carried source, carried nasm) in /tmp, once
	[[ -e /tmp/isa-l-2.32.1/bin/libisal.so.2 ]] && return 0
	tar -xzf .device/isa-l-2.32.1.tar.gz -C /tmp &&
		PATH=$PWD/.device/root/usr/bin:$PATH make -C /tmp/isa-l-2.32.1 -f Makefile.unx \
			-j"$jobs" slib >/dev/null
}
isal() {
	local up=/tmp/isa-l-2.32.1
	upstream_isal &&
		$b/perf/gfec-perf isal -k '10,4 8,3' -b 1M -e 1M -T 1 -r 7 --isal-lib $up/bin/libisal.so.2 &&
		$b/perf/gfec-perf isal -k '10,4 8,3' -b 1M -e 1M -T 1 -r 7 --hot --isal-lib $up/bin/libisal.so.2 &&
		$b/perf/gfec-perf isal -k '10,4 4,2 223,32 128,16 128,64 128,128' -b 4K -e 4K -T 1 -r 7 --hot \
			--isal-lib $up/bin/libisal.so.2 &&
		$b/perf/gfec-perf isal -k '4,2 223,32' -b 4K -e 4K -T 1 -r 7 --isal-lib $up/bin/libisal.so.2 &&
		$b/perf/gfec-perf isal -k '10,4' -b 1M -e 1M -T "$jobs" -r 7 --isal-lib $up/bin/libisal.so.2
}

ceil() { # CPU rows against the memory-traffic ceiling: update, whose 16 MiB rows beat it here once
	lscpu -C 2>/dev/null || true
	local a
	for a in "-k 10,4 -b 16M -e 16M" "-k 10,4 -b 64M -e 64M" "-k 4,2 -b 16M -e 16M"; do
		# shellcheck disable=SC2086
		$b/perf/gfec-perf $a -o encode,decode,update -a cpu -r 3
	done
}
lt() {
	$b/perf/gfec-lt-bench -n 10240 -B 1024 -s 1000 -r 5
	# gfec-perf nc's LT rows: encode on every CPU and decode on one, against this run's memory
	$b/perf/gfec-perf nc -a cpu --family lt --lt-n 1024,10240 -r 5 --json "$log/nc_lt.json"
	$b/perf/gfec-lt-gpu-bench --json "$log/lt_gpu_bench.json"
	$b/perf/gfec-lt-gpu-bench -N 1000000 -r 5
	compute-sanitizer --tool racecheck --error-exitcode 9 $b/perf/gfec-lt-gpu-bench -N 1000 -r 1 |
		tail -n 5
}
w16() { # GF(2^16): the GPU kernel against its bounds, (32768,32768) included; the codec's rows
	$b/perf/gfec-gf16-gpu-bench -n 5
	timeout 300 $b/perf/gfec-gf16-gpu-bench -n 1 -s 1 --big
	$b/perf/gfec-perf -w 16 -k "10,4 100,20" -o encode,decode,update -b 1M -e 16M -a cpu,gpu \
		--json "$log/w16_codec.json"
	# issue 13's (1000,200) at 64 KiB: one CPU thread against Jerasure w=16 (and the decode
	# matrix's three paths), the codec's CPU rows, and its GPU rows on device buffers
	$b/perf/gfec-gf16-bench 1000 200 65536 3
	$b/perf/gfec-perf -w 16 -k 1000,200 -o encode,decode -b 64K -e 64K -a cpu \
		--json "$log/w16_1000_cpu.json"
	$b/perf/gfec-perf -w 16 -k 1000,200 -o encode,decode -b 64K -e 64K -B 1,16 -a gpu -d gpu \
		--json "$log/w16_1000_gpu.json"
}
ncli() { # gfec nc on a 1 GiB file: GPU encode, GPU batch decode, CPU decode; the simulations
	local d
	d=$(mktemp -d)
	head -c 1073741824 /dev/urandom >"$d/in" &&
		/usr/bin/time -f "nc encode gpu: %e s" $b/tools/gfec nc encode "$d/in" -o "$d/s" -n 128 \
			-B 4096 --overhead 5 --backend gpu &&
		/usr/bin/time -f "nc decode gpu: %e s" $b/tools/gfec nc decode "$d/s" -o "$d/g" \
			--backend gpu &&
		/usr/bin/time -f "nc decode cpu: %e s" $b/tools/gfec nc decode "$d/s" -o "$d/c" &&
		cmp "$d/in" "$d/g" && cmp "$d/in" "$d/c" && echo "both decodes equal the input"
	rm -rf "$d"
	# LT on a 256 MiB file, c and delta not the defaults (the stream carries them), batch decode
	d=$(mktemp -d)
	head -c 268435456 /dev/urandom >"$d/in" &&
		/usr/bin/time -f "nc encode lt: %e s" $b/tools/gfec nc encode "$d/in" -o "$d/s" \
			--family lt -n 10240 -B 1024 --overhead 3 --lt-c 0.05 --lt-delta 0.1 &&
		/usr/bin/time -f "nc decode lt --batch: %e s" $b/tools/gfec nc decode "$d/s" \
			-o "$d/b" --batch &&
		/usr/bin/time -f "nc decode lt: %e s" $b/tools/gfec nc decode "$d/s" -o "$d/p" &&
		cmp "$d/in" "$d/b" && cmp "$d/in" "$d/p" && echo "both LT decodes equal the input"
	rm -rf "$d"
	$b/tools/gfec nc simulate -n 128 -B 4096 --segments 2000 --relays 2 --loss 0.1 \
		--json "$log/nc_sim_rlc.json"
	$b/tools/gfec nc simulate --family lt -n 1024 -B 1024 --segments 300 --relays 2 --loss 0.1 \
		--json "$log/nc_sim_lt.json"
}
ncperf() { # RLC through gfec_nc.h: GPU rows on device buffers, CPU rows against raw ISA-L
	$b/perf/gfec-perf nc -a gpu --n 128,256,512,1024 --block 128,4K,32K -r 3 \
		--json "$log/nc_gpu.json"
	$b/perf/gfec-perf nc -a cpu --family rlc --n 128,256 --block 1K,4K,32K -r 3 \
		--json "$log/nc_cpu.json" # (the LT rows: step lt)
}
daemon() { # daemon-shaped callers: N threads of synchronous single-stripe calls on one codec
	$b/perf/gfec-perf daemon -k 10,4 -b "4K 64K 1M" --callers "1 16 64" -a cpu,gpu,auto \
		--memory pageable,pinned -d 0.3 --json "$log/daemon.json"
}
hybrid() { # backend=hybrid (issue 17): its tests, split vs cpu-only and gpu-only on host buffers
	# (20 MiB+ per call; 1 caller on every CPU, then 16 and 64 callers on one thread each, whose
	# 16 MiB chunks would need 18 GiB of stripes, over the daemon's 8 GiB cap; the
	# host memory-traffic roofline in the same run, on each '# hybrid' line), and gfec tune's host
	# sweep with what gfec info makes of it
	ctest --test-dir $b -R '^(hybrid|perf_tune)$' --output-on-failure --timeout 600
	$b/perf/gfec-perf daemon -k 10,4 -b "2M 16M" --callers 1 -T 0 -o encode \
		-a cpu,gpu,hybrid --memory pageable,pinned -d 0.5 --json "$log/hybrid_1.json"
	$b/perf/gfec-perf daemon -k 10,4 -b "2M 4M" --callers "16 64" -T 1 -o encode \
		-a cpu,gpu,hybrid --memory pageable,pinned -d 0.5 --json "$log/hybrid_16.json"
	$b/tools/gfec tune --config "$log/gfec.conf" -k 10,4 -b 1M -e 1M --seconds 0.2
	GFEC_CONF="$log/gfec.conf" $b/tools/gfec info | tail -n 4
}
nt() { # cpu_stream_min (issue 16): parity by non-temporal stores off (0) and on (64 KiB chunks
	# and up), one thread against upstream ISA-L 2.32.1 from DRAM and in cache, and all cores
	# against the memory-traffic ceiling, in one run
	local up=/tmp/isa-l-2.32.1 s
	upstream_isal || return
	for s in 0 64K; do
		echo "## GFEC_CPU_STREAM_MIN=$s"
		GFEC_CPU_STREAM_MIN=$s $b/perf/gfec-perf isal -k '10,4 8,3' -b 1M -e 1M -T 1 -r 7 \
			--isal-lib $up/bin/libisal.so.2
		GFEC_CPU_STREAM_MIN=$s $b/perf/gfec-perf isal -k '10,4 8,3' -b 1M -e 1M -T 1 -r 7 \
			--hot --isal-lib $up/bin/libisal.so.2
		GFEC_CPU_STREAM_MIN=$s $b/perf/gfec-perf isal -k '10,4' -b 1M -e 1M -T "$jobs" -r 7 \
			--isal-lib $up/bin/libisal.so.2
		GFEC_CPU_STREAM_MIN=$s $b/perf/gfec-perf -k 10,4 -b 16M -e 16M -o encode -a cpu -r 3
	done
}
tunecpu() { # cpu_stream_min=auto (the default) and what gfec tune measures on this CPU (issue 16)
	$b/tools/gfec info | grep '^cpu_stream_min'
	$b/tools/gfec tune --cpu-only --config "$log/gfec-cpu.conf"
}
cpu16() { # issue 16's noisiest rows again, twice: one thread at 4 KiB from DRAM (15 repeats) against
	# upstream ISA-L 2.32.1, and all cores at 16 MiB against the ceiling of the same run
	local up=/tmp/isa-l-2.32.1 i
	upstream_isal || return
	for i in 1 2; do
		$b/perf/gfec-perf isal -k '4,2 223,32' -b 4K -e 4K -T 1 -r 15 --isal-lib $up/bin/libisal.so.2
		$b/perf/gfec-perf -k 10,4 -b 16M -e 16M -o encode -a cpu -r 3
	done
}
coalesce() { # cross-call coalescing (issue 17): its GPU test, then the daemon's GPU rows with
	# windows off (0), at the default (20 us) and wider, and the CPU rows for their CPU-s/GB
	local us
	ctest --test-dir $b -R '^coalesce' --output-on-failure --timeout 600
	for us in 0 20 100; do
		GFEC_GPU_COALESCE_US=$us $b/perf/gfec-perf daemon -k 10,4 -b "64K 256K 1M" \
			--callers "16 64" -o encode,decode -a gpu --memory pageable,pinned -d 0.5 \
			--json "$log/daemon_coalesce_us$us.json"
	done
	$b/perf/gfec-perf daemon -k 10,4 -b "64K 256K 1M" --callers "16 64" -o encode,decode \
		-a cpu -d 0.5 --json "$log/daemon_coalesce_cpu.json"
}
multi() { # several GPUs (issue 18): every visible device, RS(10,4) from GPU and pinned memory
	local all
	all=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)
	nvidia-smi topo -m
	GFEC_TEST_GPU_DEVICES=$all ctest --test-dir $b -R '^multi_gpu$' --output-on-failure \
		--timeout 600
	# test_gpu's cases with every call split over every device (gpu_two_contexts does 0,0)
	GFEC_GPU_DEVICES=$all GFEC_GPU_SPLIT_MIN=1 $b/tests/test_gpu 2>&1 | tail -n 20
	GFEC_GPU_DEVICES=$all $b/tools/gfec info | grep 'gpu context'
	$b/perf/gfec-multigpu-bench --devices "$all" --stripes 64 -n 7
	$b/perf/gfec-multigpu-bench --devices "$all" --chunk 4194304 --stripes 32 -n 7
	# RLC encode (n = 128, 4 KiB) from pinned memory, one context against all (after RS rows)
	$b/perf/gfec-multigpu-bench --devices "$all" --stripes 16 -n 5 --nc --segments 32
}
small() { # small calls (issue 17): the small-call kernel, the batch call against the kernel alone,
	# one stripe's P50/P99, an empty kernel's launch + sync, in one process; twice. Then the
	# device-batch tests (tables, steps, small calls) under compute-sanitizer's memcheck
	$b/perf/gfec-gpu-bench --small --json "$log/small1.json" &&
		$b/perf/gfec-gpu-bench --small --json "$log/small2.json" &&
		GFEC_TEST_FILTER='test_device_*' compute-sanitizer --tool memcheck --error-exitcode 9 \
			$b/tests/test_gpu
}
resident() { # the resident small-call kernel (gpu_resident_us, issue 17): its test, then the
	# small-call section twice (one stripe's P50/P99 launched and resident, in one process), then
	# the test under compute-sanitizer's memcheck
	timeout 300 $b/tests/test_gpu_resident &&
		$b/perf/gfec-gpu-bench --small --json "$log/resident1.json" &&
		$b/perf/gfec-gpu-bench --small --json "$log/resident2.json" &&
		GFEC_TEST_FILTER='test_*l*' timeout 600 compute-sanitizer --tool memcheck \
			--error-exitcode 9 $b/tests/test_gpu_resident
}
ncsizes() { # RLC encode (issue 12) by segments per call, n = 128, B = 4 KiB, and batch decode's stages
	$b/perf/gfec-nc-gpu-bench --sizes --json "$log/nc_gpu_sizes.json"
}
nccpu() { # RLC on the CPU (issue 12), n = 128, B = 4 KiB: progressive decode on one thread against
	# one raw ISA-L 128 x 128 product of the segment, encode on every thread against raw ISA-L; twice;
	# then the papers' CPU table (encode on 1 and every thread, decode, n x n inversions)
	local i
	for i in 1 2; do
		$b/perf/gfec-nc-bench --reps 15 --threads 1 --segments 100 &&
			$b/perf/gfec-nc-bench --reps 15 --threads "$jobs" --segments 10
	done
	$b/perf/gfec-nc-bench --papers --reps 9 --threads "$jobs" --segments 30
}
ncpapers() { # the seed papers' GPU rows (issue 12) and their figures beside ours, one table
	$b/perf/gfec-nc-gpu-bench --papers --json "$log/nc_gpu_papers.json"
}
ltdec() { # LT decode (issue 14), n = 10240, B = 1 KiB, one thread: three runs of ten
	local i
	for i in 1 2 3; do $b/perf/gfec-lt-bench -n 10240 -B 1024 -s 1 -r 10; done
}
fft() { # technique=fft at w = 16 (issue 13): its tests, then (32768,32768) and (1000,200), 64 KiB
	ctest --test-dir $b -R '^(fft16|codec_fft.*|cli_w16)$' --output-on-failure --timeout 600
	$b/perf/gfec-fft16-bench -k 32768 -m 32768 -l 65536 -T "$jobs" -n 2
	$b/perf/gfec-fft16-bench -k 1000 -m 200 -l 65536 -T "$jobs" -n 5
	$b/perf/gfec-fft16-bench -k 1000 -m 200 -l 65536 -T 1 -n 3
}
fftgpu() { # technique=fft on GPU memory (issue 13): its GPU test and the kernels' emulation, then
	# (1000,200) and (32768,32768) at 64 KiB against the device copy of the bytes its passes move
	ctest --test-dir $b -R '^(fft16_gpu|fft16_async|bfly16_emulate|codec_fft)$' --output-on-failure \
		--timeout 600
	$b/perf/gfec-fft16-gpu-bench -n 5 -l 65536
}
gate() { # the FIFO gate before host-buffer GPU calls (issue 17): windows off, 16 and 64 callers
	ctest --test-dir $b -R '^(coalesce.*|rdma_coalesce|rdma_server|rdma_tools)$' --output-on-failure \
		--timeout 600
	GFEC_GPU_COALESCE_US=0 $b/perf/gfec-perf daemon -k 10,4 -b "64K 1M" --callers "16 64" \
		-o encode -a gpu --memory pageable,pinned -d 0.5 --json "$log/daemon_gate.json"
}
lanes() { # host buffers from many callers (issue 17): pinned ones read in place by the kernels
	# (gpu_pinned=map) or copied by DMA (dma), staged calls on 1, 4 or 8 lanes, windows off and at
	# 20 us; then the CPU rows of the same shape for their CPU-s/GB
	# (GFEC_LANES_CFGS: other "pinned lanes us [map_bytes]" lists, comma-separated)
	local cfg cfgs
	IFS=, read -ra cfgs <<<"${GFEC_LANES_CFGS:-map 4 0,dma 4 0,dma 1 0,map 8 0,map 4 20}"
	ctest --test-dir $b -R '^(gpu_pinned|coalesce_gpu|gpu)$' --output-on-failure --timeout 600
	for cfg in "${cfgs[@]}"; do
		set -- $cfg
		echo "== gpu_pinned=$1 gpu_lanes=$2 gpu_coalesce_us=$3 gpu_map_bytes=${4:-0}"
		GFEC_GPU_PINNED=$1 GFEC_GPU_LANES=$2 GFEC_GPU_COALESCE_US=$3 GFEC_GPU_MAP_BYTES=${4:-0} \
			$b/perf/gfec-perf daemon -k 10,4 -b "64K 1M" --callers "16 64" -o encode \
			-a gpu --memory pageable,pinned -d 0.5 --json "$log/daemon_lanes_$1_$2_$3${4:+_$4}.json"
	done
	$b/perf/gfec-perf daemon -k 10,4 -b "64K 1M" --callers "16 64" -o encode -a cpu \
		--memory pageable,pinned -d 0.5 --json "$log/daemon_lanes_cpu.json"
}
slots() { # launch slots (issue 17, gpu_coalesce_slots / _slot_min): pinned RS(10,4) encodes from 16
	# and 64 callers, off and with slots, in turn and again (GFEC_SLOTS_LIST: other "slots:min"
	# pairs), pageable rows once with slots, then the CPU rows of the shape for their CPU-s/GB
	local s i=0
	ctest --test-dir $b -R '^(gpu_pinned|coalesce_gpu|coalesce)$' --output-on-failure --timeout 600
	for s in ${GFEC_SLOTS_LIST:-0:1M 4:1M 2:1M 0:1M 4:1M 2:1M 8:1M}; do
		echo "== gpu_coalesce_slots=${s%%:*} gpu_coalesce_slot_min=${s##*:}"
		GFEC_GPU_COALESCE_SLOTS=${s%%:*} GFEC_GPU_COALESCE_SLOT_MIN=${s##*:} \
			$b/perf/gfec-perf daemon -k 10,4 -b "64K 256K 1M" --callers "16 64" \
			-o encode -a gpu --memory pinned -d 0.5 \
			--json "$log/daemon_slots_$((i++))_${s/:/_}.json"
	done
	echo "== gpu_coalesce_slots=4, pageable"
	GFEC_GPU_COALESCE_SLOTS=4 $b/perf/gfec-perf daemon -k 10,4 -b "64K 1M" --callers "16 64" \
		-o encode -a gpu --memory pageable -d 0.5 --json "$log/daemon_slots_pageable.json"
	$b/perf/gfec-perf daemon -k 10,4 -b "64K 256K 1M" --callers "16 64" -o encode -a cpu \
		--memory pageable -d 0.5 --json "$log/daemon_slots_cpu.json"
}
p99() { # issue 17's P99 under coalescing against the deadline + 2 x the window's transfer time
	# (gfec-perf daemon's "# p99" lines): pinned RS(10,4) encodes from 16 and 64 callers with
	# launch slots and with timed windows (GFEC_P99_LIST: "slots:us:slot_min:coalesce_bytes")
	local s c
	for s in ${GFEC_P99_LIST:-4:0:1M:16M 4:0:0:16M 2:0:0:16M 1:0:0:16M 0:20:0:16M 0:100:0:16M}; do
		IFS=: read -r -a c <<<"$s"
		echo "== gpu_coalesce_slots=${c[0]} gpu_coalesce_us=${c[1]} gpu_coalesce_slot_min=${c[2]}" \
			"gpu_coalesce_bytes=${c[3]}"
		GFEC_GPU_COALESCE_SLOTS=${c[0]} GFEC_GPU_COALESCE_US=${c[1]} \
			GFEC_GPU_COALESCE_SLOT_MIN=${c[2]} GFEC_GPU_COALESCE_BYTES=${c[3]} \
			$b/perf/gfec-perf daemon -k 10,4 -b "64K 256K 1M" --callers "16 64" -o encode \
			-a gpu --memory pinned -d 0.5 --json "$log/daemon_p99_${s//:/_}.json"
	done
}
ncctx() { # gfec_nc.h on GPU contexts (issues 14, 18): LT encode through the API, then two contexts
	# on one GPU ("0,0"): the nc tests, RLC and RS rows with each context's share
	GFEC_GPU_DEVICES=0,0 ctest --test-dir $b -R 'nc_backend_gpu$|cli_nc_gpu|perf_nc' \
		--output-on-failure --timeout 600
	$b/perf/gfec-perf nc -a gpu --family lt --quick --lt-n 1024,10240 --json "$log/nc_lt_gpu.json"
	GFEC_GPU_DEVICES=0,0 GFEC_GPU_SPLIT_MIN=1 $b/perf/gfec-perf nc -a gpu --family rlc \
		--op encode,batch --n 128 --block 4K --json "$log/nc_ctx00.json"
	GFEC_GPU_DEVICES=0,0 $b/perf/gfec-perf -a gpu -o encode -k 10,4 -b 1M -e 1M -B 64 \
		--json "$log/rs_ctx00.json"
}
w16q() { # GF(2^16), the short form of w16: the GEMM kernel at (1000,200) 64 KiB against its bounds
	# (16 stripes), and the CPU on 1..16 threads against Jerasure w=16 on one
	$b/perf/gfec-gf16-gpu-bench -n 7 -s 16 -l 65536
	$b/perf/gfec-gf16-bench 1000 200 65536 3
}
weights() { # the paper's t sweep of the (127,22) BCH code: GPU, CPU (best kernel), CPU POPCNT
	bash perf/weights_sweep.sh $b/tools/gfec 11 22 --backend gpu &&
		bash perf/weights_sweep.sh $b/tools/gfec 11 21 --backend cpu &&
		bash perf/weights_sweep.sh $b/tools/gfec 18 20 --backend cpu --popcnt
}

step build build
step gputest gputest
step cputest cputest
step stress stress
step gpubench gpubench
step nc nc
step perf perf
step isal isal
step ceil ceil
step w16 w16
step ncli ncli
step lt lt
step weights weights
step ncperf ncperf
step daemon daemon
step hybrid hybrid
step nt nt
step coalesce coalesce
step cpu16 cpu16
step multi multi
step small small
step resident resident
step ncsizes ncsizes
step ltdec ltdec
step nccpu nccpu
step fft fft
step fftgpu fftgpu
step ncpapers ncpapers
step gate gate
step lanes lanes
step slots slots
step p99 p99
step tunecpu tunecpu
step ncctx ncctx
step w16q w16q
tar -czf "$out/logs.tar.gz" -C "$out" logs && rm -rf "$log"
