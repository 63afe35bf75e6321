# why test_gpu_resident's test_callers found no call served by the resident kernel in call 2: the tree with counters in resident_run (resident_dbg.patch), the test alone (the t1 half of this call failed to patch and did not run); the call copied the patched file over resident.cu, kept here as its patch
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p /tmp/dbg && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/dbg && (cd /tmp/dbg && patch -p0 -s < $R/.snap/resident_dbg.patch)
cmake -S /tmp/dbg -B /tmp/dbg/b -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/dbg/b -j16 --target test_gpu_resident test_gpu_resident_pinned 2>&1 | grep -iE "error|warning" | head
T=$(find /tmp/dbg/b -name test_gpu_resident -type f | head -1); (cd $(dirname $T) && timeout 120 ./test_gpu_resident 2>&1 | grep -v "^\[       OK\|^\[ RUN" | tail -40)
T=$(find /tmp/dbg/b -name test_gpu_resident_pinned -type f | head -1); (cd $(dirname $T) && timeout 120 ./test_gpu_resident_pinned 2>&1 | tail -12)
