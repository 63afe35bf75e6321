#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# build.sh OLD_STATIC_LIB: a measurement record. Builds ab (ab.c) in /tmp/rs42 against
# build-c16's libgfec_static.a (the tree), OLD_STATIC_LIB with every global renamed n_* (another
# tree's libgfec_static.a: here the tree of 7c6a35a plus the then uncommitted edits, whose codec
# and backend counted each call by four locked adds), and the kernel variants of the table in
# ../rs42_4k_dram.txt. From the repository root; upstream ISA-L 2.32.1 at $UP (ab's default
# /tmp/isa-l-2.32.1-i16/bin/libisal.so.2).
set -euo pipefail
old=${1:?usage: build.sh OLD_STATIC_LIB}
here=perf/results/dev-epyc-zen3-2core/rs42_4k_dram
w=$PWD
t=/tmp/rs42
mkdir -p $t
inc="-I$w/cpu_backend -I$w/gfmatrix/base -I$w/gfmatrix/base/include -I$w/plugin/include"
python3 $here/kernel_variants.py cpu_backend/avx2.c $t/kv.c
v() { gcc -O3 -DNDEBUG $inc -DKNAME=k_$1 -DTNAME=t_$1 -DANAME=a_$1 "${@:2}" -c $t/kv.c -o $t/k_$1.o; }
v base; v pf256 -DPF=256; v pf512 -DPF=512; v all16k -DPFALL=16384; v w512 -DPFW=512
nm --defined-only -g "$old" | awk 'NF==3{print $3" n_"$3}' | sort -u >$t/old.syms
objcopy --redefine-syms=$t/old.syms "$old" $t/old_renamed.a
decl="" names="" calls="" i=5
for k in base pf256 pf512 all16k w512; do
	decl="$decl void k_$k(size_t, int, int, const uint8_t *, const uint8_t *const *, uint8_t *const *, int);"
	names="$names ,\"$k\""
	calls="$calls else if (v == $i) k_$k(len, k, m, t, (const uint8_t *const *)s, par, 0);"
	i=$((i + 1))
done
gcc -O2 "-DVARIANTS=$decl" "-DNAMES=$names" "-DCALLS=$calls" -Iplugin/include \
	-Igfmatrix/base/include -o $t/ab $here/ab.c $t/k_*.o build-c16/plugin/libgfec_static.a \
	$t/old_renamed.a /usr/lib/x86_64-linux-gnu/libisal.so -lm -ldl -lpthread
echo "$t/ab"
