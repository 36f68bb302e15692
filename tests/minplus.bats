#!/usr/bin/env bats
# gd_minplus against the Octave expression, exactly: every variant, single
# and double, over the shapes and inputs of check_minplus.m.

load helpers

check() { octave_ok "check_minplus('$1', '$2')" "cases exact"; }

@test "cpu variant, single, exact" { check cpu single; }
@test "cpu variant, double, exact" { check cpu double; }
@test "auto variant, single, exact" { check auto single; }
@test "auto variant, double, exact" { check auto double; }

# a product of a few outputs and many terms runs its terms in one part a
# host thread, the parts folded in k order: the first term attaining the
# minimum, NaN terms skipped, all-NaN outputs NaN with K = 1
@test "cpu variant, few outputs of many terms (the terms in parts): exact, with the witness, every kind of class" {
    octave_ok "warning('off', 'gd:nogpu');
        for c = {'single', 'double', 'int8', 'uint16', 'int32', 'int64'}
          for trial = 1:12
            m = randi(3); n = randi(3); k = randi([20000 90000]);
            A = cast(randi([-3 3], m, k), c{1}); B = cast(randi([-3 3], k, n), c{1});
            if any(strcmp(c{1}, {'single', 'double'}))
              A(rand(size(A)) < 0.3) = NaN;
              if trial == 1, A(:) = NaN; elseif trial == 2, A(:, 1:end-1) = NaN; end
            elseif trial == 1
              A(:) = intmax(c{1}); B(:) = 1;
            end
            [R, K] = gd_minplus(A, B, 'Variant', 'cpu');
            R0 = zeros(m, n, c{1}); K0 = zeros(m, n);
            for i = 1:m, for j = 1:n
              s = A(i,:).' + B(:,j);
              if all(isnan(s)), R0(i,j) = NaN; K0(i,j) = 1; else, [R0(i,j), K0(i,j)] = min(s); end
            end, end
            assert(isequaln(R, R0) && isequal(K, K0), sprintf('%s, trial %d', c{1}, trial));
            assert(isequaln(gd_minplus(A, B, 'Variant', 'cpu'), R0));
          end
        end
        disp('parts exact')" "parts exact"
}

@test "v0 on the GPU, single, exact" { require_gpu; check v0 single; }
@test "v0 on the GPU, double, exact" { require_gpu; check v0 double; }
@test "v1 on the GPU, single, exact" { require_gpu; check v1 single; }
@test "v1 on the GPU, double, exact" { require_gpu; check v1 double; }
@test "v2 on the GPU, single, exact" { require_gpu; check v2 single; }
@test "v2 on the GPU, double, exact" { require_gpu; check v2 double; }
@test "v3 on the GPU, single, exact" { require_gpu; check v3 single; }
@test "v3 on the GPU, double, exact" { require_gpu; check v3 double; }
@test "v4 on the GPU, single, exact" { require_gpu; check v4 single; }
@test "v4 on the GPU, double, exact" { require_gpu; check v4 double; }
@test "v5 on the GPU, single, exact" { require_gpu; check v5 single; }
@test "v5 on the GPU, double, exact" { require_gpu; check v5 double; }

# the witness, [R, K]: K and the sign of every zero of R exactly as
# Octave's [R, K] = min (...) gives them
witness() { octave_ok "check_minplus('$1', '$2', 'witness')" "witness: "; }
@test "witness, cpu variant, single and double, exact" { witness cpu single; witness cpu double; }
@test "witness, auto variant, double, exact" { witness auto double; }
@test "witness, v1 on the GPU, single, exact" { require_gpu; witness v1 single; }
@test "witness, v0 on the GPU, double, exact" { require_gpu; witness v0 double; }
@test "witness, v5 on the GPU, single, exact" { require_gpu; witness v5 single; }
@test "witness, v5 on the GPU, double, exact" { require_gpu; witness v5 double; }

