# call 8: step hybrid on the tree (be30839): backend=hybrid against cpu-only and gpu-only with the polled waits
cd ..
T0=$(date +%s)
GFEC_BUILD=/tmp/gb bash perf/device_run.sh "$OUT" build hybrid > $OUT/run.log 2>&1
echo "done $(( $(date +%s) - T0 )) s"; grep -E "^==|^encode|# hybrid" $OUT/run.log | cut -c1-170
