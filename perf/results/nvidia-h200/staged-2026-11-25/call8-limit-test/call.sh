cd ..
b=/tmp/gb
{ cmake -S . -B $b -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build $b -j16 --target test_gpu 2>&1 | grep -E "error|warning" ; } > $OUT/build.log 2>&1; echo "build $?"
$b/tests/test_gpu > $OUT/test_gpu.log 2>&1; echo "test_gpu rc $?"; grep -E "PASSED|FAILED|OK \] test_staged|test_staged" $OUT/test_gpu.log | head
# mutation: in-place pieces given the device buffers' addresses for their inputs
sed -i 's/uint8_t \*const k_in = in_place ? s.m_in : s.d_in;/uint8_t *const k_in = s.d_in;/' cuda_gemm/device/backend.cu
grep -c "k_in = s.d_in;" cuda_gemm/device/backend.cu
cmake --build $b -j16 --target test_gpu > $OUT/build_mut.log 2>&1; echo "build mut $?"
$b/tests/test_gpu > $OUT/test_gpu_mut.log 2>&1; echo "test_gpu mutated rc $?"; grep -E "PASSED|FAILED|ERROR|differs|test_staged" $OUT/test_gpu_mut.log | head
