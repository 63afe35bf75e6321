#!/bin/bash
# The ISA-L drop-in's ec_encode_data at 4 KiB, before and after its plan key moved from the heap
# to the stack: one gfec-perf (2f3caf2) with --isal-lib pointing at each drop-in build in turn,
# then at upstream ISA-L 2.32.1; in cache and from DRAM, one thread.
# usage: ab.sh GFEC-PERF BASE-LIBISAL NEW-LIBISAL UPSTREAM-LIBISAL ROUNDS
P=$1 A=$2 B=$3 U=$4 R=${5:-3}
for r in $(seq "$R"); do
	for side in A B U; do
		lib=${!side}
		echo "## round $r $side $lib"
		"$P" isal -k '4,2 10,4' -b 4K -e 4K -T 1 -r 11 --hot --isal-lib "$lib" 2>&1 | grep "^RS"
		"$P" isal -k '4,2' -b 4K -e 4K -T 1 -r 7 --isal-lib "$lib" 2>&1 | grep "^RS"
	done
done
