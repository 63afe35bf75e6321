#!/bin/bash
# small-words-2026-11-25 (issue 17): launches of one stripe of at most 16 KiB chunks run the
# small-call kernels' word body (nibble_word_body) over a grid sized by words.
# 1. A/B: gfec-gpu-bench of dd465c1 (base-bench) and of the tree (new-bench), built on the dev
#    VM, the full --small section in turn, three rounds.
# 2. The tree built here; ctest -L gpu; perf/device_run.sh step resident.
R=$OUT/sw
mkdir -p $R
for r in 1 2 3; do
	for b in base-bench new-bench; do
		echo "## round $r $b"
		./$b --small 2>&1
	done
done > $R/ab.log 2>&1
grep -E "^## |one stripe P50|one 4096-byte stripe|small-call kernel|empty kernel:|gfec_encode_batch|kernel alone:" $R/ab.log
export GFEC_BUILD=/tmp/gfec-build
timeout 300 bash perf/device_run.sh $R build 2>&1 | tail -2
timeout 280 ctest --test-dir $GFEC_BUILD -L gpu --timeout 250 > $R/gputest.log 2>&1; echo "gputest exit $?"; tail -6 $R/gputest.log
cp call.sh $R/
tar -czf $OUT/sw.tgz -C $OUT sw
