#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One call on the lent GPU machine: build, run the GPU tests and the CPU-path tests that need a
# CPU this repository's development VM lacks (GFNI), then the benchmarks whose figures the README
# and perf/results quote. Every step logs to OUT/<step>.log and a failed step does not stop the
# next; the logs come back as one archive (the device tool returns at most 8 files).
#   source .device/env.sh && bash perf/device_run.sh "$OUT" [STEP ...]
# Steps (default: all): build gputest cputest gpubench nc perf isal ceil lt weights
# .device/ (../shared/device/pack.sh) must carry the Debian libraries, nasm and
# isa-l-2.32.1.tar.gz (the upstream ISA-L that gfec-perf isal --isal-lib compares against).
set -uo pipefail
out=${1:?usage: device_run.sh OUTDIR [STEP ...]}
shift
steps=${*:-build gputest cputest gpubench nc perf isal ceil lt weights}
cd "$(dirname "$0")/.."
log=$out/logs
mkdir -p "$log"
b=build-gpu
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
		-R '^(gfni|cpu_backend|codec_.*|corpus_.*|isal_abi.*|nc|nc_isal|lt|weights|gf16|gemm16|config)$'
}
gpubench() { ./$b/perf/gfec-gpu-bench --json "$log/gpu_bench.json"; }
nc() { ./$b/perf/gfec-nc-gpu-bench --json "$log/nc_gpu_bench.json"; }
perf() {
	./$b/perf/gfec-perf --quick --json "$log/quick.json" &&
		./$b/perf/gfec-perf -k 10,4 -b 1M -e 16M -f 16 -o encode,decode,update -a cpu,gpu \
			--json "$log/sweep.json"
}
isal() {
	local up=/tmp/isa-l-2.32.1
	PATH=$PWD/.device/root/usr/bin:$PATH # nasm, carried
	tar -xzf .device/isa-l-2.32.1.tar.gz -C /tmp &&
		make -C $up -f Makefile.unx -j"$jobs" slib >/dev/null &&
		./$b/perf/gfec-perf isal -k '10,4 8,3' -b 1M -e 1M -T 1 -r 7 --isal-lib $up/bin/libisal.so.2 &&
		./$b/perf/gfec-perf isal -k '10,4 8,3' -b 1M -e 1M -T 1 -r 7 --hot --isal-lib $up/bin/libisal.so.2 &&
		./$b/perf/gfec-perf isal -k '10,4 4,2 223,32 128,16 128,64 128,128' -b 4K -e 4K -T 1 -r 7 --hot \
			--isal-lib $up/bin/libisal.so.2 &&
		./$b/perf/gfec-perf isal -k '10,4' -b 1M -e 1M -T "$jobs" -r 7 --isal-lib $up/bin/libisal.so.2
}

ceil() { # CPU rows against the memory-traffic ceiling: update, whose 16 MiB rows beat it here once
	lscpu -C 2>/dev/null || true
	local a
	for a in "-k 10,4 -b 16M -e 16M" "-k 10,4 -b 64M -e 64M" "-k 4,2 -b 16M -e 16M"; do
		# shellcheck disable=SC2086
		./$b/perf/gfec-perf $a -o encode,update -a cpu -r 3
	done
}
lt() {
	./$b/perf/gfec-lt-bench -n 10240 -B 1024 -s 1000 -r 5 &&
		./$b/perf/gfec-lt-gpu-bench --json "$log/lt_gpu_bench.json"
}
weights() { # the paper's t sweep of the (127,22) BCH code: GPU, CPU (best kernel), CPU POPCNT
	bash perf/weights_sweep.sh ./$b/tools/gfec 11 22 --backend gpu &&
		bash perf/weights_sweep.sh ./$b/tools/gfec 11 21 --backend cpu &&
		bash perf/weights_sweep.sh ./$b/tools/gfec 18 20 --backend cpu --popcnt
}

step build build
step gputest gputest
step cputest cputest
step gpubench gpubench
step nc nc
step perf perf
step isal isal
step ceil ceil
step lt lt
step weights weights
tar -czf "$out/logs.tar.gz" -C "$out" logs && rm -rf "$log"
