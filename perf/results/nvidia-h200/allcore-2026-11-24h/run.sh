#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 16's last targets on the H200 host's Xeon, in ONE device call (CPU only, no GPU used):
#   1. the all-core RS(10,4) 16 MiB encode row against the memory-traffic ceiling measured in the
#      same process, for the tree and for variants of its two new constants, and for the tree
#      before them (A);
#   2. the drop-in's and the GFNI kernels' tests (isal_abi_gfni512/256 run the non-temporal path);
#   3. one-thread ratios to upstream ISA-L 2.32.1 (built here from .device's tarball, as
#      perf/device_run.sh's upstream_isal does), with the variant that won step 1.
# Run from the snapshot's root, .device linked in, after `source .device/env.sh`:
#   bash perf/results/nvidia-h200/allcore-2026-11-24h/run.sh "$OUT"
# Variants (each a copy of the snapshot with one constant changed, built with CUDA off):
#   B  the tree: pool spin 200 us (gfmatrix/base/threadpool.c SPIN_NS), source prefetch 512 B
#      ahead with PREFETCHT0 (cpu_backend/gfni.c GFNI_PREFETCH)
#   A  before both (the two files as of 28ab7d7, carried in .base/)
#   C  B without the prefetch      D  B without the spin
#   E  B, prefetch 1024 B ahead    G  B, prefetch with PREFETCHT1
#   H  B with 256 KiB slices (cpu_backend.c DEFAULT_SLICE; shown, not a candidate: the
#      XOR-stream ceiling's tasks are 64 KiB slices, perf_run.c CPU_SLICE)
# The candidate (B..G) with the highest mean data GB/s over its rows against the cached ceilings
# runs the one-thread comparisons; if it is not B, its row runs again with its own ceilings.
# DRY=1: a smoke test of this script on any machine (small sizes, Debian's ISA-L as "upstream").
set -u
out=${1:?usage: run.sh OUTDIR}
root=$PWD
jobs=$(nproc)
T0=$SECONDS
BUDGET=${BUDGET:-225} # seconds this script may use; later steps are skipped past it
up=/tmp/isa-l-2.32.1/bin/libisal.so.2
big=16M rep=5 irep=7 quick=()
if [[ ${DRY:-0} == 1 ]]; then
	big=1M rep=1 irep=1 quick=(-n 3) up=/usr/lib/x86_64-linux-gnu/libisal.so.2
fi
ref=$root/.device/root/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30
if [[ ! -e /usr/lib/x86_64-linux-gnu/libisal.so.2.0.30 && -e $ref ]]; then
	export GFEC_ISAL_REF=$ref GFEC_ISAL_LIB=$ref
fi
mark() { echo "## +$((SECONDS - T0)) s: $*"; }
left() { (((SECONDS - T0) + $1 < BUDGET)); }

{
	grep -m1 'model name' /proc/cpuinfo
	lscpu | grep -E '^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|L2|L3|MHz'
	grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'gfni|avx512f|avx512bw|avx512vl|avx2' |
		paste -sd' '
	echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
	uname -r
} >"$out/cpu.txt" 2>&1

if [[ ${DRY:-0} != 1 ]]; then
	(tar -xzf .device/isa-l-2.32.1.tar.gz -C /tmp &&
		PATH=$root/.device/root/usr/bin:$PATH make -C /tmp/isa-l-2.32.1 -f Makefile.unx \
			-j"$jobs" slib >/dev/null 2>&1
	 echo "upstream ISA-L build: exit $?") >"$out/isal_build.log" 2>&1 &
	isal_pid=$!
fi

