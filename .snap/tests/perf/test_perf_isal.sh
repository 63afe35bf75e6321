#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# gfec-perf isal end to end, small and fast: gfec's CPU path against raw ISA-L on 1 and 2 threads
# with parity checked equal, the JSON it writes, and --isal-lib loading a libisal.so.2 by path (the
# one gfec-perf links, the one CI is sure to have) beside the linked one; a library that is not
# there is exit status 2 with a one-line reason.
set -euo pipefail
perf=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

lib=$(ldd "$perf" | awk '$1 == "libisal.so.2" {print $3; exit}')
[[ -f $lib ]] || fail "gfec-perf links no libisal.so.2 that ldd finds"
"$perf" isal -k "4,2 10,4" -b 64K -e 64K -T 2 -W 1 -n 4 -r 2 --hot --isal-lib "$lib" \
	--json "$dir/i.json" >"$dir/out" 2>"$dir/err" ||
	{ cat "$dir/out" "$dir/err" >&2; fail "gfec-perf isal exited $?"; }
grep -q '^# reproduce: gfec-perf isal ' "$dir/out" || fail "no reproduce line"
python3 - "$dir/i.json" "$lib" <<'PY' || fail "JSON: $(cat "$dir/i.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "gfec-perf-isal/1" and doc["isal_lib"] == sys.argv[2]
rows = doc["rows"]
assert [(r["k"], r["m"], r["threads"]) for r in rows] == [(4, 2, 1), (4, 2, 2), (10, 4, 1), (10, 4, 2)]
for r in rows:
    for impl in ("raw_isal", "raw_isal_lib", "gfec"):
        assert r[impl]["median_GBps"] > 0 and len(r[impl]["GBps"]) == 2, (impl, r)
    assert set(r["ratios"]) == {"gfec_over_raw_isal", "gfec_over_raw_isal_lib",
                                "raw_isal_lib_over_raw_isal"}
PY
set +e
"$perf" isal --isal-lib "$dir/none.so" >"$dir/out" 2>"$dir/err"
rc=$?
set -e
((rc == 2)) || fail "a missing --isal-lib exited $rc"
[[ $(wc -l <"$dir/err") == 1 ]] && grep -q 'none.so' "$dir/err" || fail "error: $(cat "$dir/err")"
set +e
"$perf" isal -k 4,2 -b 4K -e 4K -T 1 -W 0 -n 2 -r 1 --json "$dir/none/i.json" >"$dir/out" 2>"$dir/err"
rc=$?
set -e
((rc == 3)) && grep -q 'none/i.json: No such file' "$dir/err" || fail "unwritable JSON: $rc $(cat "$dir/err")"
echo "gfec-perf isal: 4 rows, parity equal, --isal-lib $lib loaded"
