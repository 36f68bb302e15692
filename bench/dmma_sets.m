## [X, Y] = dmma_sets (kind, N, d, seed, cls): the data sets the distances'
## accuracy is measured on (bench/dmma_accuracy.m in single,
## bench/dmma_double.m in double), N rows a side of d features, from the
## generators' state seed: "uniform", "normal", "offset 1e4" (uniform
## plus 1e4) or "clustered" (8 centres, spread 1e-3).
function [X, Y] = dmma_sets (kind, N, d, seed, cls)
  rand ("state", seed); randn ("state", seed);
  switch (kind)
    case "uniform"
      X = rand (N, d, cls); Y = rand (N, d, cls);
    case "normal"
      X = randn (N, d, cls); Y = randn (N, d, cls);
    case "offset 1e4"
      X = 1e4 + rand (N, d, cls); Y = 1e4 + rand (N, d, cls);
    case "clustered"
      C = randn (8, d, cls);
      X = C(randi (8, N, 1),:) + 1e-3 * randn (N, d, cls);
      Y = C(randi (8, N, 1),:) + 1e-3 * randn (N, d, cls);
  endswitch
endfunction
