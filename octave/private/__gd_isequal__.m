## -*- texinfo -*-
## @deftypefn {} {@var{tf} =} __gd_isequal__ (@var{nan_equal}, @var{a}, @var{b}, @dots{})
## isequal and isequaln with a gdArray among the arguments (internal), as
## Octave's own: every argument the first's size, then each compared with
## the first by @code{==} (Octave's comparison rules for each pair of
## classes; a char by its codes), with @var{nan_equal} NaN equal to NaN,
## on the GPU where an operand lives there, so that nothing is gathered but
## the answer. Arguments other than real full numeric, logical or char
## arrays (cells, structs, sparse or complex matrices) are gathered and
## given to Octave's own function.
## @end deftypefn

function tf = __gd_isequal__ (nan_equal, varargin)
  plain = @(x) isa (x, "gdArray") || ((isnumeric (x) || islogical (x) || ischar (x))
                                       && isreal (x) && ! issparse (x));
  if (numel (varargin) < 2 || ! all (cellfun (plain, varargin)))
    [varargin{:}] = gather (varargin{:});
    if (nan_equal)
      tf = isequaln (varargin{:});
    else
      tf = isequal (varargin{:});
    endif
    return;
  endif
  for k = find (cellfun ("ischar", varargin))
    varargin{k} = double (varargin{k});
  endfor
  x = varargin{1};
  sz = size (x);
  tf = true;
  for k = 2:numel (varargin)
    y = varargin{k};
    if (! isequal (size (y), sz))
      tf = false;
      return;
    endif
    m = (x == y);
    if (nan_equal)
      m = m | (isnan (x) & isnan (y));
    endif
    tf = logical (gather (all (m(:))));
    if (! tf)
      return;
    endif
  endfor
endfunction
