#!/bin/bash
# A/B of the GFNI source prefetch and slice length on this machine, each build's own gfec-perf
# in turn, so that the VM's moods fall on both: A = the tree before (prefetch 512 bytes ahead on
# every CPU, 64 KiB slices), B = the tree after (no prefetch by non-temporal stores on AMD; one-pass
# GFNI products in slices of len / (4 x threads), 64 KiB to 1 MiB).
# usage: ab.sh A-gfec-perf B-gfec-perf ROUNDS [upstream libisal.so.2]
A=$1 B=$2 R=${3:-3} LIB=$4
for r in $(seq "$R"); do
	for side in A B; do
		bin=${!side}
		echo "## round $r $side: all cores"
		"$bin" -k 10,4 -b 16M -e 16M -o encode -a cpu -r 3 2>&1 | grep -v "^gfec-perf: measuring"
		if [ -n "$LIB" ]; then
			echo "## round $r $side: one thread and all cores against upstream"
			"$bin" isal -k "10,4 8,3" -b 1M -e 16M -f 16 -r 5 --isal-lib "$LIB" 2>&1 |
				grep -v "^gfec-perf: measuring"
		fi
	done
done
