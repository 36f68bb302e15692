function too_many_outputs (varargin)
  ## asks gd_minplus for four outputs (it gives at most three)
  [a, b, c, d] = gd_minplus (varargin{:});
endfunction
