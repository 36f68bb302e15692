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
## With @var{P} of @code{[D, P] = gd_apsp (W, "Sources", s)}, @var{i} is
## the row k of @var{P}, and the route runs from @code{s(k)} to @var{j}
## (row k is the tree of source s(k), as row i of an all-pairs @var{P} is
## vertex i's; its NaN, or -1 in int32, marks a vertex that source cannot
## reach).
##
## @var{P} may be a gdArray: only its row @var{i} is copied back. A
## gdCodistributed @var{P} (from @code{gd_apsp} on a gdCodistributed W, in
## an MPI job) is read by every rank at once: the ranks holding row @var{i}
## send their pieces of it.
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
  if (isa (P, "gdCodistributed"))
    ## (every rank at once: the ranks holding row I send their pieces)
    n = columns (P);
    check_index (i, rows (P), "I", true);
    check_index (j, n, "J", false);
    prow = __gd_ranks__ ("row", P, double (i));
  elseif (isa (P, "gdArray"))
    n = columns (P);
    check_index (i, rows (P), "I", true);
    check_index (j, n, "J", false);
    prow = double (__gd__ ("row", P, double (i)));
  else
    if (! isnumeric (P) || ! isreal (P) || issparse (P) || ndims (P) != 2 || isempty (P))
      error ("gd:input", "gd_path: P must be a predecessor matrix (from gd_apsp)");
    endif
    n = columns (P);
    check_index (i, rows (P), "I", true);
    check_index (j, n, "J", false);
    prow = double (P(i,:));
  endif
  ## unreachable: NaN (int32 -1), from 'Sources' alone
  none = isnan (prow) | prow == -1;
  if (any (! (none | (prow >= 0 & prow <= n & prow == fix (prow)))))
    error ("gd:input", "gd_path: row %d of P holds something other than vertex indices 0..%d: it is no predecessor matrix of gd_apsp",
           double (i), n);
  endif
  prow(none) = -1;
  i = double (i);
  ## the tree's root: i where P(i,i) is 0 (an all-pairs row, or a source's
  ## that is i), else the vertex whose predecessor is 0 (found by the walk)
  root = [];
  if (i <= n && prow(i) == 0)
    root = i;
  endif
  if (isscalar (j))
    r = walk (prow, i, root, double (j), n);
  else
    r = arrayfun (@(t) walk (prow, i, root, t, n), double (j(:)'), "UniformOutput", false);
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

function r = walk (prow, i, root, j, n)
  if (prow(j) < 0 || (prow(j) == 0 && ! isempty (root) && j != root))
    r = zeros (1, 0);            # unreachable
    return;
  endif
  r = zeros (1, n);
  len = 1;
  r(n) = j;
  v = j;
  ## back to the root: i, or (root unknown) the vertex whose predecessor is 0
  while (prow(v) != 0 && (isempty (root) || v != root))
    v = prow(v);
    ## (a vertex with predecessor 0 that is not the known root: unreachable
    ## in an all-pairs P, so no vertex can come after it)
    if (v < 1 || (prow(v) == 0 && ! isempty (root) && v != root))
      error ("gd:input", "gd_path: P's row %d leads from %d to an unreachable vertex: it is no predecessor matrix of gd_apsp", i, j);
    endif
    len++;
    if (len > n)
      error ("gd:input", "gd_path: P leads round in a circle from %d to %d: it is no predecessor matrix of gd_apsp", i, j);
    endif
    r(n - len + 1) = v;
  endwhile
  r = r(n - len + 1:n);
endfunction

%!error <leads from 3 to an unreachable vertex> gd_path (int32 ([0 0 2 3]), 1, 3)

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
%!error <predecessor matrix> gd_path (zeros (0, 3), 1, 1)
%!test
%! ## a sources P (gd_apsp (W, "Sources", [3 1 3])): row k from s(k)
%! Ps = [3 1 0; 0 1 2; 3 1 0];
%! assert (gd_path (Ps, 1, 2), [3 1 2]);
%! assert (gd_path (Ps, 1, 3), 3);
%! assert (gd_path (Ps, 2, 1), 1);
%! assert (gd_path (Ps, 2, 3), [1 2 3]);
%! Pu = [NaN 0 NaN 2];
%! assert (isempty (gd_path (Pu, 1, 1)));
%! assert (gd_path (Pu, 1, 2), 2);
%! assert (gd_path (Pu, 1, 4), [2 4]);
%! assert (gd_path (int32 ([-1 0 -1 2]), 1, 4), [2 4]);
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
