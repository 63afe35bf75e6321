#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# gfec nc end to end: file -> stream -> recode (losses 0..30%, 1-3 relays) -> decode == file;
# every bad stream (truncated, a block of another stream, corrupt header bytes, wrong family,
# n, B or kind, out of order, too few blocks, empty, huge n) refused in one line with its exit
# code and no output; the simulation's dependent blocks and singular rate within 5 sigma of the
# theory it prints, and that theory checked against an independent computation here.
# Usage: test_nc_cli.sh PATH/TO/gfec
set -euo pipefail
gfec=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
bad() {
	echo "FAIL: $*" >&2
	fails=1
}
cd "$dir"

# --- round trips ----------------------------------------------------------------------------------
head -c 300001 /dev/urandom >f
head -c 1 /dev/urandom >one
head -c 8192 /dev/urandom >exact # n * B exactly, with -n 8 -B 1024
trip() { # FILE ENCODE-OPTIONS...: encode, decode (progressive, and batched), compare
	local f=$1
	shift
	rm -f s out
	"$gfec" nc encode "$f" -o s "$@" >/dev/null 2>err || { bad "encode $f $*: $(cat err)"; return; }
	"$gfec" nc decode s -o out >/dev/null 2>err || { bad "decode $f $*: $(cat err)"; return; }
	cmp -s "$f" out || bad "decode $f $*: bytes differ"
	rm -f out
	"$gfec" nc decode s -o out --batch >/dev/null 2>err || { bad "decode --batch $f $*: $(cat err)"; return; }
	cmp -s "$f" out || bad "decode --batch $f $*: bytes differ"
}
trip f
trip f -n 1 -B 4096
trip f -n 200 -B 100 --systematic
trip f -n 16 -B 777 --zero-coefs --count 16
trip f -n 64 -B 512 --overhead 0 --seed 4000000000
trip one -n 4 -B 16
trip exact -n 8 -B 1024
trip f --family lt -n 64 -B 512 --count 128
trip one --family lt -n 3 -B 16 --count 12
# LT's c and delta travel in the stream: the decoder is told nothing (the options are for encode)
trip f --family lt -n 128 -B 300 --count 200 --lt-c 0.2 --lt-delta 0.5
trip f --family lt -n 40 -B 64 --count 60 --lt-c 0.1 --lt-delta 0.1

# recoding chains: loss 0..30%, 1..3 relays; 3n blocks per segment leave every relay full rank
"$gfec" nc encode f -o s0 -n 8 -B 1000 --count 24 >/dev/null
for loss in 0 0.1 0.3; do
	for relays in 1 2 3; do
		in=s0
		for ((r = 1; r <= relays; r++)); do
			"$gfec" nc recode "$in" -o "s$r" --loss $loss --seed $((r * 7)) >/dev/null 2>err ||
				bad "recode loss $loss hop $r: $(cat err)"
			in=s$r
		done
		grep -q warning err && bad "loss $loss, $relays relays: $(cat err)"
		rm -f out
		"$gfec" nc decode "$in" -o out >/dev/null 2>err || bad "decode after $relays relays: $(cat err)"
		cmp -s f out || bad "loss $loss, $relays relays: bytes differ"
		rm -f out
		"$gfec" nc decode "$in" -o out --batch >/dev/null 2>err ||
			bad "decode --batch after $relays relays: $(cat err)"
		cmp -s f out || bad "loss $loss, $relays relays, --batch: bytes differ"
	done
done
# LT relays forward what survives (they cannot mix): 4n blocks cross 3 hops at 30% loss
"$gfec" nc encode f -o l0 --family lt -n 64 -B 500 --count 256 >/dev/null
for loss in 0 0.1 0.3; do
	for relays in 1 2 3; do
		in=l0
		for ((r = 1; r <= relays; r++)); do
			"$gfec" nc recode "$in" -o "l$r" --loss $loss --seed $((r * 5)) >out.txt 2>err ||
				bad "lt recode loss $loss hop $r: $(cat err)"
			grep -q 'blocks forwarded' out.txt || bad "lt recode: $(cat out.txt)"
			in=l$r
		done
		rm -f out
		"$gfec" nc decode "$in" -o out >/dev/null 2>err ||
			bad "lt decode after $relays relays at $loss: $(cat err)"
		cmp -s f out || bad "lt, loss $loss, $relays relays: bytes differ"
	done
