# a queue of 4 requests per pinned engine (callers post behind each other instead of waiting at the gate), on top of call 1's change: every GPU test at defaults and with 16 engines; probe and gfec-perf daemon for t0 (the tip, 1d32130), t1 (call 1's change.patch) and gb (this tree) in turns
cd ..
T0=$(date +%s)
P=perf/results/nvidia-h200/cpu-threads-2026-11-26
R=$(pwd)
mkdir -p /tmp/t0 $OUT/l && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/all.patch) && cp -a /tmp/t0 /tmp/t1 && (cd /tmp/t1 && patch -p1 -s < $R/.snap/change.patch) || echo "patches failed"
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
for t in t0 t1; do cmake -S /tmp/$t -B /tmp/$t/b -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/$t/b -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head; done
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests_engines.log | head
gcc -O2 -pthread -o /tmp/probe $P/probe.c -I plugin/include -I gfmatrix/base/include -I /usr/local/cuda/include -L /tmp/gb/plugin -lgfec -L /usr/local/cuda/lib64 -lcudart
L() { case $1 in gb) echo /tmp/gb;; *) echo /tmp/$1/b;; esac; }
for r in 1 2; do for v in t0 t1 gb; do
  for T in 1 16 64; do echo "-- $v"; LD_LIBRARY_PATH=$(L $v)/plugin:$LD_LIBRARY_PATH timeout 30 /tmp/probe "k=10 m=4 backend=gpu gpu_resident_pinned=16" $T 65536 2 2>&1 | grep -v "other threads"; done
done; done > $OUT/l/ab.log 2>&1
echo "== probe at $(( $(date +%s) - T0 )) s"; cat $OUT/l/ab.log | paste -d' ' - - | cut -c1-200
for r in 1 2; do for v in t0 t1 gb; do
  [ $(( $(date +%s) - T0 )) -gt 420 ] && break 2
  GFEC_GPU_RESIDENT_PINNED=16 timeout 60 $(L $v)/perf/gfec-perf daemon -k 10,4 -b 64K --callers "16 64" -o encode -a gpu --memory pinned -d 0.3 -j $OUT/l/d_${v}_$r.json > $OUT/l/d_${v}_$r.log 2>&1
  echo "== $v round $r rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/d_${v}_$r.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/d_${v}_$r.log | cut -c1-130
done; done
[ $(( $(date +%s) - T0 )) -lt 480 ] && GFEC_GPU_RESIDENT_PINNED=16 timeout 100 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b 64K --callers "1 4 16 64" -o encode,decode -a cpu,gpu --memory pageable,pinned -d 0.3 -j $OUT/l/d_all.json > $OUT/l/d_all.log 2>&1
echo "== cpu,gpu rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^(encode|decode)" $OUT/l/d_all.log | cut -c1-130
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
