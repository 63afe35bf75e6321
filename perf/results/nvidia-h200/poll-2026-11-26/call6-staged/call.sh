# call 6: staged (pageable) pieces of 256 KiB or more poll too: every GPU test three times at once,
# then A/B against HEAD 483a294 (old: pinned calls poll, staged pieces sleep on events), alternated
cd ..
T0=$(date +%s)
rm -rf /tmp/old /tmp/bo /tmp/gb; mkdir -p /tmp/old && tar xzf .snap/old.tar.gz -C /tmp/old
( cmake -S /tmp/old -B /tmp/bo -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null && cmake --build /tmp/bo -j4 --target gfec_perf 2>&1 | grep -iE "error|warning|no rule" ) > $OUT/build_old.log 2>&1 &
GFEC_BUILD=/tmp/gb bash perf/device_run.sh "$OUT" build > $OUT/build.log 2>&1
wait; echo "builds $(( $(date +%s) - T0 )) s"; tail -2 $OUT/build.log
GFEC_BUILD=/tmp/gb timeout 300 bash perf/device_run.sh "$OUT" stress > $OUT/stress.log 2>&1; echo "stress $? at $(( $(date +%s) - T0 )) s"
mkdir -p /tmp/s && tar xzf $OUT/logs.tar.gz -C /tmp/s && cp /tmp/s/logs/stress.log $OUT/stress.log && grep -E "tests passed|Failed|\*\*\*" $OUT/stress.log
cp /tmp/bo/perf/gfec-perf /tmp/perf-old; cp /tmp/gb/perf/gfec-perf /tmp/perf-new
for r in 1 2; do for v in old new; do
  [ $(( $(date +%s) - T0 )) -gt 530 ] && break 2
  timeout 60 /tmp/perf-$v daemon -k 10,4 -b "64K 256K 1M" --callers "1 16 64" -o encode -a gpu --memory pageable -d 0.3 > $OUT/ab_${v}_$r.log 2>&1
  echo "== $v $r rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^encode" $OUT/ab_${v}_$r.log | cut -c1-150
done; done
