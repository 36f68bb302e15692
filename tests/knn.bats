#!/usr/bin/env bats
# Nearest neighbours (gd_pdist2's 'Smallest'/'Largest', gd_knnsearch)
# against the full matrix and a stable sort (check_knn.m): every variant,
# single and double; the GPU's splits, batches and overflowing buckets;
# gdArrays; no memory left behind.

load helpers

check() { octave_ok "check_knn('$1', '$2')" "cases within bounds"; }

@test "knn cpu, single" { check cpu single; }
@test "knn cpu, double" { check cpu double; }
@test "knn auto, double" { check auto double; }
@test "knn fused on the GPU, single" { require_gpu; check fused single; }
@test "knn fused on the GPU, double" { require_gpu; check fused double; }
@test "knn cpu, every metric" { octave_ok "check_knn('cpu', 'double', 'all')" "cases within bounds"; }
@test "knn fused on the GPU, every metric, single" { require_gpu; octave_ok "check_knn('fused', 'single', 'all')" "cases within bounds"; }
@test "knn fused on the GPU, every metric, double" { require_gpu; octave_ok "check_knn('fused', 'double', 'all')" "cases within bounds"; }

@test "the same infinity in a row of X and of Y: a NaN difference, NaN distance in every metric's kernel, both classes" {
    require_gpu
    # -Inf - -Inf is NaN, whose sign bit the GPU sets in double: chebychev's
    # integer max of |x - y|'s bits must still keep it (the fuzz found it lost)
    octave_ok "for c = {'single', 'double'}
          X = cast(randn(40, 5), c{1}); Y = cast(randn(9, 5), c{1});
          X(3, 2) = -Inf; Y(4, 2) = -Inf; X(7, 5) = Inf; Y(6, 5) = Inf; X(8, 1) = Inf; Y(6, 1) = -Inf;
          for m = {'chebychev', 'cityblock', 'euclidean', 'squaredeuclidean', {'minkowski', 3}}
            a = m{1}; if (! iscell (a)) a = {a}; end
            C = gd_pdist2(X, Y, a{:}, 'Variant', 'cpu');
            assert(isnan(C(3, 4)) && isnan(C(7, 6)) && C(8, 6) == Inf);
            T = gd_pdist2(X, Y, a{:}, 'Variant', 'tuned');
            assert(isequaln(isnan(T), isnan(C)) && isequal(T == Inf, C == Inf), [c{1} ' ' a{1} ' tuned']);
            # the fused kernels' distances are tuned's: its stable sort
            [D, I] = gd_pdist2(X, Y, a{:}, 'Smallest', 40, 'Variant', 'fused');
            [S, J] = sort(T);
            assert(isequaln(D, S) && isequal(I, J), [c{1} ' ' a{1} ' fused']);
            assert(isnan(D(end, 4)) && I(end, 4) == 3 && isnan(D(end, 6)) && I(end, 6) == 7);
          end
        end
        disp('infinities ok')" "infinities ok"
}

@test "large K on the GPU: every query's buckets overflow and merge many times" {
    require_gpu
    octave_ok "X = single(randi([0 20], 5000, 4)); Y = single(randi([0 20], 300, 4));
        F = gd_pdist2(X, Y, 'Variant', 'tuned');
        for K = [33 1000 4999]
          [S, J] = sort(F, 1); [D, I] = gd_pdist2(X, Y, 'Smallest', K, 'Variant', 'fused');
          assert(isequal(D, S(1:K,:)) && isequal(I, J(1:K,:)), sprintf('K = %d', K));
          [S, J] = sort(F, 1, 'descend'); [D, I] = gd_pdist2(X, Y, 'Largest', K, 'Variant', 'fused');
          assert(isequal(D, S(1:K,:)) && isequal(I, J(1:K,:)), sprintf('largest K = %d', K));
        end
        disp('large K agrees')" "large K agrees"
}

