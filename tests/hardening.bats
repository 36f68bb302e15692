#!/usr/bin/env bats
# Inputs that once crashed Octave or escaped gd's error ids: each runs in
# its own Octave process, so a crash fails the test.

load helpers

@test "a pair count that wraps int64 (n = 2^32 + 1): gd:size, no crash" {
    octave_error "" "'gd:size', 'gd_pdist: D would have n[(]n-1[)]/2 = 9.223e[+]18 elements [(]n = 4294967297[)]', @gd_pdist, zeros(2^32 + 1, 0, 'single')"
    octave_error "" "'gd:size', 'gd_pdist: D would have', @gd_pdist, zeros(2^31, 0), 'Variant', 'cpu'"
}

@test "sizes in messages are not cut to int (2147483653x0)" {
    octave_error "" "'gd:size', 'not 2147483653x0', @gd_minplus, zeros(2^31 + 5, 0)"
    octave_error "" "'gd:size', 'A is 2147483653x0, B is 3x3', @gd_minplus, zeros(2^31 + 5, 0), zeros(3)"
}

@test "host memory that cannot be had (CPU path): gd:memory naming the function and sizes; the next call works" {
    octave_ok "warning('off', 'gd:nogpu');
        expect_error('gd:memory', 'gd_minplus: cannot allocate R [(]1000000 x 1000000 double[)]', @gd_minplus, zeros(1e6, 0), zeros(0, 1e6), 'Variant', 'cpu');
        expect_error('gd:memory', 'gd_minplus: cannot allocate R', @gd_minplus, zeros(1e6, 0), zeros(0, 1e6));
        expect_error('gd:memory', 'gd_sgemm: cannot allocate .* in host memory', @gd_sgemm, zeros(1e6, 0), zeros(0, 1e6), 'Variant', 'cpu');
        expect_error('gd:memory', 'gd_pdist2: cannot allocate .* in host memory', @gd_pdist2, zeros(1e6, 0), zeros(1e6, 0), 'Variant', 'cpu');
        expect_error('gd:memory', 'gd_pdist: cannot allocate D .* in host memory', @gd_pdist, zeros(2e6, 0, 'single'), 'Variant', 'cpu');
        expect_error('gd:memory', 'gd_pdist: cannot allocate D', @gd_pdist, zeros(2e6, 0, 'single'));
        A = rand(40); assert(isequal(gd_minplus(A), gd_minplus(A, 'Variant', 'cpu')));
        assert(size(gd_pdist(A)), [1 780])"
}

@test "OMP_STACKSIZE too small for a thread: one thread and a gd:threads warning, no exit" {
    OMP_STACKSIZE=16K run octave_run "lastwarn(''); warning('off', 'gd:nogpu');
        A = rand(300); R = gd_minplus(A, 'Variant', 'cpu'); [msg, id] = lastwarn(); assert(id, 'gd:threads');
        assert(isequal(R, min(permute(A, [1 3 2]) + permute(A, [3 2 1]), [], 3)));
        D = gd_pdist(rand(400, 9), 'Variant', 'cpu'); C = gd_sgemm(A, A, 'Variant', 'cpu'); disp('alive')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *alive* ]]
}

# a stack no machine can map: libgomp would end the process at its first
# team ("Thread creation failed"); gd sizes the team to the threads that
# can be created (one here, with gd:threads, where the system refuses the
# mapping; all where it overcommits)
@test "OMP_STACKSIZE larger than the machine (4000G): the threads that can be created, no exit" {
    OMP_STACKSIZE=4000G run octave_run "lastwarn(''); warning('off', 'gd:nogpu');
        A = rand(40); R = gd_minplus(A, 'Variant', 'cpu'); [msg, id] = lastwarn();
        assert(isempty(id) || (strcmp(id, 'gd:threads') && ! isempty(strfind(msg, 'OMP_STACKSIZE=4000G'))));
        assert(isequal(R, min(permute(A, [1 3 2]) + permute(A, [3 2 1]), [], 3)));
        D = gd_pdist(rand(400, 9), 'Variant', 'cpu'); C = gd_sgemm(A, A, 'Variant', 'cpu');
        printf('threads %d, %s\n', gd_info().cpu_threads, id); disp('alive')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *alive* ]]
}

# libgomp ends the process when it cannot create a thread: the team is
# capped at the processors and at what the address space leaves room for
# (the GPU hidden in both runs: a CUDA driver that initialises maps gigabytes
# of address space, which the measured base and the limited run would count
# differently)
limited() { ulimit -v "$1"; shift; CUDA_VISIBLE_DEVICES= octave_run "$@"; }
@test "an address-space limit (ulimit -v) with no room for threads: one thread and gd:threads, no exit" {
    base=$(CUDA_VISIBLE_DEVICES= octave_run "warning('off', 'all'); s = gd_info(); x = fileread('/proc/self/status');
        printf('%s', regexp(x, 'VmSize:\s*(\d+)', 'tokens'){1}{1})")
    run limited $((base + 200000)) "lastwarn(''); warning('off', 'gd:nogpu'); A = rand(100);
        R = gd_minplus(A, 'Variant', 'cpu'); [msg, id] = lastwarn(); assert(id, 'gd:threads');
        assert(! isempty(strfind(msg, 'ulimit -v'))); assert(gd_info().cpu_threads, 1);
        assert(isequal(R, min(permute(A, [1 3 2]) + permute(A, [3 2 1]), [], 3)));
        D = gd_pdist(rand(400, 9), 'Variant', 'cpu'); disp('alive')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *alive* ]]
}

