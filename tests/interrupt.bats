#!/usr/bin/env bats
# Ctrl-C: a long call on the host stops within a second of the interrupt,
# Octave's prompt comes back, the next call works and no gdArray or result
# is left behind. Each test runs an interactive Octave reading commands
# from a fifo, and sends it SIGINT while the call runs.

load helpers

# interrupt_after SETUP CALL NEXT: runs SETUP, then CALL, interrupts CALL a
# second after it has begun (Octave prints a mark just before it), then
# runs NEXT; prints "stopped in S s" (from the signal to Octave's next
# prompt) and what Octave printed.
interrupt_after() {
    local fifo="$BATS_TEST_TMPDIR/in" out="$BATS_TEST_TMPDIR/out" t0 t1 pid
    rm -f "$fifo" "$out"
    mkfifo "$fifo"
    octave-cli -q --no-gui --no-init-file --no-history -i < "$fifo" > "$out" 2>&1 &
    pid=$!
    exec 3> "$fifo"
    echo "addpath('$GD_ROOT/octave'); warning('off', 'gd:nogpu'); $1; disp('CALLING'); fflush(stdout); $2; disp('NOT INTERRUPTED')" >&3
    for _ in $(seq 1 600); do grep -q "CALLING" "$out" && break; sleep 0.05; done
    sleep 1
    t0=$(date +%s.%N)
    kill -INT $pid
    for _ in $(seq 1 200); do grep -q "octave:2>" "$out" && break; sleep 0.02; done
    t1=$(date +%s.%N)
    echo "$3" >&3
    echo "exit" >&3
    exec 3>&-
    wait $pid || true
    echo "stopped in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s"
    cat "$out"
}

# the call stopped within a second, and what came after ran
check_stopped() {
    echo "$output"
    [[ "$output" == *"CALLING"* ]]
    [[ "$output" != *"NOT INTERRUPTED"* ]]
    [[ "$output" == *"next ok"* ]]
    s=$(echo "$output" | sed -n 's/^stopped in \([0-9.]*\) s$/\1/p')
    [ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s < 1.0) }'
}

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

@test "Ctrl-C stops a gdArray chain on the host and leaves no gdArray" {
    stops "G = gdArray(rand(3000))" "H = gd_apsp(G, 'Variant', 'cpu')" "clear G; "
}
