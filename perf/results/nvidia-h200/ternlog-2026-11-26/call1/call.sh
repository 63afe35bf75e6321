# issue 16: GFNI kernels with sources in pairs (VPTERNLOGQ) for 3+ outputs: CPU tests; gb (tree) against t0 (tern.patch reversed) in turns against upstream ISA-L 2.32.1; and GPU tests of fe71d5f (engine_lock), defaults and engines on
cd ..
T0=$(date +%s)
R=$(pwd)
export GFEC_ISAL_REF=$R/.device/root/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30 GFEC_ISAL_LIB=$R/.device/root/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30
mkdir -p /tmp/t0 $OUT/l && tar --exclude=./.git --exclude='./build*' --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/tern.patch) || echo "patch failed"
(tar -xzf .device/isa-l-2.32.1.tar.gz -C /tmp && PATH=$R/.device/root/usr/bin:$PATH make -C /tmp/isa-l-2.32.1 -f Makefile.unx -j8 slib > $OUT/l/isal_build.log 2>&1; echo "upstream isal rc $?") &
cmake -S . -B $R/build_gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build $R/build_gb -j16 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/t0 -B $R/build_t0 -DCMAKE_BUILD_TYPE=Release -DGFEC_WITH_CUDA=OFF >/dev/null && cmake --build $R/build_t0 -j16 --target gfec_perf 2>&1 | grep -iE "error|warning" | head
wait
echo "build at $(( $(date +%s) - T0 )) s"
lscpu | grep -E "Model name|^CPU\(s\)|L3|Flags" | sed 's/Flags:.*\(gfni\).*/Flags: ... gfni .../' > $OUT/l/lscpu.txt; head -3 $OUT/l/lscpu.txt
ctest --test-dir $R/build_gb -j16 --output-on-failure --timeout 300 -R '^(gfni|cpu_backend|codec_.*|corpus_.*|isal_abi.*|nc|nc_.*|gf16|gemm16)$' -LE gpu > $OUT/l/cpu_tests.log 2>&1; echo "== CPU tests rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|FAILED" $OUT/l/cpu_tests.log | head
ctest --test-dir $R/build_gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|FAILED" $OUT/l/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir $R/build_gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|FAILED" $OUT/l/gpu_tests_engines.log | head
UP=/tmp/isa-l-2.32.1/bin/libisal.so.2
I() { timeout 90 $R/build_$1/perf/gfec-perf isal "${@:3}" --isal-lib $UP > $OUT/l/$1_$2.log 2>&1; echo "== $1 $2 rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^RS" $OUT/l/$1_$2.log; }
for r in 1 2; do
  for v in gb t0; do
    [ $(( $(date +%s) - T0 )) -gt 480 ] && break 2
    I $v hot4k_$r -k '10,4 4,2 223,32 128,16 128,64 128,128' -b 4K -e 4K -T 1 -r 7 --hot
    I $v dram4k_$r -k '4,2 10,4 223,32' -b 4K -e 4K -T 1 -r 7
    I $v m1_$r -k '10,4 8,3' -b 1M -e 1M -T 1 -r 5
    I $v m1hot_$r -k '10,4 8,3' -b 1M -e 1M -T 1 -r 5 --hot
  done
done
for v in gb t0; do
  [ $(( $(date +%s) - T0 )) -gt 540 ] && break
  timeout 40 $R/build_$v/perf/gfec-perf -k 10,4 -b 16M -e 16M -o encode -a cpu -r 3 > $OUT/l/allcore_$v.log 2>&1; echo "== allcore $v rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^encode|ceiling|roof" $OUT/l/allcore_$v.log | head -6
done
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
