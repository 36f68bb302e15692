addpath octave;
for n = [4096 8192]
  W = rand(n, 'single'); W(rand(n) < 0.5) = Inf;
  for r = 1:2
    [D, ~, f0] = gd_apsp(W, 'Variant', 'fw');
    [D, P, f1] = gd_apsp(W, 'Variant', 'fw');
    [R, ~, m0] = gd_minplus(W, 'Variant', 'v5');
  end
  printf('n=%d: minplus %.2f ms; fw %.2f ms (%.2fx, total %.2f); fw+P %.2f ms (%.2fx, total %.2f)\n', n, m0.kernel_ms, f0.kernel_ms, f0.kernel_ms/m0.kernel_ms, f0.total_ms, f1.kernel_ms, f1.kernel_ms/m0.kernel_ms, f1.total_ms);
  if n == 4096
    [D, ~, s0] = gd_apsp(W, 'Variant', 'squaring'); [D, P, s1] = gd_apsp(W, 'Variant', 'squaring'); printf('squaring %.2f ms, with P %.2f\n', s0.kernel_ms, s1.kernel_ms);
    Wd = double(W); [D, ~, d0] = gd_apsp(Wd, 'Variant', 'fw'); [D, ~, d0] = gd_apsp(Wd, 'Variant', 'fw'); [R, ~, dm] = gd_minplus(Wd, 'Variant', 'v5');
    [D, P, d1] = gd_apsp(Wd, 'Variant', 'fw');
    printf('double fw %.2f ms, +P %.2f, minplus %.2f ms (%.2fx)\n', d0.kernel_ms, d1.kernel_ms, dm.kernel_ms, d0.kernel_ms/dm.kernel_ms);
    Wi = single(randi(20, n)); Wi(rand(n) < 0.5) = Inf; [D, P, f2] = gd_apsp(Wi, 'Variant', 'fw'); printf('integer weights fw+P %.2f ms\n', f2.kernel_ms);
  end
end
W = single(randi([0 9], 2000)); W(rand(2000) < 0.5) = Inf; [D, P, z] = gd_apsp(W, 'Variant', 'fw'); printf('zero cycles: %.2f ms, kernel %s\n', z.kernel_ms, z.kernel);
