#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# gfec-perf nc end to end, small and fast: the CPU rows (encode, eager and deferred progressive
# decode, batch decode, recode) at n=16 and 128, each checked and beside raw ISA-L with the same
# matrix; the LT rows (encode, one-thread progressive decode) at n=1 and 100, checked and within
# the CPU memory bound of the same run; the JSON's rows and the two SVGs; bad flags are exit
# status 2 with a one-line reason.
set -euo pipefail
perf=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$perf" nc --quick -a cpu -T 2 --n 16,128 --block 1000 --lt-n 1,100 --lt-block 1000 \
	--json "$dir/nc.json" --svg "$dir/nc" \
	>"$dir/out" 2>"$dir/err" || { cat "$dir/out" "$dir/err" >&2; fail "gfec-perf nc exited $?"; }
grep -q '^# reproduce: gfec-perf nc ' "$dir/out" || fail "no reproduce line"
grep -q ' FAIL ' "$dir/out" && fail "a row failed its check: $(cat "$dir/out")"
[[ -s $dir/nc-roofline.svg && -s $dir/nc-latency.svg ]] || fail "SVGs not written"
for t in eager defer; do
	grep -qE "^# decode $t RLC\(128\) B=1000: last block to readable .* p50 [0-9.]+ us, p99 [0-9.]+ us over [0-9]+ decodes$" "$dir/out" ||
		fail "no last-block line for $t: $(grep '^#' "$dir/out")"
done
python3 - "$dir/nc.json" <<'PY' || fail "JSON: $(head -c 2000 "$dir/nc.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "gfec-perf/1"
rows = doc["results"]
got = [(r["k"], r["technique"]) for r in rows]
want = [(n, t) for n in (16, 128) for t in ("encode", "eager", "defer", "batch", "recode")]
want += [(n, t) for n in (1, 100) for t in ("encode", "prog")]
assert got == want, got
for r in rows:
    assert r["backend"] == "cpu" and r["chunk"] == 1000 and r["GBps"] > 0, r
    if r["w"] == 1:  # LT: checked, bounded by this run's memory sweeps, below the bound
        assert r["checked"] is True and r["ceiling"].startswith("CPU memory"), r
        assert 0 < r["GBps"] <= r["ceiling_GBps"] * 1.5, r
        assert r["technique"] == "encode" or r["m"] >= r["k"], r
        continue
    assert r["ceiling"].startswith("raw ISA-L, same C") and r["ceiling_GBps"] > 0, r
    assert r["checked"] is (None if r["technique"] == "recode" else True), r
PY
# --op: only the workloads named
"$perf" nc --quick -a cpu -T 2 --family rlc --n 16 --block 1000 --op encode,batch >"$dir/out" \
	2>"$dir/err" || fail "gfec-perf nc --op exited $?: $(cat "$dir/err")"
[[ $(grep -cE '^(encode|decode) RLC\(16\)' "$dir/out") == 2 ]] &&
	grep -q ' encode ' "$dir/out" && grep -q ' batch ' "$dir/out" ||
	fail "--op encode,batch: $(cat "$dir/out")"
for bad in "--n 0" "--n 5000" "--block 0" "-a tpu" "-T x" "--bogus 1" "--family raptor" \
	"--lt-n 0" "--lt-n 70000" "--lt-block 0" "--lt-n 65536 --lt-block 1M" "--op code" \
	"--op encode," "--lt-gpu-blocks 0" "--lt-gpu-blocks 5000000"; do
	set +e
	# shellcheck disable=SC2086
	"$perf" nc $bad >"$dir/out" 2>"$dir/err"
	rc=$?
	set -e
	((rc == 2)) && [[ $(wc -l <"$dir/err") == 1 ]] || fail "'nc $bad' exited $rc: $(cat "$dir/err")"
done
"$perf" nc --help | grep -q '^usage: gfec-perf nc' || fail "--help"
# With a GPU: the LT encode row on device buffers (checked, under the GPU copy bound), and the
# GPU contexts (GFEC_GPU_DEVICES=0,0: two) with their ceilings and each context's share of it;
# then gfec-perf's RS rows on the same contexts.
# Without one, -a gpu is refused (exit 2, one line).
set +e
GFEC_GPU_DEVICES=0,0 GFEC_GPU_SPLIT_MIN=1 "$perf" nc --quick -a gpu --family lt --lt-n 100 \
	--lt-block 1000 --json "$dir/g.json" >"$dir/out" 2>"$dir/err"
rc=$?
set -e
if ((rc == 2)); then
	grep -q 'no usable GPU' "$dir/err" || fail "-a gpu without a GPU: $(cat "$dir/err")"
else
	((rc == 0)) || fail "gfec-perf nc -a gpu exited $rc: $(cat "$dir/out" "$dir/err")"
	[[ $(grep -c '^#   ctx [01]: GPU 0 ' "$dir/out") == 2 ]] || fail "contexts: $(cat "$dir/out")"
	grep -qE '^#   contexts: ctx 0 [0-9.]+% .*, ctx 1 ' "$dir/out" || fail "shares: $(cat "$dir/out")"
	python3 - "$dir/g.json" <<'PY' || fail "GPU JSON: $(head -c 3000 "$dir/g.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
ctx = doc["gpu_contexts"]
assert len(ctx) == 2 and all(c["copy_GBps"] > 0 and c["xor_bound_GBps"] > 0 for c in ctx), ctx
(r,) = doc["results"]
assert r["backend"] == "gpu" and r["checked"] is True and r["GBps"] <= r["ceiling_GBps"], r
sh = r["gpu_context_shares"]
assert len(sh) == 2 and abs(sum(s["share"] for s in sh) - 1) < 1e-6, sh
PY
	# gfec-perf's RS rows on the same two contexts: listed, and each splits an 8-stripe call
	GFEC_GPU_DEVICES=0,0 GFEC_GPU_SPLIT_MIN=1 "$perf" --quick -a gpu -o encode -k 10,4 -b 64K \
		-e 64K -B 8 --json "$dir/rs.json" >"$dir/out" 2>"$dir/err" ||
		fail "gfec-perf -a gpu on contexts 0,0: $(cat "$dir/out" "$dir/err")"
	[[ $(grep -c '^#   ctx [01]: GPU 0 ' "$dir/out") == 2 ]] || fail "RS contexts: $(cat "$dir/out")"
	python3 - "$dir/rs.json" <<'PY' || fail "RS JSON: $(head -c 3000 "$dir/rs.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert len(doc["gpu_contexts"]) == 2, doc["gpu_contexts"]
(r,) = doc["results"]
sh = r["gpu_context_shares"]
assert len(sh) == 2 and all(s["share"] > 0 for s in sh), sh
assert abs(sum(s["share"] for s in sh) - 1) < 1e-6, sh
PY
fi
echo "gfec-perf nc: 10 RLC and 4 LT CPU rows checked, JSON and SVGs written, bad flags refused"