# blocks (each a product of its own, its copies overlapping other blocks'
# kernels): three a side where a shape allows, one tile wide at least
blocks() { octave_ok "setenv('GD_BLOCKS', '3'); check_minplus('$1', '$2')" "cases exact"; }
@test "v1 in blocks, single, exact" { require_gpu; blocks v1 single; }
@test "v3 in blocks, double, exact" { require_gpu; blocks v3 double; }
@test "v4 in blocks, single, exact" { require_gpu; blocks v4 single; }
@test "v5 in blocks, single, exact" { require_gpu; blocks v5 single; }
@test "v5 in blocks, double, exact" { require_gpu; blocks v5 double; }

@test "one array as both operands, in blocks: uploaded once, exact, the bits of uploading it twice" {
    require_gpu
    # A (x) A in 3 x 3 blocks goes up once, in crosses (each stage the
    # block of columns from its first row down and the block of rows
    # past it); GD_SHARE=twice uploads it as A and as B, as before.
    # NaN, Inf, negatives (v5's sign split), signed zeros; fresh data,
    # results poisoned first.
    octave_ok "setenv('GD_POISON', '1'); setenv('GD_BLOCKS', '3');
        for c = {'single', 'double'}
          for v = {'v5', 'v4', 'v1'}
            if (strcmp(v{1}, 'v4') && strcmp(c{1}, 'double')) continue; end
            G = cast(randi([-4 40], 700, 700), c{1}); G(randperm(numel(G), 60)) = NaN;
            G(randperm(numel(G), 60)) = Inf; G(randperm(numel(G), 60)) = -0;
            Gin = G; E = gd_minplus(G, G, 'Variant', 'cpu');
            R1 = gd_minplus(G, 'Variant', v{1}); R2 = gd_minplus(G, G, 'Variant', v{1});
            setenv('GD_SHARE', 'twice'); Rt = gd_minplus(G, 'Variant', v{1}); unsetenv('GD_SHARE');
            assert(isequaln(R1, E), '%s %s: once differs from the cpu', v{1}, c{1});
            assert(isequal(typecast(R1(:), 'uint8'), typecast(Rt(:), 'uint8')), '%s %s: once and twice differ', v{1}, c{1});
            assert(isequal(typecast(R2(:), 'uint8'), typecast(Rt(:), 'uint8')), '%s %s: (G, G) differs', v{1}, c{1});
            assert(isequaln(G, Gin));
            # some columns of G as B: Octave's G(:, 3:9) shares G's memory
            V = gd_minplus(G, G(:, 3:9), 'Variant', v{1});
            assert(isequaln(V, E(:, 3:9)), '%s %s: G (x) G(:, 3:9) wrong', v{1}, c{1});
          end
        end
        unsetenv('GD_BLOCKS'); disp('once exact')" "once exact"
}

@test "a tall product in blocks (two of rows, one of columns): exact, the bits of one block" {
    require_gpu
    # 4096 x 2048 from the sizes alone (no GD_BLOCKS): min-plus in single
    # and double, sgemm tuned
    octave_ok "setenv('GD_POISON', '1');
        for c = {'single', 'double'}
          A = cast(randi([-3 30], 4096, 150), c{1}); B = cast(randi([-3 30], 150, 2048), c{1});
          A(randperm(numel(A), 30)) = NaN; B(randperm(numel(B), 30)) = Inf;
          E = gd_minplus(A, B, 'Variant', 'cpu'); R = gd_minplus(A, B, 'Variant', 'v5');
          setenv('GD_BLOCKS', '1'); R1 = gd_minplus(A, B, 'Variant', 'v5'); unsetenv('GD_BLOCKS');
          assert(isequaln(R, E), '%s: differs from the cpu', c{1});
          assert(isequal(typecast(R(:), 'uint8'), typecast(R1(:), 'uint8')), '%s: blocks differ', c{1});
        end
        T = randn(4096, 300, 'single'); S = randn(300, 2048, 'single');
        C = gd_sgemm(T, S, 'Variant', 'tuned');
        setenv('GD_BLOCKS', '1'); C1 = gd_sgemm(T, S, 'Variant', 'tuned'); unsetenv('GD_BLOCKS');
        assert(isequal(typecast(C(:), 'uint32'), typecast(C1(:), 'uint32')), 'sgemm: blocks differ');
        disp('tall exact')" "tall exact"
}

