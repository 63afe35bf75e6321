#!/bin/bash
# resident-body-2026-11-25 call 5 (issue 17): the resident kernel as a cluster of 8 blocks of 256
# threads (block 0's thread 0 polls alone; the others wait at the cluster barrier), one 4-byte
# word a thread (nibble_word_body, one alignment test per call).
# 1. A/B: gfec-gpu-bench --small with the 16 KiB row, of the tree with 05bbf64's resident.cu and
#    gemm_nibble.cuh (base-bench) and of the tree (new-bench), built on the dev VM, in turn, three
#    rounds.
# 2. The tree built here; perf/device_run.sh steps build and resident (test_gpu_resident,
#    --small twice, memcheck), then racecheck on two of the test's cases.
R=$OUT/c5
mkdir -p $R
for r in 1 2 3; do
	for b in base-bench new-bench; do
		echo "## round $r $b"
		./$b --small 2>&1
	done
done > $R/ab.log 2>&1
grep -E "^## |resident|legacy|empty kernel:" $R/ab.log
export GFEC_BUILD=/tmp/gfec-build
timeout 400 bash perf/device_run.sh $R build resident 2>&1 | grep -v "^\[" | tail -22
echo "== racecheck"
GFEC_TEST_FILTER='test_l*' timeout 240 compute-sanitizer --tool racecheck --error-exitcode 9 \
	$GFEC_BUILD/tests/test_gpu_resident > $R/racecheck.log 2>&1
echo "exit $?"; tail -3 $R/racecheck.log
cp call.sh $R/
tar -czf $OUT/c5.tgz -C $OUT c5
