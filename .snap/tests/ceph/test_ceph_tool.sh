#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# libec_gfec.so under the stock ceph-erasure-code-tool (Ceph 16.2): the plugin loads, validates
# and sizes profiles, round-trips (2,1) (4,2) (8,3) (10,4) under every erasure pattern of (4,2)
# and random ones otherwise, is byte-identical to the isa and jerasure plugins for the
# techniques that reproduce them (jerasure reed_sol_van with w=8 and w=16), decodes their chunks
# and they decode ours, and the loader refuses broken plugins with their exact error codes.
#   $1  the built libec_gfec.so     $2  the directory of the broken test plugins
set -euo pipefail
plugin=$(readlink -f "$1") broken=$(readlink -f "$2")
sysdir=/usr/lib/x86_64-linux-gnu/ceph/erasure-code
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/ec" "$dir/crash"
ln -s "$plugin" "$dir/ec/"
for f in "$sysdir"/*.so "$broken"/libec_gfec_*.so; do ln -s "$f" "$dir/ec/"; done
export CEPH_CONF=/dev/null
log=$dir/tool.log
tool() { ceph-erasure-code-tool --erasure_code_dir "$dir/ec" --crash_dir "$dir/crash" "$@" 2>>"$log"; }
fail() {
	echo "FAIL: $*" >&2
	tail -20 "$log" >&2
	exit 1
}
pass=0
ok() { pass=$((pass + 1)); }

# --- loading and profiles ---------------------------------------------------------------------
tool test-plugin-exists gfec >/dev/null || fail "test-plugin-exists gfec"
ok
for p in "k=2,m=1" "k=4,m=2,technique=cauchy" "k=8,m=3,technique=jerasure_reed_sol_van" \
	"k=10,m=4,technique=cauchy_good" "k=10,m=4,technique=reed_sol_van"; do
	k=${p#k=}; k=${k%%,*}; m=${p#*m=}; m=${m%%,*}
	out=$(tool validate-profile "plugin=gfec,$p") || fail "validate-profile $p"
	[[ $out == *"chunk_count: $((k + m))"* && $out == *"data_chunk_count: $k"* &&
		$out == *"coding_chunk_count: $m"* ]] || fail "validate-profile $p said: $out"
	ok
done

# Chunk sizes equal the stock plugin's that the technique reproduces, so chunks interchange.
twin() { # gfec technique -> the stock plugin and technique with the same bytes
	case $1 in
	reed_sol_van) echo "plugin=isa,technique=reed_sol_van" ;;
	cauchy) echo "plugin=isa,technique=cauchy" ;;
	jerasure_reed_sol_van) echo "plugin=jerasure,technique=reed_sol_van" ;;
	cauchy_good) echo "plugin=jerasure,technique=cauchy_good" ;;
	esac
}
for t in reed_sol_van cauchy jerasure_reed_sol_van cauchy_good; do
	for size in 1 4095 1000000 4194304 12345678; do
		a=$(tool calc-chunk-size "plugin=gfec,technique=$t,k=4,m=2" "$size")
		b=$(tool calc-chunk-size "$(twin "$t"),k=4,m=2" "$size")
		[[ $a == "$b" ]] || fail "calc-chunk-size $t $size: gfec $a, $(twin "$t") $b"
		ok
	done
done

# --- round trips -------------------------------------------------------------------------------
# stripe unit: 4 KiB chunks for the byte techniques; cauchy_good chunks are 4 x 8 x 2048 bytes.
unit() { [[ $1 == cauchy_good ]] && echo 65536 || echo 4096; }
shards() { seq -s, 0 $(($1 - 1)); }

encode() { # profile stripe_unit file n
	tool encode "$1" "$2" "$(shards "$4")" "$3" || fail "encode $1"
}
check_decode() { # profile stripe_unit base read_list original
	cp "$3" "$3.work"
	for f in "$3".[0-9]*; do cp "$f" "$3.work.${f##*.}"; done
	tool decode "$1" "$2" "$4" "$3.work" || fail "decode $1 reading $4"
	cmp -s -n "$(stat -c %s "$5")" "$3.work" "$5" || fail "decode $1 reading $4: data differs"
	rm -f "$3".work*
}
subsets() { # all k-subsets of 0..n-1, one comma list a line
	python3 -c 'import itertools,sys; k,n=map(int,sys.argv[1:]); [print(",".join(map(str,c))) for c in itertools.combinations(range(n),k)]' "$1" "$2"
}

head -c 3000001 /dev/urandom >"$dir/orig.bin"
for km in 2,1 4,2 8,3 10,4; do
	k=${km%,*} m=${km#*,}
	for t in cauchy reed_sol_van jerasure_reed_sol_van cauchy_good; do
		[[ $t == reed_sol_van && $m -gt 4 ]] && continue
		p="plugin=gfec,technique=$t,k=$k,m=$m"
		u=$(unit "$t")
		cp "$dir/orig.bin" "$dir/w"
		encode "$p" "$u" "$dir/w" $((k + m))
		if [[ $km == 4,2 ]]; then
			lists=$(subsets "$k" $((k + m)))
		else
			lists=$(subsets "$k" $((k + m)) | shuf -n 6 --random-source=<(yes))
		fi
		for l in $lists; do
			check_decode "$p" "$u" "$dir/w" "$l" "$dir/orig.bin"
			ok
		done
		rm -f "$dir"/w*
	done
done

# --- byte-for-byte with the stock plugins, and decoding each other's chunks -------------------
for t in cauchy reed_sol_van jerasure_reed_sol_van cauchy_good; do
	for km in 4,2 8,3; do
		k=${km%,*} m=${km#*,}
		u=$(unit "$t")
		mine="plugin=gfec,technique=$t,k=$k,m=$m" theirs="$(twin "$t"),k=$k,m=$m"
		cp "$dir/orig.bin" "$dir/g"
		cp "$dir/orig.bin" "$dir/s"
		encode "$mine" "$u" "$dir/g" $((k + m))
		encode "$theirs" "$u" "$dir/s" $((k + m))
		for ((i = 0; i < k + m; i++)); do
			cmp -s "$dir/g.$i" "$dir/s.$i" || fail "$t ($km): shard $i differs from $theirs"
		done
		ok
		# lose the first m data shards; each plugin decodes the other's shards
		read_list=$(seq -s, "$m" $((k + m - 1)))
		check_decode "$theirs" "$u" "$dir/g" "$read_list" "$dir/orig.bin"
		check_decode "$mine" "$u" "$dir/s" "$read_list" "$dir/orig.bin"
		ok
		rm -f "$dir"/g* "$dir"/s*
	done
done

# --- w=16: jerasure's reed_sol_van over GF(2^16), byte for byte both ways --------------------
out=$(tool validate-profile "plugin=gfec,k=4,m=2,technique=jerasure_reed_sol_van,w=16") ||
	fail "validate-profile w=16"
[[ $out == *"chunk_count: 6"* ]] || fail "validate-profile w=16 said: $out"
ok
for k in 3 4 10; do
	for size in 1 100 4095 1000000 12345678; do
		a=$(tool calc-chunk-size "plugin=gfec,technique=jerasure_reed_sol_van,w=16,k=$k,m=2" "$size")
		b=$(tool calc-chunk-size "plugin=jerasure,technique=reed_sol_van,w=16,k=$k,m=2" "$size")
		[[ $a == "$b" ]] || fail "calc-chunk-size w=16 k=$k $size: gfec $a, jerasure $b"
		ok
	done
done
for km in 4,2 8,3 10,4; do
	k=${km%,*} m=${km#*,}
	mine="plugin=gfec,technique=jerasure_reed_sol_van,w=16,k=$k,m=$m"
	theirs="plugin=jerasure,technique=reed_sol_van,w=16,k=$k,m=$m"
	cp "$dir/orig.bin" "$dir/g"
	cp "$dir/orig.bin" "$dir/s"
	encode "$mine" 4096 "$dir/g" $((k + m))
	encode "$theirs" 4096 "$dir/s" $((k + m))
	for ((i = 0; i < k + m; i++)); do
		cmp -s "$dir/g.$i" "$dir/s.$i" || fail "w=16 ($km): shard $i differs from $theirs"
	done
	ok
	# lose the first m data shards, then m shards at random; each decodes the other's shards
	for read_list in "$(seq -s, "$m" $((k + m - 1)))" \
		$(subsets "$k" $((k + m)) | shuf -n 2 --random-source=<(yes)); do
		check_decode "$theirs" 4096 "$dir/g" "$read_list" "$dir/orig.bin"
		check_decode "$mine" 4096 "$dir/s" "$read_list" "$dir/orig.bin"
		ok
	done
	rm -f "$dir"/g* "$dir"/s*
done
# cauchy over GF(2^16) has no stock twin: it round-trips under every erasure pattern of (4,2)
p="plugin=gfec,technique=cauchy,w=16,k=4,m=2"
cp "$dir/orig.bin" "$dir/w"
encode "$p" 4096 "$dir/w" 6
for l in $(subsets 4 6); do
	check_decode "$p" 4096 "$dir/w" "$l" "$dir/orig.bin"
	ok
done
rm -f "$dir"/w*

# --- bad profiles: a negative errno and a message, never a crash of the plugin ---------------
# (16.2.15's tool itself aborts after a plugin refuses a profile; the message is what we check)
for bad in "k=0,m=1:k=0: k must be >= 2" "k=4,m=x:m=x: m must be a number" \
	"k=4,m=2,technique=liber8tion:technique=liber8tion: unknown" \
	"k=6,m=5,technique=reed_sol_van:not MDS" \
	"k=4,m=2,technique=cauchy_good,packetsize=12:packetsize=12" \
	"k=4,m=2,w=12:w=12: w must be 8 or 16" "k=4,m=2,w=32:w=32: w must be 8 or 16" \
	"k=4,m=2,technique=cauchy_good,w=16:not available with w=16" \
	"k=250,m=7,technique=cauchy:k+m must be <= 256"; do
	p=${bad%%:*} want=${bad#*:}
	: >"$log"
	# the subshell reports the tool's own crash to /dev/null, not to the test log
	if (tool validate-profile "plugin=gfec,$p" >/dev/null) 2>/dev/null; then
		fail "profile $p was accepted"
	fi
	grep -qF -- "$want" "$log" || fail "profile $p: no message '$want'"
	ok
done

# --- the loader refuses broken plugins with Ceph's exact codes --------------------------------
expect_rc() { # plugin want_errno want_text
	: >"$log"
	set +e
	tool test-plugin-exists "$1" >/dev/null
	rc=$?
	set -e
	((rc == 256 - $2)) || fail "$1: exit $rc, want -$2"
	grep -qF -- "$3" "$log" || fail "$1: no message '$3'"
	ok
}
expect_rc gfec_badver 18 "but it claims to be 0.0.0-not-ceph"  # -EXDEV
expect_rc gfec_noinit 2 "undefined symbol: __erasure_code_init" # -ENOENT
expect_rc gfec_noreg 9 "did not register gfec_noreg"            # -EBADF

echo "ceph-erasure-code-tool: $pass checks passed"
