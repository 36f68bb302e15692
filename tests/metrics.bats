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

@test "every metric on the GPU (tuned): the cpu variant's distances, bit for bit but minkowski's (to rounding: the GPU's pow)" {
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

@test "metric errors: parameters, variants, handles" {
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
    octave_error "X = rand(5, 3);" "'gd:input', 'function-handle metric', @gd_pdist, X, @(a, b) 1"
    octave_error "X = rand(5, 3);" "'gd:input', 'unknown metric .taxi.', @gd_pdist2, X, X, 'taxi'"
}
