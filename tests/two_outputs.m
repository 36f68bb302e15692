function two_outputs (fn, varargin)
  ## asks fn for two outputs ([R, K] = gd_minplus (...)), for expect_error
  [a, b] = fn (varargin{:});
endfunction
