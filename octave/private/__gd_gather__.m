## -*- texinfo -*-
## @deftypefn {} {[@var{A}, @dots{}] =} __gd_gather__ (@var{nout}, @var{A}, @dots{})
## gather's work for the function and for gdArray's method alike: each
## argument's host value, @var{nout} outputs (one an argument at most).
## @end deftypefn

function out = __gd_gather__ (nout, varargin)
  if (nout > max (numel (varargin), 1))
    error ("gd:input", "gather: %d outputs for %d inputs (one each)", nout, numel (varargin));
  endif
  out = varargin;
  for i = 1:numel (varargin)
    if (isa (varargin{i}, "gdArray"))
      out{i} = __gd__ ("gather", varargin{i});
    endif
  endfor
endfunction