@test "v5 in blocks: a negative only in the last block of rows, found before its first use" {
    require_gpu
    # the blocks of the first rows run the integer min; those that use the
    # last block of A must not: each block of A is scanned before its first
    # launch, and info says both kernels ran
    run octave_run "setenv('GD_BLOCKS', '4'); setenv('GD_POISON', '1');
        A = single(randi([0 20], 1000, 300)); B = single(randi([0 20], 300, 900));
        A(end, 5) = -7; A(end - 1, 9) = -3;
        E = gd_minplus(A, B, 'Variant', 'cpu'); [R, ~, info] = gd_minplus(A, B, 'Variant', 'v5');
        assert(isequal(R, E)); disp(info.kernel);
        assert(! isempty(regexp(info.kernel, '^integer min on \\d+ tiles, then integer max on \\d+ of \\d+ tiles, fminf on \\d+$')));
        setenv('GD_BLOCKS', '1'); [R, ~, info] = gd_minplus(A, B, 'Variant', 'v5');
        assert(isequal(R, E)); assert(! isempty(strfind(info.kernel, 'integer max on'))); disp('found')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"found"* ]]
}

@test "v5 single, the sign split: integer max where a sum is negative, fminf on the tiles where none is" {
    require_gpu
    # every sum negative: no tile again; four rows of A at +100: their
    # tile row again in fminf, the others not; one negative element in
    # non-negative data: the tiles of its tile row alone are not clean, the
    # others take the integer min, and the scout (results almost all
    # non-negative) sends that row's tiles to fminf unread; a row at +100 in every tile
    # row (0.8% of the results, past the scout): the integer max stops
    # once a 32nd of the tiles needed fminf and leaves the rest to it;
    # randn on sizes off the tiles: no tile again (the padding is not
    # looked at). Each exact; GD_POISON shows a tile neither kernel wrote.
    # (tiles: 128 x 64 outputs, on sizes padded to 128; one block of R)
    run octave_run "setenv('GD_BY_TILE', '1'); setenv('GD_POISON', '1'); setenv('GD_BLOCKS', '1');
        tiles = @(info) str2double(regexp(info.kernel, '^(?:integer min on \\d+ tiles, then )?integer max on (\\d+) of (\\d+) tiles, fminf on (\\d+)$', 'tokens', 'once'));
        clean = @(info) sscanf(info.kernel, 'integer min on %d tiles');
        A = -1 - rand(700, 500, 'single'); B = rand(500, 900, 'single') / 2;
        [R, ~, info] = gd_minplus(A, B, 'Variant', 'v5'); assert(isequal(R, gd_minplus(A, B, 'Variant', 'cpu')));
        v = tiles(info); printf('%s\\n', info.kernel); assert(v(1) == v(2) && v(3) == 0 && v(2) == 6 * 16);
        A = randn(1000, 700, 'single'); B = randn(700, 1100, 'single'); A(300:303, :) = 100;
        [R, ~, info] = gd_minplus(A, B, 'Variant', 'v5'); assert(isequal(R, gd_minplus(A, B, 'Variant', 'cpu')));
        v = tiles(info); printf('%s\\n', info.kernel); assert(v(1) == v(2) && v(3) == 18);
        A = rand(3000, 40, 'single') * 100; B = rand(40, 5000, 'single') * 100; A(1, 1) = -1;
        [R, ~, info] = gd_minplus(A, B, 'Variant', 'v5'); assert(isequal(R, gd_minplus(A, B, 'Variant', 'cpu')));
        v = tiles(info); printf('%s\\n', info.kernel); assert(v(1) == 0 && v(2) == 80 && v(3) == v(2) && clean(info) == 23 * 80);
        A = randn(3000, 40, 'single'); B = randn(40, 5000, 'single'); A(5:128:end, :) = 100;
        [R, ~, info] = gd_minplus(A, B, 'Variant', 'v5'); assert(isequal(R, gd_minplus(A, B, 'Variant', 'cpu')));
        v = tiles(info); printf('%s\\n', info.kernel); assert(v(1) > 0 && v(1) < v(2) && v(3) == v(2));
        A = randn(2100, 300, 'single'); B = randn(300, 2000, 'single');
        [R, ~, info] = gd_minplus(A, B, 'Variant', 'v5'); assert(isequal(R, gd_minplus(A, B, 'Variant', 'cpu')));
        v = tiles(info); printf('%s\\n', info.kernel); assert(v(1) == v(2) && v(3) == 0 && v(2) == 17 * 32); disp('split')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"split"* ]]
}

