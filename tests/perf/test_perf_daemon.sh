#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# gfec-perf daemon --quick on the CPU, small and fast: RS(10,4) encode and decode of 4K and 64K
# stripes from 1 and 2 callers sharing one codec; every row checked against the CPU reference and
# within its bound (the self-check); the JSON's key set is the golden one with the daemon keys
# (tests/perf/perf_json_keys.txt), its rows are the ones asked for; the two SVGs parse with one
# point and one latency curve per row; bad flags are exit status 2 with a one-line reason.
set -euo pipefail
perf=$1 golden=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$perf" daemon --quick -a cpu --json "$dir/d.json" --svg "$dir/d" >"$dir/out" 2>"$dir/err" ||
	{ rc=$?; cat "$dir/out" "$dir/err" >&2; fail "gfec-perf daemon --quick exited $rc"; }
grep -q '^# reproduce: gfec-perf daemon --quick ' "$dir/out" || fail "no reproduce line"
grep -q '^# self-check: every row is within its bound' "$dir/out" || fail "no self-check line"
grep -q ' FAIL ' "$dir/out" && fail "a row failed its check: $(cat "$dir/out")"
PYTHONPATH=$(dirname "${BASH_SOURCE[0]}") \
	python3 - "$dir/d.json" "$golden" <<'PY' || fail "JSON: $(head -c 3000 "$dir/d.json")"
import json, sys
from json_keys import golden, keys
doc = json.load(open(sys.argv[1]))
want = golden(sys.argv[2])
got = keys(doc)
# no GPU here; the daemon rows are bounded by memory and PCIe, raw ISA-L is not measured
optional = {k for k in want if k.startswith(("machine.gpu.", "ceilings.codes.[]."))}
assert not (want - got - optional) and not (got - want), (sorted(want - got - optional), sorted(got - want))
assert doc["schema"] == "gfec-perf/1"
rows = doc["results"]
got = [(r["op"], r["chunk"], r["daemon"]["callers"]) for r in rows]
want = [(op, c, n) for c in (4096, 65536) for op in ("encode", "decode") for n in (1, 2)]
assert got == want, got
for r in rows:
    d = r["daemon"]
    assert r["backend"] == "cpu" and r["data"] == "pageable" and (r["k"], r["m"]) == (10, 4), r
    assert r["checked"] is True and r["GBps"] > 0 and r["calls"] > 0, r
    assert r["erasures"] == (4 if r["op"] == "decode" else 0), r
    assert 0 < r["latency_us"]["p50"] <= r["latency_us"]["p99"], r
    assert r["cpu_seconds_per_GB"] > 0, r
    assert r["ceiling"].startswith("CPU ") and 0 < r["pct_of_ceiling"], r
    assert d["shared_codec"] is True and d["codec_threads"] == 1, d
    assert d["gpu_calls_per_s"] == 0 and d["gpu_call_share"] == 0, d
    assert d["gpu_launches_per_s"] == 0 and d["stripes_per_gpu_launch"] == 0, d
    assert d["gpu_resident_per_s"] == 0, d
    assert d["gpu_coalesce_us"] == 0 and d["gpu_coalesce_slots"] == 0 and d["gpu_windows_per_s"] == 0, d
    assert d["gpu_window_transfer_us"] is None and d["p99_bound_us"] is None, d
    assert d["staging_copies_GBps"] is None and d["staging_copies_threads"] == 0, d
    # >= 4 x L3 (64 MiB at least with --quick) rotated in all
    assert d["rotated_bytes"] >= max(64 << 20, 4 * doc["machine"]["l3_bytes"]) * 0.99, d
PY
for f in "$dir/d-roofline.svg" "$dir/d-latency.svg"; do
	python3 -c 'import sys,xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$f" ||
		fail "$f is not XML"
done
points=$(grep -o 'class="point"' "$dir/d-roofline.svg" | wc -l)
curves=$(grep -o 'class="cdf"' "$dir/d-latency.svg" | wc -l)
((points == 8 && curves == 8)) || fail "$points points and $curves curves for 8 rows"
for bad in "--callers 0" "--callers 2000" "-b 0" "-b 128M" "-k 10" "-o update" "-a tpu" \
	"--memory disk" "-d 0" "-d x" "-T x" "--bogus 1" "--callers"; do
	set +e
	# shellcheck disable=SC2086
	"$perf" daemon $bad >"$dir/out" 2>"$dir/err"
	rc=$?
	set -e
	((rc == 2)) && [[ $(wc -l <"$dir/err") == 1 ]] ||
		fail "'daemon $bad' exited $rc: $(cat "$dir/err")"
done
"$perf" daemon --help | grep -q '^usage: gfec-perf daemon' || fail "--help"
echo "gfec-perf daemon --quick: 8 CPU rows checked and within their bounds, JSON and SVGs written, bad flags refused"
