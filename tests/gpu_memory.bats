#!/usr/bin/env bats
# The GPU's free memory before and after: failing calls, memory that cannot
# be had and many create/compute/clear cycles leave it where it was. These
# tests read the whole device's free memory, so make test runs this suite
# alone, after the others (which run side by side).

load helpers

# (from gdarray.bats)
@test "out of GPU memory making a gdArray or a result: gd:memory with the sizes and the live bytes; nothing leaks" {
    require_gpu
    octave_ok "A = rand(1000); G = gdArray(rand(100));
        s0 = gd_info();
        setenv('GD_GPU_MEM_LIMIT', '4000000');
        expect_error('gd:memory', 'gdArray: cannot allocate the array [(]1000 x 1000 double[)] [(]7.6 MiB[)].*1 live gdArray hold 0.1 MiB', @gdArray, A);
        H = gdArray(rand(500));
        expect_error('gd:memory', 'gd_minplus: cannot allocate.*live gdArrays hold', @gd_minplus, H, 'Variant', 'v4');
        expect_error('gd:memory', 'gd_pdist2: cannot allocate', @gd_pdist2, H, H);
        unsetenv('GD_GPU_MEM_LIMIT');
        assert(isequal(gather(gd_minplus(H)), gd_minplus(gather(H))));
        clear H
        s1 = gd_info(); assert(s1.gdarrays, s0.gdarrays); assert(s1.memory_free, s0.memory_free);
        disp('memory ok')" "memory ok"
}

@test "memory_held counts this process's GPU memory alone: a gdArray's bytes while it lives, none after a call that failed, pooled or not" {
    require_gpu
    octave_ok "A = rand(1000, 'single'); gd_minplus(A(1:10, 1:10));
        h0 = gd_info().memory_held; d0 = gd_info().devices(1).memory_held;
        assert(d0 == h0);
        G = gdArray(A); h1 = gd_info().memory_held;
        assert(h1 >= h0 + 4e6 && h1 <= h0 + 4e6 + 2^21, 'held %d -> %d', h0, h1);
        clear G; assert(gd_info().memory_held, h0);
        for pool = {'1', '0'}
          setenv('GD_MEMPOOL', pool{1}); setenv('GD_GPU_MEM_LIMIT', '5000000');
          expect_error('gd:memory', 'GD_GPU_MEM_LIMIT', @gd_minplus, A, A, 'Variant', 'v4');
          unsetenv('GD_GPU_MEM_LIMIT');
          assert(gd_info().memory_held, h0);
          R = gd_minplus(A(1:300, 1:300), 'Variant', 'v4'); assert(gd_info().memory_held, h0);
        end
        unsetenv('GD_MEMPOOL');
        disp('held ok')" "held ok"
}

# (from gdarray.bats)
@test "10,000 create/compute/clear cycles leave the GPU's free memory where it was" {
    require_gpu
    octave_ok "A = rand(64, 'single'); X = rand(100, 7);
        for i = 1:10001
          if (i == 2) s0 = gd_info(); end   # after the first cycle: the kernels' code is loaded
          G = gdArray(A); R = gd_minplus(G, A); D = gd_pdist(gdArray(X)); S = gd_squareform(D); T = R';
          if (mod(i, 2500) == 0) assert(isequal(gather(R), gd_minplus(A))); end
          clear G R D S T
        end
        s1 = gd_info();
        printf('free before %d, after %d; gdArrays %d, %d\n', s0.memory_free, s1.memory_free, s0.gdarrays, s1.gdarrays);
        assert(s1.memory_free, s0.memory_free); assert(s1.gdarrays, s0.gdarrays);
        disp('no leak')" "no leak"
}

# (from gpu.bats)
@test "300 failing calls (single and integer min-plus) leave the GPU's free memory unchanged" {
    require_gpu
    run octave_run "check_failing_calls(100)"
    echo "$output"
    [ "$status" -eq 0 ]
}

