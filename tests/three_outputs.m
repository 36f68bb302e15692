function three_outputs (varargin)
  ## asks gd_minplus for three outputs (it gives at most two)
  [a, b, c] = gd_minplus (varargin{:});
endfunction
