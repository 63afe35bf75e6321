#!/bin/bash
# ll-request-2026-11-25 call 1 (issue 17): the resident kernel's request read in the poll's round
# trip (LL words: 32-bit pieces, each with the seq's low 32 bits above it).
# 1. A/B: gfec-gpu-bench of 05bbf64 (base-bench) and of the tree (new-bench), built on the dev
#    VM, --small in turn, three rounds.
# 2. The tree built here; perf/device_run.sh step resident (test_gpu_resident, --small twice,
#    memcheck).
R=$OUT/ll
mkdir -p $R
{
for r in 1 2 3; do
	for b in base-bench new-bench; do
		echo "## round $r $b"
		./$b --small 2>&1
	done
done
} > $R/ab.log 2>&1
grep -E "^## |P50|resident|legacy|empty" $R/ab.log | head -80
GFEC_BUILD=/tmp/gfec-build timeout 480 bash perf/device_run.sh $R build resident 2>&1 | tail -40
cp call.sh $R/
tar -czf $OUT/ll.tgz -C $OUT ll
