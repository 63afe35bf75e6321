set -x
(cmake -S . -B /tmp/gfec-new -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null && cmake --build /tmp/gfec-new -j16 --target gfec_perf >/dev/null 2>&1; echo "new build $?")
(cd ../.snap-old && cmake -S . -B /tmp/gfec-spin -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null && cmake --build /tmp/gfec-spin -j16 --target gfec_perf >/dev/null 2>&1; echo "spin build $?")
set +x
for i in 1 2; do for v in new spin; do
  echo "== $v $i"
  GFEC_GPU_COALESCE_US=0 timeout 100 /tmp/gfec-$v/perf/gfec-perf daemon -k 10,4 -b "64K 1M" --callers "16 64" -o encode -a gpu --memory pinned -d 0.5 --json $OUT/sync_$v$i.json 2>&1 | grep -E "^encode|bounds"
done; done 2>&1 | tee $OUT/sync_ab.log
