#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# gfec-perf tune: its host-sweep flags are checked on any host; on a GPU host (label gpu), a tiny
# tune (RS(10,4), 4K..64K chunks, 1 and 4 callers, 0.05 s a point, stripes over 64 MiB) writes a
# gfec.conf that parses, holds the crossover, the split's threshold and rates and one "# host:"
# line per (chunk, callers), and `gfec info` reads back as what auto does. Exit 77 without a GPU.
# usage: test_perf_tune.sh GFEC-PERF GFEC
set -u
perf=$1 gfec=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; [ -f "$dir/err" ] && cat "$dir/err"; exit 1; }

for bad in "--callers 0" "--callers 1,2,3,4,5,6,7,8,9" "--callers x" "--seconds 0" \
	"--seconds 61" "--host-max 1K" "--rotate 100T"; do
	# shellcheck disable=SC2086
	"$perf" tune --config "$dir/never.conf" $bad >"$dir/out" 2>"$dir/err"
	rc=$?
	[ $rc -eq 2 ] || fail "tune $bad: exit $rc, want 2"
	[ "$(wc -l <"$dir/err")" -eq 1 ] || fail "tune $bad: not one line"
done
[ ! -e "$dir/never.conf" ] || fail "a refused tune wrote its file"

"$perf" tune --config "$dir/gfec.conf" -k 10,4 -b 64K -e 64K --callers "1 4" --seconds 0.05 \
	--host-max 64K --rotate 64M >"$dir/out" 2>"$dir/err"
rc=$?
if [ $rc -ne 0 ] && grep -q "no GPU backend\|no usable GPU" "$dir/err"; then
	echo "skipped: $(tail -1 "$dir/err")"
	exit 77
fi
[ $rc -eq 0 ] || fail "tune: exit $rc"
conf=$dir/gfec.conf
for key in "min_bytes = " "auto_min_bytes = " "cpu_rate = " "gpu_rate = " "^\[hybrid\]" \
	"^rule = "; do
	grep -q "$key" "$conf" || fail "gfec.conf lacks '$key'"
done
[ "$(grep -c '^# host: chunk' "$conf")" -eq 6 ] || fail "want 6 '# host:' lines (3 chunks x 2 callers)"
GFEC_CONF=$conf "$gfec" info >"$dir/info" 2>"$dir/err" || fail "gfec info on the tuned file"
grep -q "$conf:" "$dir/info" || fail "gfec info does not name the tuned file"
grep -q "^auto, " "$dir/info" || fail "gfec info does not say what auto does"
cat "$conf"
echo "ok"
