# CPU by layer of pinned 64 KiB RS(10,4) calls: the tree against the tree with thread-CPU stamps (stamps.patch); nanosleep's own CPU on this host
# (the nanosleep rows failed here: LD_LIBRARY_PATH was not set for them; call 3 has them)
cd ..
T0=$(date +%s)
P=perf/results/nvidia-h200/cpu-threads-2026-11-26
mkdir -p /tmp/st && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/st && (cd /tmp/st && patch -p1 -s < $P/stamps.patch) || echo "patch failed"
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/gb -j16 --target gfec 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/st -B /tmp/sb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/sb -j16 --target gfec 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
gcc -O2 -pthread -o /tmp/probe $P/probe.c -I plugin/include -I gfmatrix/base/include -I /usr/local/cuda/include -L /tmp/gb/plugin -lgfec -L /usr/local/cuda/lib64 -lcudart
for T in 1 16 64; do for g in 5000 50000 150000; do /tmp/probe nanosleep $T $g 1; done; done > $OUT/nanosleep.log 2>&1
cat $OUT/nanosleep.log
for r in 1 2; do for lib in gb sb; do
for prof in "backend=gpu" "backend=gpu gpu_resident_pinned=16"; do
  for T in 1 16 64; do echo "-- $lib"; LD_LIBRARY_PATH=/tmp/$lib/plugin:$LD_LIBRARY_PATH timeout 60 /tmp/probe "k=10 m=4 $prof" $T 65536 2 2>&1 | grep -v "other threads"; done
done; done; done > $OUT/stamps.log 2>&1
echo "== probe at $(( $(date +%s) - T0 )) s"; cat $OUT/stamps.log
