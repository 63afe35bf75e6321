#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# gfec weights end to end: a BCH code's A_w, --verify, JSON and SVG output, the subcode rule
# keeping the all-ones word, and every refusal (one line on stderr, exit 2).
# Usage: test_weights_cli.sh PATH/TO/gfec
set -euo pipefail
gfec=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
bad() {
	echo "FAIL: $*" >&2
	fails=1
}

# BCH(15,7): 1 + 18x^5 + 30x^6 + 15x^7 + 15x^8 + 30x^9 + 18x^10 + x^15
"$gfec" weights --bch 15,7 --verify --json "$dir/w.json" --svg "$dir/w.svg" >"$dir/out" 2>"$dir/err" ||
	bad "bch 15,7 exited $?"
[[ $(grep '^A ' "$dir/out" | tr '\n' ' ') == "A 0 1 A 5 18 A 6 30 A 7 15 A 8 15 A 9 30 A 10 18 A 15 1 " ]] ||
	bad "BCH(15,7) A_w: $(grep '^A ' "$dir/out" | tr '\n' ' ')"
grep -q 'verify: all identities hold' "$dir/err" || bad "--verify did not report"
python3 -c "
import json, sys
d = json.load(open('$dir/w.json'))
assert d['n'] == 15 and d['k'] == 7 and d['has_ones'] is True
assert sum(c for *_, c in d['J']) == 4 ** 7
assert dict((w, c) for w, c in d['A']) == {0: 1, 5: 18, 6: 30, 7: 15, 8: 15, 9: 30, 10: 18, 15: 1}
" || bad "JSON content"
python3 -c "import xml.dom.minidom as m; m.parse('$dir/w.svg')" || bad "SVG does not parse"

# (127,22)'s subcode: the all-ones word is kept, and the paper's 564 bins already appear at t=14
"$gfec" weights --bch 127,22 --subcode 14 --verify >"$dir/out" 2>/dev/null || bad "subcode exited $?"
grep -q 'k=14, all-ones word in the code; 564 non-zero bins' "$dir/out" || bad "subcode: $(head -1 "$dir/out")"

# a file, rank-deficient: warned, the spanned code enumerated
printf '1001101\n0101011  # a comment\n\n0010111\n1011010\n' >"$dir/g.txt"
"$gfec" weights "$dir/g.txt" --verify >"$dir/out" 2>"$dir/err" || bad "rank-deficient exited $?"
grep -q 'rank 3' "$dir/err" || bad "rank not reported: $(cat "$dir/err")"
grep -q '^J 2 2 2 1 42$' "$dir/out" || bad "simplex J(2,2,2,1) != 42"

# the binary image of a gfec code and its dual satisfy the joint MacWilliams identity
"$gfec" weights --code "k=2 m=1 technique=cauchy" --json "$dir/c.json" >/dev/null 2>&1 || bad "--code exited $?"
"$gfec" weights --code "k=2 m=1 technique=cauchy" --dual --json "$dir/d.json" >/dev/null 2>&1 ||
	bad "--code --dual exited $?"
python3 -c "
import json, random
c, d = json.load(open('$dir/c.json')), json.load(open('$dir/d.json'))
assert (c['n'], c['k'], d['n'], d['k']) == (24, 16, 24, 8)
def W(r, x):
    return sum(n * x[3]**a * x[2]**b * x[1]**cc * x[0]**dd for a, b, cc, dd, n in r['J'])
random.seed(1)
for _ in range(20):
    x = [random.randint(-5, 5) for _ in range(4)]
    y = [x[0]+x[1]+x[2]+x[3], x[0]-x[1]+x[2]-x[3], x[0]+x[1]-x[2]-x[3], x[0]-x[1]-x[2]+x[3]]
    assert 4**c['k'] * W(d, x) == W(c, y) and 4**d['k'] * W(c, x) == W(d, y), x
" || bad "joint MacWilliams between --code and --code --dual"

refused() { # WHAT PATTERN ARGS...: exit 2 with one line matching PATTERN
	local what=$1 pat=$2 rc=0
	shift 2
	"$gfec" weights "$@" >/dev/null 2>"$dir/err" || rc=$?
	[[ $rc == 2 ]] || bad "$what: exit $rc, want 2"
	[[ $(wc -l <"$dir/err") == 1 ]] && grep -q "$pat" "$dir/err" || bad "$what: $(cat "$dir/err")"
}
printf '10x\n' >"$dir/x.txt"
refused "bad character" "'x' is not 0 or 1" "$dir/x.txt"
printf '10\n101\n' >"$dir/r.txt"
refused "ragged rows" "a row of 3 bits after rows of 2" "$dir/r.txt"
: >"$dir/e.txt"
refused "empty file" "no rows" "$dir/e.txt"
head -c 300 /dev/zero | tr '\0' 1 >"$dir/long.txt"
refused "n too long" "longer than 256 bits" "$dir/long.txt"
python3 -c "
for i in range(40): print(''.join('1' if j == i else '0' for j in range(64)))" >"$dir/big.txt"
refused "dimension 40" "beyond 64-bit counts" "$dir/big.txt"
refused "no such BCH code" "no narrow-sense primitive BCH" --bch 127,21
refused "subcode too large" "exceeds the dimension" --bch 15,7 --subcode 8
refused "no input" "one generator FILE" --verify
refused "bad backend" "want cpu, gpu or auto" --bch 15,7 --backend tpu
if [[ ${GFEC_TEST_CUDA:-0} == 1 ]]; then # the GPU, or the CPU after a device error: same output
	"$gfec" weights --bch 31,11 --backend gpu >"$dir/gpu.out" || bad "--backend gpu failed"
	"$gfec" weights --bch 31,11 --backend cpu >"$dir/cpu.out" || bad "--backend cpu failed"
	# the first line ends with the run time, which differs
	cmp -s <(sed '1s/; [0-9.]* s$//' "$dir/gpu.out") <(sed '1s/; [0-9.]* s$//' "$dir/cpu.out") ||
		bad "--backend gpu and cpu differ"
else
	refused "gpu" "not available" --bch 15,7 --backend gpu
fi
refused "bad profile" "k must be >= 2" --code "k=1 m=1"
refused "--dual alone" "goes with --code" --bch 15,7 --dual
rc=0
"$gfec" weights "$dir/missing.txt" 2>/dev/null || rc=$?
[[ $rc == 3 ]] || bad "missing file: exit $rc, want 3"
"$gfec" weights --help | grep -q 'usage: gfec weights' || bad "--help"
exit $fails
