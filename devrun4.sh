time make -j16 all GPU_ARCHS=90 > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }
GD_BENCH_OPS="knnmetrics metrics" GD_BENCH_OUT=$OUT/b.md timeout 300 octave-cli -q --no-gui --no-init-file --no-history --eval "addpath([pwd '/octave']); source('examples/bench.m')" > $OUT/bench.txt 2>&1; tail -3 $OUT/bench.txt
grep "^| [0-9a-z]" $OUT/b.md | head -60
