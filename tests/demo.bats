#!/usr/bin/env bats
# examples/demo.m runs end to end and prints what a user reads: the
# start-up line, then each job's times, exact agreement where the data
# make it exact (integer weights and coordinates), and a route whose edges
# add up to its length. Without a GPU it runs the CPU variants.

load helpers

@test "the demo: the start-up line, every job's row, exact agreement, a route" {
    run octave_run "source('$GD_ROOT/examples/demo.m')"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c '^GPU start-up: ' <<< "$output")" -eq 1 ]
    for job in "min-plus R = W (x) W" "shortest paths, n = " "C = A \* B" "pdist, " "nearest neighbours, "; do
        grep -A1 "^$job" <<< "$output" | grep -q "host to host .* Octave: .* agreement: .* speed-up" ||
            { echo "no row for: $job"; return 1; }
    done
    for job in "min-plus R = W (x) W" "shortest paths, n = " "pdist, " "nearest neighbours, "; do
        grep -A1 "^$job" <<< "$output" | grep -q "agreement: exact;" ||
            { echo "not exact: $job"; return 1; }
    done
    # the product agrees to rounding at least: a relative difference below 1e-5
    grep -A1 '^C = A \* B' <<< "$output" | grep -Eq "agreement: (exact|to rounding \(relative difference [0-9.]+e-(0[5-9]|1[0-9]))"
    # each row's kernel time is the same call's as its host-to-host time:
    # never larger
    while read -r h k; do
        awk -v k="$k" -v h="$h" 'BEGIN { exit !(k <= h) }' || { echo "kernel $k ms > host to host $h ms"; return 1; }
    done < <(sed -n 's/^  gd: \([0-9.]*\) ms host to host ([a-z0-9]*, kernel \([0-9.]*\) ms).*/\1 \2/p' <<< "$output")
    # no parenthesis inside a parenthesis in the start-up line
    ! grep '^GPU start-up' <<< "$output" | grep -q '([^)]*('
    # without a GPU: one closing line with an H100's figures
    if ! gpu_present; then
        tail -1 <<< "$output" | grep -q '^On an NVIDIA H100.*(bench/results, kernel times): min-plus n = 8192 single [0-9.]* ms'
    fi
    line=$(grep '^  the route from 1 to ' <<< "$output")
    [[ "$line" =~ the\ route\ from\ 1\ to\ ([0-9]+):\ 1\ .*\ ([0-9]+)\;\ its\ edges\ add\ up\ to\ ([0-9.]+)\ =\ D\(1,([0-9]+)\) ]]
    [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[4]}" ]
}
