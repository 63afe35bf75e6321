#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The --papers modes of gfec-nc-bench and gfec-nc-gpu-bench (issue 12: the seed papers' tables
# beside gfec's). CPU: at a tiny shape the table's coding rows give no ratio (the papers' shape is
# n = 128, B = 4096), at that shape (few blocks, one rep) every row does, and the inversion rows
# of --inv's n = 128 give P1's two figures with a ratio; bad --inv values are exit 2 with one
# line. GPU (when the build has it, second argument): its flags; --papers without a GPU exits 3
# saying so, on a GPU it must print the whole table and its JSON rows.
set -euo pipefail
cpu=$1
gpu=${2:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
num='[0-9]+\.[0-9]{2}'

run() { # out-file args...: gfec-nc-bench, which must exit 0
	local o=$1
	shift
	"$cpu" "$@" >"$dir/$o" 2>"$dir/err" || fail "gfec-nc-bench $* exited $?: $(cat "$dir/err")"
}

# A tiny shape: encode on 1 and 2 threads, decode, n = 16 and 128 inverted; no coding ratio.
run tiny --papers --n 16 --block 1000 --count 40 --threads 2 --reps 1 --segments 2 --inv 16,128
o=$dir/tiny
grep -q '^encode n=16 B=1000 count=40 threads=1: gfec ' "$o" || fail "no one-thread encode: $(cat "$o")"
grep -q '^encode n=16 B=1000 count=40 threads=2: gfec ' "$o" || fail "no 2-thread encode: $(cat "$o")"
grep -qE '^invert n=16 threads=1: gfec_matrix_invert [0-9.]+ ms, ISA-L gf_invert_matrix [0-9.]+ ms' \
	"$o" || fail "no n = 16 inversion line: $(cat "$o")"
grep -q '^# the papers side by side: .*gfec.s another shape: no ratio$' "$o" ||
	fail "no table heading naming the shape: $(cat "$o")"
[[ $(grep -cE "^(encode|prog\. decode) n=16 B=1000: .* \| +$num MB/s +T:[0-9-]+ +\| +$num MB/s \| -$" \
	"$o") == 4 ]] || fail "coding rows (4, no ratio): $(cat "$o")"
for c in "4 cores" "1 core"; do
	grep -qE "^invert n=128: $c; gfec 1 +\| +$num ms +P1:291-295 +\| +$num ms +\| $num$" "$o" ||
		fail "inversion row '$c': $(cat "$o")"
done
grep -q '^invert n=16:' "$o" && fail "a table row for n = 16, which no paper timed: $(cat "$o")"
# The papers' shape, with few blocks: every coding row has its ratio; the default --inv runs
# 128, 256 and 512 (six rows), here only 128.
run paper --papers --count 138 --threads 2 --reps 1 --segments 1 --inv 128
o=$dir/paper
grep -q '^# the papers side by side: .*(> 1: gfec faster)$' "$o" || fail "heading: $(cat "$o")"
[[ $(grep -cE "^(encode|prog\. decode) n=128 B=4096: .* \| +$num MB/s +T:[0-9-]+ +\| +$num MB/s \| $num$" \
	"$o") == 4 ]] || fail "coding rows (4, with ratios): $(cat "$o")"
grep -qE "^encode n=128 B=4096: Mac Pro 8 cores; gfec 2 +\| +65\.10 MB/s +T:2029 " "$o" ||
	fail "the thesis's 8-core figure: $(cat "$o")"
[[ $(grep -c '^invert n=128: ' "$o") == 2 ]] || fail "inversion rows: $(cat "$o")"
# Without --papers: no table.
run plain --n 16 --block 1000 --count 40 --threads 1 --reps 1 --segments 2
grep -qE '^(invert|# the papers)' "$dir/plain" && fail "a table without --papers: $(cat "$dir/plain")"
for bad in "--inv 0" "--inv 5000" "--inv x" "--inv 1,2,3,4,5,6,7,8,9" "--inv ," "--inv" \
	"--panels 0" "--papers --bogus"; do
	set +e
	# shellcheck disable=SC2086
	"$cpu" $bad >"$dir/out" 2>"$dir/err"
	rc=$?
	set -e
	((rc == 2)) && [[ $(wc -l <"$dir/err") == 1 ]] || fail "'$bad' exited $rc: $(cat "$dir/err")"
done
"$cpu" --help | grep -q -- '--papers' || fail "--help does not name --papers"

[[ -n $gpu ]] || exit 0
"$gpu" --help | grep -q -- '--papers' || fail "gfec-nc-gpu-bench --help does not name --papers"
set +e
"$gpu" --papers --bogus >"$dir/out" 2>"$dir/err"
rc=$?
"$gpu" --papers --json "$dir/g.json" >"$dir/gout" 2>"$dir/gerr"
grc=$?
set -e
((rc == 2)) && grep -q '^usage: .*--papers' "$dir/err" || fail "--papers --bogus exited $rc"
if ((grc == 3)) && grep -q 'no usable GPU' "$dir/gerr"; then
	echo "no GPU: gfec-nc-gpu-bench --papers not run"
	exit 0
fi
((grc == 0)) || fail "gfec-nc-gpu-bench --papers exited $grc: $(tail -n 20 "$dir/gout" "$dir/gerr")"
o=$dir/gout
for tag in P0:562 P0:783 P1:abstract P0:67 P0:846-891 P1:310; do
	grep -qE "\| +[0-9.]+ +(MB/s|x) +$tag +\| +[0-9.]+ +(MB/s|x) +\| [0-9.]+$" "$o" ||
		fail "no row with a ratio for $tag: $(cat "$o")"
done
python3 - "$dir/g.json" <<'PY' || fail "GPU JSON: $(head -c 3000 "$dir/g.json")"
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r["case"] == "paper"]
assert len(rows) == 20, len(rows)
assert all(r["gfec"] > 0 for r in rows), rows
PY