# (from hardening.bats)
@test "host memory that cannot be had (GPU path): gd:memory, device memory freed, the next call works" {
    require_gpu
    # a first round of failing calls, then two more: the driver may keep
    # state of its own after the first (a one-time reservation, not a
    # leak); what gd allocates must all be back after every round
    octave_ok "A = rand(2000, 'single'); gd_minplus(A, 'Variant', 'v5'); gd_pdist(A);
        for round = 1:3
          expect_error('gd:memory', 'gd_minplus: cannot allocate R', @gd_minplus, rand(3e5, 1, 'single'), rand(1, 3e5, 'single'), 'Variant', 'v5');
          expect_error('gd:memory', 'gd_pdist: cannot allocate D .* in host memory', @gd_pdist, rand(5e5, 1, 'single'));
          expect_error('gd:memory', 'gd_pdist: cannot allocate D .* in host memory', @gd_pdist, rand(5e5, 3));
          expect_error('gd:memory', 'gd_pdist2: cannot allocate', @gd_pdist2, rand(3e5, 1, 'single'), rand(3e5, 1, 'single'));
          expect_error('gd:memory', 'gd_sgemm: cannot allocate', @gd_sgemm, rand(3e5, 1, 'single'), rand(1, 3e5, 'single'), 'Variant', 'tuned');
          if (round == 1) f0 = gd_info().memory_free; end
        end
        f1 = gd_info().memory_free;
        printf('free after one round %d, after three %d\\n', f0, f1); assert(f1, f0);
        assert(isequal(gd_minplus(A, 'Variant', 'v5'), gd_minplus(A, 'Variant', 'cpu')));
        X = rand(3000, 20, 'single'); assert(max(abs(gd_pdist(X) - gd_pdist(X, 'Variant', 'cpu'))) < 1e-5)"
}

# (from knn.bats)
@test "failing kNN calls leak no GPU memory" {
    require_gpu
    octave_ok "X = rand(20000, 32, 'single'); Y = rand(2000, 32, 'single');
        gd_pdist2(X, Y, 'Smallest', 10); f0 = gd_info().memory_free;
        setenv('GD_GPU_MEM_LIMIT', '3000000');
        for c = 1:30
          try, gd_pdist2(X, Y, 'Smallest', 10); error('no error'); catch e, assert(e.identifier, 'gd:memory'); end
        end
        unsetenv('GD_GPU_MEM_LIMIT');
        assert(gd_info().memory_free >= f0 - 2^20); disp('no leak')" "no leak"
}

# (from pdist.bats)
@test "failing pdist calls leak no GPU memory" {
    require_gpu
    # every path runs once first: loading a kernel on its first use is not a leak
    run octave_run "X = rand(2000, 50, 'single');
        for v = {'naive', 'tiled', 'tuned'}, gd_pdist(X, 'Variant', v{1}); end
        gd_pdist2(X, X, 'Variant', 'tuned'); f0 = gd_info().memory_free;
        setenv('GD_GPU_MEM_LIMIT', '500000');
        for c = 1:50
          for v = {'naive', 'tiled', 'tuned'}
            try, gd_pdist(X, 'Variant', v{1}); error('no error'); catch e, assert(e.identifier, 'gd:memory'); end
          end
          try, gd_pdist2(X, X, 'Variant', 'tuned'); error('no error'); catch e, assert(e.identifier, 'gd:memory'); end
        end
        unsetenv('GD_GPU_MEM_LIMIT'); assert(gd_info().memory_free, f0); disp('no leak')"
    echo "$output"
    [ "$status" -eq 0 ]
}

# (from sgemm.bats)
@test "failing sgemm calls leak no GPU memory" {
    require_gpu
    run octave_run "A = rand(1000, 'single'); gd_sgemm(A, A, 'Variant', 'cublas'); gd_sgemm(A, A, 'Variant', 'tuned'); f0 = gd_info().memory_free;
        % A passed twice is uploaded once: cublas needs A and C (8 MB)
        setenv('GD_GPU_MEM_LIMIT', '7000000');
        for c = 1:50
          for v = {'tuned', 'k4-128-j4', 'cublas'}
            try, gd_sgemm(A, A, 'Variant', v{1}); error('no error'); catch e, assert(e.identifier, 'gd:memory'); end
          end
        end
        % 1000 x 1000 x 1000 on 128x128 tiles is 64 tiles, so tuned splits k into 2
        % slices: A, the padded copies and C (16.5 MB) fit under 24 MB, the
        % 8.4 MB workspace of the slices' sum by a second kernel does not
        % (GD_SPLIT_SUM=kernel; summed in a cluster, sm_90 on, there is none)
        setenv('GD_GPU_MEM_LIMIT', '24000000'); setenv('GD_SPLIT_SUM', 'kernel');
        for c = 1:50
          try, gd_sgemm(A, A, 'Variant', 'tuned'); error('no error');
          catch e, assert(e.identifier, 'gd:memory'); assert(!isempty(strfind(e.message, 'workspace')), e.message); end
        end
        unsetenv('GD_SPLIT_SUM');
        if (str2double(gd_info().devices(1).compute_capability) >= 9)
          C = gd_sgemm(A, A, 'Variant', 'tuned'); assert(norm(double(C) - double(A) * double(A), 'fro') < 1e-3 * norm(double(A) * double(A), 'fro'));
        end
        unsetenv('GD_GPU_MEM_LIMIT'); assert(gd_info().memory_free, f0); disp('no leak')"
    echo "$output"
    [ "$status" -eq 0 ]
}