@test "v5 single: a tile whose rows of A and columns of B have no sign bit set takes the integer min, whatever the rest holds" {
    require_gpu
    # (tiles: 128 rows x 64 columns, on sizes padded to 128) A: a -5 in
    # tile row 1 and a -0 in tile row 6; B: a -Inf in tile column 7, a NaN
    # column (not a sign); then A (x) A, where B's tile columns are A's
    # columns (one array, scanned as both operands); by tile forced
    # (GD_BY_TILE=1: these products are too small for the size's rule),
    # then not (0), then the size's rule (too small: the whole product's)
    run octave_run "setenv('GD_POISON', '1'); setenv('GD_BLOCKS', '1'); setenv('GD_BY_TILE', '1');
        clean = @(info) sscanf(info.kernel, 'integer min on %d tiles');
        A = single(rand(1000, 300) * 100); B = single(rand(300, 900) * 100);
        A(200, 7) = -5; A(777, 3) = -0; B(11, 500) = -Inf; B(:, 850) = NaN;
        [R, ~, info] = gd_minplus(A, B, 'Variant', 'v5'); disp(info.kernel);
        assert(isequaln(R, gd_minplus(A, B, 'Variant', 'cpu'))); assert(isequal(clean(info), 6 * 15));
        A = single(rand(700) * 100); A(5, 650) = -1;
        [R, ~, info] = gd_minplus(A, 'Variant', 'v5'); disp(info.kernel);
        assert(isequal(R, gd_minplus(A, 'Variant', 'cpu'))); assert(isequal(clean(info), 5 * 11));
        setenv('GD_BY_TILE', '0'); [R, ~, info] = gd_minplus(A, 'Variant', 'v5'); disp(info.kernel);
        assert(isequal(R, gd_minplus(A, 'Variant', 'cpu')) && isempty(clean(info)));
        unsetenv('GD_BY_TILE'); [R, ~, info] = gd_minplus(A, 'Variant', 'v5');
        assert(isequal(R, gd_minplus(A, 'Variant', 'cpu')) && isempty(clean(info)));
        A(5, 650) = 1; [R, ~, info] = gd_minplus(A, 'Variant', 'v5');
        assert(isequal(R, gd_minplus(A, 'Variant', 'cpu')) && strcmp(info.kernel, 'integer min')); disp('clean')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"clean"* ]]
}

