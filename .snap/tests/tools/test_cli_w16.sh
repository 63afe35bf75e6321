#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# @file test_cli_w16.sh
# The gfec command over GF(2^16) (issue 13): encode -w 16 round trips through lost chunks and
# --repair for the w=16 techniques (cauchy, jerasure_reed_sol_van, fft), including k+m > 256
# (more chunks than GF(2^8) has); FILE.gfec records w, and decode, verify and info use it;
# version 2 metadata (no w line) still reads as w=8; and every bad input is one line on stderr
# with its documented exit code and nothing written: a w other than 8 or 16, k+m over the
# field's limit, a technique w=16 lacks (and fft without w=16 or with backend=hybrid), metadata
# whose w is unknown or disagrees with its chunks, more chunk files than the process may open.
#
# usage: test_cli_w16.sh PATH/TO/gfec
# Losses are chosen at random; the seed is printed, and TEST_CLI_SEED=N replays a run.
set -euo pipefail
# shellcheck source=cli_lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/cli_lib.sh"

GFEC=${1:?usage: test_cli_w16.sh PATH/TO/gfec}
[[ -x $GFEC && -f $GFEC ]] || { echo "test_cli_w16.sh: '$GFEC' is not an executable" >&2; exit 1; }
GFEC=$(cd "$(dirname "$GFEC")" && pwd)/$(basename "$GFEC")
SEED=${TEST_CLI_SEED:-$(($(date +%s) % 32768))}
RANDOM=$SEED

DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
cd "$DIR"
echo "test_cli_w16.sh: $GFEC in $DIR, seed $SEED (TEST_CLI_SEED=$SEED replays it)"

# listing: every file in the directory with its size and checksum, to show nothing was written.
listing() { find . -maxdepth 1 -type f ! -name out ! -name err -printf '%f %s\n' | sort; }
# unchanged BEFORE: the directory is as BEFORE (a listing) says.
unchanged() {
	[[ $(listing) == "$1" ]] || {
		diff <(echo "$1") <(listing) >&2 || true
		fail "'$LAST' wrote or removed files"
	}
}

# --- round trips ----------------------------------------------------------------------------------

# roundtrip NAME SIZE K M TECHNIQUE: encode with w=16, lose m chunks, decode, repair, verify.
roundtrip() {
	local f=$1 size=$2 k=$3 m=$4 tech=$5 n=$(($3 + $4)) S i lost
	head -c "$size" /dev/urandom >"$f"
	gfec 0 encode -k "$k" -m "$m" -w 16 -t "$tech" "$f"
	has out "^encoded $f: k=$k m=$m $tech w=16 "
	[[ $(head -1 "$f.gfec") == "gfec-meta 3" && $(meta "$f" w) == 16 && $(meta "$f" k) == "$k" &&
		$(meta "$f" technique) == "$tech" ]] || fail "$f.gfec does not record k=$k w=16 $tech"
	S=$(meta "$f" chunk_size)
	((S % 2 == 0)) || fail "$f: w=16 chunks of $S bytes (odd)"
	# (one process for all chunks: hundreds of small ones are slow on a loaded machine)
	[[ $(ls "$f".[0-9]* | wc -l) == "$n" && $(stat -c %s "$f".[0-9]* | sort -u) == "$S" ]] ||
		fail "$f: not $n chunks of $S bytes"
	gfec 0 info "$f"
	has out '^w: 16$'
	gfec 0 verify "$f"
	has out "^$f: k=$k m=$m w=16 $tech, $n chunks"
	sha256sum "$f".[0-9]* >sums
	lost=$(pick "$m" "$n")
	for i in $lost; do rm "$f.$i"; done
	gfec 0 decode "$f" -o "$f.out"
	cmp -s "$f" "$f.out" || fail "$f: decoded file differs (lost $lost)"
	gfec 7 verify "$f"
	gfec 0 decode --repair "$f" -o "$f.out2"
	cmp -s "$f" "$f.out2" || fail "$f: decoded file differs after --repair (lost $lost)"
	sha256sum --quiet -c sums >&2 || fail "$f: chunks repaired differently (lost $lost)"
	gfec 0 verify "$f"
	has out '^parity: consistent with the data$'
	rm -f sums "$f".*
	echo "ok: w=16 round trip $size B, k=$k m=$m $tech, lost chunks $lost"
}

roundtrip a 100001 4 2 cauchy
roundtrip b 65536 10 4 jerasure_reed_sol_van
roundtrip c 1 2 1 cauchy
roundtrip d 20000 300 20 jerasure_reed_sol_van
roundtrip e 9999 5 3 cauchy
roundtrip f 30001 7 3 fft
roundtrip g 20000 300 20 fft

# -w 8 is the default: the same chunks as no -w, recorded as w 8.
head -c 30000 /dev/urandom >g
gfec 0 encode -k 4 -m 2 g
mkdir keep && cp g.* keep/
gfec 0 encode -k 4 -m 2 -w 8 g
for i in 0 1 2 3 4 5 gfec; do cmp -s "g.$i" "keep/g.$i" || fail "-w 8 wrote another g.$i"; done
[[ $(meta g w) == 8 ]] || fail "g.gfec does not record w 8"
# Version 2 metadata (no w line) is still read, as w=8.
grep -v '^w ' keep/g.gfec | sed 's/^gfec-meta 3$/gfec-meta 2/' >g.gfec
reseal g.gfec
rm g.1
gfec 0 decode g -o g.out
cmp -s g g.out || fail "version 2 metadata: decoded file differs"
gfec 0 info g
has out '^w: 8$'
rm -rf keep g*
echo "ok: -w 8 is the default; version 2 metadata reads as w=8"

