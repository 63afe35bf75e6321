#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test_crash.sh GFEC [TRIALS]: SIGKILL `gfec encode` (fresh, and over an older encoding of the same
# or another shape) and `gfec decode --repair` at random points, TRIALS times each (default 100),
# and check what is left:
#   - every FILE.<i> and FILE.gfec is byte for byte the old file or the new one: never torn;
#   - anything else is a leftover temporary (*.tmp.<pid>[.<n>]);
#   - `gfec verify` and `gfec decode` either succeed (decode: with the old or the new content,
#     byte-identical) or refuse with one of the CLI's exit codes 3-7; a verify that passes needs a
#     decode that does too, and after a killed repair the object must still decode.
# The kill delays are spread over each command's run time, measured first. Files are about 1 MB,
# in /dev/shm where it exists.
set -u
shopt -s nullglob

GFEC=${1:?usage: test_crash.sh GFEC [TRIALS]}
TRIALS=${2:-100}
K=4
M=2
N=$((K + M))
SIZE=$((1024 * 1024 + 12345)) # an odd size: the last data chunk is padded

# tmpfs where there is one: fsync is free there, and a killed process leaves the same files.
base=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
W=$(mktemp -d "$base/gfec-crash.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

now_us() {
	local t
	t=$(date +%s%N)
	echo $((t / 1000))
}

# Runs "$@" from a fresh start and prints its run time in microseconds (the fastest of 3 runs:
# on a busy machine the slowest would send most kills after the end).
measure() {
	local best=0 t0 t
	for _ in 1 2 3; do
		reset
		t0=$(now_us)
		"$@" >/dev/null 2>&1 || fail "measuring: $* failed"
		t=$(($(now_us) - t0))
		((best == 0 || t < best)) && best=$t
	done
	echo "$best"
}

# The pristine sets: old/ (A encoded), new/ (B encoded), reshaped/ (B encoded with k=3 m=3),
# damaged/ (old/ less chunk 1, with a flipped byte in parity chunk 4); each holds F too. empty/ is
# where a fresh encode starts.
head -c $SIZE /dev/urandom >"$W/A"
head -c $SIZE /dev/urandom >"$W/B"
for v in old:A:$K:$M new:B:$K:$M reshaped:B:3:3; do
	IFS=: read -r name content k m <<<"$v"
	mkdir "$W/$name"
	cp "$W/$content" "$W/$name/F"
	"$GFEC" encode -k "$k" -m "$m" "$W/$name/F" >/dev/null || fail "encode $v failed"
done
mkdir "$W/damaged" "$W/empty"
cp "$W/old/"* "$W/damaged/"
rm "$W/damaged/F.1"
byte=$(od -An -tu1 -j1000 -N1 "$W/damaged/F.4")
printf "\\x$(printf %02x $((byte ^ 0xff)))" | dd of="$W/damaged/F.4" bs=1 seek=1000 conv=notrunc 2>/dev/null
cmp -s "$W/damaged/F.4" "$W/old/F.4" && fail "could not damage F.4"

T=$W/t # each trial's directory

# Every file in $T: a chunk or metadata file equal to the one in $1 or $2, a leftover
# temporary, or one of the files the trial itself made.
check_files() {
	local a=$1 b=$2 f name
	for f in "$T"/*; do
		name=${f##*/}
		case $name in
		F | out | rep) ;;
		F.gfec | F.[0-9] | F.[0-9][0-9])
			cmp -s "$f" "$a/$name" 2>/dev/null || cmp -s "$f" "$b/$name" 2>/dev/null ||
				fail "$what: $name is neither the old nor the new file (torn?)"
			;;
		*.tmp.[0-9]*) leftovers=$((leftovers + 1)) ;;
		*) fail "$what: unexpected file $name" ;;
		esac
	done
}

