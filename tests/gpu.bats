#!/usr/bin/env bats
# GPU resources: memory that does not fit, leaks on error paths, cached
# state across `clear functions`, and what happens with no GPU at all.

load helpers

@test "out of GPU memory: gd:memory with the sizes; the next call works" {
    require_gpu
    run octave_run "A = rand(2000, 'single'); B = rand(2000, 'single');
        setenv('GD_GPU_MEM_LIMIT', '20000000');
        expect_error('gd:memory', 'gd_minplus: cannot allocate B [(]2000 x 2000 single[)] [(]15.3 MiB[)].*30.5 MiB.*19.1 MiB', @gd_minplus, A, B, 'Variant', 'v4');
        unsetenv('GD_GPU_MEM_LIMIT');
        R = gd_minplus(A(1:300, :), B(:, 1:200), 'Variant', 'v4');
        assert(isequal(R, gd_minplus(A(1:300, :), B(:, 1:200), 'Variant', 'cpu')))"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "clear functions releases cached state; the next call works" {
    require_gpu
    run octave_run "A = rand(200); R1 = gd_minplus(A, 'Variant', 'v4'); clear functions;
        R2 = gd_minplus(A, 'Variant', 'v4'); assert(isequal(R1, R2)); clear all; A = rand(100);
        assert(isequal(gd_minplus(A, 'Variant', 'v3'), gd_minplus(A, 'Variant', 'cpu')));"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "no GPU visible: gd_info says why, auto runs on the CPU and warns once, v4 raises gd:nogpu" {
    CUDA_VISIBLE_DEVICES= run octave_run "s = gd_info(); assert(! s.available); assert(! isempty(s.reason));
        lastwarn(''); A = rand(300); R = gd_minplus(A); [msg, id] = lastwarn(); assert(id, 'gd:nogpu');
        assert(! isempty(strfind(msg, 'running on the CPU')));
        lastwarn(''); [R, ~, info] = gd_minplus(A); assert(info.variant, 'cpu'); assert(isempty(lastwarn()));
        expect_error('gd:nogpu', 'gd_minplus: no usable CUDA GPU', @gd_minplus, A, 'Variant', 'v4')"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "warning('off', 'gd:nogpu') silences the CPU fallback" {
    CUDA_VISIBLE_DEVICES= run octave_run "warning('off', 'gd:nogpu'); R = gd_minplus(rand(300))"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" != *warning* ]]
}

@test "the bench runs end to end (every size / 32) and writes its tables" {
    require_gpu
    cd "$GD_ROOT"
    GD_BENCH_QUICK=1 GD_BENCH_OUT="$BATS_TEST_TMPDIR/bench.md" run octave_run "source('bench/bench.m')"
    echo "$output"
    [ "$status" -eq 0 ]
    grep -q '^## min-plus' "$BATS_TEST_TMPDIR/bench.md"
    grep -q '^## sgemm' "$BATS_TEST_TMPDIR/bench.md"
    grep -q '| ladder | k4-128-j4-k4 | pad |' "$BATS_TEST_TMPDIR/bench.md"
    grep -q "^## pdist" "$BATS_TEST_TMPDIR/bench.md"
    # a progress line after each row of the long operations, with what is left
    grep -q '^  \[min-plus: 1 of [0-9]* rows, [0-9]* s; about [0-9]* s left\]$' <<< "$output"
    grep -q '^  \[shortest paths: [0-9]* rows, [0-9]* s\]$' <<< "$output"
    # bench_fresh in a new Octave with freed memory kept in the heap
    GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=17179869184 \
        GD_BENCH_QUICK=1 GD_BENCH_OUT="$BATS_TEST_TMPDIR/bench.md" \
        run octave_run "source('bench/bench_fresh.m')"
    echo "$output"
    [ "$status" -eq 0 ]
    grep -q '^| glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=17179869184 |\( [0-9.]* |\)\{9\}$' \
        "$BATS_TEST_TMPDIR/bench.md"
}

@test "staged copies: large operands, one array passed twice, a copy of it, GD_STAGE=0, blocks: same results" {
    require_gpu
    # 1100^2 singles (4.6 MiB) and D (3000 x 2999 / 2 singles, 17 MiB) go
    # through the staging slots in pieces; GD_STAGE=0 copies directly; one
    # array passed twice is uploaded once; 2300^2 in blocks (two a side)
    # has its blocks of rows gathered from A's columns; D of 4500 x 8 (40
    # MB) goes down in eight panels
    run octave_run "A = rand(1100, 'single') * 100; B = A; E = gd_minplus(A, 'Variant', 'cpu');
        R1 = gd_minplus(A, 'Variant', 'v5'); R2 = gd_minplus(A, B, 'Variant', 'v5');
        setenv('GD_STAGE', '0'); R3 = gd_minplus(A, B, 'Variant', 'v5'); unsetenv('GD_STAGE');
        R4 = gd_minplus(A, B, 'Variant', 'v5');
        assert(isequal(R1, E) && isequal(R2, E) && isequal(R3, E) && isequal(R4, E));
        G = rand(2300, 'single') - 0.5; H = rand(2300, 'single'); F = gd_minplus(G, H, 'Variant', 'cpu');
        setenv('GD_BLOCKS', '2'); [R5, ~, i5] = gd_minplus(G, H, 'Variant', 'v5'); [R6, ~, i6] = gd_minplus(G, 'Variant', 'v5'); unsetenv('GD_BLOCKS');
        assert(isequal(R5, F)); assert(isequal(R6, gd_minplus(G, 'Variant', 'cpu'))); assert(strncmp(i5.kernel, 'integer max on', 14));
        X = rand(3000, 10, 'single'); P = gd_pdist(X, 'Variant', 'cpu');
        D1 = gd_pdist(X, 'Variant', 'tuned'); setenv('GD_STAGE', '0'); D2 = gd_pdist(X, 'Variant', 'tuned'); unsetenv('GD_STAGE');
        assert(isequal(D1, D2)); assert(norm(D1 - P) <= 1e-5 * norm(P));
        Y = rand(4500, 8, 'single'); Q = gd_pdist(Y, 'Variant', 'cpu'); D3 = gd_pdist(Y, 'Variant', 'tuned');
        assert(norm(D3 - Q) <= 1e-5 * norm(Q));
        C = gd_sgemm(double(A), A, 'Variant', 'tuned'); assert(norm(double(C) - double(A) * double(A), 'fro') <= 1e-5 * norm(double(A) * double(A), 'fro'));
        disp('staged and direct agree')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"staged and direct agree"* ]]
}

@test "the instruction-mix microbenchmark runs and reports every mix and every distance step" {
    require_gpu
    run make -s -C "$GD_ROOT" fp64mix GPU_ARCHS="${GPU_ARCHS:-90}"
    echo "$output"
    [ "$status" -eq 0 ]
    for mix in dadd dmin dadd+dmin dadd+imin64 dfma dsub+dfma dham fadd+fmin fsub+ffma fham viaddmin; do
        echo "$output" | grep -Eq "^${mix//+/\\+} +[0-9.]+ +[0-9.]+ +[0-9.]+ "
    done
    # and every distance step, in both classes
    for m in euclidean cityblock chebychev cosine hamming jaccard minkowski minkowski_pow; do
        for c in single double; do
            echo "$output" | grep -Eq "^$m +$c +[0-9.]+ +[0-9.]+ +[0-9.e+]+$"
        done
    done
}
