# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# @file cli_lib.sh
# What the gfec command's end-to-end tests (test_cli.sh, test_cli_w16.sh) share: failing with the
# seed, running the tool against an expected exit code, checking its output, seeded picks and the
# metadata's fields. Sourced, not run: the test sets GFEC (the tool) and SEED first; messages
# name the test by its file ($0).

fail() {
	echo "${0##*/}: FAIL: $*" >&2
	echo "${0##*/}: (seed $SEED)" >&2
	exit 1
}

# run CODE CMD...: runs CMD with stdout in ./out and stderr in ./err; fails unless it exits CODE.
run() {
	local want=$1 got=0
	shift
	"$@" >out 2>err || got=$?
	if [[ $got != "$want" ]]; then
		sed 's/^/  stdout: /' out >&2
		sed 's/^/  stderr: /' err >&2
		fail "'$*' exited $got, expected $want"
	fi
}

# has FILE REGEX: FILE (out or err) has a line matching the extended REGEX.
has() {
	grep -Eq -- "$2" "$1" || { sed "s/^/  $1: /" "$1" >&2; fail "$1 lacks /$2/ (after '$LAST')"; }
}

# gfec CODE ARGS...: runs the tool under run(), remembering the command for messages.
gfec() {
	local want=$1
	shift
	LAST="gfec $*"
	run "$want" "$GFEC" "$@"
}

# An error is one line on stderr, and it starts with "gfec: ".
one_error_line() {
	[[ $(wc -l <err) == 1 ]] || { cat err >&2; fail "'$LAST' printed $(wc -l <err) lines on stderr"; }
	has err '^gfec: '
}

# pick COUNT N: COUNT distinct numbers from 0 .. N-1, from the seeded $RANDOM.
pick() {
	local count=$1 n=$2 i j t a=()
	for ((i = 0; i < n; i++)); do a[i]=$i; done
	for ((i = 0; i < count; i++)); do
		j=$((i + RANDOM % (n - i)))
		t=${a[i]} a[i]=${a[j]} a[j]=$t
	done
	echo "${a[@]:0:count}"
}

# meta NAME KEY: the value of KEY in NAME.gfec.
meta() { awk -v key="$2" '$1 == key { print $2 }' "$1.gfec"; }

# reseal FILE.gfec: recomputes its last line (the CRC32C of the lines above), as someone who
# edits the metadata and knows its format would.
reseal() {
	perl -e 'local $/; my $t = <STDIN>; $t =~ s/meta_crc32c [^\n]*\n\z//; my $c = 0xffffffff;
		 for my $b (unpack "C*", $t) {
			 $c ^= $b;
			 $c = ($c >> 1) ^ (0x82f63b78 & -($c & 1)) for 1 .. 8;
		 }
		 printf "%smeta_crc32c 0x%08x\n", $t, $c ^ 0xffffffff' <"$1" >"$1.new"
	mv "$1.new" "$1"
}