# verify and decode the set in $T; decode may give $1 or $2 (file names; "" for none).
# $3 = 0: do not count the outcome.
check_decode() {
	local ok1=$1 ok2=$2 count=${3:-1} vrc drc
	"$GFEC" verify "$T/F" >/dev/null 2>&1
	vrc=$?
	rm -f "$T/out"
	"$GFEC" decode "$T/F" -o "$T/out" >/dev/null 2>&1
	drc=$?
	case $vrc in
	0) ((drc == 0)) || fail "$what: verify passed, decode exited $drc" ;;
	[3-7]) ;;
	*) fail "$what: verify exited $vrc" ;;
	esac
	((count)) || { ((drc == 0)) && cmp -s "$T/out" "$ok2"; } ||
		fail "$what: the command run to the end, decode exited $drc or gave wrong bytes"
	((count)) || return 0
	case $drc in
	0)
		if [ -n "$ok1" ] && cmp -s "$T/out" "$ok1"; then
			got_old=$((got_old + 1))
		elif [ -n "$ok2" ] && cmp -s "$T/out" "$ok2"; then
			got_new=$((got_new + 1))
		else
			fail "$what: decode succeeded with wrong bytes"
		fi
		;;
	[3-7]) refused=$((refused + 1)) ;;
	*) fail "$what: decode exited $drc" ;;
	esac
}

# run_killed US CMD...: starts CMD, SIGKILLs it after a random 0..US microseconds.
run_killed() {
	local us=$1 d pid rc
	shift
	d=$((RANDOM * us / 32767))
	"$@" >/dev/null 2>&1 &
	pid=$!
	sleep "$(printf '%d.%06d' $((d / 1000000)) $((d % 1000000)))"
	kill -KILL $pid 2>/dev/null
	{ wait $pid; } 2>/dev/null # no "Killed" line from the shell
	rc=$?
	if ((rc == 137)); then
		killed=$((killed + 1))
	elif ((rc != 0)); then
		fail "$what: exited $rc without being killed"
	fi
}

# $T as a copy of $start, with F = $content.
reset() {
	rm -rf "$T" && mkdir "$T" || fail "cannot make $T"
	for f in "$start"/*; do
		cp "$f" "$T/" || fail "cannot copy $f"
	done
	cp "$content" "$T/F" || fail "cannot copy $content"
}

# scenario NAME START_SET FILE_CONTENT OLD_SET NEW_SET OLD_CONTENT NEW_CONTENT CMD...
# ($T starts as a copy of START_SET plus F = FILE_CONTENT; CMD runs there.)
scenario() {
	local name=$1 a=$4 b=$5 ok1=$6 ok2=$7 us
	start=$2 content=$3
	shift 7
	killed=0 leftovers=0 got_old=0 got_new=0 refused=0
	us=$(measure "$@")
	for ((i = 1; i <= TRIALS; i++)); do
		what="$name, trial $i"
		reset
		run_killed "$us" "$@"
		check_files "$a" "$b"
		check_decode "$ok1" "$ok2"
		# Now and then, the same command to the end over the leftovers: they are stepped over.
		if ((i % 10 == 0)); then
			"$@" >/dev/null 2>&1 || fail "$what: rerun after the kill failed"
			check_files "$b" "$b"
			check_decode "" "$ok2" 0
		fi
	done
	echo "$name: $TRIALS trials over ${us} us runs: $killed killed; decode gave the old" \
		"content $got_old times, the new $got_new, refused $refused; $leftovers temporaries left"
	((killed >= TRIALS / 10)) || fail "$name: only $killed of $TRIALS kills landed before the end"
	[ "$name" != repair ] || ((refused == 0)) || fail "repair: a killed repair left it undecodable"
}

scenario "encode, fresh" "$W/empty" "$W/B" "$W/empty" "$W/new" "" "$W/B" \
	"$GFEC" encode -k $K -m $M "$T/F"
scenario "encode over an older encoding" "$W/old" "$W/B" "$W/old" "$W/new" "$W/A" "$W/B" \
	"$GFEC" encode -k $K -m $M "$T/F"
scenario "encode over an older encoding of another shape" "$W/old" "$W/B" "$W/old" \
	"$W/reshaped" "$W/A" "$W/B" "$GFEC" encode -k 3 -m 3 "$T/F"
scenario repair "$W/damaged" "$W/A" "$W/damaged" "$W/old" "$W/A" "$W/A" \
	"$GFEC" decode "$T/F" -o "$T/rep" --repair
echo "PASS"
