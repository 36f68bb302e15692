#!/usr/bin/env bats
# Every metric of the statistics package in gd_pdist, gd_pdist2 and the
# nearest-neighbour forms (check_metrics.m): against the statistics
# package's pdist, special rows, NaN; gdArrays; metric errors.

load helpers

check() { octave_ok "check_metrics('$1', '$2')" "cases within bounds"; }

@test "metrics cpu, single" { check cpu single; }
@test "metrics cpu, double" { check cpu double; }
@test "metrics auto, double" { check auto double; }
@test "metrics auto on the GPU, single" { require_gpu; check auto single; }
@test "metrics tuned and fused on the GPU, double" { require_gpu; check tuned double; }

@test "every metric on the GPU (tuned): the cpu variant's distances, bit for bit but minkowski's (to rounding: the GPU's powers)" {
    require_gpu
    octave_ok "check_gpu_metrics()" "GPU metric cases agree"
}

@test "prepared metrics on gdArrays give gdArrays, equal to the host's" {
    octave_ok "X = randn(300, 6); Y = randn(40, 6);
        for m = {'seuclidean', 'mahalanobis', 'correlation', 'spearman', 'cosine', 'cityblock'}
          D = gd_pdist2(gdArray(X), gdArray(Y), m{1});
          assert(isa(D, 'gdArray'), m{1});
          assert(gather(D), gd_pdist2(X, Y, m{1}), 1e-12);
          P = gd_pdist(gdArray(X), m{1});
          assert(isa(P, 'gdArray'), m{1});
          assert(gather(P), gd_pdist(X, m{1}), 1e-12);
        end
        disp('resident metrics ok')" "resident metrics ok"
}

# Distances do not change when every row moves by the same offset: the
# prepared metrics centre the columns (seuclidean, mahalanobis) and the
# rows (correlation) before they scale, so the rows at an offset give the
# small rows' distances to rounding (scaled first, seuclidean lost 5,000
# ulp in single at 1e4 and 7e-5 in double at 1e12)
offsets() {
    octave_ok "warning('off', 'gd:nogpu');
        for t = 1:3
          X0 = randi([-5 5], 40, 3); Y0 = randi([-5 5], 7, 3);
          for cs = {{'single', 1e4, 2e-6}, {'double', 1e8, 1e-14}, {'double', 1e12, 1e-14}}
            [c, off, tol] = cs{1}{:};
            X = cast(X0 + off, c); Y = cast(Y0 + off, c); Xin = X;
            for m = {'seuclidean', 'mahalanobis', 'correlation'}
              e = gd_pdist(X0, m{1}, 'Variant', '$1'); a = gd_pdist(X, m{1}, 'Variant', '$1');
              e2 = gd_pdist2(X0, Y0, m{1}, 'Variant', '$1'); a2 = gd_pdist2(X, Y, m{1}, 'Variant', '$1');
              err = max([abs(double(a) - e) ./ max(e, 1), abs(double(a2(:)) - e2(:))' ./ max(e2(:), 1)']);
              assert(strcmp(class(a), c) && isequal(X, Xin));
              if (!(err <= tol))
                error('%s %s at %g: %g from the rows without the offset', m{1}, c, off, err);
              end
            end
          end
        end; disp('offsets ok')" "offsets ok"
}
@test "prepared metrics at an offset: the distances without it, cpu" { offsets cpu; }
@test "prepared metrics at an offset: the distances without it, GPU" { require_gpu; offsets tuned; }

