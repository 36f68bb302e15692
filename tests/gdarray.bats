#!/usr/bin/env bats
# gdArray: resident operands and results, bit for bit; handles that must
# never reach freed or foreign memory (each case in its own Octave
# process, so a crash fails the test); memory that is not lost.

load helpers

@test "every operation on gdArrays equals the host result (CPU path without a GPU)" {
    octave_ok "check_gdarray({'auto', 'cpu'})" "all equal"
}

@test "every operation on gdArrays equals the host result on the GPU, every min-plus variant" {
    require_gpu
    octave_ok "check_gdarray({'auto', 'v0', 'v1', 'v2', 'v3', 'v4', 'v5', 'cpu'})" "all equal"
}

@test "element-wise +, -, .*, ./, .\\, unary - and abs on gdArrays: Octave's bit for bit (every class pair, special values, broadcasting, refusals; the host's copy of the arithmetic where there is no GPU)" {
    octave_ok "check_ew()" "element-wise exact"
}

@test "gdArray assignment and deletion, triu, tril, diag, norm, .^, zeros/ones/eye/rand like a gdArray: Octave's" {
    octave_ok "check_assign()" "assignment ok"
}

@test "arrayfun on gdArrays: an element-wise chain in one pass, the unfused chain's bits (Octave's on the host), every operation it takes; what it does not compile runs Octave's arrayfun" {
    octave_ok "check_fuse()" "arrayfun exact"
    if gpu_present; then
        echo "$output" | grep -q "arrayfun exact, compiled"
        GD_NVRTC=0 octave_ok "check_fuse()" "arrayfun exact, interpreted"
    fi
}

@test "large resident products (blocks, padded layouts) equal the host's" {
    require_gpu
    octave_ok "for c = {'single', 'double'}
          A = cast(randi([-99 99], 4100, 2050), c{1}); B = cast(randi([-99 99], 2050, 4097), c{1});
          R = gd_minplus(A, B); [G, ~, info] = gd_minplus(gdArray(A), gdArray(B));
          assert(isequal(gather(G), R) && all(info.resident) && info.kept);
          assert(info.upload_ms == 0 && info.download_ms == 0);
          [G, ~, info] = gd_minplus(gdArray(A), B);
          assert(isequal(gather(G), R) && isequal(info.resident, [true false]) && info.upload_ms > 0);
          [H, ~, info] = gd_minplus(gdArray(A), B, 'Variant', 'v1');
          assert(isequal(gather(H), R));
          X = cast(randi([-9 9], 3000, 37), c{1});
          [D, info] = gd_pdist(gdArray(X)); assert(isequal(gather(D), gd_pdist(X)) && info.kept);
          E = gd_pdist(gdArray(X), 'Variant', 'naive'); assert(isequal(gather(E), gd_pdist(X, 'Variant', 'naive')));
        end
        disp('large ok')" "large ok"
}

@test "info says which operands were resident; nothing moved means zero copy times" {
    octave_ok "warning('off', 'gd:nogpu'); A = rand(40); G = gdArray(A);
        [R, ~, info] = gd_minplus(G, A);
        assert(isequal(info.resident, [info.kept false]));
        [R, info] = gd_pdist(G); assert(isequal(info.resident, info.kept));
        [R, ~, info] = gd_minplus(G); assert(info.upload_ms == 0 && info.download_ms == 0);
        [R, ~, info] = gd_minplus(A); assert(! info.kept && ! any(info.resident));
        disp('info ok')" "info ok"
}

@test "gd_info counts live gdArrays and their bytes" {
    octave_ok "warning('off', 'gd:nogpu'); s0 = gd_info();
        G = gdArray(rand(100, 'single')); H = gdArray(rand(10, 20));
        s = gd_info(); assert(s.gdarrays - s0.gdarrays, 2); assert(s.gdarray_bytes - s0.gdarray_bytes, 40000 + 1600);
        clear G; s = gd_info(); assert(s.gdarrays - s0.gdarrays, 1);
        H = 5; s = gd_info(); assert(s.gdarrays, s0.gdarrays);
        out = evalc('G = gdArray(1); gd_info'); assert(! isempty(strfind(out, '1 gdArrays hold')));
        disp('count ok')" "count ok"
}

