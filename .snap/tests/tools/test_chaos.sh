#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# @file test_chaos.sh
# The gfec command under chunks that change while it reads them (a byte toggled without pause,
# a chunk truncated, overwritten in place or replaced by rename, at a random moment) and under
# damage done before it runs. Whatever happens, decode must never exit 0 with wrong bytes:
# either it exits 0 and OUT equals the original, or it exits non-zero and leaves no OUT (and no
# temp file). verify must answer 0 or 7, and 7 whenever chunks were damaged before it ran.
#
# usage: test_chaos.sh PATH/TO/gfec
# The trials are chosen at random; the seed is printed, and TEST_CHAOS_SEED=N replays a run
# (the racing trials still depend on timing).
set -euo pipefail

GFEC=${1:?usage: test_chaos.sh PATH/TO/gfec}
[[ -x $GFEC && -f $GFEC ]] || { echo "test_chaos.sh: '$GFEC' is not an executable" >&2; exit 1; }
GFEC=$(cd "$(dirname "$GFEC")" && pwd)/$(basename "$GFEC")
SEED=${TEST_CHAOS_SEED:-$(( $(date +%s) % 32768 ))}
RANDOM=$SEED

DIR=$(mktemp -d)
BG=
cleanup() {
	[[ -z $BG ]] || { kill "$BG" 2>/dev/null || true; wait "$BG" 2>/dev/null || true; }
	rm -rf "$DIR"
}
trap cleanup EXIT
cd "$DIR"
echo "test_chaos.sh: $GFEC in $DIR, seed $SEED (TEST_CHAOS_SEED=$SEED replays it)"

fail() {
	echo "test_chaos.sh: FAIL: $*" >&2
	echo "test_chaos.sh: (seed $SEED)" >&2
	exit 1
}

# A few MB: large enough that decode's reads of a chunk are spread over time, small enough
# that a trial takes tens of milliseconds.
K=4 M=2 N=6
head -c $((6 * 1024 * 1024 + 4321)) /dev/urandom >f
"$GFEC" encode -k $K -m $M f >/dev/null
S=$(awk '$1 == "chunk_size" { print $2 }' f.gfec)
mkdir keep
for ((i = 0; i < N; i++)); do cp "f.$i" keep/; done

# Toggles the byte at OFFSET of FILE between its two values until killed (exec: $! is perl
# itself), or for 10 s at most, or until this script is gone.
toggler() {
	exec perl -e 'open(my $f, "+<", $ARGV[0]) or die "$ARGV[0]: $!";
		 sysseek($f, $ARGV[1], 0); sysread($f, my $b, 1) == 1 or die "short";
		 my ($c, $parent) = (chr(ord($b) ^ 0x5a), getppid());
		 alarm 10;
		 while (getppid() == $parent) {
			 for my $v ($c, $b) { sysseek($f, $ARGV[1], 0); syswrite($f, $v); }
		 }' "$1" "$2"
}

# start_bg KIND CHUNK: starts damaging CHUNK in the background, now or after a random pause.
start_bg() {
	local kind=$1 c=$2 pause
	pause=0.00$((RANDOM % 10))
	case $kind in
	toggle) toggler "f.$c" $(((RANDOM * 32768 + RANDOM) % S)) & ;;
	truncate) (sleep "$pause"; truncate -s $((RANDOM * 64 % S)) "f.$c") & ;;
	overwrite) (sleep "$pause"; dd if=/dev/urandom of="f.$c" bs=4096 count=1 \
		seek=$((RANDOM % (S / 4096))) conv=notrunc status=none) & ;;
	rename) (sleep "$pause"; cp "keep/f.$(((c + 1) % N))" "f.$c.new"; mv "f.$c.new" "f.$c") & ;;
	esac
	BG=$!
	# Give the toggler time to start: the race is what it does while the command runs.
	[[ $kind != toggle ]] || sleep 0.02
}

stop_bg() {
	kill "$BG" 2>/dev/null || true
	wait "$BG" 2>/dev/null || true
	BG=
}

