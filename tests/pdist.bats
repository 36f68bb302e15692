#!/usr/bin/env bats
# gd_pdist and gd_pdist2 against the Octave formula and the statistics
# package (check_pdist.m): every variant, single and double; large n in
# panels; bad input.

load helpers

check() { octave_ok "check_pdist('$1', '$2')" "cases within bounds"; }

@test "pdist cpu, single" { check cpu single; }
@test "pdist cpu, double" { check cpu double; }
@test "pdist auto, single" { check auto single; }
@test "pdist naive on the GPU, single" { require_gpu; check naive single; }
@test "pdist naive on the GPU, double" { require_gpu; check naive double; }
@test "pdist tiled on the GPU, single" { require_gpu; check tiled single; }
@test "pdist tiled on the GPU, double" { require_gpu; check tiled double; }
@test "pdist tuned on the GPU, single" { require_gpu; check tuned single; }
@test "pdist tuned on the GPU, double" { require_gpu; check tuned double; }
@test "pdist dmma on the GPU, single" { require_gpu; check dmma single; }
@test "dmma: correctly rounded against the exact distances; adversarial sets; the count" {
    require_gpu
    octave_ok "check_dmma(96)" "adversarial sets ok"
}

@test "panels: a GPU memory cap splits the triangle; every variant agrees with the whole" {
    require_gpu
    run octave_run "X = rand(3001, 40, 'single'); E = gd_pdist(X, 'Variant', 'cpu');
        setenv('GD_GPU_MEM_LIMIT', sprintf('%d', 3001 * 40 * 4 + 3e6));
        for v = {'naive', 'tiled', 'tuned'}
          D = gd_pdist(X, 'Variant', v{1});
          assert(norm(D - E) <= 1e-5 * norm(E), v{1});
        end
        unsetenv('GD_GPU_MEM_LIMIT'); disp('panels agree')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"panels agree"* ]]
}

@test "the triangular index map is exact past 2^31 pairs (n = 65540, d = 1)" {
    require_gpu
    run octave_run "n = 65540; X = single((1:n)'); D = gd_pdist(X, 'squaredeuclidean', 'Variant', 'naive');
        assert(numel(D), n * (n - 1) / 2);
        t = [1, 2, n - 1, n, 2^31 - 7, 2^31 + 5, numel(D) - 1, numel(D)];
        for q = t
          j = find(cumsum(n - 1:-1:1) >= q, 1); s = sum(n - 1:-1:n - j + 1);
          i = q - s + j;
          assert(D(q), single((i - j)^2), sprintf('index %d', q));
        end; disp('map exact')"
    echo "$output"
    [ "$status" -eq 0 ]
}

bad() { octave_error "X = rand(5, 3);" "$1"; }

@test "pdist: no arguments" { bad "'gd:input', 'gd_pdist: expected a matrix X', @gd_pdist"; }
@test "pdist: too many arguments" { bad "'gd:input', 'too many input arguments', @gd_pdist, X, X"; }
@test "pdist: unknown metric" {
    bad "'gd:input', 'unknown metric .taxi. [(]metrics: .euclidean.', @gd_pdist, X, 'taxi'"
}
@test "pdist: a metric comes before the options" { bad "'gd:input', 'the metric .euclidean. must come right after the data', @gd_pdist, X, 'Variant', 'naive', 'euclidean'"; }
@test "pdist: classes" {
    for c in int8 uint32 char; do
        bad "'gd:input', 'X must be a single or double matrix', @gd_pdist, $c(X)"
    done
    # logical data as the statistics package takes it: as double
    octave_ok "warning('off', 'gd:nogpu'); L = rand(9, 4) > 0.5;
        assert(isequal(gd_pdist(L, 'hamming'), gd_pdist(double(L), 'hamming'))); disp('logical ok')" "logical ok"
}
@test "pdist: complex, N-D, cell refused; sparse taken as full (as the statistics package)" {
    bad "'gd:input', 'X must be real', @gd_pdist, X * 1i"
    octave_ok "warning('off', 'gd:nogpu'); S = sprand(12, 5, 0.4);
        assert(isequal(gd_pdist(S), gd_pdist(full(S))));
        assert(isequal(gd_pdist2(S, S(1:3,:), 'cityblock'), gd_pdist2(full(S), full(S(1:3,:)), 'cityblock')));
        assert(isequal(gd_pdist(logical(S)), gd_pdist(double(logical(S))))); disp('sparse ok')" "sparse ok"
    bad "'gd:input', 'X must be a 2-D matrix', @gd_pdist, rand(2, 2, 2)"
    bad "'gd:input', 'not a cell array', @gd_pdist, num2cell(X)"
}
@test "pdist: unknown variant and option" {
    bad "'gd:variant', 'unknown variant .fast.', @gd_pdist, X, 'Variant', 'fast'"
    bad "'gd:input', 'unknown option .Tile.', @gd_pdist, X, 'euclidean', 'Tile', 8"
}
@test "pdist2: operands" {
    bad "'gd:input', 'gd_pdist2: expected matrices X and Y', @gd_pdist2, X"
    bad "'gd:size', 'same number of columns: X is 5x3, Y is 3x5', @gd_pdist2, X, X'"
    bad "'gd:input', 'Y must be a single or double matrix, not int8', @gd_pdist2, X, int8(X)"
    bad "'gd:input', 'unknown metric .cosinus.', @gd_pdist2, X, X, 'cosinus'"
}

@test "euclidean pairs whose sum of squares overflows or underflows: every GPU variant rescues them" {
    require_gpu
    octave_ok "for c = {'single', 'double'}
          big = realmax(c{1}) ^ 0.75; tiny = realmin(c{1}) ^ 0.75;
          X = randn(300, 20, c{1}); X(1:40, :) *= big; X(41:80, :) *= tiny; X(81, :) = X(41, :);
          X(82, :) = X(1, :); Y = randn(70, 20, c{1}); Y(1:30, :) *= big; Y(31:60, :) *= tiny;
          ref = gd_pdist(X, 'Variant', 'cpu'); ref2 = gd_pdist2(X, Y, 'Variant', 'cpu');
          assert(all(isfinite(ref)) && all(isfinite(ref2(:))));
          assert(nnz(ref == 0), 2);              % the two copied rows, exactly 0
          for v = {'naive', 'tiled', 'tuned'}
            D = gd_pdist(X, 'Variant', v{1});
            assert(all(isfinite(D)) && nnz(D == 0) == 2, v{1});
            assert(D, ref, -8 * eps(c{1}));
          end
          for v = {'naive', 'tuned'}
            D2 = gd_pdist2(X, Y, 'Variant', v{1});
            assert(D2, ref2, -8 * eps(c{1}));
          end
          % ordinary data after a rescue: the flag is down again
          Z = randn(500, 30, c{1}); assert(gd_pdist(Z), gd_pdist(Z, 'Variant', 'cpu'), -8 * eps(c{1}));
        end; disp('rescued')" rescued
}
