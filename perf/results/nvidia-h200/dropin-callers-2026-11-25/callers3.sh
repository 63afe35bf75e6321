#!/bin/bash
# The ISA-L drop-in from N callers sharing one table, per CPU path: A (14c9b92) against D (the
# tables' GFNI matrices and the plan cache's per-CPU fronts). gfec-isal-bench's "real ISA-L"
# column is upstream 2.32.1 (GFEC_ISAL_LIB, which the drop-in's isal path forwards to as well).
# usage: callers3.sh GFEC-ISAL-BENCH A D UPSTREAM "PATHS..." THREADS ROUNDS
P=$1 A=$2 D=$3 U=$4 PATHS=$5 T=$6 R=${7:-2}
for r in $(seq "$R"); do
	for path in $PATHS; do
		for side in A D; do
			lib=${!side}
			echo "## round $r, $T callers, GFEC_CPU_PATH=$path, $side $lib"
			GFEC_CPU_PATH=$path GFEC_ISAL_LIB=$U "$P" -t "$T" -s 0 --no-gpu "$lib" 4K 64K | grep -v "^#"
			GFEC_CPU_PATH=$path GFEC_ISAL_LIB=$U "$P" -t "$T" --no-gpu "$lib" 4K | grep -v "^#" | sed 's/$/  (DRAM)/'
		done
	done
done
