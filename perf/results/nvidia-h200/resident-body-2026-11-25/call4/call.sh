#!/bin/bash
# resident-body-2026-11-25 call 4: the word body with one alignment test per call (no branch
# per source); the instrumented builds (diag-*) first, then the clean ones in turn, three rounds.
R=$OUT/c4
mkdir -p $R
for b in diag-new; do
	echo "## $b"
	./$b --small 2>&1 | grep -E "DIAG|resident|rror"
done 2>&1 | tee $R/diag.log
for r in 1 2 3; do
	for b in base-bench new-bench; do
		echo "## round $r $b"
		./$b --small 2>&1
	done
done > $R/ab.log 2>&1
grep -E "^## |resident|legacy|empty kernel:" $R/ab.log
cp call.sh $R/
