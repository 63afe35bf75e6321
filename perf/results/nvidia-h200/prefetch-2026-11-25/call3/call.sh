#!/bin/bash
# prefetch-2026-11-25 call 3: the tree at 2b9bbc6 with device_run.sh fixed on the H200 host's Xeon: the CPU suites
# (the ISA-L drop-in's included), gfec-perf isal against upstream 2.32.1, and the CPU rows
# against the memory-traffic ceilings (perf/device_run.sh steps build cputest isal ceil).
R=$OUT/call3
mkdir -p $R
GFEC_BUILD=/tmp/gfec-build timeout 570 bash perf/device_run.sh $R isal ceil > $R/steps.log 2>&1
cp call.sh $R/
tar -czf $OUT/call3.tgz -C $OUT call3
grep "^== " $R/steps.log
