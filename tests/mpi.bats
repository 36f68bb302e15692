#!/usr/bin/env bats
# The ranks of an MPI job (gd_spmdIndex, gd_spmdSize, gd_spmdBarrier,
# gd_spmdBroadcast, gd_spmdCat; runtime/mpi.c loads Open MPI at run time):
# 2 and 3 ranks on this host's CPUs, every rank checking what it got
# against what each rank computes for itself from the same seeds (bit for
# bit), and the faults: a value refused on one rank is the same error on
# every rank, and a rank that dies ends the job within seconds.

load helpers

# ranks N CODE: CODE in N ranks of Octave under mpirun (as root: allowed;
# more ranks than cores: allowed; no single-copy mechanism in containers),
# in the test's directory, where spmd_say writes each rank's lines to a
# file of its own (the ranks' outputs interleave) and said prints them
ranks() {
    command -v mpirun >/dev/null || { echo "mpirun not found: make deps installs openmpi-bin"; return 1; }
    cd "$BATS_TEST_TMPDIR" # (a rank that dies may leave octave-workspace here)
    OMPI_MCA_btl_vader_single_copy_mechanism=none timeout -s KILL 120 \
        mpirun --allow-run-as-root --oversubscribe -np "$1" \
        octave-cli -q --no-gui --no-init-file --no-history --eval \
        "addpath('$GD_ROOT/octave'); addpath('$GD_ROOT/tests'); warning('off', 'gd:nogpu'); $2"
}
said() { cat "$BATS_TEST_TMPDIR"/said*; }

