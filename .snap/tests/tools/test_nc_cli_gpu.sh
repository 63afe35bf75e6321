#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# gfec nc on the GPU (--backend gpu): encode's blocks byte-identical to the CPU's (all but the
# segment ids, whose high half is each run's random tag), RLC and LT, batch decode on the GPU of
# source and recoded streams equal to the file (LT's on the CPU), a short segment and a corrupt
# payload refused as on the CPU.
# Exit 77 (skipped) where no GPU is usable.
# Usage: test_nc_cli_gpu.sh PATH/TO/gfec
set -euo pipefail
gfec=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fails=0
bad() {
	echo "FAIL: $*" >&2
	fails=1
}
head -c 1 /dev/urandom >tiny
if ! "$gfec" nc encode tiny -o t.s --backend gpu >/dev/null 2>err; then
	if grep -q 'backend is not available' err; then
		echo "no usable GPU: skipped"
		exit 77
	fi
	echo "FAIL: encode --backend gpu: $(cat err)" >&2
	exit 1
fi

head -c 5000001 /dev/urandom >f
same_blocks() { # A B: the blocks of two streams equal except for the segment ids' tag
	python3 - "$1" "$2" <<'EOF'
import struct, sys
def blocks(path):
    s = open(path, 'rb').read()
    n, B = struct.unpack_from('<II', s, 12)
    segs, = struct.unpack_from('<Q', s, 32)
    off, out = 96 + 4 * segs, []
    while off < len(s):
        ln = (28 if s[off + 6] == 1 else 24 + n) + B
        b = s[off:off + ln]
        out.append(b[:20] + b[24:])  # bytes 20..23: the tag
        off += ln
    return s[:20] + s[24:88], out      # headers without the tag and the CRC
a, b = blocks(sys.argv[1]), blocks(sys.argv[2])
assert a[0] == b[0], 'stream headers'
assert len(a[1]) == len(b[1]) and a[1] == b[1], 'blocks differ'
EOF
}
# n = 400 is past the GPU decoder's width (340 on an H200): its batch decode runs on the CPU
for shape in "16 4096" "128 4096" "255 1000" "400 512"; do
	set -- $shape
	"$gfec" nc encode f -o g.s -n $1 -B $2 --overhead 20 --backend gpu >/dev/null 2>err ||
		bad "encode gpu n=$1 B=$2: $(cat err)"
	"$gfec" nc encode f -o c.s -n $1 -B $2 --overhead 20 --backend cpu >/dev/null 2>err ||
		bad "encode cpu n=$1 B=$2: $(cat err)"
	same_blocks g.s c.s || bad "n=$1 B=$2: GPU blocks differ from the CPU's"
	rm -f out
	"$gfec" nc decode g.s -o out --backend gpu >out.txt 2>err || bad "decode gpu n=$1: $(cat err)"
	cmp -s f out || bad "decode gpu n=$1 B=$2: bytes differ"
	if (($1 <= 255)); then
		grep -q ' [1-9][0-9]* GPU call' out.txt || bad "n=$1: no GPU call: $(cat out.txt)"
	fi
	"$gfec" nc recode c.s -o r.s --loss 0.1 --seed 3 >/dev/null 2>err || bad "recode: $(cat err)"
	rm -f out
	if "$gfec" nc decode r.s -o out --backend gpu >/dev/null 2>err; then
		cmp -s f out || bad "recoded, decode gpu n=$1: bytes differ"
	else # 20% overhead, 10% loss: a segment may be short; the CPU must say the same
		rc=0
		"$gfec" nc decode r.s -o out >/dev/null 2>&1 || rc=$?
		[[ $rc == 5 ]] || bad "recoded n=$1: the GPU refused ($(cat err)), the CPU exit $rc"
	fi
done
# LT: the GPU encoder's blocks (gfec_gpu_lt_encode through gfec_nc.h) equal the CPU's, and the
# stream decodes (on the CPU: there is no GPU LT decoder, and --backend gpu says so)
for shape in "1 64 3" "100 1000 20" "1024 4096 10" "10240 1024 5"; do
	set -- $shape
	"$gfec" nc encode f -o g.s --family lt -n $1 -B $2 --overhead $3 --backend gpu >out.txt \
		2>err || bad "lt encode gpu n=$1 B=$2: $(cat err)"
	grep -q ' [1-9][0-9]* GPU calls\?, 0 redone' out.txt || bad "lt n=$1: no GPU call: $(cat out.txt)"
	"$gfec" nc encode f -o c.s --family lt -n $1 -B $2 --overhead $3 --backend cpu >/dev/null \
		2>err || bad "lt encode cpu n=$1 B=$2: $(cat err)"
	same_blocks g.s c.s || bad "lt n=$1 B=$2: GPU blocks differ from the CPU's"
	rm -f out
	"$gfec" nc decode g.s -o out --batch >/dev/null 2>err || bad "lt decode n=$1: $(cat err)"
	cmp -s f out || bad "lt decode n=$1 B=$2: bytes differ"
done
rc=0
"$gfec" nc decode g.s -o out.new --backend gpu >/dev/null 2>err || rc=$?
[[ $rc == 2 ]] && grep -q 'an LT stream decodes on the CPU' err || bad "lt decode --backend gpu: exit $rc: $(cat err)"
"$gfec" nc encode f -o short.s -n 32 -B 1000 --count 31 --backend gpu >/dev/null
rc=0
"$gfec" nc decode short.s -o out.new --backend gpu >/dev/null 2>err || rc=$?
[[ $rc == 5 && ! -e out.new ]] || bad "short segment on the GPU: exit $rc: $(cat err)"
"$gfec" nc encode f -o g.s -n 128 -B 4096 --backend gpu >/dev/null
python3 - <<'EOF'
s = bytearray(open('g.s', 'rb').read())
import struct
segs, = struct.unpack_from('<Q', s, 32)
s[96 + 4 * segs + 28 + 7] ^= 0x5A  # payload byte 7 of the first block
open('bad.s', 'wb').write(s)
EOF
rc=0
"$gfec" nc decode bad.s -o out.new --backend gpu >/dev/null 2>err || rc=$?
[[ $rc == 4 && ! -e out.new ]] && grep -q 'CRC32C' err || bad "corrupt payload on the GPU: exit $rc: $(cat err)"
exit $fails
