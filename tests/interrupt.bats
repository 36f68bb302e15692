#!/usr/bin/env bats
# Ctrl-C: a long call on the host stops within a second of the interrupt,
# Octave's prompt comes back, the next call works and no gdArray or result
# is left behind. Each test runs an interactive Octave reading commands
# from a fifo, and sends it SIGINT while the call runs (interrupt_after,
# helpers.bash). The GPU's calls are interrupted in gpu_memory.bats, which
# runs alone: its tests read the device's free memory.

load helpers

# stops SETUP CALL [BEFORE]: CALL, after SETUP, stops on the interrupt and
# NEXT (after BEFORE) runs
stops() {
    output=$(interrupt_after "$1" "$2" "${3:-}$NEXT")
    check_stopped
}

NEXT="s = gd_info(); assert(s.gdarrays, 0); printf('next ok %d\n', isequal(gd_apsp([0 1; 1 0], 'Variant', 'cpu'), [0 1; 1 0]))"

@test "Ctrl-C stops gd_apsp on the cpu variant" {
    stops "W = rand(3000)" "D = gd_apsp(W, 'Variant', 'cpu')"
}

@test "Ctrl-C stops gd_minplus on the cpu variant (with the witness), and an integer class" {
    stops "A = rand(6000, 'single')" "[R, K] = gd_minplus(A, 'Variant', 'cpu')"
    stops "A = int32(randi(1000, 2500))" "R = gd_minplus(A, A, 'Variant', 'cpu')"
}

@test "Ctrl-C stops gd_pdist, gd_pdist2 and the nearest neighbours on the cpu variant" {
    stops "X = rand(30000, 300)" "D = gd_pdist(X, 'cityblock', 'Variant', 'cpu')"
    stops "X = rand(20000, 300)" "D = gd_pdist2(X, X, 'Variant', 'cpu')"
    stops "X = rand(200000, 64); Y = rand(20000, 64)" "I = gd_knnsearch(X, Y, 'K', 10, 'Variant', 'cpu')"
}

@test "Ctrl-C stops gd_sgemm on the cpu variant (the host BLAS in panels of columns)" {
    stops "A = rand(6000, 'single')" "C = gd_sgemm(A, A, 'Variant', 'cpu')"
}

@test "Ctrl-C stops a gdArray chain on the host and leaves no gdArray" {
    stops "G = gdArray(rand(3000))" "H = gd_apsp(G, 'Variant', 'cpu')" "clear G; "
}