SCRIPT="r = gd_spmdIndex(); n = gd_spmdSize(); seed = $RANDOM;
  ok = true;
  for src = 1:n
    ## src's value, of a class by src, made by every rank from src's seed
    rand('state', seed + src); randn('state', seed + src);
    switch (mod(src, 5))
      case 1, V = rand(3, 4) * src;
      case 2, V = single(randn(2, src));
      case 3, V = int16(fix(20 * rand(src, 3) - 10));
      case 4, V = rand(2) > 0.5;
      otherwise, V = char(64 + src * [1 2 3]);
    endswitch
    X = []; if (r == src) X = V; end
    Y = gd_spmdBroadcast(src, X);
    ok = ok && isequal(Y, V) && strcmp(class(Y), class(V));
  end
  A = gd_spmdCat(r * [1; 2], 1); ok = ok && isequal(A, kron((1:n)', [1; 2]));
  B = gd_spmdCat(single(r * [1 2 3]), 2, n);
  if (r == n) ok = ok && isequal(B, single(kron(1:n, [1 2 3]))); else ok = ok && isempty(B); end
  gd_spmdBarrier();
  spmd_say('rank %d of %d ok %d\\n', r, n, ok);"

@test "2 ranks: index, size, broadcast from each rank of every class, cat to all and to one, barrier" {
    run ranks 2 "$SCRIPT"
    echo "$output"
    [ "$status" -eq 0 ]
    said
    [ "$(said | grep -c 'of 2 ok 1')" -eq 2 ]
}

@test "3 ranks: the same" {
    run ranks 3 "$SCRIPT"
    echo "$output"
    [ "$status" -eq 0 ]
    said
    [ "$(said | grep -c 'of 3 ok 1')" -eq 3 ]
}

@test "a value refused on one rank: the same gd: error on every rank, naming it; the job goes on" {
    run ranks 3 "r = gd_spmdIndex();
      X = 1; if (r == 2) X = {1}; end
      try gd_spmdBroadcast(2, X); catch e, spmd_say('rank %d: %s: %s\\n', r, e.identifier, e.message); end
      try gd_spmdCat(ones(r, 2), 2); catch e, spmd_say('rank %d: %s: %s\\n', r, e.identifier, e.message); end
      try gd_spmdCat(ones(2, 1 + (r == 3))); catch e, spmd_say('rank %d: %s: %s\\n', r, e.identifier, e.message); end
      gd_spmdBarrier(); spmd_say('rank %d went on\\n', r);"
    echo "$output"
    [ "$status" -eq 0 ]
    said
    [ "$(said | grep -c "gd:input: gd_spmdBroadcast: rank 2's value must be a real")" -eq 3 ]
    [ "$(said | grep -c "gd:size: gd_spmdCat: rank 2's value is not the size of rank 1's but along dimension 2")" -eq 3 ]
    [ "$(said | grep -c "gd:size: gd_spmdCat: rank 3's value is not the size of rank 1's but along dimension 1")" -eq 3 ]
    [ "$(said | grep -c 'went on')" -eq 3 ]
}

@test "a rank that dies ends the job within seconds (the others do not wait for ever)" {
    start=$(date +%s)
    run ranks 3 "r = gd_spmdIndex(); if (r == 3) exit(3); end;
        try gd_spmdBroadcast(3, 1); catch e, spmd_say('%s\\n', e.message); rethrow(e); end; pause(100);"
    echo "$output"
    [ "$status" -ne 0 ]
    [ "$status" -ne 137 ] # (not the test's own kill)
    [ $(( $(date +%s) - start )) -lt 30 ]
    said
    [ "$(said | grep -c 'rank 3 has left the job (its Octave ended) while this rank waited for it in a broadcast')" -eq 2 ]
}

@test "no launcher: rank 1 of 1 without MPI; gd_info says what MPI and NCCL it found" {
    octave_ok "assert(gd_spmdIndex(), 1); assert(gd_spmdSize(), 1); assert(gd_spmdBroadcast(1, 5), 5);
        s = gd_info(); assert(ischar(s.mpi) && ! isempty(s.mpi)); assert(ischar(s.nccl)); disp(s.mpi)" "MPI"
}

# examples/ranks_knn.m: each rank searches its share of the points, rank 1
# merges the lists; the merge must give one search's lists over all the
# points, ties included (a lattice where most distances tie)
example() {
    cd "$BATS_TEST_TMPDIR"
    GD_EXAMPLE_N=$2 GD_EXAMPLE_CHECK=1 GD_EXAMPLE_TIES=$3 OMPI_MCA_btl_vader_single_copy_mechanism=none \
        timeout -s KILL 120 mpirun --allow-run-as-root --oversubscribe -np "$1" \
        octave-cli -q --no-gui --no-init-file --no-history "$GD_ROOT/examples/ranks_knn.m"
}
@test "examples/ranks_knn.m: the ranks' merged lists are one search's, in 1 and 3 ranks (2: check_ranks), with and without ties" {
    command -v mpirun >/dev/null || { echo "mpirun not found: make deps installs openmpi-bin"; return 1; }
    for np in 1 3; do
        for ties in 0 1; do
            run example $np 3001 $ties
            echo "$output"
            [ "$status" -eq 0 ]
            [[ "$output" == *"$np ranks: the 10 nearest of 3001 points"* ]]
            [ "$(echo "$output" | grep -c 'one search over all the points: the same lists')" -eq 1 ]
        done
    done
}

@test "Ctrl-C on mpirun while a rank waits in a collective: every rank ends within seconds" {
    command -v mpirun >/dev/null || { echo "mpirun not found: make deps installs openmpi-bin"; return 1; }
    cd "$BATS_TEST_TMPDIR"
    OMPI_MCA_btl_vader_single_copy_mechanism=none timeout -s KILL 60 \
        mpirun --allow-run-as-root --oversubscribe -np 2 \
        octave-cli -q --no-gui --no-init-file --no-history --eval \
        "addpath('$GD_ROOT/octave'); if (gd_spmdIndex() == 2) pause(50); end; gd_spmdBarrier(); disp('past the barrier')" \
        > out 2>&1 &
    local pid=$! t=0
    sleep 5
    kill -INT $pid
    while kill -0 $pid 2>/dev/null && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
    cat out
    echo "ended $t tenths of a second after SIGINT"
    [ $t -lt 100 ]
    ! grep -q "past the barrier" out
    sleep 1
    ! pgrep -f "gd_spmdIndex\(\) == 2"
}

@test "gdCodistributed in 1 to 4 ranks: uneven '1d' parts and '2dbc' grids (1xN, Nx1, 2x2) gathered; knnsearch (ties too), rangesearch, pdist2 (neighbours, rows, columns), pdist, min-plus by SUMMA with witnesses, one process's bits; gd_sgemm to rounding (its BLAS's order hangs on the shape), on integers bit for bit; one rank's failure raised on every rank" {
    octave_ok "cd('$BATS_TEST_TMPDIR'); check_ranks; disp(fileread('said1'))" "ranks ok 1 1"
    for np in 2 3 4; do
        rm -f "$BATS_TEST_TMPDIR"/said*
        run ranks $np "check_ranks"
        echo "$output"
        [ "$status" -eq 0 ]
        said
        [ "$(said | grep -c "ranks ok $np 1")" -eq $np ]
    done
}

@test "gd_apsp on a '2dbc' W in 1 to 4 ranks (1xN and Nx1 in 2 and 3, 2x2 in 4): D and P (negative edges, cycles of weight 0, real weights, integer classes, gdArray parts) one process's bits; gd_path on the distributed P; a negative cycle, a negative self-loop and a NaN refused on every rank" {
    octave_ok "cd('$BATS_TEST_TMPDIR'); check_ranks_apsp; disp(fileread('said1'))" "apsp ok 1 1"
    for np in 2 3 4; do
        rm -f "$BATS_TEST_TMPDIR"/said*
        run ranks $np "check_ranks_apsp"
        echo "$output"
        [ "$status" -eq 0 ]
        said
        [ "$(said | grep -c "apsp ok $np 1")" -eq $np ]
    done
}

@test "examples/ranks_paths.m: shortest path lengths by squaring with SUMMA, then D and P by gd_apsp on the parts, on 1x1, 1x2, 1x3 and 2x2 grids of ranks are gd_apsp's" {
    command -v mpirun >/dev/null || { echo "mpirun not found: make deps installs openmpi-bin"; return 1; }
    cd "$BATS_TEST_TMPDIR"
    for np in 1 2 3 4; do
        run env GD_EXAMPLE_N=257 GD_EXAMPLE_CHECK=1 OMPI_MCA_btl_vader_single_copy_mechanism=none \
            timeout -s KILL 120 mpirun --allow-run-as-root --oversubscribe -np $np \
            octave-cli -q --no-gui --no-init-file --no-history "$GD_ROOT/examples/ranks_paths.m"
        echo "$output"
        [ "$status" -eq 0 ]
        [[ "$output" == *"$np ranks"*"of 257 vertices by 8 squarings"* ]]
        [ "$(echo "$output" | grep -c 'gd_apsp on the whole graph: the same lengths')" -eq 1 ]
        [ "$(echo "$output" | grep -c "routes: D and P are gd_apsp's ('cpu') on the whole graph")" -eq 1 ]
    done
}

@test "a rank a GPU (NCCL; 2 ranks, and 4 on a 2x2 grid where there are four GPUs): each rank sees its own GPU; gdArrays broadcast and put together GPU to GPU; SUMMA on gdArray parts (1x2, 2x1, witnesses) and the neighbours of resident shards are one process's bits" {
    require_gpu
    local n
    n=$(octave_run "printf('%d', numel(gd_info().devices))" 2>/dev/null)
    [ "${n:-0}" -ge 2 ] || skip "one GPU: NCCL takes a GPU a rank (two GPUs needed)"
    for np in 2 4; do
        [ "$np" -le "$n" ] || continue
        rm -f "$BATS_TEST_TMPDIR"/said*
        run ranks $np "check_ranks_gpu"
        echo "$output"
        [ "$status" -eq 0 ]
        said
        [ "$(said | grep -c "gpu ranks ok $np 1")" -eq $np ]
    done
}

@test "two ranks on one GPU (GD_RANK_DEVICES=all): NCCL refused (a GPU a rank), gdArrays between ranks go through host memory with the same results" {
    require_gpu
    GD_RANK_DEVICES=all run ranks 2 "r = gd_spmdIndex(); G = gd_spmdCat(gdArray(single(r * [1 2])), 1);
      ok = isa(G, 'gdArray') && isequal(gather(G), single([1 2; 2 4]));
      H = gd_spmdBroadcast(2, gdArray(int8(r))); ok = ok && isequal(gather(H), int8(2));
      spmd_say('rank %d shared ok %d\\n', r, ok);"
    echo "$output"
    [ "$status" -eq 0 ]
    said
    [ "$(said | grep -c "shared ok 1")" -eq 2 ]
}
