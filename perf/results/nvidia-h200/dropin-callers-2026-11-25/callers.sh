#!/bin/bash
# The ISA-L drop-in from several callers sharing one table (HDFS's coder threads), before and
# after tables carry their GFNI matrices: gfec-isal-bench with the "real ISA-L" column set to
# upstream 2.32.1 (GFEC_ISAL_LIB), each drop-in in turn, in cache (-s 0) and from DRAM.
# usage: callers.sh GFEC-ISAL-BENCH BASE-LIBISAL NEW-LIBISAL UPSTREAM-LIBISAL "THREADS..." ROUNDS
P=$1 A=$2 B=$3 U=$4 T=$5 R=${6:-3}
for r in $(seq "$R"); do
	for t in $T; do
		for side in A B; do
			lib=${!side}
			echo "## round $r, $t callers, $side $lib"
			GFEC_ISAL_LIB=$U "$P" -t "$t" -s 0 --no-gpu "$lib" 4K 64K | grep -v "^#"
			GFEC_ISAL_LIB=$U "$P" -t "$t" --no-gpu "$lib" 4K | grep -v "^#" | sed 's/$/  (DRAM)/'
		done
	done
done