@test "a GPU memory cap makes batches of queries and fewer splits; the same result" {
    require_gpu
    octave_ok "X = randn(20000, 16, 'single'); Y = randn(3000, 16, 'single');
        [D0, I0] = gd_pdist2(X, Y, 'Smallest', 64, 'Variant', 'fused');
        setenv('GD_GPU_MEM_LIMIT', sprintf('%d', 20000 * 16 * 4 * 3 + 3000 * 16 * 4 * 3 + 6e6));
        [D, I, info] = gd_pdist2(X, Y, 'Smallest', 64, 'Variant', 'fused');
        unsetenv('GD_GPU_MEM_LIMIT');
        assert(isequal(D, D0) && isequal(I, I0));
        printf('capped: %s\n', info.kernel); disp('capped agrees')" "capped agrees"
}

@test "X from the host in units (its splits start as each arrives): the same as X from a gdArray and as the sort" {
    require_gpu
    octave_ok "setenv('GD_POISON', '1'); for c = {'single', 'double'}
          cls = c{1}; mx = 40000 + randi(3000); d = 72 + 40 * strcmp(cls, 'single');
          X = randn(mx, d, cls); Y = randn(300 + randi(200), d, cls); X(7, 3) = NaN; X(mx - 1, :) = X(5, :);
          Xin = X;
          for m = {'euclidean', 'cosine', 'cityblock'}
            for largest = [false true]
              opt = {'Smallest', 'Largest'}{largest + 1}; K = 1 + randi(40);
              [D, I, info] = gd_pdist2(X, Y, m{1}, opt, K, 'Variant', 'fused');
              assert(! isempty(strfind(info.kernel, 'units')), info.kernel);
              [D1, I1] = gd_pdist2(gdArray(X), Y, m{1}, opt, K, 'Variant', 'fused');
              assert(isequaln(D, gather(D1)) && isequal(I, gather(I1)), [cls ' ' m{1} ' against a gdArray X']);
              F = gd_pdist2(X, Y, m{1}, 'Variant', 'tuned');
              if (largest) [S, J] = sort(F, 1, 'descend'); else [S, J] = sort(F, 1); end
              assert(isequaln(D, S(1:K,:)) && isequal(I, J(1:K,:)), [cls ' ' m{1} ' against the sort']);
              printf('%s %s %s K = %d: %s\n', cls, m{1}, opt, K, info.kernel);
            end
          end
          setenv('GD_KNN_UNITS', '1');
          [D2, I2, info] = gd_pdist2(X, Y, 'Smallest', 9, 'Variant', 'fused');
          unsetenv('GD_KNN_UNITS');
          assert(isempty(strfind(info.kernel, 'units')), info.kernel);
          [D3, I3] = gd_pdist2(X, Y, 'Smallest', 9, 'Variant', 'fused');
          assert(isequal(D2, D3) && isequal(I2, I3));
          ## a memory cap: fewer splits, so fewer or no units
          setenv('GD_GPU_MEM_LIMIT', sprintf('%d', numel(X) * (4 + 4 * strcmp(cls, 'double')) + 12e6));
          [D4, I4, info] = gd_pdist2(X, Y, 'Smallest', 9, 'Variant', 'fused');
          unsetenv('GD_GPU_MEM_LIMIT');
          printf('capped: %s\n', info.kernel);
          assert(isequal(D4, D3) && isequal(I4, I3));
          assert(isequaln(X, Xin));
        end
        disp('units agree')" "units agree"
}