@test "metric errors: parameters, variants, handles" {
    octave_error "X = rand(5, 3);" "'gd:input', 'unknown option .P.', @gd_pdist, X, 'minkowski', 3, 'P', 1"
    octave_error "X = rand(5, 3);" "'gd:input', 'unknown option .P.', @gd_pdist2, X, X, 'P', 1"
    octave_ok "X = rand(5, 3); [~, D] = gd_knnsearch(X, X, 'Distance', 'minkowski', 'P', 3); disp('knn P ok')" "knn P ok"
    octave_error "X = rand(5, 3);" "'gd:input', 'takes no parameter', @gd_pdist, X, 'cosine', 2"
    octave_error "X = rand(5, 3);" "'gd:input', 'positive real scalar', @gd_pdist, X, 'minkowski', -1"
    octave_error "X = rand(5, 3);" "'gd:input', 'positive real scalar', @gd_pdist, X, 'minkowski', [1 2]"
    octave_error "X = rand(5, 3);" "'gd:input', 'non-negative vector of 3', @gd_pdist, X, 'seuclidean', [1 2]"
    octave_error "X = rand(5, 3);" "'gd:input', 'real 3x3 matrix', @gd_pdist, X, 'mahalanobis', eye(2)"
    octave_error "X = rand(5, 3);" "'gd:input', 'symmetric positive definite', @gd_pdist, X, 'mahalanobis', -eye(3)"
    octave_error "X = rand(5, 1);" "'gd:input', 'at least 2 columns', @gd_pdist, X, 'spearman'"
    octave_error "X = rand(5, 70000, 'single');" "'gd:variant', 'jaccard in single on the GPU counts at most 65535 features', @gd_pdist, X, 'jaccard', 'Variant', 'tuned'"
    octave_error "X = rand(5, 3);" "'gd:variant', 'the others run on .tuned. and .cpu.', @gd_pdist2, X, X, 'minkowski', 3, 'Variant', 'naive'"
    octave_error "X = rand(5, 3);" "'gd:variant', 'the others run on .tuned. and .cpu.', @gd_pdist2, X, X, 'hamming', 'Variant', 'naive'"
    octave_error "X = rand(5, 3);" "'gd:variant', 'the others run on .tuned. and .cpu.', @gd_pdist2, X, X, 'cityblock', 'Variant', 'naive'"
    octave_error "X = rand(5, 3);" "'gd:variant', 'the others run on .tuned. and .cpu.', @gd_pdist, X, 'chebychev', 'Variant', 'tiled'"
    octave_error "X = rand(5, 70000, 'single');" "'gd:variant', 'jaccard in single on the GPU counts at most 65535 features', @gd_pdist2, X, X, 'jaccard', 'Smallest', 2, 'Variant', 'fused'"
    octave_error "X = rand(5, 3);" "'gd:input', 'the distance function must return a real column of 4', @gd_pdist, X, @(a, b) 1"
    octave_error "X = rand(5, 3);" "'gd:input', 'unknown metric .taxi.', @gd_pdist2, X, X, 'taxi'"
}

# A distance given as a function handle: the statistics package's pdist
# calls it the same way, so the results are its own to the bit; gdArray
# operands give gdArrays; a search keeps the K best between blocks
@test "a function-handle distance: the statistics package's pdist to the bit, pdist2 by rows, the search by sorting, gdArrays" {
    octave_ok "warning('off', 'all'); pkg load statistics;
        X = randn(120, 5); Y = randn(30, 5);
        f = @(x, Z) sqrt(sum(abs(x - Z) .^ 3, 2)) + 0.1 * sum(x) * ones(rows(Z), 1);
        assert(isequal(gd_pdist(X, f), pdist(X, f)));
        assert(isequal(gd_pdist(single(X), f), pdist(single(X), f)));
        F = zeros(120, 30);
        for i = 1:120, F(i,:) = f(X(i,:), Y)'; end
        assert(isequal(gd_pdist2(X, Y, f), F));
        [s, k] = sort(F, 1);
        [D, I] = gd_pdist2(X, Y, f, 'Smallest', 11);
        assert(isequal({D, I}, {s(1:11,:), k(1:11,:)}));
        [Ik, Dk] = gd_knnsearch(X, Y, 'K', 11, 'Distance', f);
        assert(isequal({Dk, Ik}, {D', I'}));
        G = gd_pdist2(gdArray(X), Y, f);
        assert(isa(G, 'gdArray') && isequal(gather(G), F));
        disp('handles ok')" "handles ok"
}
