#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# gfec-perf tune.
# cpu: its flags are checked, and a tiny --cpu-only tune (RS(10,4), 4K and 16K chunks, 0.05 s a
#   point) writes [cpu] stream_min (one of the sizes, or 0) into a gfec.conf whose other lines and
#   [tune] rules stay, which `gfec info` reads back; on a CPU path without non-temporal stores
#   (GFEC_CPU_PATH=isal) it measures nothing, says so and writes nothing. Exit 77 without GFNI.
# gpu: a tiny tune (4K..64K chunks, 1 and 4 callers, stripes over 64 MiB) writes a gfec.conf that
#   parses, holds stream_min (on a GFNI CPU), the crossover, the split's threshold and rates and
#   one "# host:" line per (chunk, callers), and `gfec info` reads back as what auto does. Exit 77
#   without a GPU.
# usage: test_perf_tune.sh GFEC-PERF GFEC cpu|gpu
set -u
perf=$1 gfec=$2 part=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; [ -f "$dir/err" ] && cat "$dir/err"; exit 1; }

if [ "$part" = cpu ]; then
	for bad in "--callers 0" "--callers 1,2,3,4,5,6,7,8,9" "--callers x" "--seconds 0" \
		"--seconds 61" "--host-max 1K" "--rotate 100T"; do
		# shellcheck disable=SC2086
		"$perf" tune --config "$dir/never.conf" $bad >"$dir/out" 2>"$dir/err"
		rc=$?
		[ $rc -eq 2 ] || fail "tune $bad: exit $rc, want 2"
		[ "$(wc -l <"$dir/err")" -eq 1 ] || fail "tune $bad: not one line"
	done
	[ ! -e "$dir/never.conf" ] || fail "a refused tune wrote its file"

	conf=$dir/gfec.conf
	old=$'# mine\n[tune]\nrule = seed_t8 k=10 m=1-4 chunk=0-100\n[cpu]\nthreads = 2\n'
	printf '%s' "$old" >"$conf"
	tiny=(--cpu-only -k 10,4 --seconds 0.05 --host-max 16K --rotate 64M --config "$conf")
	GFEC_CPU_PATH=isal "$perf" tune "${tiny[@]}" >"$dir/out" 2>"$dir/err"
	rc=$?
	[ $rc -eq 1 ] || fail "tune on the isal path: exit $rc, want 1"
	grep -q "ordinary stores only" "$dir/err" || fail "tune on the isal path: no reason given"
	[ "$(cat "$conf")" = "${old%$'\n'}" ] || fail "tune on the isal path changed the file"
	"$perf" tune "${tiny[@]}" >"$dir/out" 2>"$dir/err"
	rc=$?
	if [ $rc -ne 0 ] && grep -q "ordinary stores only" "$dir/err"; then
		echo "skipped: $(head -1 "$dir/err")"
		exit 77
	fi
	[ $rc -eq 0 ] || fail "tune --cpu-only: exit $rc"
	[ "$(grep -c '^  chunk ' "$dir/err")" -eq 2 ] || fail "want 2 chunk lines (4K, 16K)"
	grep -Eq '^stream_min = (0|4096|16384)   # cpu/gfni' "$conf" ||
		fail "gfec.conf lacks a measured stream_min"
	for line in "# mine" "rule = seed_t8 k=10 m=1-4 chunk=0-100" "threads = 2"; do
		grep -qxF "$line" "$conf" || fail "tune dropped '$line'"
	done
	GFEC_CONF=$conf "$gfec" info >"$dir/info" 2>"$dir/err" || fail "gfec info on the tuned file"
	grep -Eq "^cpu_stream_min +(0|4096|16384) +$conf:" "$dir/info" ||
		fail "gfec info does not read stream_min from the tuned file"
	cat "$conf"
	echo "ok"
	exit 0
fi

"$perf" tune --config "$dir/gfec.conf" -k 10,4 -b 64K -e 64K --callers "1 4" --seconds 0.05 \
	--host-max 64K --rotate 64M >"$dir/out" 2>"$dir/err"
rc=$?
if grep -q "no GPU backend\|no usable GPU" "$dir/err"; then
	echo "skipped: $(grep "no GPU backend\|no usable GPU" "$dir/err")"
	exit 77
fi
[ $rc -eq 0 ] || fail "tune: exit $rc"
conf=$dir/gfec.conf
for key in "min_bytes = " "auto_min_bytes = " "cpu_rate = " "gpu_rate = " "^\[hybrid\]" \
	"^rule = "; do
	grep -q "$key" "$conf" || fail "gfec.conf lacks '$key'"
done
# the CPU's part beside the GPU's, where the CPU path has non-temporal stores at all
grep -q "ordinary stores only" "$dir/err" || grep -q "^stream_min = " "$conf" ||
	fail "gfec.conf lacks [cpu] stream_min"
[ "$(grep -c '^# host: chunk' "$conf")" -eq 6 ] || fail "want 6 '# host:' lines (3 chunks x 2 callers)"
GFEC_CONF=$conf "$gfec" info >"$dir/info" 2>"$dir/err" || fail "gfec info on the tuned file"
grep -q "$conf:" "$dir/info" || fail "gfec info does not name the tuned file"
grep -q "^auto, " "$dir/info" || fail "gfec info does not say what auto does"
cat "$conf"
echo "ok"