# damage HOW CHUNK: damages CHUNK before the command runs.
damage() {
	local c=$2 at=$(((RANDOM * 32768 + RANDOM) % S))
	case $1 in
	flip) perl -e 'open(my $f, "+<", $ARGV[0]) or die; sysseek($f, $ARGV[1], 0);
		       sysread($f, my $b, 1); sysseek($f, $ARGV[1], 0);
		       syswrite($f, chr(ord($b) ^ (1 + int(rand(255)))))' "f.$c" "$at" ;;
	truncate) truncate -s "$at" "f.$c" ;;
	grow) printf x >>"f.$c" ;;
	swap) cp "keep/f.$(((c + 1) % N))" "f.$c" ;;
	delete) rm "f.$c" ;;
	esac
}

restore() {
	for ((i = 0; i < N; i++)); do cmp -s "f.$i" "keep/f.$i" || cp "keep/f.$i" "f.$i"; done
	rm -f out
}

# check_decode WHAT RC: the invariant after a decode that exited RC.
check_decode() {
	if [[ $2 == 0 ]]; then
		cmp -s out f || fail "$1: decode exited 0 with wrong output"
	else
		[[ ! -e out ]] || fail "$1: decode exited $2 and left out behind"
	fi
	[[ -z $(find . -maxdepth 1 -name '*.tmp.*') ]] || fail "$1: temp files left behind"
}

declare -A seen
trials=0

# Chunks damaged while decode runs: the data chunks (those decode reads) most of the time.
for ((t = 0; t < 60; t++)); do
	kinds=(toggle toggle toggle truncate overwrite rename)
	kind=${kinds[RANDOM % ${#kinds[@]}]}
	c=$((RANDOM % 8 < 7 ? RANDOM % K : K + RANDOM % M))
	# One in four repairs too: it reads every chunk, and may rewrite the one being damaged.
	repair=$((RANDOM % 4 == 0 ? 1 : 0))
	start_bg "$kind" "$c"
	rc=0
	"$GFEC" decode f -o out $( ((repair)) && echo --repair) >/dev/null 2>err || rc=$?
	stop_bg
	check_decode "decode$([[ $repair == 0 ]] || echo ' --repair') while $kind of chunk $c" "$rc"
	seen["decode $kind rc=$rc"]=1
	restore
	trials=$((trials + 1))
done

# verify while a chunk is toggled: never anything but ok or a problem found.
for ((t = 0; t < 10; t++)); do
	c=$((RANDOM % N))
	start_bg toggle "$c"
	rc=0
	"$GFEC" verify f >/dev/null 2>err || rc=$?
	stop_bg
	[[ $rc == 0 || $rc == 7 ]] || { cat err >&2; fail "verify while chunk $c toggles exited $rc"; }
	seen["verify toggle rc=$rc"]=1
	restore
	trials=$((trials + 1))
done

# Damage done before the run, to 1 .. M+1 chunks: up to M is decodable, M+1 is not.
for ((t = 0; t < 30; t++)); do
	hows=(flip truncate grow swap delete)
	count=$((1 + RANDOM % (M + 1)))
	which=()
	while ((${#which[@]} < count)); do
		c=$((RANDOM % N))
		[[ " ${which[*]} " == *" $c "* ]] || which+=("$c")
	done
	what=
	for c in "${which[@]}"; do
		how=${hows[RANDOM % ${#hows[@]}]}
		damage "$how" "$c"
		what+=" $how $c"
	done
	rc=0
	"$GFEC" decode f -o out >/dev/null 2>err || rc=$?
	check_decode "decode after$what" "$rc"
	if ((count <= M)) && [[ $rc != 0 ]]; then
		cat err >&2
		fail "decode after$what exited $rc; $count damaged chunks are within m=$M"
	fi
	((count <= M)) || [[ $rc != 0 ]] || fail "decode after$what exited 0"
	rc=0
	"$GFEC" verify f >/dev/null 2>err || rc=$?
	[[ $rc == 7 ]] || fail "verify after$what exited $rc, expected 7"
	seen["damage $count"]=1
	restore
	trials=$((trials + 1))
done

"$GFEC" verify f >/dev/null || fail "the chunks were not restored after the trials"
echo "test_chaos.sh: $trials trials; outcomes: $(printf '%s\n' "${!seen[@]}" | sort | paste -sd, -)"
echo "test_chaos.sh: all tests passed"