@test "auto picks a GPU kernel for a large product" {
    require_gpu
    run octave_run "[R, ~, info] = gd_minplus(rand(300, 'single')); disp(info.variant); assert(! strcmp(info.variant, 'cpu'))"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "mixed single and double compute in single, as Octave does" {
    # 1 + (2^-24 + 2^-60): converted first it rounds to 1; added in double
    # and rounded after it would give 1 + 2^-23
    run octave_run "warning('off', 'gd:nogpu'); for v = {'auto', 'cpu'}; R = gd_minplus(single(1), 2^-24 + 2^-60, 'Variant', v{1}); assert(class(R), 'single'); assert(R == single(1)); end"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "mixed classes on the GPU" {
    require_gpu
    run octave_run "A = rand(70, 50); B = rand(50, 90, 'single'); R = gd_minplus(A, B, 'Variant', 'v4'); E = Inf(70, 90, 'single'); for j = 1:90, E(:,j) = min(single(A) + B(:,j)', [], 2); end; assert(class(R), 'single'); assert(isequal(R, E))"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "shortest paths by repeated squaring agree with Floyd-Warshall" {
    run octave_run "warning('off', 'gd:nogpu'); n = 300; W = rand(n) * 10; W(rand(n) < 0.9) = Inf; W(1:n+1:end) = 0; D = W; for s = 1:ceil(log2(n)), D = gd_minplus(D); end; F = W; for k = 1:n, F = min(F, F(:,k) + F(k,:)); end; assert(max(abs(D(isfinite(F)) - F(isfinite(F)))) < 1e-9); assert(isequal(isinf(D), isinf(F)))"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "integer classes: Octave's saturating min-plus, bit for bit, with the witness" {
    octave_ok "check_minplus_int()" "cases exact"
}

@test "integer classes on the GPU (v5, DPX): every class, narrow and saturating forms, the witness, gdArrays, bit for bit" {
    require_gpu
    octave_ok "check_minplus_int('v5')" "GPU cases exact"
}

@test "integer classes: mixed classes and other variants are refused" {
    octave_error "A = int8(magic(3));" "'gd:input', 'A is int8 and B is double', @gd_minplus, A, double(A)"
    octave_error "A = int8(magic(3));" "'gd:input', 'A is int8 and B is uint8', @gd_minplus, A, uint8(A)"
    octave_error "A = gdArray(int8(magic(3)));" "'gd:input', 'A is int8 and B is single', @gd_minplus, A, gdArray(single(magic(3)))"
    octave_error "A = gdArray(int16(magic(3)));" "'gd:input', 'not a int16 gdArray', @gd_sgemm, A, A"
    octave_error "A = gdArray(int16(magic(3)));" "'gd:input', 'X must be single or double, not a int16 gdArray', @gd_pdist, A"
    octave_error "A = gdArray(uint8(magic(3)));" "'gd:variant', 'the integer classes run on .fw. [(]the GPU[)] and .cpu.', @gd_apsp, A, 'Variant', 'squaring'"
    octave_error "A = int16(magic(3));" "'gd:variant', 'run on .v5. [(]the GPU[)] and .cpu.', @gd_minplus, A, A, 'Variant', 'v4'"
    octave_error "A = int16(magic(3));" "'gd:size', 'inner dimensions must agree', @gd_minplus, A, A(1:2,:)"
    octave_error "A = int16(magic(3));" "'gd:size', 'must be square', @gd_minplus, A(1:2,:)"
    octave_error "A = int32(magic(3));" "'gd:input', 'IndexClass', @gd_minplus, A, A, 'IndexClass', 'int8'"
}

# K past 2^31 - 1 (the kernels' int32 index): the inner dimension in parts,
# K in double holding the index, the first of a tie across parts (every
# part's minimum 0: K = 1)
@test "the witness of an inner dimension past 2^31: K in double holds it, int32 refused" {
    octave_ok "warning('off', 'gd:nogpu'); N = 2^31 + 2;
        A = zeros(1, N, 'int8'); A(N) = -1; B = zeros(N, 1, 'int8');
        [R, K] = gd_minplus(A, B); assert(R, int8(-1)); assert(K, N);
        A(N) = 0; [R, K] = gd_minplus(A, B); assert(R, int8(0)); assert(K, 1);
        % (not expect_error: fingerprinting 4 GB of arguments takes a minute; A and B are
        % checked by the lines after)
        try, [R, K] = gd_minplus(A, B, 'IndexClass', 'int32'); error('no error'); catch err, assert(err.identifier, 'gd:size'); assert(! isempty(strfind(err.message, 'int32 cannot hold'))); end
        assert(! any(A) && ! any(B) && numel(A) == N && numel(B) == N);
        disp('wide witness ok')" "wide witness ok"
}
