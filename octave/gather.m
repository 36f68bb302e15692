## -*- texinfo -*-
## @deftypefn  {} {@var{A} =} gather (@var{A})
## @deftypefnx {} {[@var{A}, @var{B}, @dots{}] =} gather (@var{A}, @var{B}, @dots{})
## The host value of each argument: a gdArray's matrix, copied from the
## GPU bit for bit; anything else unchanged (as MATLAB's gather does), so
## that code works with gdArrays and ordinary matrices alike.
## @seealso{gdArray}
## @end deftypefn

function varargout = gather (varargin)
  if (nargin == 0)
    error ("gd:input", "gather: expected at least one argument: [A, B, ...] = gather (A, B, ...)");
  endif
  varargout = __gd_gather__ (nargout, varargin{:});
endfunction

%!assert (gather (5), 5)
%!error <expected at least one argument> gather ()
%!error <2 outputs for 1 inputs> [a, b] = gather (1)
%!assert (gather ({1, "a"}), {1, "a"})
%!test
%! [a, b] = gather (1, single (2));
%! assert (a, 1);
%! assert (b, single (2));

%!demo
%! ## a gdArray back into an Octave matrix; a matrix comes back as it is
%! G = gd_pdist (gdArray (magic (4)));
%! class (G)
%! D = gather (G)
%! isequal (gather (D), D)
