#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 16's last one-thread row on the GPU host's Xeon, A/B in alternating processes: gfec-perf
# isal RS(4,2) (and RS(10,4)) at 4 KiB from DRAM against upstream ISA-L 2.32.1, for this tree
# ("after": the codec's call counters on per-thread lines, f1ed853) and for a copy of it with
# locked_counters.patch ("before": every count a locked add after the kernel, as until f1ed853).
# Each gfec-perf run's ratio is taken within its own process; the alternation spreads drift.
# Then the all-core row once, and the GFNI paths' tests. From the repository root, CPU only:
#   source .device/env.sh && bash perf/results/dev-epyc-zen3-2core/rs42_4k_dram/xeon_ab.sh "$OUT"
# (On the shared dev VM: AB_LOCK=/tmp/gfec-bench.lock runs each timed command under the bench lock.)
set -uo pipefail
out=${1:?usage: xeon_ab.sh OUTDIR}
here=perf/results/dev-epyc-zen3-2core/rs42_4k_dram
jobs=$(nproc)
up=/tmp/isa-l-2.32.1
ab=/tmp/c16-ab # the "before" copy of the tree and both builds
mkdir -p "$out"
exec > >(tee "$out/xeon_ab.log") 2>&1
lscpu | grep -E 'Model name|^CPU\(s\)|L3'
if [[ ! -e $up/bin/libisal.so.2 ]]; then # as perf/device_run.sh's upstream_isal
	tar -xzf .device/isa-l-2.32.1.tar.gz -C /tmp &&
		PATH=$PWD/.device/root/usr/bin:$PATH make -C $up -f Makefile.unx -j"$jobs" slib \
			>/dev/null || exit 1
fi
rm -rf "$ab" && mkdir -p "$ab/src" &&
	tar --exclude='./build*' --exclude='./.device' --exclude='./.snap*' -cf - . |
	tar -xf - -C "$ab/src" && patch -p1 -d "$ab/src" <"$here/locked_counters.patch" || exit 1
# "after" also builds the tests of the GFNI paths this tree changed (cpu_backend's serial slice,
# the codec's counters): they cannot run on the dev VM
cmake -S "$PWD" -B "$ab/after" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DGFEC_WITH_CUDA=OFF \
	>/dev/null && cmake --build "$ab/after" -j"$jobs" --target gfec_perf test_counters test_gfni \
	test_codec test_corpus test_isal_abi gfec_isal_abi >/dev/null || exit 1
cmake -S "$ab/src" -B "$ab/before" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
	-DGFEC_WITH_CUDA=OFF >/dev/null && cmake --build "$ab/before" --target gfec_perf -j"$jobs" \
	>/dev/null || exit 1
for i in 1 2 3; do
	for t in before after; do
		echo "## round $i: $t ($(date -u +%T), $(uptime | sed 's/.*load/load/'))"
		${AB_LOCK:+flock "$AB_LOCK"} "$ab/$t/perf/gfec-perf" isal -k '4,2 10,4' -b 4K -e 4K \
			-T 1 -r 15 --isal-lib $up/bin/libisal.so.2 | grep -v '^# [gmr]'
	done
done
echo "## all cores, after ($(date -u +%T), $(uptime | sed 's/.*load/load/'))"
${AB_LOCK:+flock "$AB_LOCK"} "$ab/after/perf/gfec-perf" -k 10,4 -b 16M -e 16M -o encode -a cpu -r 3
# as perf/device_run.sh: the ISA-L drop-in tests compare with Debian's libisal by path
ref=$PWD/.device/root/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30
if [[ ! -e /usr/lib/x86_64-linux-gnu/libisal.so.2.0.30 && -e $ref ]]; then
	export GFEC_ISAL_REF=$ref GFEC_ISAL_LIB=$ref
fi
ctest --test-dir "$ab/after" --output-on-failure --timeout 600 \
	-R '^(counters|gfni|codec_gfni(512|256)|corpus_gfni(512|256)|isal_abi_gfni(512|256))$'
