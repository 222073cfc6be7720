#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build of the harnesses in fuzz/: CMake with the compiler, flags
# and fuzzing engine the builder provides ($CC, $CXX, $CFLAGS, $CXXFLAGS, $LIB_FUZZING_ENGINE;
# the sanitizers come in through the flags, so RDCC_SANITIZE stays empty), then each harness
# into $OUT with its seed corpus (<target>_seed_corpus.zip), options and the dictionary.
targets=(fuzz_decode fuzz_json fuzz_json_number fuzz_text fuzz_bytes fuzz_pcap fuzz_scenario fuzz_receiver
  fuzz_sender fuzz_upper_tester)
build=$WORK/rdcc-build

cmake -S "$SRC/rdcc" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE= \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DRDCC_FUZZ=ON -DRDCC_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" -DRDCC_SANITIZE= \
  -DRDCC_WERROR=OFF -DRDCC_BUILD_TESTS=OFF -DRDCC_BUILD_BENCH=OFF
cmake --build "$build" --target "${targets[@]}"

cp "$SRC/rdcc/fuzz/rdcc.dict" "$OUT/"  # the options name it; fuzz_scenario has none
for target in "${targets[@]}"; do
  cp "$build/fuzz/$target" "$OUT/"
  cp "$SRC/rdcc/fuzz/$target.options" "$OUT/"
  rm -f "$OUT/${target}_seed_corpus.zip"
  # corpus/fuzz_scenario links to conformance/scenarios, whose subdirectories share file names.
  (cd "$SRC/rdcc/fuzz/corpus/$target/" && zip -rq "$OUT/${target}_seed_corpus.zip" .)
done
