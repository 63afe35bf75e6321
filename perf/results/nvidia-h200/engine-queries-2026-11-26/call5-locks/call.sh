# fewer locks on an engine call: the pool's engine choice by atomics instead of a mutex, and the map gate (bytes of mapped launches) entered only by launches, not by calls the engines serve; t0 (67c46eb, lock.patch reversed) against gb in turns; every GPU test at defaults and with 16 engines
cd ..
T0=$(date +%s)
P=perf/results/nvidia-h200/cpu-threads-2026-11-26
R=$(pwd)
mkdir -p /tmp/t0 $OUT/l && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/lock.patch) || echo "patch failed"
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/t0 -B /tmp/t0/b -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/t0/b -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests_engines.log | head
gcc -O2 -pthread -o /tmp/probe $P/probe.c -I plugin/include -I gfmatrix/base/include -I /usr/local/cuda/include -L /tmp/gb/plugin -lgfec -L /usr/local/cuda/lib64 -lcudart
L() { case $1 in gb) echo /tmp/gb;; *) echo /tmp/$1/b;; esac; }
for r in 1 2; do for v in t0 gb; do
  for T in 1 16 64; do echo "-- $v"; LD_LIBRARY_PATH=$(L $v)/plugin:$LD_LIBRARY_PATH timeout 30 /tmp/probe "k=10 m=4 backend=gpu gpu_resident_pinned=16" $T 65536 2 2>&1 | grep -v "other threads"; done
done; done > $OUT/l/ab.log 2>&1
echo "== probe at $(( $(date +%s) - T0 )) s"; cat $OUT/l/ab.log | paste -d' ' - - | sed 's/k=10 m=4 backend=gpu gpu_resident_pinned=16 //' | cut -c1-160
for r in 1 2; do for v in t0 gb; do
  [ $(( $(date +%s) - T0 )) -gt 440 ] && break 2
  GFEC_GPU_RESIDENT_PINNED=16 timeout 60 $(L $v)/perf/gfec-perf daemon -k 10,4 -b 64K --callers "16 64" -o encode,decode -a gpu --memory pinned -d 0.3 -j $OUT/l/d_${v}_$r.json > $OUT/l/d_${v}_$r.log 2>&1
  echo "== $v round $r rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/d_${v}_$r.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/d_${v}_$r.log | cut -c1-130
done; done
[ $(( $(date +%s) - T0 )) -lt 470 ] && GFEC_GPU_RESIDENT_PINNED=16 timeout 100 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b 64K --callers "1 4 16 64" -o encode,decode -a cpu,gpu --memory pageable,pinned -d 0.3 -j $OUT/l/d_all.json > $OUT/l/d_all.log 2>&1
echo "== cpu,gpu rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^(encode|decode)" $OUT/l/d_all.log | cut -c1-130
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
