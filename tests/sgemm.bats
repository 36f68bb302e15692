#!/usr/bin/env bats
# gd_sgemm against double(A)*double(B): every variant, both Edges modes,
# bounded relative error for random operands and exact for small integers
# (check_sgemm.m); bad input.

load helpers

check() { octave_ok "check_sgemm('$1')" "cases within bounds"; }

@test "cpu variant" { check cpu; }
@test "auto variant" { check auto; }

@test "every GPU variant, both Edges modes" {
    require_gpu
    run octave_run "v = gd_sgemm('variants'); for i = find([v.gpu]), check_sgemm(v(i).name); end"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c 'cases within bounds' <<< "$output")" -ge 19 ]
}

@test "a 4097 cube on the GPU: tuned, the article's best K4, k5 and cublas exact on integers" {
    require_gpu
    run octave_run "A = single(randi([-8 8], 4097)); B = single(randi([-8 8], 4097)); E = double(A) * double(B);
        for v = {'tuned', 'k4-128-j4-k4', 'k5', 'cublas'}
          for e = {'pad', 'guard'}
            C = gd_sgemm(A, B, 'Variant', v{1}, 'Edges', e{1});
            assert(isequal(double(C), E), sprintf('%s %s', v{1}, e{1}));
          end
        end; disp('exact')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *exact* ]]
}

@test "sgemm of one array with itself in blocks: uploaded once, the bits of uploading it twice and of one block" {
    require_gpu
    octave_ok "setenv('GD_POISON', '1');
        G = randn(1000, 'single'); G(7, 5) = NaN; G(9, 11) = Inf;
        for v = {'tuned', 'k5', 'k4-128-j4-k4'}
          for e = {'pad', 'guard'}
            setenv('GD_BLOCKS', '1'); C1 = gd_sgemm(G, G, 'Variant', v{1}, 'Edges', e{1});
            setenv('GD_BLOCKS', '3'); C3 = gd_sgemm(G, G, 'Variant', v{1}, 'Edges', e{1});
            setenv('GD_SHARE', 'twice'); Ct = gd_sgemm(G, G, 'Variant', v{1}, 'Edges', e{1}); unsetenv('GD_SHARE');
            assert(isequal(typecast(C3(:), 'uint32'), typecast(C1(:), 'uint32')), '%s %s: blocks differ', v{1}, e{1});
            assert(isequal(typecast(Ct(:), 'uint32'), typecast(C1(:), 'uint32')), '%s %s: twice differs', v{1}, e{1});
          end
        end
        E = double(G) * double(G); ok = isfinite(E);
        assert(max(abs(double(C3(ok)) - E(ok)) ./ max(1, abs(E(ok)))) < 1e-4);
        # some columns of G as B (G(:, 1:300) shares G's memory)
        V = gd_sgemm(G, G(:, 1:300), 'Variant', 'tuned'); okv = ok(:, 1:300); Ev = E(:, 1:300);
        assert(max(abs(double(V(okv)) - Ev(okv)) ./ max(1, abs(Ev(okv)))) < 1e-4);
        unsetenv('GD_BLOCKS'); disp('once same')" "once same"
}