# (from gpu.bats)
@test "the device memory pool: kept between calls, given back by gd_info; GD_MEMPOOL=0 the same results" {
    require_gpu
    # the pool is the driver's, shared by the gateways: gd_info (a gateway
    # of its own) empties what minplus and pdist left in it
    # (the first calls load the kernels' code: the device memory that takes
    # is not the pool's)
    run octave_run "A = rand(3000, 'single') - 0.5; X = rand(3000, 40, 'single');
        gd_minplus(A, 'Variant', 'v5'); gd_pdist(X); f0 = gd_info().memory_free;
        [R, ~, i1] = gd_minplus(A, 'Variant', 'v5'); [D, i2] = gd_pdist(X);
        s = gd_info(); printf('pool %d (calls %d, %d) free %d %d\n', s.memory_pool, i1.gpu_bytes, i2.gpu_bytes, f0, s.memory_free);
        assert(s.memory_pool >= max(i1.gpu_bytes, i2.gpu_bytes)); assert(s.memory_free, f0);
        assert(gd_info().memory_pool, 0);
        setenv('GD_MEMPOOL', '0'); R0 = gd_minplus(A, 'Variant', 'v5'); D0 = gd_pdist(X);
        s = gd_info(); unsetenv('GD_MEMPOOL');
        assert(s.memory_pool, 0); assert(s.memory_free, f0);
        assert(isequal(R, R0, gd_minplus(A, 'Variant', 'cpu'))); assert(isequal(D, D0))"
    echo "$output"
    [ "$status" -eq 0 ]
}

# (from gpu.bats)
@test "1000 calls of each operation: GPU memory does not grow" {
    require_gpu
    # K and L take sgemm tuned's split-k path (a workspace)
    run octave_run "A = rand(300, 'single'); X = rand(500, 20, 'single');
        K = rand(100, 2000, 'single'); L = rand(2000, 100, 'single');
        gd_minplus(A, 'Variant', 'v4'); gd_minplus(A, 'Variant', 'v5'); gd_sgemm(K, L, 'Variant', 'tuned');
        gd_sgemm(A, A, 'Variant', 'cublas'); gd_sgemm(A, A, 'Variant', 'tuned');
        gd_pdist(X, 'Variant', 'tuned'); gd_pdist2(X, X, 'Variant', 'tuned');
        f0 = gd_info().memory_free;
        for c = 1:1000
          gd_minplus(A, 'Variant', {'v4', 'v5'}{mod(c, 2) + 1}); gd_sgemm(A, A, 'Variant', {'cublas', 'tuned'}{mod(c, 2) + 1});
          gd_sgemm(K, L, 'Variant', 'tuned');
          gd_pdist(X, 'Variant', 'tuned'); gd_pdist2(X, X, 'Variant', 'tuned');
        end
        f1 = gd_info().memory_free; printf('free before %d after %d\n', f0, f1); assert(f1, f0)"
    echo "$output"
    [ "$status" -eq 0 ]
}

# (from interrupt.bats) Ctrl-C on the GPU: the call stops within a second,
# the next call works, and the device's free memory after the interrupt is
# what it was before the call (f0, read after a first call made the
# context)
NEXT_GPU="s = gd_info(); assert(s.gdarrays, 0); assert(s.memory_free >= f0 - 2^20); printf('next ok %d\n', isequal(gd_apsp(single([0 1; 1 0])), single([0 1; 1 0])))"
F0="gd_apsp(rand(300)); f0 = gd_info().memory_free"

@test "Ctrl-C stops the GPU's Floyd-Warshall rounds and squarings between rounds, freeing the device's memory" {
    require_gpu
    output=$(interrupt_after "W = rand(20000); gd_apsp(W(1:500, 1:500), 'Variant', 'fw'); $F0" "D = gd_apsp(W, 'Variant', 'fw')" "$NEXT_GPU")
    check_stopped
    output=$(interrupt_after "W = rand(12288); gd_apsp(W(1:500, 1:500), 'Variant', 'squaring'); $F0" "D = gd_apsp(W, 'Variant', 'squaring')" "$NEXT_GPU")
    check_stopped
}

@test "Ctrl-C stops gd_pdist on the GPU between panels, freeing the device's memory" {
    require_gpu
    # (the warm-up loads the kernels' module first: CUDA loads modules
    # lazily, into device memory that stays)
    output=$(interrupt_after "X = rand(30000, 300); gd_pdist(X(1:2000, :), 'minkowski', 3.5); $F0" "D = gd_pdist(X, 'minkowski', 3.5)" "$NEXT_GPU")
    check_stopped
}
