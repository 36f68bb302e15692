## -*- texinfo -*-
## @deftypefn  {} {@var{r} =} gd_path (@var{P}, @var{i}, @var{j})
## @deftypefnx {} {@var{routes} =} gd_path (@var{P}, @var{i}, @var{js})
## The route from vertex @var{i} to vertex @var{j} in the predecessor
## matrix @var{P} of @code{[D, P] = gd_apsp (W)}: the row vector of
## vertices @code{[i @dots{} j]}, each joined to the next by an edge of the
## shortest path. @var{i} alone when @code{i == j}; empty when @var{j}
## cannot be reached from @var{i}. With a vector @var{js} of targets,
## @var{routes} is a cell array of routes, one per target.
##
## @var{P} may be a gdArray: only its row @var{i} is copied back.
## Indices outside 1..n raise @qcode{"gd:input"}, as does a @var{P} whose
## predecessors lead round in a circle.
## @seealso{gd_apsp}
## @end deftypefn

function [r, varargout] = gd_path (varargin)
  if (nargin != 3)
    error ("gd:input", "gd_path: expected P, I and J (see help gd_path)");
  endif
  if (nargout > 1)
    error ("gd:input", "gd_path: too many outputs");
  endif
  [P, i, j] = varargin{:};
  [i, j] = gather (i, j);       # (vertex indices held as gdArrays: their values)
  if (isa (P, "gdArray"))
    n = rows (P);
    if (columns (P) != n)
      error ("gd:input", "gd_path: P must be square");
    endif
    check_index (i, n, "I", true);
    check_index (j, n, "J", false);
    prow = double (__gd__ ("row", P, double (i)));
  else
    if (! isnumeric (P) || ! isreal (P) || issparse (P) || ndims (P) != 2
        || rows (P) != columns (P))
      error ("gd:input", "gd_path: P must be a square predecessor matrix (from gd_apsp)");
    endif
    n = rows (P);
    check_index (i, n, "I", true);
    check_index (j, n, "J", false);
    prow = double (P(i,:));
  endif
  if (any (! (prow >= 0 & prow <= n & prow == fix (prow))))
    error ("gd:input", "gd_path: row %d of P holds something other than vertex indices 0..%d: it is no predecessor matrix of gd_apsp",
           double (i), n);
  endif
  i = double (i);
  if (isscalar (j))
    r = walk (prow, i, double (j), n);
  else
    r = arrayfun (@(t) walk (prow, i, t, n), double (j(:)'), "UniformOutput", false);
  endif
endfunction

function check_index (x, n, name, scalar)
  if (! isnumeric (x) || ! isreal (x) || isempty (x) || (scalar && ! isscalar (x))
      || any (x(:) != fix (x(:))) || any (x(:) < 1) || any (x(:) > n))
    error ("gd:input", "gd_path: %s must be %s in 1..%d", name,
           ifelse_str (scalar, "a vertex index", "vertex indices"), n);
  endif
endfunction

function s = ifelse_str (c, a, b)
  if (c)
    s = a;
  else
    s = b;
  endif
endfunction

function r = walk (prow, i, j, n)
  if (i == j)
    r = i;
    return;
  endif
  r = zeros (1, n);
  len = 1;
  r(n) = j;
  v = j;
  while (v != i)
    v = prow(v);
    if (v == 0)
      r = zeros (1, 0);          # unreachable
      return;
    endif
    len++;
    if (len > n)
      error ("gd:input", "gd_path: P leads round in a circle from %d to %d: it is no predecessor matrix of gd_apsp", i, j);
    endif
    r(n - len + 1) = v;
  endwhile
  r = r(n - len + 1:n);
endfunction

%!shared P
%! P = [0 1 2; 3 0 2; 3 1 0];
%!assert (gd_path (P, 1, 3), [1 2 3])
%!assert (gd_path (P, 2, 2), 2)
%!assert (gd_path (P, 3, 2), [3 1 2])
%!assert (gd_path (P, 1, [2 3]), {[1 2], [1 2 3]})
%!assert (gd_path (int32 (P), 1, 3), [1 2 3])
%!assert (isempty (gd_path ([0 0; 0 0], 1, 2)))
%!error <gd_path: J must be vertex indices in 1..3> gd_path (P, 1, 4)
%!error <I must be a vertex index> gd_path (P, 0, 1)
%!error <I must be a vertex index> gd_path (P, 1.5, 1)
%!error <square predecessor> gd_path (ones (2, 3), 1, 1)
%!error <circle> gd_path ([0 2; 1 0], 1, 1 + 1)
%!error <no predecessor matrix> gd_path ([0 0.5; 1 0], 1, 2)
%!error <expected P, I and J> gd_path ([0 1; 1 0], 1)

%!demo
%! ## a route out of gd_apsp's predecessors, and its edges summed
%! W = [0 1 Inf; Inf 0 2; 7 Inf 0];
%! [D, P] = gd_apsp (W);
%! r = gd_path (P, 1, 3)
%! printf ("edges %s add up to %g = D(1,3)\n", ...
%!         mat2str (W(sub2ind (size (W), r(1:end-1), r(2:end)))), D(1,3));
