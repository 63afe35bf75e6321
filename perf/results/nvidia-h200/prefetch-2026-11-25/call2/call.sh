#!/bin/bash
# prefetch-2026-11-25 call 2: the tree at 2b9bbc6 on the H200 host's Xeon: the CPU suites
# (the ISA-L drop-in's included), gfec-perf isal against upstream 2.32.1, and the CPU rows
# against the memory-traffic ceilings (perf/device_run.sh steps build cputest isal ceil).
R=$OUT/call2
mkdir -p $R
GFEC_BUILD=/tmp/gfec-build timeout 570 bash perf/device_run.sh $R build cputest isal ceil > $R/steps.log 2>&1
cp call.sh $R/
tar -czf $OUT/call2.tgz -C $OUT call2
grep "^== " $R/steps.log