@test "OMP_NUM_THREADS past the processors: the team is the processors" {
    OMP_NUM_THREADS=1000 run octave_run "warning('off', 'gd:nogpu'); A = rand(300);
        R = gd_minplus(A, 'Variant', 'cpu'); assert(gd_info().cpu_threads <= nproc());
        assert(isequal(R, min(permute(A, [1 3 2]) + permute(A, [3 2 1]), [], 3))); disp('alive')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *alive* ]]
}

@test "__gd_uninit__ refuses every caller but gd's gateways" {
    octave_ok "addpath('$GD_ROOT/octave/private');
        try, x = __gd_uninit__(4, 4, 'double'); error('not refused'); catch err, assert(! isempty(strfind(err.message, 'internal to gd'))); end
        f = @() __gd_uninit__(2, 2, 'single');
        try, f(); error('not refused'); catch err, assert(! isempty(strfind(err.message, 'internal to gd'))); end"
}

@test "cuBLAS is loaded only when the cublas variant runs" {
    octave_ok "warning('off', 'gd:nogpu'); A = rand(64, 'single'); C = gd_sgemm(A, A); C = gd_sgemm(A, A, 'Variant', 'cpu');
        assert(isempty(strfind(fileread('/proc/self/maps'), 'libcublas')))"
}

@test "cuBLAS loaded on first use gives cuBLAS's result" {
    require_gpu
    octave_ok "A = single(randi([-8 8], 300)); C = gd_sgemm(A, A, 'Variant', 'tuned');
        assert(isempty(strfind(fileread('/proc/self/maps'), 'libcublas')));
        assert(isequal(gd_sgemm(A, A, 'Variant', 'cublas'), C));
        assert(! isempty(strfind(fileread('/proc/self/maps'), 'libcublas')))"
}

@test "no GPU: gd:nogpu once per session, not once per function" {
    CUDA_VISIBLE_DEVICES= run octave_run "A = rand(30); gd_minplus(A); gd_pdist(A); gd_pdist2(A, A); gd_sgemm(A, A); gd_minplus(A)"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c 'running on the CPU' <<< "$output")" -eq 1 ]
}

@test "fuzz: every public function, every argument position, no crash, gd: ids or correct results" {
    for f in gd_minplus gd_sgemm gd_pdist gd_pdist2 gd_knnsearch gd_rangesearch gd_squareform gd_info gd_apsp gd_path; do
        run octave_run "fuzz('$f', $RANDOM)"
        echo "$output" | tail -n 25
        [ "$status" -eq 0 ]
        [[ "$output" == *"fuzz $f: "*" cases, all passed"* ]]
    done
}

@test "malformed settings: gd:settings once a value, naming the variable and what it takes; the call runs as if unset" {
    for v in GD_BLOCKS=abc GD_BLOCKS=3x GD_SPLIT=2.5 GD_SPLIT=17 GD_KNN_UNITS=0 GD_SIM_DEVICES=-1 \
             GD_VERBOSE=yes GD_GPU_MEM_LIMIT=1GB GD_GPU_MEM_LIMIT=1:5, GD_GPU_MEM_LIMIT=0:100; do
        name=${v%%=*}
        export "$v"
        octave_ok "warning('off', 'gd:nogpu'); lastwarn(''); A = magic(4);
            R = gd_minplus(A); [msg, id] = lastwarn(); assert(id, 'gd:settings');
            assert(! isempty(strfind(msg, '$name=''${v#*=}'' is ignored: it takes')));
            assert(isequal(R, min(permute(A, [1 3 2]) + permute(A, [3 2 1]), [], 3)));
            lastwarn(''); gd_minplus(A); assert(isempty(lastwarn())); disp('ok')" ok
        unset "$name"
    done
    for v in GD_BLOCKS=2 GD_SPLIT=16 GD_KNN_UNITS=8 GD_SIM_DEVICES=0 GD_VERBOSE=0 \
             GD_GPU_MEM_LIMIT=1000000000 GD_GPU_MEM_LIMIT=1:100000000,2:5; do
        export "$v"
        octave_ok "warning('off', 'gd:nogpu'); lastwarn(''); gd_minplus(magic(4));
            assert(isempty(lastwarn())); disp('ok')" ok
        unset "${v%%=*}"
    done
}
