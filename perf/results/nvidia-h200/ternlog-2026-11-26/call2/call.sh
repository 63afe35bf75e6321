# issue 16, after call 1's spreads: gb (0422e7b, sources in pairs) against t0 (tern.patch reversed: fe71d5f's kernels) in turns, more rounds of 4 KiB from DRAM and in cache, one thread, against upstream ISA-L 2.32.1; then gb's 1 MiB and all-thread rows. CPU-only builds (-DGFEC_WITH_CUDA=OFF)
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p /tmp/t0 $OUT/l && tar --exclude=./.git --exclude='./build*' --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/tern.patch) || echo "patch failed"
(tar -xzf .device/isa-l-2.32.1.tar.gz -C /tmp && PATH=$R/.device/root/usr/bin:$PATH make -C /tmp/isa-l-2.32.1 -f Makefile.unx -j8 slib > /dev/null 2>&1; echo "upstream isal rc $?") &
cmake -S . -B $R/build_gb -DCMAKE_BUILD_TYPE=Release -DGFEC_WITH_CUDA=OFF >/dev/null && cmake --build $R/build_gb -j8 --target gfec_perf 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/t0 -B $R/build_t0 -DCMAKE_BUILD_TYPE=Release -DGFEC_WITH_CUDA=OFF >/dev/null && cmake --build $R/build_t0 -j8 --target gfec_perf 2>&1 | grep -iE "error|warning" | head
wait
echo "build at $(( $(date +%s) - T0 )) s"
UP=/tmp/isa-l-2.32.1/bin/libisal.so.2
I() { timeout 90 $R/build_$1/perf/gfec-perf isal "${@:3}" --isal-lib $UP > $OUT/l/$1_$2.log 2>&1; echo "== $1 $2 rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^RS" $OUT/l/$1_$2.log | awk '{print $1, $2, $10, $NF}'; }
for r in 1 2 3 4; do
  for v in gb t0; do
    [ $(( $(date +%s) - T0 )) -gt 400 ] && break 2
    I $v dram4k_$r -k '4,2 10,4 223,32' -b 4K -e 4K -T 1 -r 7
    [ $r -le 2 ] && I $v hot4k_$r -k '10,4 4,2 223,32 128,16 128,64 128,128' -b 4K -e 4K -T 1 -r 7 --hot
  done
done
I gb m1 -k '10,4 8,3' -b 1M -e 1M -T 1 -r 7
I gb m1hot -k '10,4 8,3' -b 1M -e 1M -T 1 -r 7 --hot
I gb m1_16t -k '10,4' -b 1M -e 1M -T 16 -r 7
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