# --- bad command lines: one line, exit 2, nothing written -----------------------------------------

head -c 5000 /dev/urandom >h
before=$(listing)
for args in "-w 12" "-w 0" "-w 32" "-w x" "-w 016" "-w=16" "-k 300 -m 20" "-k 300 -m 20 -w 8" \
	"-k 65000 -m 537 -w 16" "-t fft" "-w 16 -t fft --backend hybrid" "-w 16 -t cauchy_good" \
	"-w 16 -t reed_sol_van"; do
	[[ $args == *-k* ]] || args="-k 4 -m 2 $args"
	# shellcheck disable=SC2086
	gfec 2 encode $args h
	one_error_line
	unchanged "$before"
done
has err 'not available with w=16'
gfec 2 encode -k 4 -m 2 -t fft h
has err 'technique=fft: only with w=16'
gfec 2 encode -k 4 -m 2 -w 12 h
has err '-w 12: w must be 8 or 16'
gfec 2 encode -k 300 -m 20 h
has err '256'
gfec 2 encode -k 4 -m 2 -w h
one_error_line
# w comes from the metadata: decode and verify take no -w
gfec 0 encode -k 4 -m 2 -w 16 h
before=$(listing)
gfec 2 decode -w 8 h -o h.out
one_error_line
gfec 2 verify -w 8 h
one_error_line
unchanged "$before"
echo "ok: bad -w, k+m and techniques refused"

# --- metadata that disagrees with its chunks ------------------------------------------------------

mkdir keep && cp h.* keep/
# badw SED: h.gfec edited by SED and resealed; decode, verify and --repair refuse it as corrupt
# (exit 4) and write nothing.
badw() {
	cp keep/h.* .
	sed -i "$1" h.gfec
	reseal h.gfec
	before=$(listing)
	gfec 4 decode h -o h.out
	one_error_line
	has err 'corrupt metadata'
	gfec 4 decode --repair h -o h.out
	gfec 4 verify h
	one_error_line
	unchanged "$before"
}
badw 's/^w 16$/w 12/'
has err 'w=12'
badw 's/^w 16$/w 0/'
badw 's/^w 16$/w 016/'
badw '/^w 16$/d'
badw 's/^gfec-meta 3$/gfec-meta 2/'
# an odd chunk size cannot hold 2-byte symbols (the size shrunk so that it still fits k chunks)
S=$(meta keep/h chunk_size)
badw "s/^chunk_size .*/chunk_size $((S - 1))/; s/^size .*/size 10/"
has err 'odd'
# a w=16 file of 258 chunks called w=8: more chunks than GF(2^8) has
head -c 3000 /dev/urandom >big
gfec 0 encode -k 257 -m 1 -w 16 big
sed -i 's/^w 16$/w 8/' big.gfec
reseal big.gfec
before=$(listing)
gfec 4 decode big -o big.out
one_error_line
has err 'k=257 m=1 out of range for w=8'
unchanged "$before"
rm big*
# The w=16 chunks of h called w=8, CRCs resealed: the data chunks are still FILE's bytes, but
# rebuilding a lost one with the wrong field disagrees with its CRC32C (exit 1, nothing written),
# and verify finds the parity inconsistent (exit 7).
cp keep/h.* .
sed -i 's/^w 16$/w 8/' h.gfec
reseal h.gfec
gfec 7 verify h
has out 'does not match the data'
rm h.0
before=$(listing)
gfec 1 decode h -o h.out
[[ $(grep -cv 'warning: h.0: chunk 0: missing' err) == 1 ]] || fail "'$LAST': more than one error"
has err '^gfec: decode: h.0: rebuilt chunk 0 has crc32c .*h.out not written$'
gfec 1 decode --repair h -o h.out
unchanged "$before"
rm -rf keep h*
echo "ok: metadata whose w is unknown or disagrees with its chunks refused, nothing written"

# --- more chunk files than the process may open ---------------------------------------------------

head -c 3000 /dev/urandom >fd
before=$(listing)
LAST="encode -k 300 -m 20 -w 16 under ulimit -n 200"
got=0
(ulimit -n 200 && exec "$GFEC" encode -k 300 -m 20 -w 16 fd) >out 2>err || got=$?
[[ $got == 3 ]] || { cat err >&2; fail "'$LAST' exited $got, expected 3"; }
one_error_line
has err 'file descriptors'
unchanged "$before"
# a soft limit under the hard one is raised: the same run works
got=0
(ulimit -Sn 200 && exec "$GFEC" encode -k 300 -m 20 -w 16 fd) >out 2>err || got=$?
[[ $got == 0 ]] || { cat err >&2; fail "encode under a soft ulimit -n 200 exited $got"; }
rm fd*
echo "ok: the open-file limit is raised where it can be, else one error and nothing written"
echo "test_cli_w16.sh: all passed"
