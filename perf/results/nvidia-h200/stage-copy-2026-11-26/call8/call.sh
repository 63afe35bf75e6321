# what a pointer query costs on the H200 host, from 1 and 16 threads at once (harness .snap/ptrq.cu)
cd ..
source .device/env.sh 2>/dev/null
/usr/local/cuda/bin/nvcc -O2 -std=c++17 -o /tmp/ptrq .snap/ptrq.cu -lcuda -lpthread && /tmp/ptrq | tee $OUT/ptrq.txt
