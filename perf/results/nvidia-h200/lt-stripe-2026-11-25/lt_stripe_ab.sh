#!/usr/bin/env bash
# LT decoder stripe width A/B: gfec-lt-bench relinked with gfmatrix/lt.c built at each
# LT_STRIPE, then the variants run in turns. usage: lt_stripe_ab.sh BUILD OUT ROUNDS W...
set -euo pipefail
b=$(cd "$1" && pwd) out=$2 rounds=$3
shift 3
src=$(pwd) # the repository root, with lt_stripe.patch applied
mkdir -p "$out"
flags=$(sed -n 's/^C_FLAGS = //p' "$b/gfmatrix/CMakeFiles/gfec_gfmatrix.dir/flags.make")
incs=$(sed -n 's/^C_INCLUDES = //p' "$b/gfmatrix/CMakeFiles/gfec_gfmatrix.dir/flags.make")
libs=$(tr -d '"' <"$b/perf/CMakeFiles/gfec_lt_bench.dir/linkLibs.rsp")
for w in "$@"; do
	d=$out/w$w
	mkdir -p "$d"
	# shellcheck disable=SC2086
	gcc $flags $incs -DLT_STRIPE=$w -c "$src/gfmatrix/lt.c" -o "$d/lt.c.o"
	cp "$b/plugin/libgfec_static.a" "$d/lib.a"
	(cd "$d" && ar r lib.a lt.c.o)
	# shellcheck disable=SC2086
	(cd "$b/perf" && g++ CMakeFiles/gfec_lt_bench.dir/lt_bench.c.o -o "$d/gfec-lt-bench" \
		${libs/..\/plugin\/libgfec_static.a/$d/lib.a} \
		-L/usr/local/cuda/targets/x86_64-linux/lib/stubs -L/usr/local/cuda/targets/x86_64-linux/lib)
done
for r in $(seq "$rounds"); do
	for w in "$@"; do
		echo "## round $r LT_STRIPE=$w"
		"$out/w$w/gfec-lt-bench" -n 10240 -B 1024 -s 1 -r 10 | grep "decode, 1 thread"
	done
done
