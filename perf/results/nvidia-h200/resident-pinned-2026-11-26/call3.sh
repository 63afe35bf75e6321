D=perf/results/nvidia-h200/resident-pinned-2026-11-26
nvcc -O2 -std=c++20 -gencode=arch=compute_90,code=sm_90 -o /tmp/rp $D/rp.cu -lpthread || exit 1
cd /tmp
r() { echo "+ ./rp $*"; timeout 30 ./rp "$@"; local rc=$?; [ $rc = 0 ] || echo "rc $rc"; }
{
r resident 64 65536 16 512
r check 64 65536 16 512
for rr in 1 2; do
r launch 16 65536
r launch 64 65536
for T in 16 32 64; do r resident $T 65536 16 512; done
r resident 16 65536 16 1024
r resident 16 65536 8 1024
r resident 32 65536 32 512
r resident 64 65536 32 512
r resident 64 262144 16 512
r resident 64 1048576 16 1024
r launch 64 1048576
done
r h2d 1 65536
} 2>&1 | tee $OUT/rp3.log
