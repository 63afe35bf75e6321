#!/bin/bash
# resident-body-2026-11-25 call 3: both resident kernels (05bbf64's, the tree's) instrumented
# (resident-diag-*.cu: globaltimer stamps per request, medians printed when the engine goes),
# gfec-gpu-bench --small of each in turn, two rounds.
R=$OUT/diag
mkdir -p $R
for r in 1 2; do
	for b in diag-base diag-new; do
		echo "## round $r $b"
		./$b --small 2>&1 | grep -E "DIAG|resident|error|rror"
	done
done 2>&1 | tee $R/diag.log
cp call.sh resident-diag-*.cu $R/
