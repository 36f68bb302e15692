#!/usr/bin/env bats
# Every user function's own %! tests, through Octave's test(): its return
# value, unlike the command form, fails the run.

load helpers

for_function() {
    run octave_run "ok = test('$1', 'quiet', stdout); exit(! ok)"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "gd_minplus %! tests" { for_function gd_minplus; }
@test "gd_info %! tests" { for_function gd_info; }
@test "gd_sgemm %! tests" { for_function gd_sgemm; }
@test "gd_pdist %! tests" { for_function gd_pdist; }
@test "gd_pdist2 %! tests" { for_function gd_pdist2; }
@test "gd_squareform %! tests" { for_function gd_squareform; }
@test "gdArray %! tests" { for_function gdArray; for_function gdarray_cases; }
@test "gather %! tests" { for_function gather; }
@test "gd_apsp %! tests" { for_function gd_apsp; }
@test "tests/exact_dist.m %! tests (the correctly rounded distances that single results are measured against)" { for_function exact_dist; }
@test "gd_path %! tests" { for_function gd_path; }
@test "gd_knnsearch %! tests" { for_function gd_knnsearch; }
@test "gd_rangesearch %! tests" { for_function gd_rangesearch; }
@test "gdCodistributed %! tests (one rank; mpi.bats: several)" { for_function gdCodistributed; }
@test "gd_spmdIndex, gd_spmdSize, gd_spmdBarrier, gd_spmdBroadcast, gd_spmdCat %! tests (one rank; mpi.bats: several)" {
    for_function gd_spmdIndex; for_function gd_spmdSize; for_function gd_spmdBarrier;
    for_function gd_spmdBroadcast; for_function gd_spmdCat;
}

@test "every function in octave/ has a %! test file entry here" {
    for f in "$GD_ROOT"/octave/*.m; do
        name=$(basename "$f" .m)
        grep -q "for_function $name;" "$BATS_TEST_FILENAME" || { echo "no %! run for $name"; return 1; }
        grep -q '^%!' "$f" || { echo "$name has no %! tests"; return 1; }
    done
}

@test "every function has a demo, and it runs (demo name 1)" {
    local f
    for f in $PKG_FUNCTIONS; do
        run octave_run "warning ('off', 'gd:nogpu'); demo ('$f', 1)"
        echo "$output"
        [ "$status" -eq 0 ]
        [[ "$output" == *"$f example 1:"* ]] || { echo "no demo: $f"; return 1; }
        [[ "$output" != *"example 1: failed"* ]] || { echo "demo failed: $f"; return 1; }
    done
}

@test "info: each function's size and rate_unit are the ones its help states" {
    run octave_run "warning ('off', 'gd:nogpu');
      X = rand (6, 3); Y = rand (4, 3);
      [~, ~, i] = gd_minplus (rand (5, 2), rand (2, 7)); assert (i.size, [5 2 7]); assert (i.rate_unit, 'steps/s');
      [~, ~, i] = gd_apsp (rand (5)); assert (i.size, 5); assert (i.rate_unit, 'steps/s');
      [~, i] = gd_sgemm (rand (5, 2, 'single'), rand (2, 7, 'single')); assert (i.size, [5 2 7]); assert (i.rate_unit, 'flop/s');
      [~, i] = gd_pdist (X); assert (i.size, [6 6 3]); assert (i.rate_unit, 'triples/s');
      [~, ~, i] = gd_pdist2 (X, Y); assert (i.size, [6 4 3]); assert (i.rate_unit, 'triples/s');
      [~, ~, i] = gd_pdist2 (X, Y, 'euclidean', 'Smallest', 2); assert (i.size, [6 4 3 2]);
      [~, ~, i] = gd_knnsearch (X, Y, 'K', 2); assert (i.size, [6 4 3 2]); assert (i.rate_unit, 'triples/s');
      h = {'gd_minplus', 'size [m k n]', 'gd_apsp', 'size n;', 'gd_sgemm', 'size [m k n]', ...
           'gd_pdist', 'size [n n d]', 'gd_pdist2', 'size [mx my d]', 'gd_knnsearch', 'size [mx my d K]'};
      for q = 1:2:numel (h)
        t = get_help_text (h{q});
        assert (! isempty (strfind (t, h{q+1})), [h{q} ': ' h{q+1}]);
        assert (! isempty (strfind (t, 'rate_unit')), [h{q} ': rate_unit']);
      end
      disp ('shapes ok')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"shapes ok"* ]]
}

@test "GD_VERBOSE: a line for each call (variant, device, times), and the host loops' progress" {
    run env GD_VERBOSE=1 octave-cli -q --no-gui --no-init-file --no-history --eval \
        "addpath('$GD_ROOT/octave'); warning('off', 'gd:nogpu'); D = gd_pdist(rand(50, 3), 'Variant', 'cpu'); R = gd_minplus(rand(40), 'Variant', 'cpu');"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"gd: gd_pdist: cpu on cpu"*" ms; kernel "* ]]
    [[ "$output" == *"gd: gd_minplus: cpu on cpu"* ]]
    # a short call says no progress at level 1; level 2 says it from the start
    [[ "$output" != *" of "*"%)"* ]]
    run env GD_VERBOSE=2 octave-cli -q --no-gui --no-init-file --no-history --eval \
        "addpath('$GD_ROOT/octave'); warning('off', 'gd:nogpu'); D = gd_apsp(rand(300), 'Variant', 'cpu'); R = gd_minplus(rand(1000), 'Variant', 'cpu');"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"gd: gd_apsp: round 0 of "* ]]
    # (Octave's thread prints, among the OpenMP team's; with 63 blocks it
    # takes some of them however busy the machine is)
    [[ "$output" == *"gd: gd_minplus: column block "*" of 63 ("* ]]
    # unset: silent
    run octave_run "warning('off', 'gd:nogpu'); D = gd_pdist(rand(50, 3), 'Variant', 'cpu');"
    [[ "$output" != *"gd: gd_pdist"* ]]
}

@test "GD_VERBOSE=2 on the GPU: the rounds, squarings, panels and stages of long calls" {
    require_gpu
    run env GD_VERBOSE=2 octave-cli -q --no-gui --no-init-file --no-history --eval \
        "addpath('$GD_ROOT/octave'); W = rand(2048);
         D = gd_apsp(W, 'Variant', 'fw'); D = gd_apsp(W, 'Variant', 'squaring');
         D = gd_pdist(rand(4000, 30)); R = gd_minplus(rand(300), 'Variant', 'v5');"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"gd: gd_apsp: round 0 of 16 ("* ]]
    [[ "$output" == *"gd: gd_apsp: squaring 0 of "* ]]
    [[ "$output" == *"gd: gd_pdist: column 0 of "* ]]
    [[ "$output" == *"gd: gd_minplus: stage 0 of 1 ("* ]]
    [[ "$output" == *"gd: gd_apsp: fw on "* ]]
}
