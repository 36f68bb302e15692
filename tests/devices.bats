#!/usr/bin/env bats
# Several devices: the 'Devices' option and GD_DEVICES, calls divided
# across devices (check_devices.m: bit for bit the one-device result), a
# device that fails mid-call. Where gd sees one GPU, GD_SIM_DEVICES=3
# makes it three devices that are all the first (the parts run one after
# another on it); where it sees two or more, the real ones run.

load helpers

# simulated devices unless the machine has several
with_devices() {
    local n
    n=$(octave_run "printf('%d', numel(gd_info().devices))" 2>/dev/null)
    if [ "${n:-0}" -lt 2 ]; then export GD_SIM_DEVICES=3; fi
}

@test "'Devices' and GD_DEVICES: bad values get gd:input naming them, with or without a GPU" {
    octave_error "A = rand(5);" "'gd:input', 'names device 2 twice', @gd_minplus, A, 'Devices', [2 2]"
    octave_error "A = rand(5);" "'gd:input', '.Devices. must be .all. or a vector', @gd_minplus, A, 'Devices', 'some'"
    octave_error "A = rand(5);" "'gd:input', 'whole device indices from 1, not 0', @gd_sgemm, A, A, 'Devices', 0"
    octave_error "A = rand(5);" "'gd:input', 'whole device indices from 1, not 1.5', @gd_pdist, A, 'Devices', 1.5"
    octave_error "A = rand(5);" "'gd:input', '.Devices. must be .all. or a vector', @gd_pdist2, A, A, 'Devices', ones(2)"
    octave_error "A = rand(5);" "'gd:input', 'unknown option .Devics.', @gd_apsp, A, 'Devics', 1"
    GD_DEVICES=x octave_error "A = rand(5);" "'gd:input', 'GD_DEVICES=.x. must be .all. or device indices', @gd_minplus, A"
    # an index past the devices gd sees (the host alone where there is no GPU)
    octave_error "A = rand(5);" "'gd:input', 'names device 7, but gd sees', @gd_minplus, A, 'Devices', 7"
    octave_error "A = rand(5);" "'gd:input', 'names device 9, but gd sees', @gd_apsp, A, 'Devices', [1 9]"
    # 'all' and valid lists run (on the CPU where there is no GPU)
    octave_ok "A = rand(50); R = gd_minplus(A, 'Devices', 'all'); R1 = gd_minplus(A, 'Devices', 1);
        assert(isequal(R, R1)); K = gd_knnsearch(A, A, 'K', 3, 'Devices', 1); assert(K(:,1), (1:50)');
        D = gd_apsp(A, 'Devices', 'all'); disp('devices ok')" "devices ok"
}

@test "split calls give the one-device result bit for bit" {
    require_gpu
    with_devices
    octave_ok "check_devices()" "device cases agree"
}

@test "gd_info lists the devices; an index past them gets gd:input" {
    require_gpu
    with_devices
    octave_ok "s = gd_info(); N = numel(s.devices); assert(N >= 2); assert(all([s.devices.used]));
        assert([s.devices.index], 1:N); gd_info();
        expect_error('gd:input', sprintf('names device %d, but gd sees %d devices', N + 1, N), @gd_minplus, rand(5), 'Devices', 1:N+1);
        setenv('GD_DEVICES', '2'); s = gd_info(); assert([s.devices.used], (1:N) == 2); disp('listed')" "listed"
}

@test "gdArrays on every device: calls run where they live, divided products land on the first device named, bit for bit" {
    require_gpu
    with_devices
    octave_ok "check_devices('resident')" "gdArray device cases agree"
    # the upload runs on the device 'Device' names: a cap on that device
    # alone refuses it (simulated devices share one GPU, so only the
    # device's own cap tells where the array went)
    octave_ok "N = numel(gd_info().devices); A = rand(400, 'single');
        setenv('GD_GPU_MEM_LIMIT', sprintf('%d:100000', N));
        expect_error('gd:memory', 'GD_GPU_MEM_LIMIT allows this device', @gdArray, A, 'Device', N);
        G = gdArray(A, 'Device', 1); unsetenv('GD_GPU_MEM_LIMIT');
        assert(device(G) == 1 && isequal(gather(G), A));
        setenv('GD_GPU_MEM_LIMIT', '1:100000');
        G = gdArray(A, 'Device', N); unsetenv('GD_GPU_MEM_LIMIT');
        assert(device(G) == N && isequal(gather(G), A)); disp('placed')" "placed"
}

@test "the parts' threads: kept between calls, ended when the gateway goes, made again after" {
    require_gpu
    with_devices
    octave_ok "N = numel(gd_info().devices); A = rand(300, 'single'); B = rand(300, 257 * N, 'single');
        R1 = gd_minplus(A, B, 'Devices', 1);
        for k = 1:20, assert(isequal(gd_minplus(A, B, 'Devices', 1:N), R1)); end
        clear mex; clear functions;
        assert(isequal(gd_minplus(A, B, 'Devices', 1:N), R1));
        G = gdArray(A, 'Device', N);
        clear mex;                 # a live gdArray keeps the gateway
        assert(isequal(gather(gd_minplus(G, B, 'Devices', N:-1:1)), R1));
        disp('threads ok')" "threads ok"
}

@test "a device that fails mid-call: gd:memory naming it, nothing left on any device" {
    require_gpu
    with_devices
    octave_ok "N = numel(gd_info().devices); A = rand(400, 'single'); B = rand(400, 300 * N, 'single');
        X = rand(2000, 40, 'single');
        # each kernel once on every device first: a module's first use
        # takes device memory (lazy loading) that stays
        gd_minplus(A, B, 'Devices', 1:N); gd_pdist(X, 'Devices', 1:N); gd_pdist2(X, A(:, 1:40), 'Smallest', 3, 'Devices', 1:N);
        gd_apsp(A, 'Devices', 1:N); [~, ~] = gd_apsp(A, 'Devices', 1:N);
        GA = gdArray(A, 'Device', N); GB = gdArray(B, 'Device', 1); gd_minplus(GA, GB, 'Devices', 1:N);
        for d = 1:N, gd_minplus(A, B, 'Devices', d); gd_pdist(X, 'Devices', d); gd_pdist2(X, A(:, 1:40), 'Smallest', 3, 'Devices', d); end
        setenv('GD_GPU_MEM_LIMIT', sprintf('%d:100000', N));
        f0 = [gd_info().devices.memory_held];
        for k = 1:3
          expect_error('gd:memory', sprintf('device %d .*GD_GPU_MEM_LIMIT', N), @gd_minplus, A, B, 'Devices', 1:N);
          expect_error('gd:memory', sprintf('device %d .*GD_GPU_MEM_LIMIT', N), @gd_pdist, X, 'Devices', 1:N);
          expect_error('gd:memory', sprintf('device %d .*GD_GPU_MEM_LIMIT', N), @gd_pdist2, X, A(:, 1:40), 'Smallest', 3, 'Devices', 1:N);
          expect_error('gd:memory', sprintf('device %d .*GD_GPU_MEM_LIMIT', N), @gd_apsp, A, 'Devices', 1:N);
          expect_error('gd:memory', sprintf('device %d .*GD_GPU_MEM_LIMIT', N), @two_outputs, @gd_apsp, A, 'Devices', 1:N);
          # gdArrays on devices N and 1, the result to be made on device 1
          expect_error('gd:memory', sprintf('device %d .*GD_GPU_MEM_LIMIT', N), @gd_minplus, GA, GB, 'Devices', 1:N);
          expect_error('gd:memory', 'GD_GPU_MEM_LIMIT', @gd_minplus, GA, GB);
        end
        f1 = [gd_info().devices.memory_held];
        assert(all(f1 <= f0), 'held memory went from %s to %s', mat2str(f0), mat2str(f1));
        R = gd_minplus(A, B, 'Devices', 1:N-1);   # the others still work
        RG = gd_minplus(GB.', GB, 'Devices', 1:N-1);
        unsetenv('GD_GPU_MEM_LIMIT');
        assert(isequal(R, gd_minplus(A, B, 'Devices', 1)));
        assert(device(RG) == 1 && isequal(gather(RG), gd_minplus(B.', B)));
        disp('failed cleanly')" "failed cleanly"
}

@test "shortest paths across devices hold their slabs' rows alone: a graph one device's memory cap refuses runs on several" {
    require_gpu
    with_devices
    # n = 2048 single: one device holds W and D whole (16 MiB each) and
    # the rounds' panels, about 37 MiB; each of N >= 2 devices its rows of
    # both and the panels, under 20 MiB
    octave_ok "N = numel(gd_info().devices); n = 2048;
        W = single(randi([1 50], n)); W(rand(n) < 0.7) = Inf; W(1:n+1:end) = 0;
        W(randi(n, 1, 20)) = -1; W(1:n+1:end) = 0;   # a few negative edges: the fminf rounds
        [D1, ~, i1] = gd_apsp(W, 'Variant', 'fw', 'Devices', 1);
        setenv('GD_GPU_MEM_LIMIT', sprintf('%d', 30 * 2^20));
        expect_error('gd:memory', 'GD_GPU_MEM_LIMIT', @gd_apsp, W, 'Variant', 'fw', 'Devices', 1);
        Wc = W;
        [Dn, ~, in] = gd_apsp(W, 'Variant', 'fw', 'Devices', 1:N);
        unsetenv('GD_GPU_MEM_LIMIT');
        assert(isequal(W, Wc));
        assert(in.devices, 1:N);
        assert(isequal(Dn, D1) && isequal(isnan(Dn), isnan(D1)), 'D across %d capped devices differs', N);
        disp('divided memory ok')" "divided memory ok"
}

@test "distributed gdArrays: columns in pieces on every device, results left where computed, every operation takes one, bit for bit, nothing left behind" {
    require_gpu
    with_devices
    octave_ok "N = numel(gd_info().devices); n0 = gd_info().gdarrays;
        A = rand(700, 'single'); B = rand(700, 300 * N + 7, 'single'); X = rand(1500, 33, 'single');
        # an upload in pieces: every device its columns
        G = gdArray(B, 'Devices', 1:N);
        assert(isequal(device(G), 1:N) && isequal(gather(G), B) && isequal(size(G), size(B)));
        s = disp(G); assert(! isempty(strfind(s, 'devices 1')) && ! isempty(strfind(s, 'columns 1-')), s);
        # products and pdist left in pieces, the one-device results bit for bit
        GA = gdArray(A);
        R = gd_minplus(GA, G, 'Devices', 1:N, 'Distributed', true);
        assert(isequal(device(R), 1:N) && isequal(gather(R), gd_minplus(A, B)));
        [R2, K2] = gd_minplus(GA, G, 'Devices', 1:N, 'Distributed', true);
        [R0, K0] = gd_minplus(A, B);
        assert(isequal(device(R2), 1:N) && isequal(device(K2), 1:N));
        assert(isequal(gather(R2), R0) && isequal(gather(K2), K0));
        C = gd_sgemm(GA, G, 'Variant', 'tuned', 'Devices', 1:N, 'Distributed', true);
        assert(isequal(device(C), 1:N) && isequal(gather(C), gd_sgemm(A, B, 'Variant', 'tuned')));
        D = gd_pdist(gdArray(X), 'Devices', 1:N, 'Distributed', true);
        assert(isequal(device(D), 1:N) && isequal(gather(D), gd_pdist(X)));
        E = gd_pdist2(gdArray(X), gdArray(X(1:900, :)), 'Devices', 1:N, 'Distributed', true);
        assert(isequal(device(E), 1:N) && isequal(gather(E), gd_pdist2(X, X(1:900, :))));
        # a distributed operand anywhere: the pieces brought together for
        # the call (operations on one device), or read in place
        assert(isequal(gather(gd_squareform(D)), gd_squareform(gd_pdist(X))));
        Rh = gather(R);
        assert(isequal(gather(gd_minplus(R(1:300, 1:300))), gd_minplus(Rh(1:300, 1:300))));
        assert(isequal(gather(gd_minplus(GA, R, 'Devices', 1:N)), gd_minplus(A, Rh)));
        assert(isequal(gather(R(3:9, [1 400 end])), Rh(3:9, [1 400 end])));
        assert(isequal(gather(R.'), Rh.'));
        W = single(randi([1 9], 400)); W(1:401:end) = 0; [Dw, P] = gd_apsp(W);
        GW = gdArray(W, 'Devices', 1:N);
        assert(isequal(gather(gd_apsp(GW)), Dw));
        GP = gdArray(P, 'Devices', 1:N);
        assert(isequal(gd_path(GP, 3, 377), gd_path(P, 3, 377)));
        [Dk, Ik] = gd_pdist2(gdArray(X), gdArray(X(1:50, :)), 'Smallest', 4);
        [Dk2, Ik2] = gd_pdist2(gdArray(X, 'Devices', 1:N), gdArray(X(1:50, :)), 'Smallest', 4);
        assert(isequal(gather(Dk), gather(Dk2)) && isequal(gather(Ik), gather(Ik2)));
        # a divided call that fails leaves no piece anywhere
        f0 = [gd_info().devices.memory_held];
        setenv('GD_GPU_MEM_LIMIT', sprintf('%d:100000', N));
        expect_error('gd:memory', sprintf('device %d .*GD_GPU_MEM_LIMIT', N), @gd_minplus, GA, G, 'Devices', 1:N, 'Distributed', true);
        expect_error('gd:memory', 'GD_GPU_MEM_LIMIT', @gdArray, B, 'Devices', 1:N);
        unsetenv('GD_GPU_MEM_LIMIT');
        assert(all([gd_info().devices.memory_held] <= f0));
        clear G GA R R2 K2 C D E GW GP Dk Ik Dk2 Ik2;
        assert(gd_info().gdarrays == n0);
        disp('distributed ok')" "distributed ok"
}
