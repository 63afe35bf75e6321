#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# build.sh BUILD_DIR REV...: a measurement record (../lt_decode_peel.txt). From the repository
# root: builds /tmp/lt_peel/ab (ab.c, linked to BUILD_DIR's libgfec_static.a for the encoder) and,
# for each REV, /tmp/lt_peel/REV.so from that commit's gfmatrix/lt.c (with the flags the library
# builds lt.c with, and stub.c's serial thread pool). Then: ab /tmp/lt_peel/A.so /tmp/lt_peel/B.so 60
# Also /tmp/lt_peel/api (api.c, the gfec_nc.h decode) over BUILD_DIR's library as it is: build it
# once per tree to compare (the record's before/after of plugin/nc_lt.c were two such builds).
set -euo pipefail
b=${1:?usage: build.sh BUILD_DIR REV...}
shift
here=perf/results/dev-epyc-zen3-2core/lt_decode_peel
t=/tmp/lt_peel
inc="-Igfmatrix -Igfmatrix/base -Igfmatrix/base/include -Iplugin/include"
mkdir -p $t
gcc -O3 -DNDEBUG -o $t/ab $here/ab.c $inc "$b"/plugin/libgfec_static.a -lm -lpthread -ldl
gcc -O3 -DNDEBUG -o $t/api $here/api.c $inc "$b"/plugin/libgfec_static.a -lisal -lm -lpthread
for r in "$@"; do
	git show "$r":gfmatrix/lt.c >$t/lt_"$r".c
	gcc -O3 -DNDEBUG -fPIC -shared -Wl,-Bsymbolic -std=gnu11 -o $t/"$r".so $t/lt_"$r".c \
		$here/stub.c $inc -lm
done