@test "gdArrays in, gdArrays out; int32 indices; gd_knnsearch's orientation" {
    octave_ok "warning('off', 'gd:nogpu'); X = randn(3000, 8); Y = randn(500, 8);
        [D0, I0] = gd_pdist2(X, Y, 'Smallest', 7, 'Variant', 'cpu');
        gX = gdArray(X); gY = gdArray(Y);
        [D, I, info] = gd_pdist2(gX, gY, 'Smallest', 7, 'IndexClass', 'int32');
        assert(isa(D, 'gdArray') && isa(I, 'gdArray') && info.kept == gd_info().available);
        assert(strcmp(classUnderlying(I), 'int32'));
        assert(norm(gather(D) - D0, 1) <= 1e-12 * norm(D0, 1));
        [Idx, Dk] = gd_knnsearch(gX, Y, 'K', 7);
        assert(isa(Idx, 'gdArray') && isequal(size(Idx), [500 7]));
        assert(isequal(gather(Idx), double(gather(I)).'));
        disp('resident ok')" "resident ok"
}

@test "gemm on the GPU: fused's D and I bit for bit (single, double, euclidean, squared, smallest, largest; ties, duplicates, clusters)" {
    require_gpu
    octave_ok "n = check_knn_gemm('euclidean', {{20000, 300, 16, 10}, {9000, 257, 3, 1}, {40000, 700, 128, 64}, {30001, 129, 37, 100}});
        printf('%d searches identical to fused\n', n)" "128 searches identical to fused"
}

@test "gemm on the GPU, the expansion's worst cases: far from the origin, overflowing candidates, NaN and Inf; fused's results and the fallback counted" {
    require_gpu
    octave_ok "
        % far from the origin, differences near 1: the expansion in the
        % class loses every digit, the centred rows none
        X = 1e9 + randn(30000, 8); Y = X(1:300, :) + randn(300, 8) / 10;
        [D0, I0] = gd_pdist2(X, Y, 'Smallest', 10, 'Variant', 'fused');
        [D, I, info] = gd_pdist2(X, Y, 'Smallest', 10, 'Variant', 'gemm');
        assert(isequal(D, D0) && isequal(I, I0)); printf('far, double: %s\n', info.kernel);
        Xs = single(1e4 + randn(30000, 8)); Ys = Xs(1:300, :) + single(randn(300, 8) / 10);
        [D0, I0] = gd_pdist2(Xs, Ys, 'Smallest', 10, 'Variant', 'fused');
        [D, I, info] = gd_pdist2(Xs, Ys, 'Smallest', 10, 'Variant', 'gemm');
        assert(isequal(D, D0) && isequal(I, I0)); printf('far, single: %s\n', info.kernel);
        % every point the same: every tile whole, every query past the
        % candidates it can take: all of them by fused
        X = ones(40000, 4, 'single'); Y = ones(50, 4, 'single');
        [D0, I0] = gd_pdist2(X, Y, 'Smallest', 5, 'Variant', 'fused');
        [D, I, info] = gd_pdist2(X, Y, 'Smallest', 5, 'Variant', 'gemm');
        assert(isequal(D, D0) && isequal(I, I0)); disp(info.kernel);
        assert(strcmp(info.kernel, 'certified candidates, 50 of 50 queries by fused'));
        % half the queries in a block of equal points, half not
        X = randn(40000, 4, 'single'); X(1:8000, :) = 0; Y = [zeros(20, 4, 'single'); randn(30, 4, 'single')];
        [D0, I0] = gd_pdist2(X, Y, 'Smallest', 5, 'Variant', 'fused');
        [D, I, info] = gd_pdist2(X, Y, 'Smallest', 5, 'Variant', 'gemm');
        assert(isequal(D, D0) && isequal(I, I0)); disp(info.kernel);
        f = sscanf(info.kernel, 'certified candidates, %d of'); assert(f >= 20 && f < 50);
        % a query with NaN or Inf: that query by fused; X with one: all
        X = randn(20000, 6); Y = randn(40, 6); Y(3, 2) = NaN; Y(7, 1) = Inf;
        [D0, I0] = gd_pdist2(X, Y, 'Smallest', 4, 'Variant', 'fused');
        [D, I, info] = gd_pdist2(X, Y, 'Smallest', 4, 'Variant', 'gemm');
        assert(isequaln(D, D0) && isequal(I, I0)); disp(info.kernel);
        assert(strcmp(info.kernel, 'certified candidates, 2 of 40 queries by fused'));
        X(5, 5) = -Inf;
        [D0, I0] = gd_pdist2(X, Y, 'Smallest', 4, 'Variant', 'fused');
        [D, I, info] = gd_pdist2(X, Y, 'Smallest', 4, 'Variant', 'gemm');
        assert(isequaln(D, D0) && isequal(I, I0)); disp(info.kernel);
        assert(strncmp(info.kernel, 'fused (gemm: X holds NaN or Inf)', 32));
        % what gemm leaves to fused, said so: K past 256, too few points,
        % another metric is an error
        X = randn(5000, 3, 'single'); Y = randn(20, 3, 'single');
        for K = [300 5000]
          [D0, I0] = gd_pdist2(X, Y, 'Smallest', K, 'Variant', 'fused');
          [D, I, info] = gd_pdist2(X, Y, 'Smallest', K, 'Variant', 'gemm');
          assert(isequal(D, D0) && isequal(I, I0) && strncmp(info.kernel, 'fused (gemm: ', 13)); disp(info.kernel);
        end
        [D, I, info] = gd_pdist2(X, Y, 'cityblock', 'Smallest', 3, 'Variant', 'gemm'); disp(info.kernel);
        assert(strncmp(info.kernel, 'fused (gemm: only euclidean', 27));
        % the largest far from the origin (-f's bounds, a negative tau)
        Xf = 1e9 + randn(30000, 8); Yf = Xf(1:300, :) + randn(300, 8) / 10;
        [D0, I0] = gd_pdist2(Xf, Yf, 'Largest', 10, 'Variant', 'fused');
        [D, I, info] = gd_pdist2(Xf, Yf, 'Largest', 10, 'Variant', 'gemm');
        assert(isequal(D, D0) && isequal(I, I0)); printf('far, largest: %s\n', info.kernel);
        % a memory cap that leaves gemm no room (its forms of X and the
        % records need about 10 MB here) but fused enough: fused, the
        % same result
        X = randn(30000, 16, 'single'); Y = randn(200, 16, 'single');
        [D0, I0] = gd_pdist2(X, Y, 'Smallest', 4, 'Variant', 'fused');
        setenv('GD_GPU_MEM_LIMIT', sprintf('%d', 30000 * 16 * 4 * 3 + 6e6));
        [D, I, info] = gd_pdist2(X, Y, 'Smallest', 4, 'Variant', 'gemm');
        unsetenv('GD_GPU_MEM_LIMIT'); disp(info.kernel);
        assert(isequal(D, D0) && isequal(I, I0) && strncmp(info.kernel, 'fused (gemm: not enough GPU memory)', 35));
        disp('worst cases ok')" "worst cases ok"
}

@test "gemm for cosine and correlation: fused's D and I bit for bit (ties, scaled copies, every direction close; smallest, largest); zero rows and NaN by fused, counted" {
    require_gpu
    octave_ok "n = check_knn_gemm('cosine', {{20000, 300, 16, 10}, {9000, 257, 3, 1}, {30001, 129, 128, 100}});
        printf('%d searches identical to fused\n', n);
        % a query with a zero row or NaN: that query by fused; X with a
        % zero row: every query
        X = randn(20000, 6, 'single'); Y = randn(40, 6, 'single'); Y(3, :) = 0; Y(9, 4) = NaN;
        [D0, I0] = gd_pdist2(X, Y, 'cosine', 'Smallest', 4, 'Variant', 'fused');
        [D, I, info] = gd_pdist2(X, Y, 'cosine', 'Smallest', 4, 'Variant', 'gemm');
        assert(isequaln(D, D0) && isequal(I, I0)); disp(info.kernel);
        assert(strcmp(info.kernel, 'certified candidates, 2 of 40 queries by fused'));
        X(11, :) = 0;
        [D0, I0] = gd_pdist2(X, Y, 'cosine', 'Smallest', 4, 'Variant', 'fused');
        [D, I, info] = gd_pdist2(X, Y, 'cosine', 'Smallest', 4, 'Variant', 'gemm');
        assert(isequaln(D, D0) && isequal(I, I0)); disp(info.kernel);
        assert(strncmp(info.kernel, 'fused (gemm: a row of X with NaN', 32));
        % spearman (cosine on ranks) and gd_knnsearch
        X = randn(20000, 12); Y = randn(100, 12);
        [D0, I0] = gd_pdist2(X, Y, 'spearman', 'Smallest', 7, 'Variant', 'fused');
        [D, I, info] = gd_pdist2(X, Y, 'spearman', 'Smallest', 7, 'Variant', 'gemm');
        assert(isequal(D, D0) && isequal(I, I0)); disp(info.kernel);
        [I0, D0] = gd_knnsearch(X, Y, 'K', 9, 'Distance', 'cosine', 'Variant', 'fused');
        [I, D] = gd_knnsearch(X, Y, 'K', 9, 'Distance', 'cosine', 'Variant', 'gemm');
        assert(isequal(D, D0) && isequal(I, I0)); disp('cosine ok')" "96 searches identical to fused"
}

@test "gemm: gdArrays in and out, gd_knnsearch, two simulated devices, and 'auto' on a large search" {
    require_gpu
    octave_ok "X = randn(60000, 32, 'single'); Y = randn(3000, 32, 'single');
        [D0, I0] = gd_pdist2(X, Y, 'Smallest', 16, 'Variant', 'fused');
        [D, I, info] = gd_pdist2(gdArray(X), gdArray(Y), 'Smallest', 16, 'Variant', 'gemm', 'IndexClass', 'int32');
        assert(isa(D, 'gdArray') && isequal(gather(D), D0) && isequal(double(gather(I)), I0));
        [Idx, Dk] = gd_knnsearch(X, Y, 'K', 16, 'Variant', 'gemm');
        assert(isequal(Idx, I0.') && isequal(Dk, D0.'));
        setenv('GD_SIM_DEVICES', '2');
        [D, I, info] = gd_pdist2(X, Y, 'Smallest', 16, 'Variant', 'gemm', 'Devices', [1 2]);
        [D2, I2] = gd_pdist2(X(1:50000, :), Y, 'Smallest', 16, 'Variant', 'gemm', 'Devices', [1 2]);
        unsetenv('GD_SIM_DEVICES');
        assert(isequal(D, D0) && isequal(I, I0)); printf('two devices: %s\n', info.kernel);
        [D3, I3] = gd_pdist2(X(1:50000, :), Y, 'Smallest', 16, 'Variant', 'fused');
        assert(isequal(D2, D3) && isequal(I2, I3));
        X = randn(65536, 128, 'single'); Y = randn(4096, 128, 'single');
        [D, I, info] = gd_pdist2(X, Y, 'Smallest', 10);
        assert(strcmp(info.variant, 'gemm')); printf('auto: %s, %s\n', info.variant, info.kernel);
        [D0, I0] = gd_pdist2(X, Y, 'Smallest', 10, 'Variant', 'fused');
        assert(isequal(D, D0) && isequal(I, I0));
        [D, I, info] = gd_pdist2(X, Y, 'Largest', 10);
        assert(strcmp(info.variant, 'gemm'));
        [D0, I0] = gd_pdist2(X, Y, 'Largest', 10, 'Variant', 'fused');
        assert(isequal(D, D0) && isequal(I, I0));
        [D, I, info] = gd_pdist2(X, Y, 'Smallest', 100);
        assert(strcmp(info.variant, 'fused')); printf('auto at 5 tiles a neighbour: %s\n', info.variant);
        disp('gemm everywhere')" "gemm everywhere"
}

@test "kNN errors: K, metric, sizes, classes" {
    octave_error "X = rand(5, 2); Y = rand(3, 2);" "'gd:input', 'positive whole number', @gd_pdist2, X, Y, 'Smallest', 0"
    octave_error "X = rand(5, 2); Y = rand(3, 2);" "'gd:input', 'positive whole number', @gd_pdist2, X, Y, 'Largest', 2.5"
    octave_error "X = rand(5, 2); Y = rand(3, 2);" "'gd:input', 'positive whole number', @gd_pdist2, X, Y, 'Smallest', [1 2]"
    octave_error "X = rand(5, 2); Y = rand(3, 2);" "'gd:input', 'positive whole number', @gd_pdist2, X, Y, 'Smallest', NaN"
    octave_error "X = rand(5, 2); Y = rand(3, 3);" "'gd:size', 'same number of columns', @gd_pdist2, X, Y, 'Smallest', 2"
    octave_error "X = rand(5, 2); Y = rand(3, 2);" "'gd:input', 'unknown metric', @gd_pdist2, X, Y, 'taxi', 'Smallest', 2"
    octave_error "X = rand(5, 2); Y = rand(3, 2);" "'gd:variant', 'fused', @gd_pdist2, X, Y, 'Smallest', 2, 'Variant', 'tuned'"
    octave_error "X = rand(5, 2); Y = rand(3, 2);" "'gd:input', 'IndexClass', @gd_pdist2, X, Y, 'Smallest', 2, 'IndexClass', 'int8'"
    octave_error "X = rand(5, 2); Y = int8(rand(3, 2));" "'gd:input', 'Y', @gd_pdist2, X, Y, 'Smallest', 2"
}

@test "empty sides: no rows of X or of Y" {
    octave_ok "[D, I] = gd_pdist2(zeros(0, 3), rand(4, 3), 'Smallest', 5);
        assert(size(D), [0 4]); assert(size(I), [0 4]);
        [D, I] = gd_pdist2(rand(6, 3), zeros(0, 3), 'Smallest', 5);
        assert(size(D), [5 0]); assert(size(I), [5 0]);
        [D, I] = gd_pdist2(rand(6, 0), rand(2, 0), 'Smallest', 2);
        assert(D, zeros(2, 2)); assert(I, [1 1; 2 2]); disp('empty ok')" "empty ok"
}

@test "no features: a million empty rows each side answer at once, the first rows of X, every metric's empty distance" {
    # every pair ties at the metric's value on two empty rows: the first K
    # rows of X, at once (the search over all of them was 10^12 pairs)
    octave_ok "tic; [I, D] = gd_knnsearch(zeros(1e6, 0), zeros(1e6, 0));
        assert(I, ones(1e6, 1)); assert(D, zeros(1e6, 1));
        [D, I] = gd_pdist2(zeros(1e6, 0), single(zeros(3e5, 0)), 'Largest', 3);
        assert(I, repmat((1:3)', 1, 3e5)); assert(D, zeros(3, 3e5, 'single'));
        assert(toc < 20);
        for m = {'euclidean', 'squaredeuclidean', 'seuclidean', 'cityblock', 'minkowski', 'chebychev', 'cosine', 'hamming', 'jaccard'}
          for l = {'Smallest', 'Largest'}
            [D, I] = gd_pdist2(zeros(9, 0), zeros(4, 0), m{1}, l{1}, 5);
            assert(I, repmat((1:5)', 1, 4));
            F = gd_pdist2(zeros(9, 0), zeros(4, 0), m{1});   # every pair's value
            assert(D, F(1:5, :));
          endfor
        endfor
        expect_error('gd:input', 'positive definite', @gd_knnsearch, zeros(5, 0), zeros(3, 0), 'Distance', 'mahalanobis');
        expect_error('gd:input', 'positive definite', @gd_pdist, zeros(5, 0), 'mahalanobis');
        disp('no features ok')" "no features ok"
}

@test "examples/tsne_affinities.m runs: the neighbours agree with the sort, P is a distribution; the exact affinities as gdArrays are the host's" {
    cd "$GD_ROOT"
    run env GD_EXAMPLE_N=1200 octave-cli -q --no-gui --no-init-file --no-history examples/tsne_affinities.m
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"neighbours agree: exact"* ]]
    [[ "$output" == *"each point its own nearest: true"* ]]
    [[ "$output" == *"symmetric true, sum 1.0000000000"* ]]
    [[ "$output" == *"exact affinities agree: yes"* ]]
    [[ "$output" == *", sum 1.0000"* ]]
}

@test "gd_rangesearch on the GPU: the lists of the full matrix's sort, single and double, gdArrays, the range kernels and the K-nearest searches" {
    require_gpu
    octave_ok "for cls = {'single', 'double'}
          X = randn(5000, 8, cls{1}); Y = randn(300, 8, cls{1});
          [~, Dk] = gd_knnsearch(X, Y, 'K', 80); r = double(median(Dk(:,end)));
          [Idx, D, info] = gd_rangesearch(X, Y, r);
          assert(info.searches == 1 && strcmp(info.variant, 'fused'));
          [I0, D0] = gd_knnsearch(X, Y, 'K', 5000, 'Variant', 'fused');
          for q = 1:300
            n = sum(D0(q,:) <= r);
            assert(isequal(Idx{q}, I0(q,1:n)) && isequal(D{q}, D0(q,1:n)));
          end
          [Ig, Dg] = gd_rangesearch(gdArray(X), gdArray(Y), r);
          assert(isequal(Ig, Idx) && isequal(Dg, D));
          [Ik, Dk, info] = gd_rangesearch(X, Y, r, 'Variant', 'gemm');
          assert(info.searches >= 2 && isequal(Ik, Idx) && isequal(Dk, D));
        end
        disp('range ok')" "range ok"
}

@test "gd_rangesearch's range kernels: every metric, single and double, the sorted distance matrix of gd_pdist2's tuned (and the cpu variant of its cpu); ties, NaN rows, overflowing sums, radius 0 and Inf" {
    require_gpu
    octave_ok "metrics = {{'euclidean'}, {'squaredeuclidean'}, {'cityblock'}, {'chebychev'}, ...
                    {'minkowski', 3}, {'minkowski', 1.5}, {'cosine'}, {'correlation'}, ...
                    {'spearman'}, {'hamming'}, {'jaccard'}, {'seuclidean'}, {'mahalanobis'}};
        for cls = {'single', 'double'}
          for m = 1:numel(metrics)
            mt = metrics{m};
            ro = {'Distance', mt{1}};
            if numel(mt) > 1, ro = [ro, {'P', mt{2}}]; end
            if any(strcmp(mt{1}, {'hamming', 'jaccard'}))
              X = cast(randi([0 2], 700, 5), cls{1}); Y = cast(randi([0 2], 90, 5), cls{1});
            else
              X = cast(randi([-3 3], 700, 5), cls{1}); Y = [X(1:40,:); cast(randn(50, 5), cls{1})];
            end
            if ! any(strcmp(mt{1}, {'seuclidean', 'mahalanobis'})), X(7,:) = NaN; Y(3,2) = NaN; end
            if strcmp(cls{1}, 'single') && m == 1, X(9,:) = 1e20; Y(5,:) = 1e20; end
            [~, Dk] = gd_knnsearch(X, Y, 'K', 30, ro{:});
            r = double(median(Dk(isfinite(Dk(:,end)),end)));
            for rr = [r, 0, Inf]
              for v = {'fused', 'cpu'}
                [I1, D1, i1] = gd_rangesearch(X, Y, rr, ro{:}, 'Variant', v{1});
                assert(strcmp(i1.variant, v{1}) && i1.searches == 1);
                F = gd_pdist2(X, Y, mt{:}, 'Variant', {'tuned', 'cpu'}{1 + strcmp(v{1}, 'cpu')});
                for q = 1:rows(Y)
                  h = find(F(:,q) <= rr); [s, o] = sort(F(h,q)); h = h(o)';
                  if ! (isequal(I1{q}, h) && isequal(D1{q}, s'))
                    error('%s %s %s r=%g query %d: not the sorted matrix', v{1}, cls{1}, mt{1}, rr, q);
                  end
                end
              end
            end
          end
        end
        disp('kernels ok')" "kernels ok"
}

@test "gd_rangesearch: a radius that takes more than the GPU may hold is gd:memory after the counts, nothing left behind; a smaller one runs under the same cap" {
    require_gpu
    octave_ok "X = rand(4000, 4, 'single'); Y = rand(3000, 4, 'single');
        gd_rangesearch(X, Y(1:10,:), 0.1);
        f0 = gd_info().devices(1).memory_held;
        setenv('GD_GPU_MEM_LIMIT', '20000000');
        expect_error('gd:memory', 'the hits', @gd_rangesearch, X, Y, Inf);
        [I, D, info] = gd_rangesearch(X, Y, 0.05);
        unsetenv('GD_GPU_MEM_LIMIT');
        assert(strcmp(info.variant, 'fused') && info.searches == 1);
        assert(sum(cellfun(@numel, I)) > 0);
        assert(gd_info().devices(1).memory_held <= f0);
        disp('capped ok')" "capped ok"
}
