#!/bin/bash
# The ISA-L drop-in's ec_encode_data at 4 KiB before and after tables carry their GFNI matrices:
# one gfec-perf (14c9b92) with --isal-lib pointing at each library in turn (A: the drop-in at
# 14c9b92, B: the drop-in with the change, U: upstream ISA-L 2.32.1); one thread.
# usage: ab.sh GFEC-PERF BASE-LIBISAL NEW-LIBISAL UPSTREAM-LIBISAL ROUNDS
P=$1 A=$2 B=$3 U=$4 R=${5:-3}
for r in $(seq "$R"); do
	for side in A B U; do
		lib=${!side}
		echo "## round $r $side $lib"
		"$P" isal -k '4,2 10,4' -b 4K -e 4K -T 1 -r 7 --hot --isal-lib "$lib" 2>&1 | grep "^RS"
		"$P" isal -k '4,2' -b 4K -e 4K -T 1 -r 5 --isal-lib "$lib" 2>&1 | grep "^RS"
	done
done
