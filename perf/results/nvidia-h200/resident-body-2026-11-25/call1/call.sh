#!/bin/bash
# resident-body-2026-11-25 call 1 (issue 17): the resident kernel as a cluster of 8 blocks of 256
# threads, block 0 polling and sharing the request through distributed shared memory, with one
# 4-byte word a thread (nibble_word_body) instead of one block of 16-byte units.
# 1. A/B: gfec-gpu-bench of 05bbf64 (base-bench) and of the tree (new-bench), built on the dev
#    VM, --small in turn, three rounds.
# 2. The tree built here; perf/device_run.sh steps build and resident (test_gpu_resident,
#    --small twice, memcheck), then racecheck and synccheck on the test, then ctest -L gpu.
R=$OUT/rb
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
timeout 400 bash perf/device_run.sh $R build resident 2>&1 | tail -30
for tool in racecheck synccheck; do
	echo "== $tool"
	GFEC_TEST_FILTER='test_*l*' timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 \
		$GFEC_BUILD/tests/test_gpu_resident > $R/$tool.log 2>&1
	echo "exit $?"; tail -5 $R/$tool.log
done
timeout 200 ctest --test-dir $GFEC_BUILD -L gpu --timeout 200 > $R/gputest.log 2>&1; echo "gputest exit $?"; tail -8 $R/gputest.log
cp call.sh $R/
tar -czf $OUT/rb.tgz -C $OUT rb
