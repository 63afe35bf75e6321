#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# gfec-perf --quick as CI runs it: under 30 CPU-s (more where L3 makes the rotation longer), every
# row checked, every row within its ceiling (the self-check), a JSON file whose key set is the
# golden one (tests/perf/perf_json_keys.txt: a change of schema must change that file too), and
# SVGs that parse as XML with one point and one latency curve per result row.
set -euo pipefail
perf=$1 golden=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The budget is on CPU seconds (user + sys), not on the wall clock: on a loaded 2-core VM the wall
# time of the same run is mostly waiting for a core (an ASan+UBSan build took 27 s of wall time
# for 9.4 CPU-s at load 8, within 3 s of the old 30 s wall limit; Release 15 s for 6.7 CPU-s).
TIMEFORMAT='%R %U %S'
{ time "$perf" --quick --json "$dir/q.json" --svg "$dir/q" >"$dir/out" 2>"$dir/err"; } \
	2>"$dir/time" || { rc=$?; cat "$dir/out" "$dir/err" >&2; fail "gfec-perf --quick exited $rc"; }
read -r wall user sys <"$dir/time"
took=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
# Every figure rotates over 4 x L3 (at least 64 MiB), and its buffers' first touch and fill cost
# in proportion: 30 CPU-s up to 1 GiB of rotation, pro rata above (a 2-vCPU Xeon VM that reports
# 480 MiB of L3 rotates over 1920 MiB: 28.7 CPU-s in Release).
rot=$(sed -n 's/^# CPU figures and rows rotate over >= \([0-9]*\) MiB.*/\1/p' "$dir/out")
[[ -n $rot ]] || fail "no rotation line"
limit=$(awk -v r="$rot" 'BEGIN { printf "%.0f", (r > 1024 ? 30 * r / 1024 : 30) }')
awk -v t="$took" -v l="$limit" 'BEGIN { exit !(t < l) }' ||
	fail "--quick took ${took} CPU-s (limit ${limit} for ${rot} MiB of rotation)"
grep -q '^# reproduce: ' "$dir/out" || fail "no reproduce line"
grep -qE '^encode +RS\(10,4\).* ok ' "$dir/out" || fail "no checked encode row: $(cat "$dir/out")"
grep -q '^# self-check: every row is within its ceiling' "$dir/out" || fail "no self-check line"

PYTHONPATH=$(dirname "${BASH_SOURCE[0]}") \
	python3 - "$dir/q.json" "$golden" <<'PY' || fail "JSON keys differ from the golden set"
import json, sys
from json_keys import golden, keys
doc = json.load(open(sys.argv[1]))
got = keys(doc)
want = golden(sys.argv[2])
# the GPU object and per-result rows are present only where there is a GPU / there are rows;
# results.[].daemon only in gfec-perf daemon's rows
optional = {k for k in want if k.startswith(("machine.gpu.", "results.[].daemon"))}
missing, extra = want - got - optional, got - want
for k in sorted(missing): print("missing:", k)
for k in sorted(extra): print("unexpected:", k)
if not doc["results"]: print("no results"); sys.exit(1)
sys.exit(1 if missing or extra else 0)
PY

rows=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["results"]))' "$dir/q.json")
for f in "$dir/q-roofline.svg" "$dir/q-latency.svg"; do
	[[ -s $f ]] || fail "$f missing"
	if command -v xmllint >/dev/null; then
		xmllint --noout "$f" || fail "$f is not XML"
	else
		python3 -c 'import sys,xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$f" ||
			fail "$f is not XML"
	fi
done
points=$(grep -o 'class="point"' "$dir/q-roofline.svg" | wc -l)
curves=$(grep -o 'class="cdf"' "$dir/q-latency.svg" | wc -l)
((points == rows)) || fail "$points points for $rows results"
((curves == rows)) || fail "$curves latency curves for $rows results"
echo "gfec-perf --quick: $rows rows in ${took} CPU-s (${wall} s wall), self-check ok," \
	"JSON keys match, SVGs parse ($points points)"
