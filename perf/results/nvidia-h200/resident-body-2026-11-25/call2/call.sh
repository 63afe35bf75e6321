#!/bin/bash
# resident-body-2026-11-25 call 2 (issue 17): as call 1 (a cluster of 8 blocks of 256 threads,
# nibble_word_body), but block 0's thread 0 polls in a tight loop while the other blocks wait at
# the cluster barrier (call 1 crossed the cluster barrier on every idle poll).
# 1. A/B: gfec-gpu-bench of 05bbf64 (base-bench) and of the tree (new-bench), built on the dev
#    VM, --small in turn, three rounds.
# 2. The tree built here; perf/device_run.sh steps build and resident (test_gpu_resident,
#    --small twice, memcheck), then racecheck on two of the test's cases.
R=$OUT/rb2
mkdir -p $R
{
for r in 1 2 3; do
	for b in base-bench new-bench; do
		echo "## round $r $b"
		./$b --small 2>&1
	done
done
} > $R/ab.log 2>&1
grep -E "^## |resident|legacy|empty kernel:" $R/ab.log | head -80
export GFEC_BUILD=/tmp/gfec-build
timeout 400 bash perf/device_run.sh $R build resident 2>&1 | grep -v "^\[" | tail -30
echo "== racecheck"
GFEC_TEST_FILTER='test_l*' timeout 240 compute-sanitizer --tool racecheck --error-exitcode 9 \
	$GFEC_BUILD/tests/test_gpu_resident > $R/racecheck.log 2>&1
echo "exit $?"; tail -5 $R/racecheck.log
cp call.sh $R/
tar -czf $OUT/rb2.tgz -C $OUT rb2
