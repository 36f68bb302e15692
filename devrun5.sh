#!/bin/bash
export GPU_ARCHS=90
B="octave-cli -q --no-gui --no-init-file --no-history --eval"
make -j16 all GPU_ARCHS=90 > $OUT/build.txt 2>&1; echo build rc $? >> $OUT/build.txt
tail -1 $OUT/build.txt
for op in knn knnmetrics; do
  GD_BENCH_OPS="$op" GD_BENCH_OUT=$OUT/b_$op.md timeout 160 $B "addpath([pwd '/octave']); source('examples/bench.m')" > $OUT/b_$op.txt 2>&1
  echo "$op bench rc $?"
done
timeout 130 bats tests/pdist.bats > $OUT/test_pdist.txt 2>&1; echo "pdist rc $?"
grep -h "^not ok\|^ok" $OUT/test_*.txt | grep -c "^ok"; grep -h "^not ok" $OUT/test_*.txt
echo done
