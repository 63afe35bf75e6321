#!/bin/bash
# The ISA-L drop-in from 16 callers sharing one table, per CPU path, three drop-in builds in turn:
# A (14c9b92), B (tables carry their GFNI matrices), C (B and one plan cache per CPU).
# gfec-isal-bench's "real ISA-L" column is upstream 2.32.1 (GFEC_ISAL_LIB, which the drop-in's
# isal path forwards to as well); in cache (-s 0) and from DRAM.
# usage: callers2.sh GFEC-ISAL-BENCH A B C UPSTREAM "PATHS..." THREADS ROUNDS
P=$1 A=$2 B=$3 C=$4 U=$5 PATHS=$6 T=$7 R=${8:-2}
for r in $(seq "$R"); do
	for path in $PATHS; do
		for side in A B C; do
			lib=${!side}
			echo "## round $r, $T callers, GFEC_CPU_PATH=$path, $side $lib"
			GFEC_CPU_PATH=$path GFEC_ISAL_LIB=$U "$P" -t "$T" -s 0 --no-gpu "$lib" 4K 64K | grep -v "^#"
			GFEC_CPU_PATH=$path GFEC_ISAL_LIB=$U "$P" -t "$T" --no-gpu "$lib" 4K | grep -v "^#" | sed 's/$/  (DRAM)/'
		done
	done
done
