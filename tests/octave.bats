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
@test "gdArray %! tests" { for_function gdArray; }
@test "gather %! tests" { for_function gather; }
@test "gd_apsp %! tests" { for_function gd_apsp; }
@test "gd_path %! tests" { for_function gd_path; }
@test "gd_knnsearch %! tests" { for_function gd_knnsearch; }

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