done
# more blocks than n independent ones: the rest counted, not used
"$gfec" nc encode f -o big -n 8 -B 1000 --count 40 >/dev/null
"$gfec" nc decode big -o out >out.txt 2>err || bad "decode of 5n blocks: $(cat err)"
grep -q ' after)' out.txt && cmp -s f out || bad "decode of 5n blocks: $(cat out.txt)"

# --- refusals: one line, the exit code, nothing written --------------------------------------------
refused() { # WHAT CODE PATTERN ARGS...
	local what=$1 code=$2 pat=$3 rc=0
	shift 3
	rm -f out.new
	"$gfec" "$@" >/dev/null 2>err || rc=$?
	[[ $rc == "$code" ]] || bad "$what: exit $rc, want $code ($(cat err))"
	[[ $(wc -l <err) == 1 ]] && grep -q -e "$pat" err || bad "$what: $(cat err)"
	[[ ! -e out.new ]] || bad "$what: output created"
	ls | grep -q '\.tmp\.' && bad "$what: temp file left"
	return 0
}
# stream surgery: python with CRC32C, so that a header can be made valid again
cat >edit.py <<'EOF'
import struct, sys
def crc32c(b, c=0xffffffff):
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    return c
def blocks(s):
    n, B = struct.unpack_from('<II', s, 12)
    segs, = struct.unpack_from('<Q', s, 32)
    off, out = 96 + 4 * segs, []
    while off < len(s):
        ln = (28 if s[off + 6] == 1 else 24 + n) + B
        out.append((off, ln))
        off += ln
    return out
def fix(s):
    segs, = struct.unpack_from('<Q', s, 32)
    v2 = bytes(s[92:96]) if struct.unpack_from('<H', s, 8)[0] >= 2 else b''
    c = crc32c(bytes(s[:88]) + v2 + bytes(s[96:96 + 4 * segs])) ^ 0xffffffff
    struct.pack_into('<I', s, 88, c)
