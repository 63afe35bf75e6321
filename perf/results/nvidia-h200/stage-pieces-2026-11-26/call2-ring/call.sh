# ring: a staged stripe cut in stage-sized byte ranges (any count), 4 in flight on 4 stages reused in turn (copy one while engines serve others); no cut below a stage. test_gpu_resident_pinned, then gb against t0 in turns, pageable 64K-16M
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p /tmp/t0 $OUT/l && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/pipe.patch) || echo "patch failed"
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/t0 -B /tmp/t0/b -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/t0/b -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -R gpu_resident_pinned --output-on-failure --timeout 200 > $OUT/l/t_pinned.log 2>&1; echo "== resident_pinned rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED|PASSED" $OUT/l/t_pinned.log | head -20
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout $2 $1/perf/gfec-perf daemon -k 10,4 "${@:4}" -j $OUT/l/$3.json > $OUT/l/$3.log 2>&1; echo "== $3 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$3.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/$3.log | cut -c1-110; }
for r in 1 2; do
  [ $(( $(date +%s) - T0 )) -gt 420 ] && break
  D /tmp/t0/b 70 t0_$r -b "64K 256K 1M" --callers "16 64" -o encode -a gpu --memory pageable -d 0.3
  D /tmp/gb 70 gb_$r -b "64K 256K 1M" --callers "16 64" -o encode -a gpu --memory pageable -d 0.3
  D /tmp/t0/b 60 t0_big_$r -b "4M 16M" --callers 16 -o encode -a gpu --memory pageable -d 0.3
  D /tmp/gb 60 gb_big_$r -b "4M 16M" --callers 16 -o encode -a gpu --memory pageable -d 0.3
done
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
