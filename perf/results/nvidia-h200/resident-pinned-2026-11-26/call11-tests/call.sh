# why test_gpu_resident_pinned fails beside the other GPU tests
cd ..
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 300 > $OUT/stress.log 2>&1; echo "== rc $?"
grep -E "tests passed|\*\*\*" $OUT/stress.log
grep -E "ERROR|LINE|FAILED|differs|RUN|OK" $OUT/stress.log | grep -v "^\s*[0-9]*/" | head -40
for i in 1; do /tmp/gb/tests/test_gpu_resident_pinned 2>&1 | grep -E "ERROR|LINE|FAILED|PASSED|differs"; done