src = bytearray(open(sys.argv[1], 'rb').read())
op = sys.argv[2]
bl = blocks(src)
if op == 'cut':          # drop the tail from the middle of block i
    i = int(sys.argv[3]); o, l = bl[i]; src = src[:o + l // 2]
elif op == 'cutblocks':  # drop the last i blocks
    i = int(sys.argv[3]); src = src[:bl[-i][0]]
elif op == 'byte':       # xor byte at offset in block i (-1: the stream header)
    i, at = int(sys.argv[3]), int(sys.argv[4])
    src[(bl[i][0] if i >= 0 else 0) + at] ^= 0x5A
elif op == 'set':        # block i's byte at offset = value
    i, at, v = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    src[bl[i][0] + at] = v
elif op == 'graft':      # block i replaced by block i of another stream
    i = int(sys.argv[3]); other = bytearray(open(sys.argv[4], 'rb').read())
    ob = blocks(other)[i]; o, l = bl[i]
    src = src[:o] + other[ob[0]:ob[0] + ob[1]] + src[o + l:]
elif op == 'swap':       # blocks i and j exchanged (same length)
    i, j = int(sys.argv[3]), int(sys.argv[4]); (a, l), (b, _) = bl[i], bl[j]
    src[a:a + l], src[b:b + l] = src[b:b + l], src[a:a + l]
elif op == 'header':     # stream header field: offset, struct format, value; CRC made valid
    at, fmt, v = int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
    struct.pack_into(fmt, src, at, v); fix(src)
open(sys.argv[-1], 'wb').write(src)
EOF
"$gfec" nc encode f -o s -n 8 -B 1000 --count 10 >/dev/null
"$gfec" nc encode f -o other -n 8 -B 1000 --count 10 >/dev/null
ed() { python3 edit.py s "$@" x.s; }
ed cut 25
refused "truncated block" 4 'block 25 at offset .*: truncated' nc decode x.s -o out.new
ed cutblocks 3
refused "truncated stream" 4 'ends after .* blocks, its header says' nc decode x.s -o out.new
ed graft 12 other
refused "block of another stream" 4 'block 12 .*from another stream' nc decode x.s -o out.new
ed swap 9 10
refused "blocks out of order" 4 'segment 0 after segment 1' nc decode x.s -o out.new
refused "blocks out of order, batch" 4 'segment 0 after segment 1' nc decode x.s -o out.new --batch
ed byte -1 13
refused "corrupt stream header" 4 'header CRC32C mismatch' nc decode x.s -o out.new
ed byte 3 0
refused "corrupt block magic" 4 'block 3 .*bad magic' nc decode x.s -o out.new
ed byte 3 7
refused "corrupt block flags" 4 'block 3 .*bad header' nc decode x.s -o out.new
ed byte 3 40
refused "corrupt payload" 4 'segment 0 decodes to bytes whose CRC32C' nc decode x.s -o out.new
refused "corrupt payload, batch" 4 'segment 0 decodes to bytes whose CRC32C' nc decode x.s -o out.new --batch
ed set 3 5 2
refused "wrong family" 4 'family 2 in a stream of family 1' nc decode x.s -o out.new
ed set 3 6 3
refused "unknown kind" 4 'kind 3 unknown' nc decode x.s -o out.new
ed set 3 8 9
refused "wrong n" 4 'n=9 B=1000, the stream.s code has n=8' nc decode x.s -o out.new
ed set 3 12 0
refused "wrong B" 4 'B=768, the stream.s code' nc decode x.s -o out.new
ed header 12 '<I' 65536
refused "huge n" 4 'n=65536 B=1000 out of range' nc decode x.s -o out.new
ed header 16 '<I' 2147483647
refused "huge B" 4 'out of range' nc decode x.s -o out.new
ed header 32 '<Q' 1099511627776
refused "huge segment count" 4 'segment table runs past' nc decode x.s -o out.new
# a valid header asking for n=1 B=1 GiB over a 1-byte file with 100 bytes of blocks: refused
# before any segment-sized allocation
python3 - <<'EOF'
import struct
exec(open('edit.py').read().split('src = bytearray')[0])  # crc32c() and fix()
h = bytearray(100)
h[0:8] = b'GFNCSTRM'; struct.pack_into('<H', h, 8, 1); h[10] = 1
struct.pack_into('<IIIQQQ', h, 12, 1, 1 << 30, 7, 1, 1, 1)
fix(h)
open('huge.s', 'wb').write(h + b'x' * 100)
EOF
refused "1 GiB block over 100 bytes" 5 '100 bytes of blocks cannot hold the n=1 blocks' nc decode huge.s -o out.new
ed header 10 '<B' 7
refused "unknown stream family" 4 'family 7 unknown' nc decode x.s -o out.new
ed header 8 '<H' 3
refused "stream version" 4 'version 3 (this gfec reads 1..2)' nc decode x.s -o out.new
ed header 8 '<H' 0
refused "stream version 0" 4 'version 0' nc decode x.s -o out.new
: >empty
refused "empty stream" 4 'the file is empty' nc decode empty -o out.new
refused "empty file" 2 'is empty: nothing to encode' nc encode empty -o out.new
refused "recode of a foreign stream" 4 'version 0' nc recode x.s -o out.new --loss 0
"$gfec" nc encode f -o lt.s --family lt -n 8 -B 1000 --count 10 >/dev/null
python3 edit.py lt.s graft 3 s x.s
refused "rlc block in an lt stream" 4 'block 3 .*family 1 in a stream of family 2' nc decode x.s -o out.new
"$gfec" nc encode f -o lt.short --family lt -n 8 -B 1000 --count 6 >/dev/null
refused "too few lt blocks" 5 'segment 0: its blocks do not span the n=8 sources' nc decode lt.short -o out.new
refused "lt --systematic" 2 'an LT code has no such option' nc encode f -o out.new --family lt --systematic
refused "lt recode --count" 2 'an LT relay forwards' nc recode lt.s -o out.new --loss 0 --count 9
refused "lt n too large" 2 "-n '65537': want an integer in 1..65536" nc encode f -o out.new --family lt -n 65537
"$gfec" nc encode f -o short -n 8 -B 1000 --count 7 >/dev/null
refused "too few blocks" 5 'segment 0 has 7 independent blocks, needs n=8' nc decode short -o out.new
refused "too few blocks, batch" 5 'segment 0: its 7 blocks span fewer than n=8' nc decode short -o out.new --batch
refused "lt --backend gpu" 2 'an LT stream decodes on the CPU (gfec has no GPU LT decoder' \
	nc decode lt.s -o out.new --backend gpu
# an LT encode on the GPU (cli_nc_gpu checks its bytes); where no GPU is usable, refused as RLC's
rc=0
"$gfec" nc encode f -o out.new --family lt -n 8 -B 1000 --backend gpu >/dev/null 2>err || rc=$?
if [[ $rc != 0 ]]; then
	[[ $rc == 2 ]] && grep -q 'cannot make a lt code n=8 B=1000: requested backend is not' err &&
		[[ ! -e out.new ]] || bad "lt encode --backend gpu without a GPU: exit $rc ($(cat err))"
fi
refused "lt too few, batch" 5 'segment 0: its 6 blocks span fewer than n=8' nc decode lt.short -o out.new --batch
# LT's c and delta in the stream header (nc.h: millionths at 52 and 92, version 2); the blocks'
# neighbours depend on their seeds alone, so whether 2n blocks decode is the same every run
"$gfec" nc encode f -o ltp.s --family lt -n 64 -B 100 --count 128 >/dev/null
lh() { python3 edit.py ltp.s header "$@" x.s; }
lh 52 '<I' 0
refused "lt c = 0" 4 'LT parameters c=0e-6 delta=50000e-6 not valid for family lt' nc decode x.s -o out.new
lh 92 '<I' 1000000
refused "lt delta = 1" 4 'delta=1000000e-6 not valid' nc decode x.s -o out.new
lh 92 '<I' 0
refused "lt delta = 0" 4 'delta=0e-6 not valid' nc decode x.s -o out.new
ed header 52 '<I' 30000
refused "rlc with an lt c" 4 'c=30000e-6 delta=0e-6 not valid for family rlc' nc decode x.s -o out.new
python3 edit.py ltp.s byte -1 93 x.s
refused "lt delta byte damaged" 4 'header CRC32C mismatch' nc decode x.s -o out.new
# another c or delta than the encoder's gives other neighbours: never a wrong file
for f in "52 <I 200000" "92 <I 500000"; do
	python3 edit.py ltp.s header $f x.s
	rc=0
	rm -f out.new
	"$gfec" nc decode x.s -o out.new >/dev/null 2>err || rc=$?
	[[ ($rc == 4 || $rc == 5) && ! -e out.new ]] || bad "lt with header $f: exit $rc ($(cat err))"
done
# a version 1 LT stream (0 at 52 and 92) was encoded with the library's defaults: still read
python3 edit.py ltp.s header 52 '<I' 0 x.s
python3 edit.py x.s header 92 '<I' 0 x.s
python3 edit.py x.s header 8 '<H' 1 x.s
rm -f out
"$gfec" nc decode x.s -o out >/dev/null 2>err && cmp -s f out || bad "version 1 lt stream: $(cat err)"
python3 edit.py x.s header 52 '<I' 7 x.s
refused "version 1 with byte 52 set" 4 'bytes 52 or 92 not 0 in a version 1 stream' nc decode x.s -o out.new
refused "lt-c on rlc" 2 'only an LT code (--family lt) has it' nc encode f -o out.new --lt-c 0.1
refused "lt-c 0" 2 "--lt-c '0': want a number in \[1e-06, 1000\]" nc encode f -o out.new --family lt --lt-c 0
refused "lt-c 7 decimals" 2 'at most 6 decimals' nc encode f -o out.new --family lt --lt-c 0.0300001
refused "lt-delta 1" 2 "--lt-delta '1'" nc encode f -o out.new --family lt --lt-delta 1
refused "lt-delta nan" 2 "--lt-delta 'nan'" nc encode f -o out.new --family lt --lt-delta nan
refused "bad backend" 2 "--backend 'tpu': want auto, cpu or gpu" nc decode s -o out.new --backend tpu
# random damage: 150 single-byte changes and 30 truncations anywhere in a stream. Each decode
# either succeeds with the file's exact bytes or fails with exit 4 or 5, in one line, writing
# nothing; never a crash, never a wrong file.
head -c 3001 /dev/urandom >small
"$gfec" nc encode small -o small.s -n 4 -B 100 --count 6 >/dev/null
python3 - "$gfec" <<'EOF' || bad "random damage"
import os, random, subprocess, sys
gfec, src = sys.argv[1], open('small.s', 'rb').read()
want, rng = open('small', 'rb').read(), random.Random(12)
for t in range(180):
    s = bytearray(src)
    if t < 150:
        s[rng.randrange(len(s))] ^= rng.randrange(1, 256)
    else:
        s = s[:rng.randrange(len(s))]
    open('dmg.s', 'wb').write(s)
    if os.path.exists('dmg.out'):
        os.remove('dmg.out')
    r = subprocess.run([gfec, 'nc', 'decode', 'dmg.s', '-o', 'dmg.out'], capture_output=True)
    err = r.stderr.decode()
    if r.returncode == 0:
        assert open('dmg.out', 'rb').read() == want, (t, 'wrong bytes with exit 0')
    else:
        assert r.returncode in (4, 5), (t, r.returncode, err)
        assert err.count('\n') == 1 and err.startswith('gfec: nc decode: '), (t, err)
        assert not os.path.exists('dmg.out'), (t, 'output written')
EOF
# an existing output survives a failed decode untouched
echo keep >out.new
rc=0
"$gfec" nc decode short -o out.new >/dev/null 2>&1 || rc=$?
[[ $rc == 5 && $(cat out.new) == keep ]] || bad "failed decode touched an existing output ($rc)"
refused "decode onto its stream" 8 'would replace the input' nc decode s -o s
refused "huge n" 2 "-n '100000': want an integer in 1..4096" nc encode f -o out.new -n 100000
refused "segment too large" 2 'at most 1073741824 per segment' nc encode f -o out.new -n 4096 -B 1048576
refused "overhead and count" 2 'give one of them' nc encode f -o out.new --overhead 5 --count 9
refused "no output" 2 'no output given' nc encode f
refused "bad loss" 2 "--loss '1.5'" nc recode s -o out.new --loss 1.5
refused "no loss" 2 'loss P is required' nc recode s -o out.new
refused "bad family" 2 "want rlc or lt" nc encode f -o out.new --family raptor
refused "unknown option" 2 "unknown option '--bogus'" nc decode s -o out.new --bogus
refused "unknown nc command" 2 "unknown command 'frobnicate'" nc frobnicate
for c in encode recode decode simulate; do
	"$gfec" nc $c --help | grep -q "usage: gfec nc $c" || bad "nc $c --help"
done

# --- the simulation against the theory ----------------------------------------------------------
# 20000 segments of n = 4 through 2 relays (hop 1 and 2 dense 1..255, hop 3 uniform 0..255), then
# a uniform source straight to the sink: each hop's dependent blocks and singular segments within
# 5 sigma of what the tool expects, and what it expects equal to this script's own sums.
"$gfec" nc simulate -n 4 -B 8 --segments 20000 --relays 2 --loss 0.2 --seed 3 --json sim.json \
	>sim.txt 2>err || bad "simulate: $(cat err)"
"$gfec" nc simulate -n 2 -B 8 --segments 20000 --relays 0 --loss 0.3 --seed 4 --zero-coefs \
	--json sim0.json >>sim.txt 2>err || bad "simulate --zero-coefs: $(cat err)"
grep -q 'sink: 20000 of 20000 segments decoded' sim.txt || bad "simulate: $(cat sim.txt)"
python3 - sim.json sim0.json <<'EOF' || bad "simulation against theory: $(cat sim.txt)"
import json, math, sys
def theory(n, uniform):
    e = v = 0.0; prod = 1.0
    for r in range(n):
        k = n - r
        if uniform: p = 256.0 ** -k
        elif r == 0: p = 0.0
        elif n == 2: p = 1 / 255
        else: p = (256.0 ** r - 1) / (256.0 ** n - 1)
        e += p / (1 - p); v += p / (1 - p) ** 2; prod *= 1 - p
    return e, v, 1 - prod
for path in sys.argv[1:]:
    d = json.load(open(path)); S = d['segments']
    for i, h in enumerate(d['hops']):
        uniform = d['zero_coefs'] or i >= 2
        assert h['weights'] == ('0..255' if uniform else '1..255'), (path, i, h)
        e, v, sing = theory(d['n'], uniform)
        assert abs(h['dependent_expected'] - e * S) < 1e-6 * S, (path, i, h, e * S)
        assert abs(h['singular_expected'] - sing * S) < 1e-6 * S, (path, i, h, sing * S)
        assert abs(h['dependent'] - e * S) <= 5 * math.sqrt(v * S) + 1, (path, i, h)
        assert abs(h['singular'] - sing * S) <= 5 * math.sqrt(S * sing) + 1, (path, i, h)
        assert h['received'] == d['n'] * S + h['dependent'], (path, i, h)
        lost = 1 - h['received'] / h['sent']
        assert abs(lost - d['loss']) < 0.02, (path, i, lost)
# the uniform total for large n is the issue's 0.003937
assert abs(theory(64, True)[0] - 0.003937) < 5e-7 and abs(theory(64, True)[2] - 0.0039215) < 1e-6
EOF
# LT through 2 forwarding relays: every segment decoded; the blocks over n counted per segment
"$gfec" nc simulate --family lt -n 32 -B 64 --segments 300 --relays 2 --loss 0.2 --json lt.json \
	>lt.txt 2>err || bad "simulate lt: $(cat err)"
grep -q 'sink: 300 of 300 segments decoded' lt.txt || bad "simulate lt: $(cat lt.txt)"
python3 - lt.json <<'EOF' || bad "simulate lt counts: $(cat lt.txt)"
import json, sys
d = json.load(open(sys.argv[1])); S, n = d['segments'], d['n']
h = d['hops']
assert [x['sent'] for x in h[1:]] == [x['received'] for x in h[:-1]], h  # relays forward all
assert h[-1]['received'] == n * S + h[-1]['overhead_blocks'] and h[-1]['overhead_blocks'] >= 0, h
assert h[-1]['overhead_blocks'] < 0.5 * n * S, h  # an exact decoder needs a few blocks over n
EOF
# a segment with no blocks at all (the relay lost them all), in both decoders
python3 - <<'EOF'
import struct
s = bytearray(open('s', 'rb').read())
n, B = struct.unpack_from('<II', s, 12)
segs, = struct.unpack_from('<Q', s, 32)
blocks, = struct.unpack_from('<Q', s, 40)
off = 96 + 4 * segs + 10 * (28 + B)   # segment 1's 10 blocks dropped
s = s[:96 + 4 * segs + 10 * (28 + B)] + s[off + 10 * (28 + B):]
struct.pack_into('<Q', s, 40, blocks - 10)
open('gap.s', 'wb').write(s)
EOF
python3 edit.py gap.s header 52 '<I' 0 gap.s # the header CRC made valid again
refused "missing segment" 5 'segment 1 has 0 independent blocks' nc decode gap.s -o out.new
refused "missing segment, batch" 5 'segment 1 has 0 independent blocks' nc decode gap.s -o out.new --batch

refused "simulate bad loss" 2 "--loss '0.95'" nc simulate --loss 0.95
refused "simulate too many relays" 2 "--relays '17'" nc simulate --relays 17

exit $fails
