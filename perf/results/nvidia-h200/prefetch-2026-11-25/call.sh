#!/bin/bash
# prefetch-2026-11-25 call 1: the tree at the A/B's B side, built here; base-perf = gfec-perf of
# ac45b83 (A side), built on the dev VM.
R=$OUT
B=/tmp/gfec-build
up=/tmp/isa-l-2.32.1
lscpu > $R/lscpu.txt
nvidia-smi -L >> $R/lscpu.txt 2>&1
{ time (cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON && cmake --build $B -j16); } > $R/build.log 2>&1 || { tail -50 $R/build.log; exit 1; }
tar -xzf .device/isa-l-2.32.1.tar.gz -C /tmp && PATH=$PWD/.device/root/usr/bin:$PATH make -C $up -f Makefile.unx -j16 slib > /dev/null 2>&1 || echo "upstream isal build failed"
ls -la $up/bin/libisal.so.2
{ date; time bash perf/results/dev-epyc-zen5-2core/prefetch-2026-11-25/ab.sh ./base-perf $B/perf/gfec-perf 3 $up/bin/libisal.so.2; date; } > $R/ab.log 2>&1
tail -5 $R/ab.log
{ time ctest --test-dir $B -R "gfni|cpu_backend|avx2|isal|codec|ceph" --output-on-failure; } > $R/ctest.log 2>&1
tail -8 $R/ctest.log