variant() { # name: /tmp/ac-v-NAME, a copy of the snapshot with the variant's change (checked)
	local v=$1 d=/tmp/ac-v-$1
	rm -rf "$d" && mkdir -p "$d" && tar -C "$root" --exclude=./.device -cf - . | tar -C "$d" -xf -
	case $v in
	A) cp .base/threadpool.c "$d/gfmatrix/base/threadpool.c" && cp .base/gfni.c "$d/cpu_backend/gfni.c" ;;
	C) sed -i 's/^#define GFNI_PREFETCH 512$/#define GFNI_PREFETCH 0/' "$d/cpu_backend/gfni.c" ;;
	D) sed -i 's/^#define SPIN_NS 200000$/#define SPIN_NS 0/' "$d/gfmatrix/base/threadpool.c" ;;
	E) sed -i 's/^#define GFNI_PREFETCH 512$/#define GFNI_PREFETCH 1024/' "$d/cpu_backend/gfni.c" ;;
	G) sed -i 's/_MM_HINT_T0/_MM_HINT_T1/g' "$d/cpu_backend/gfni.c" ;;
	H) sed -i 's/^#define DEFAULT_SLICE (64u \* 1024)$/#define DEFAULT_SLICE (256u * 1024)/' \
		"$d/cpu_backend/cpu_backend.c" ;;
	esac
	diff -r "$root/cpu_backend" "$d/cpu_backend" >"$out/variant_$v.diff"
	diff -r "$root/gfmatrix/base" "$d/gfmatrix/base" >>"$out/variant_$v.diff"
	[[ $v == B || -s $out/variant_$v.diff ]] || { echo "variant $v: no change made"; return 1; }
	cmake -S "$d" -B "/tmp/ac-b-$v" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON \
		-DGFEC_WITH_CUDA=OFF >/dev/null &&
		cmake --build "/tmp/ac-b-$v" -j"$jobs" --target gfec_perf \
			$([[ $v == B ]] && echo test_gfni test_cpu_backend test_isal_abi gfec_isal_abi) \
			2>&1 | grep -E 'error|warning' | grep -v 'errors\.c'
	[[ -x /tmp/ac-b-$v/perf/gfec-perf ]] && echo "variant $v built"
}

mark build
vs=${VS:-B A C D E G H}
for v in $vs; do variant $v >"$out/build_$v.log" 2>&1 & done
wait $(jobs -p | grep -v "^${isal_pid:-x}$") 2>/dev/null
for v in $vs; do tail -n 3 "$out/build_$v.log"; done
mark tests
ctest --test-dir /tmp/ac-b-B -j6 --output-on-failure --timeout 120 \
	-R '^(gfni|cpu_backend|isal_abi|isal_abi_base|isal_abi_gfni512|isal_abi_gfni256)$' \
	>"$out/tests.log" 2>&1
grep -E 'Test +#|tests passed|tests failed' "$out/tests.log"
[[ -n ${isal_pid:-} ]] && wait "$isal_pid"
cat "$out/isal_build.log" 2>/dev/null

row() { # variant [gfec-perf options]: one all-core 16 MiB row, appended to rows.log
	local v=$1
	shift
	mark "row $v" >>"$out/rows.log"
	/tmp/ac-b-$v/perf/gfec-perf -k 10,4 -b $big -e $big -o encode -a cpu -r $rep "${quick[@]}" "$@" \
		>>"$out/rows.log" 2>&1
	echo "exit $?" >>"$out/rows.log"
}
gbps() { # variant: the data GB/s of its row(s) after the first B, averaged
	awk -v v="$1" '/^## .*row /{cur=$NF; n++} /^encode RS\(10,4\)/ && cur==v && n>1 {s+=$9; c++}
		END{if (c) printf "%.2f\n", s/c; else print 0}' "$out/rows.log"
}
mark rows
: >"$out/rows.log"
row B -C "$out/ceilings.txt" # measures the ceilings in this process and writes the cache
for v in A C D E G H B A B; do
	[[ -x /tmp/ac-b-$v/perf/gfec-perf ]] && left 20 && row $v -C "$out/ceilings.txt"
done
for v in B C D E G; do
	[[ -x /tmp/ac-b-$v/perf/gfec-perf ]] && echo "variant $v: $(gbps $v) GB/s (mean of its cached-ceiling rows)"
done | tee "$out/winner.txt"
win=$(awk 'BEGIN{w="B"; b=0} {if ($3 > b) {b=$3; w=$2}} END{sub(":", "", w); print w}' "$out/winner.txt")
echo "winner: $win (A, the tree before: $(gbps A) GB/s)" | tee -a "$out/winner.txt"
if [[ $win != B ]] && left 40; then
	row "$win" # its own ceilings, measured in its process
fi

mark isal
isal() { /tmp/ac-b-$win/perf/gfec-perf isal "$@" --isal-lib $up >>"$out/isal.log" 2>&1; }
: >"$out/isal.log"
left 30 && isal -k '10,4 8,3' -b 1M -e 1M -T 1 -r $irep "${quick[@]}"
left 30 && isal -k '10,4 8,3' -b 1M -e 1M -T 1 -r $irep --hot "${quick[@]}"
left 40 && isal -k '10,4 4,2 223,32 128,16 128,64 128,128' -b 4K -e 4K -T 1 -r $irep --hot \
	"${quick[@]}"
left 20 && isal -k '10,4' -b 1M -e 1M -T "$jobs" -r $irep "${quick[@]}"
left 30 && isal -k '4,2 223,32' -b 4K -e 4K -T 1 -r $irep "${quick[@]}"
mark done