@test "no second object on an id: made-up and held ids refused, properties set once" {
    octave_ok "warning('off', 'gd:nogpu'); A = rand(5); G = gdArray(A); R = gd_minplus(G);
        g = gdArray(7);
        for id = {123456789, -1, 0.5, NaN, G.id, R.id, g.id}
          expect_error('gd:input', 'expected one matrix', @gdArray, '__gd_wrap__', id{1});
        end
        expect_error('gd:input', 'expected one matrix', @gdArray, 0, G.id, [1e9 1e9], 'double');
        expect_error('gd:input', 'expected one matrix', @gdArray, rand(3, 4), 'Variant', 'auto', 1);
        expect_error('gd:input', 'set by gd alone .\x27id\x27 cannot be assigned', @subsasgn, g, struct('type', '.', 'subs', 'id'), G.id);
        expect_error('gd:input', 'set by gd alone .\x27sz\x27 cannot be assigned', @subsasgn, g, struct('type', '.', 'subs', 'sz'), 'auto');
        expect_error('gd:input', 'set by gd alone .\x27cls\x27 cannot be assigned', @subsasgn, g, struct('type', '.', 'subs', 'cls'), 'single');
        assert(isequal(size(g), [1 1]) && gather(g) == 7 && strcmp(classUnderlying(g), 'double'));
        clear R g
        assert(isequal(gather(G), A));
        disp('ids ok')" "ids ok"
}

@test "gather takes any number of arguments, gdArrays among them, one output each" {
    octave_ok "warning('off', 'gd:nogpu'); A = rand(3, 4); G = gdArray(A); S = gdArray(single(3));
        [a, b, c] = gather(G, 2, S); assert(isequal(a, A) && b == 2 && isequal(c, single(3)));
        [x, y] = gather(2, G); assert(x == 2 && isequal(y, A));
        z = gather(G, 5); assert(isequal(z, A));
        expect_error('gd:input', '2 outputs for 1 inputs', @two_outputs, @gather, G);
        expect_error('gd:input', 'at least one argument', @gather);
        disp('gather ok')" "gather ok"
}

@test "a deleted gdArray is gd:stale; its copies share it" {
    octave_ok "warning('off', 'gd:nogpu'); A = rand(6); G = gdArray(A); H = G;
        delete(G);
        expect_error('gd:stale', 'data is gone', @gather, H);
        expect_error('gd:stale', 'B is a gdArray whose data is gone', @gd_minplus, A, H);
        disp('deleted ok')" "deleted ok"
}

# The handle survives clear all in the root object's appdata; it leaves
# again before Octave exits (Octave 7 itself crashes at exit when a handle
# object whose class has a delete method outlives clear all there, gd or
# not).
@test "clear functions, clear mex, clear all with live gdArrays: old handles work or are gd:stale" {
    for what in "clear functions" "clear mex" "clear all" "clear -f" "munlock('__gd__'); clear mex"; do
        octave_ok "warning('off', 'gd:nogpu'); A = rand(9, 'single'); G = gdArray(A);
            setappdata(0, 'gd_test_handle', G); setappdata(0, 'gd_test_value', A);
            $what;
            G = getappdata(0, 'gd_test_handle'); A = getappdata(0, 'gd_test_value');
            try
              assert(isequal(gather(G), A)); R = gather(gd_minplus(G)); assert(isequal(R, gd_minplus(A)));
              disp('still works');
            catch err
              assert(err.identifier, 'gd:stale'); disp('stale');
            end
            H = gdArray(A); assert(isequal(gather(H), A));
            rmappdata(0, 'gd_test_handle'); clear G H
            disp('after ok')" "after ok"
    done
}

@test "an operation never writes into its operands" {
    octave_ok "warning('off', 'gd:nogpu'); A = rand(50, 'single'); G = gdArray(A);
        R = gd_minplus(G); R = gd_minplus(G, G); R = gd_sgemm(G, G); R = gd_pdist(G); R = gd_pdist2(G, G);
        R = G'; R = gd_squareform(gd_pdist(G));
        assert(isequal(gather(G), A)); disp('intact')" "intact"
}

@test "no GPU: gdArray holds its data on the host, operations run on the CPU, gd:nogpu once" {
    run octave_run "[msg, id] = lastwarn(''); G = gdArray(rand(3)); [msg, id] = lastwarn();
        s = gd_info(); R = gd_minplus(G);
        if (! s.available) assert(id, 'gd:nogpu'); out = evalc('disp(R)'); assert(! isempty(strfind(out, 'on the host: no GPU'))); end
        disp('host ok')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"host ok"* ]]
}
