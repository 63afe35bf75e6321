# finer thread-CPU stamps on the tree (stamps2.patch: run()'s and the engine pool's parts), and the engines' first nap at 75 (the tree), 100 and 125% of their estimate (GFEC_NAP_PCT, in the stamped build only)
cd ..
T0=$(date +%s)
P=perf/results/nvidia-h200/cpu-threads-2026-11-26
R=$(pwd)
mkdir -p /tmp/st && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/st && (cd /tmp/st && patch -p1 -s < $R/.snap/stamps2.patch) || echo "patch failed"
cmake -S /tmp/st -B /tmp/sb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/sb -j16 --target gfec 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
gcc -O2 -pthread -o /tmp/probe $P/probe.c -I plugin/include -I gfmatrix/base/include -I /usr/local/cuda/include -L /tmp/sb/plugin -lgfec -L /usr/local/cuda/lib64 -lcudart
export LD_LIBRARY_PATH=/tmp/sb/plugin:$LD_LIBRARY_PATH
for r in 1 2; do for pct in 75 100 125; do for T in 1 16 64; do
  echo "-- nap $pct%"; GFEC_NAP_PCT=$pct timeout 60 /tmp/probe "k=10 m=4 backend=gpu gpu_resident_pinned=16" $T 65536 2 2>&1 | grep -v "other threads"
done; done; done > $OUT/stamps2.log 2>&1
echo "== at $(( $(date +%s) - T0 )) s"; grep -E "^--|GB/s|nanosleep|pool_run|gpu run|setDevice|map_|legacy|gate|locks|post|one stamp" $OUT/stamps2.log | head -150