@test "sgemm in blocks of C (copies beside kernels): each variant's bits as in one block; split-k sums in one" {
    require_gpu
    # GD_BLOCKS=3 cuts even a small product into 3 x 3 blocks, each a
    # product of its own on alternating streams; odd sizes leave short
    # last blocks. Fresh random operands, results poisoned first.
    run octave_run "setenv('GD_POISON', '1');
        A = randn(1000, 333, 'single'); B = randn(333, 777, 'single'); A(5, :) = NaN; B(:, 9) = Inf;
        E0 = double(A) * double(B); ok0 = isfinite(E0);
        for v = {'tuned', 'k5', 'k4-128-j4-k4', 'k3-32-i2', 'k1-32', 'cublas'}
          for e = {'pad', 'guard'}
            setenv('GD_BLOCKS', '1'); C1 = gd_sgemm(A, B, 'Variant', v{1}, 'Edges', e{1});
            setenv('GD_BLOCKS', '3'); C3 = gd_sgemm(A, B, 'Variant', v{1}, 'Edges', e{1});
            assert(isequal(typecast(C3(:), 'uint32'), typecast(C1(:), 'uint32')), '%s %s: blocks differ', v{1}, e{1});
          end
        end
        # split-k's slices are each launch's scratch: one block, the same sums
        setenv('GD_SPLIT', '4'); setenv('GD_BLOCKS', '1'); S1 = gd_sgemm(A, B, 'Variant', 'tuned');
        setenv('GD_BLOCKS', '3'); S3 = gd_sgemm(A, B, 'Variant', 'tuned');
        assert(isequal(typecast(S3(:), 'uint32'), typecast(S1(:), 'uint32')));
        # the slices summed in a cluster of their blocks (sm_90 on, up to
        # 8) and by the second kernel: the same sums in the same order
        setenv('GD_BLOCKS', '1');
        for s = [2 3 5 8 16]
          setenv('GD_SPLIT', num2str(s));
          setenv('GD_SPLIT_SUM', 'kernel'); K1 = gd_sgemm(A, B, 'Variant', 'tuned');
          unsetenv('GD_SPLIT_SUM'); Q1 = gd_sgemm(A, B, 'Variant', 'tuned');
          assert(isequal(typecast(Q1(:), 'uint32'), typecast(K1(:), 'uint32')), '%d slices: cluster and kernel sums differ', s);
          assert(max(abs(double(Q1(ok0)) - E0(ok0)) ./ max(1, abs(E0(ok0)))) < 1e-4, '%d slices: wrong', s);
        end
        unsetenv('GD_SPLIT'); unsetenv('GD_BLOCKS');
        E = double(A) * double(B); ok = isfinite(E);
        assert(max(abs(double(C3(ok)) - E(ok)) ./ max(1, abs(E(ok)))) < 1e-4); disp('blocks same')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"blocks same"* ]]
}

@test "double operands are converted to single first" {
    run octave_run "warning('off', 'gd:nogpu'); A = 1 + 2^-30; C = gd_sgemm(A, 1, 'Variant', 'cpu'); assert(class(C), 'single'); assert(C == 1)"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "GPU variants convert doubles too" {
    require_gpu
    run octave_run "A = rand(300, 200); B = rand(200, 100); C = gd_sgemm(A, B, 'Variant', 'tuned'); assert(class(C), 'single'); E = double(single(A)) * double(single(B)); assert(norm(double(C) - E, 'fro') / norm(E, 'fro') < 4 * 200 * eps('single'))"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "cuBLAS handle released by clear functions; next call works" {
    require_gpu
    run octave_run "A = rand(200, 'single'); C1 = gd_sgemm(A, A, 'Variant', 'cublas'); clear functions; C2 = gd_sgemm(A, A, 'Variant', 'cublas'); assert(isequal(C1, C2))"
    echo "$output"
    [ "$status" -eq 0 ]
}

bad() { octave_error "A = rand(4); B = rand(4, 3);" "$1"; }

@test "sgemm: no arguments" { bad "'gd:input', 'gd_sgemm: expected matrices A and B', @gd_sgemm"; }
@test "sgemm: one argument" { bad "'gd:input', 'expected matrices A and B', @gd_sgemm, A"; }
@test "sgemm: too many arguments" { bad "'gd:input', 'too many input arguments', @gd_sgemm, A, A, A"; }
@test "sgemm: classes" {
    for c in int8 uint16 int32 uint64 logical; do
        bad "'gd:input', 'B must be a single or double matrix', @gd_sgemm, A, $c(B)"
    done
}
@test "sgemm: char" { bad "'gd:input', 'A must be a single or double matrix, not char', @gd_sgemm, 'ab', B"; }
@test "sgemm: complex" { bad "'gd:input', 'A must be real', @gd_sgemm, A * 1i, B"; }
@test "sgemm: sparse" { bad "'gd:input', 'A must be a full matrix', @gd_sgemm, sparse(A), B"; }
@test "sgemm: N-D" { bad "'gd:input', 'B must be a 2-D matrix', @gd_sgemm, A, rand(4, 2, 2)"; }
@test "sgemm: cell" { bad "'gd:input', 'not a cell array', @gd_sgemm, num2cell(A), B"; }
@test "sgemm: inner dimensions" { bad "'gd:size', 'inner dimensions must agree: A is 4x3, B is 4x3', @gd_sgemm, B, B"; }
@test "sgemm: unknown variant" { bad "'gd:variant', 'unknown variant .k9.', @gd_sgemm, A, B, 'Variant', 'k9'"; }
@test "sgemm: unknown option" { bad "'gd:input', 'unknown option .Tile.', @gd_sgemm, A, B, 'Tile', 8"; }
@test "sgemm: bad Edges" { bad "'gd:input', 'Edges. must be .pad. or .guard.', @gd_sgemm, A, B, 'Edges', 'clip'"; }
