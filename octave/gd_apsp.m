## -*- texinfo -*-
## @deftypefn  {} {@var{D} =} gd_apsp (@var{W})
## @deftypefnx {} {[@var{D}, @var{P}] =} gd_apsp (@var{W})
## @deftypefnx {} {[@var{D}, @var{P}, @var{info}] =} gd_apsp (@var{W}, "Variant", @var{name}, "IndexClass", @var{c})
## @deftypefnx {} {@var{list} =} gd_apsp ("variants")
## All-pairs shortest paths of a directed graph, on the GPU, with routes.
##
## @var{W} is the n-by-n weight matrix: @code{W(i,j)} is the length of the
## edge from i to j, and @code{Inf} means there is no edge (the min-plus
## convention: a 0 is an edge of length 0, not a missing edge as in
## scipy's dense matrices). A sparse @var{W} is read as MATLAB's
## @code{digraph} reads it: each stored entry is an edge of that length, a
## structural zero is no edge. @code{D(i,j)} is the length of a shortest path
## from i to j: 0 on the diagonal, @code{Inf} where j cannot be reached
## from i. A positive diagonal entry (a self-loop) never shortens a path.
##
## @code{P(i,j)} is the predecessor of j on a shortest path from i
## (scipy's convention): 0 on the diagonal and where j is unreachable.
## @code{gd_path (P, i, j)} follows it back to give the route. @var{P} is
## double like an index; @code{"IndexClass", "int32"} gives int32 (half
## the memory; on the device it is int32 either way). Every row of
## @var{P} is a shortest-path tree: following it from any j reaches i in
## at most n - 1 steps, and the route's weights add up to @code{D(i,j)}
## to the rounding of that sum. In @qcode{"fw"} each round tags the
## lengths that fall, and @code{P(i,j) = P(k,j)} for a k of the round where
## @code{D(i,j)} last fell with @code{D(i,k) + D(k,j) == D(i,j)}; elsewhere
## (and where rounding leaves no such k) the last edge of each path is the
## first q of @code{min (D(i,q) + W(q,j))}. Where rounding at D's magnitude
## ties a path through q with the direct edge (a cycle lighter than the
## lengths' rounding) and those choices would go round in a circle, the row
## is chosen again level by level from i over the edges whose sum ties.
##
## Negative edges are allowed. A negative cycle (a negative diagonal entry
## included) raises @qcode{"gd:negcycle"} naming a vertex whose closed
## path has negative length; NaN anywhere in @var{W} raises
## @qcode{"gd:input"}. single gives single and double double; integer
## weights give exactly the distances of exact arithmetic as long as no
## partial sum leaves the class's range of exact integers (2^24 in single,
## 2^53 in double). A 0-by-0 @var{W} gives 0-by-0 results.
##
## The integer classes (int8 @dots{} uint64) give @var{D} of their class.
## @qcode{"cpu"} computes them on the host in the class. @qcode{"fw"}
## computes int8 @dots{} uint32 on the GPU: @var{W} goes there in its
## class, and the rounds run in single where every sum stays an integer
## single holds (2 (n - 1) max |w| <= 2^24, with max |w| over the edges),
## else in double (@code{info.kernel} says which: @qcode{"single, exact"}
## or @qcode{"double, exact"}); D comes back in the class. That needs the
## saturating sums to give the exact lengths: weights all non-negative,
## or (n - 1) max |w| inside the class; otherwise (and for int64 and
## uint64) @qcode{"fw"} raises @qcode{"gd:variant"}. @qcode{"auto"} takes
## the GPU from n = 128 (and for a gdArray) where it may, else the host.
## @var{D} is the same bit for bit either way; where
## several shortest paths tie, @var{P} may name another of them.
## @qcode{"squaring"} raises @qcode{"gd:variant"}. Inf has no integer value: the
## class's largest value, @code{intmax}, is "no edge" in @var{W} and the
## length of a path to a vertex that cannot be reached in @var{D}. Sums
## saturate as Octave's do, so a path whose length would reach
## @code{intmax} reads as none.
##
## @code{[D, P] = gd_apsp (W, "Sources", s)}: the shortest paths from the
## vertices of the vector @var{s} alone, as MATLAB's @code{distances (G,
## s)} and @code{shortestpathtree} and scipy's @code{dijkstra (W, indices =
## s)} give them: @var{D} and @var{P} are numel (s)-by-n, row k the
## lengths from s(k) and its tree (row k of @var{P} is source s(k)'s, as
## row i of an all-pairs @var{P} is vertex i's, but NaN, or -1 in int32,
## where s(k) cannot reach a vertex; @code{gd_path (P, k, j)} is the
## route from s(k) to j). A sparse @var{W} stays sparse (no n-by-n
## matrix is made); where @var{W} or @var{s} is a gdArray, @var{D} and
## @var{P} are gdArrays (a gdArray @var{s} keeps a sparse graph's results
## on the GPU); a dense one gives its entries other than Inf as the
## edges. single or double weights. The lengths are the least of each
## walk's weights summed in order in the class, so every method gives
## them bit for bit; of the edges into j with D(q) + W(q,j) == D(j), P(j)
## is the smallest q among those fewest edges from the source. A negative
## cycle that a source reaches raises @qcode{"gd:negcycle"}; a source
## outside 1..n raises @qcode{"gd:input"}. Its variants: @qcode{"gpu"}
## (the GPU, every source at once, by one of its two methods, then the
## trees breadth first: @qcode{"rounds"}, Bellman-Ford rounds, the
## sources' lengths (min,+) W's columns from the vertices whose length
## fell, every source's lengths of a vertex read together, taken where a
## weight is negative or where four of the sources settle within 40
## rounds (shortest paths of few edges: random, power-law and other
## small-world graphs); else @qcode{"nearfar"}, near-far buckets with a
## frontier a source, which suits paths of hundreds of edges: grids,
## meshes, road and kNN graphs), those two asked for by name, and
## @qcode{"cpu"} (Dijkstra with a heap, or label-correcting rounds where a
## weight is negative; a source a thread); "auto" takes the GPU from 2^20
## (source, edge) pairs or where W or s is a gdArray. All give the same D and
## P.
##
## Options:
## @table @asis
## @item "Variant"
## @qcode{"fw"}: blocked Floyd-Warshall on the GPU (rounds of 128
## vertices: the diagonal block closed in registers, then min-plus v5's
## tile relaxing the column panel and the whole matrix in place, the next
## round's panels first so that its diagonal block is closed meanwhile;
## Katz and Kider 2008, Lund and Smith 2010); @qcode{"squaring"}: repeated min-plus
## squaring with the witness, until nothing changes; @qcode{"cpu"}: blocked
## Floyd-Warshall on the host (OpenMP); @qcode{"sources"}: every vertex a
## source of the @qcode{"Sources"} method below (near-far on the GPU,
## Dijkstra on the host; P's rule is that method's, 0 where unreachable);
## @qcode{"auto"} (default): for a sparse @var{W} of at most max (64, n /
## 128) stored entries a column, negative or not, @qcode{"sources"} (on an
## H200, random graphs of n = 16384: 8 edges a vertex 0.43 s against 2.9 s
## for the dense rounds, with negative edges 0.45 s, 128 edges 0.94 s
## against 2.6 s; n = 4096, 128 edges: 44 against 128 ms; a 128 x 128
## grid with negative edges 1.4 s against 3.0 s); else fw on a GPU, the
## CPU below n = 128 or without a GPU. Where the weights are integers (sums exact) both give the same
## @var{D}; otherwise the sources' sums run along each route and fw's
## by rounds, and may differ in the last bit.
## @item "IndexClass"
## The class of @var{P}: @qcode{"double"} (default) or @qcode{"int32"}.
## @item "Devices"
## Which GPUs compute: @qcode{"all"} (the default, or the environment
## variable GD_DEVICES's list) or a vector of indices as @code{gd_info}'s
## @code{devices} numbers them. The lengths alone divide by rows of
## blocks (each round's closed block and row panel copied to the other
## devices peer to peer), @var{D} bit for bit the one-device @var{D};
## @qcode{"all"} divides from 2^36 steps a device. In single and double
## @var{P} divides with @var{D}: each device tags its rows, and the first
## finds @var{P} from all the tags, bit for bit; a cycle of weight 0 sends
## the call to the first device alone (the edge counts). An integer
## class's @var{P},
## @qcode{"squaring"} and gdArrays run on one device: a gdArray's own
## (its results left there), else the first
## named.
## @end table
##
## In an MPI job, a gdCodistributed @var{W} laid out @qcode{'2dbc'} gives
## @var{D} and @var{P} laid out as @var{W}; every rank calls it at once.
## Where its parts are gdArrays on the ranks' GPUs (single or double,
## blocks of a multiple of 128), 'fw''s rounds run across the GPUs (NCCL):
## @var{D} and @var{P} are one device's 'fw' bit for bit (outside a cycle
## of weight 0). Else ('cpu') the rounds run on the hosts: the bits of
## one process's @code{gd_apsp (W, "Variant", "cpu")} (see the guide's
## "Many hosts").
##
## @qcode{"Distributed"}, true (the other functions' option for results
## divided across devices) is refused: @var{D} and @var{P} come back
## whole.
##
## @code{[D, ~, info] = gd_apsp (@dots{})} computes no @var{P}.
## @var{info} is the struct of every gd operation (variant, kernel: in
## single @qcode{"integer min"} where no weight is negative, else
## @qcode{"fminf"}; milliseconds of upload, preparation, kernels, download;
## size n; ops n^3; rate in steps per second of kernel time, rate_unit
## @qcode{"steps/s"}). @var{W} may be a gdArray; the results are then
## gdArrays.
##
## Example: the route from 1 to 3
## @example
## @group
## W = [0 3 Inf; Inf 0 1; 2 Inf 0];
## [D, P] = gd_apsp (W);
## D(1,3)
##   @result{} 4
## gd_path (P, 1, 3)
##   @result{} [1 2 3]
## @end group
## @end example
##
## With the environment variable @env{GD_VERBOSE} set to 1, each call
## prints its variant, device and times; one longer than 2 s also prints
## how far it is, about once a second (2: from its start). Ctrl-C stops a
## call within about a second (@qcode{"gd:interrupted"}).
##
## @seealso{gd_path, gd_minplus, gdArray}
## @end deftypefn

function [D, P, info, varargout] = gd_apsp (varargin)
  if (nargin >= 1 && isa (varargin{1}, "gdCodistributed"))
    ## across the ranks of an MPI job: D and P laid out as W ('2dbc')
    if (nargout > 3)
      error ("gd:input", "gd_apsp: too many outputs (at most D, P and info)");
    endif
    want_p = nargout >= 2 && isargout (2);
    [D, P, info] = __gd_ranks__ ("apsp", want_p, varargin{:});
    return;
  endif
  ## 'Sources': the paths from those vertices alone, on the graph as given
  ## (a sparse W stays sparse)
  at = find (cellfun (@(a) ischar (a) && rows (a) == 1 && strcmpi (a, "Sources"), ...
                      varargin(2:end)), 1) + 1;
  if (! isempty (at) && mod (at, 2) == 0)
    if (at == nargin)
      error ("gd:input", "gd_apsp: 'Sources' needs a value (vertex indices)");
    endif
    src = varargin{at+1};               # a gdArray: gdArray results
    args = varargin([1, 2:at-1, at+2:end]);
    if (nargout > 3)
      error ("gd:input", "gd_apsp: too many outputs (at most D, P and info)");
    elseif (nargout < 2)
      D = __gd__ ("sssp", args{1}, src, args{2:end});
    elseif (nargout == 2)
      [D, P] = __gd__ ("sssp", args{1}, src, args{2:end});
    else
      [D, P, info] = __gd__ ("sssp", args{1}, src, args{2:end});
    endif
    return;
  endif
  if (nargin >= 1 && (issparse (varargin{1}) || any (strcmpi (varargin(2:end), "sources"))))
    [by_sources, args] = sources_method (varargin);
    if (by_sources)
      ## every vertex a source; P as the all-pairs P: 0 where unreachable
      if (nargout > 3)
        error ("gd:input", "gd_apsp: too many outputs (at most D, P and info)");
      endif
      src = 1:columns (varargin{1});
      if (nargout < 2)
        D = __gd__ ("sssp_all", varargin{1}, src, args{:});
      else
        [D, P, info] = __gd__ ("sssp_all", varargin{1}, src, args{:});
      endif
      return;
    elseif (issparse (varargin{1}))
      varargin{1} = sparse_graph (varargin{1});
    endif
  endif
  if (nargout < 2)
    if (nargout == 0 && nargin == 1 && ischar (varargin{1}))
      __gd__ ("apsp", varargin{:});
      return;
    endif
    D = __gd__ ("apsp", varargin{:});
  elseif (nargout == 2)
    [D, P] = __gd__ ("apsp", varargin{:});
  elseif (! isargout (2))
    [D, P, info, varargout{1:nargout-3}] = __gd__ ("apsp_info", varargin{:});   # no P
  else
    ## (a fourth output reaches the gateway, which says too many)
    [D, P, info, varargout{1:nargout-3}] = __gd__ ("apsp", varargin{:});
  endif
endfunction

## All pairs by the sources method (every vertex a source): asked for by
## "Variant", "sources", or taken by "auto" (or no variant) for a sparse
## real W of at most max (64, n / 128) stored entries a column (a mean
## out-degree: the crossover with the dense rounds measured on an H200,
## kernels/NOTES.md "From sources"), negative weights too. args: the
## options for 'Sources' (the variant its own 'auto').
function [yes, args] = sources_method (a)
  args = a(2:end);
  at = find (cellfun (@(x) ischar (x) && rows (x) == 1 && strcmpi (x, "Variant"), args(1:2:end)), 1);
  v = "auto";
  if (! isempty (at) && 2 * at <= numel (args) && ischar (args{2 * at}))
    v = args{2 * at};
  endif
  W = a{1};
  if (strcmpi (v, "sources"))
    yes = true;
  else
    n = columns (W);
    yes = strcmpi (v, "auto") && issparse (W) && isreal (W) && isa (W, "double") ...
          && rows (W) == n && nnz (W) <= max (64, n / 128) * n ...
          && ! any (strcmpi (args(1:2:end), "Devices"));
  endif
  if (! isempty (at))
    args(2 * at - 1 : min (2 * at, end)) = [];
  endif
endfunction

## a sparse W as MATLAB's digraph reads it: each stored entry an edge of
## that length, a structural zero no edge (Inf); anything but a real 2-D
## double goes on to the gateway's checks as it is
function F = sparse_graph (W)
  if (! isa (W, "double") || ! isreal (W) || ndims (W) != 2)
    F = full (W);
    return;
  endif
  F = Inf (size (W));
  [i, j, v] = find (W);
  F(sub2ind (size (W), i, j)) = v;
endfunction

%!shared W
%! warning ("off", "gd:nogpu");
%! W = [0 3 Inf; Inf 0 1; 2 Inf 0];

%!function D = fw_ref (W)
%!  n = rows (W); D = W; D(1:n+1:end) = min (diag (W), 0);
%!  for k = 1:n
%!    D = min (D, D(:,k) + D(k,:));
%!  endfor
%!endfunction

%!test
%! [D, P] = gd_apsp (W);
%! assert (D, [0 3 4; 3 0 1; 2 5 0]);
%! assert (P, [0 1 2; 3 0 2; 3 1 0]);
%! assert (gd_path (P, 1, 3), [1 2 3]);
%!test
%! for v = {"cpu", "auto"}
%!   n = 70; W1 = randi (9, n); W1(rand (n) < 0.8) = Inf;
%!   [D, P, info] = gd_apsp (W1, "Variant", v{1});
%!   assert (D, fw_ref (W1));
%!   assert (class (P), "double");
%!   ## every route from i to j, its weights adding up to D(i,j) (one
%!   ## assert: 10^4 of them took most of this file's tests' time)
%!   ok = true;
%!   for i = 1:n
%!     js = find (isfinite (D(i,:)));
%!     routes = gd_path (P, i, js);
%!     if (isscalar (js))
%!       routes = {routes};
%!     endif
%!     for k = 1:numel (js)
%!       r = routes{k};
%!       ok = ok && r(1) == i && r(end) == js(k) && sum (W1(sub2ind ([n n], r(1:end-1), r(2:end)))) == D(i,js(k));
%!     endfor
%!   endfor
%!   assert (ok);
%! endfor
%!test
%! [D, P] = gd_apsp (single ([0 -1; 4 0]), "IndexClass", "int32");
%! assert (D, single ([0 -1; 4 0])); assert (class (P), "int32");
%!test
%! ## rounding at 2^30 ties 3 -> 1 -> 2 with the edge 3 -> 2 (1 -> 2 -> 1
%! ## weighs 2^-30): the route is still the edge
%! W = [0 1 Inf; -1+2^-30 0 Inf; Inf 2^30 0];
%! [D, P] = gd_apsp (W);
%! assert (gd_path (P, 3, 2), [3 2]);
%! assert (gd_path (P, 3, 1), [3 2 1]);
%! [D, P] = gd_apsp (zeros (0, 0));
%! assert (size (D), [0 0]); assert (size (P), [0 0]);
%!test
%! ## 'Sources': rows of the all-pairs result, a sparse W read as it is
%! W = [Inf 2 Inf 1; Inf Inf 3 Inf; 1 Inf Inf Inf; Inf 1 Inf Inf];
%! [Da, Pa] = gd_apsp (W);
%! [D, P] = gd_apsp (W, "Sources", [3 1]);
%! assert (D, Da([3 1],:));
%! assert (P, Pa([3 1],:));
%! assert (gd_path (P, 1, 2), [3 1 2]);
%! S = sparse ([1 1 2 3 4], [2 4 3 1 2], [2 1 3 1 1], 4, 4);
%! assert (gd_apsp (S, "Sources", [3 1]), D);
%! [D, P] = gd_apsp ([Inf 1; Inf Inf], "Sources", 2);
%! assert (D, [Inf 0]);
%! assert (P, [NaN 0]);
%! ## a gdArray W (and sources): gdArray results, routes from gd_path
%! [Dg, Pg] = gd_apsp (gdArray (W), "Sources", gdArray ([3 1]));
%! assert (isa (Dg, "gdArray") && isa (Pg, "gdArray"));
%! assert (gather (Dg), Da([3 1],:));
%! assert (gd_path (Pg, 1, 2), [3 1 2]);
%! ## a sparse W with gdArray sources: gdArray results (D and P kept where
%! ## the sources are)
%! [Dg, Pg, info] = gd_apsp (S, "Sources", gdArray ([3 1]), "IndexClass", "int32");
%! assert (isa (Dg, "gdArray") && isa (Pg, "gdArray"));
%! assert (gather (Dg), Da([3 1],:));
%! assert (gather (Pg), int32 (Pa([3 1],:)));
%! assert (gd_path (Pg, 2, 3), [1 2 3]);
%! s = gdArray ([2; 4]);
%! assert (gather (gd_apsp (W, "Sources", s)), Da([2 4],:));
%! assert (gather (s), [2; 4]);
%!assert (gd_apsp (5), 0)
%!assert (gd_apsp ([7 1; Inf 3]), [0 1; Inf 0])
%!test
%! ## the integer classes: intmax is no edge
%! for c = {"int8", "uint16", "int32", "uint64"}
%!   x = intmax (c{1});
%!   Wi = cast ([0 3 0; 0 0 1; 2 0 0], c{1}); Wi(Wi == 0) = x; Wi(1:4:end) = 0;
%!   [D, P, info] = gd_apsp (Wi);
%!   assert (class (D), c{1});
%!   assert (D, cast ([0 3 4; 3 0 1; 2 5 0], c{1}));
%!   assert (P, [0 1 2; 3 0 2; 3 1 0]);
%!   assert (info.variant, "cpu");
%! endfor
%! ## unreachable: intmax; saturation: a path that would reach intmax is none
%! assert (gd_apsp (int8 ([0 100 127; 127 0 100; 127 127 0])), int8 ([0 100 127; 127 0 100; 127 127 0]));
%!error <gd_apsp: the graph has a negative cycle: W\(2,2\) < 0> gd_apsp (int16 ([0 1; 1 -1]))
%!error <negative cycle: a closed path through vertex> gd_apsp (int32 ([0 1; -2 0]))
%!error <the integer classes run on 'fw' \(the GPU\) and 'cpu'> gd_apsp (int32 ([0 1; 1 0]), "Variant", "squaring")
%!error <int64 and uint64 never> gd_apsp (int64 ([0 1; 1 0]), "Variant", "fw")
%!error <must be square> gd_apsp (uint8 (ones (2, 3)))
%!error <gd_apsp: the graph has a negative cycle> gd_apsp ([0 1; -2 0])
%!error <negative cycle> gd_apsp ([-1 1; 1 0])
%!error <NaN> gd_apsp ([0 NaN; 1 0])
%!error <must be square> gd_apsp (rand (2, 3))
%!error <not char> gd_apsp ("ab")
%!error <complex> gd_apsp ([0 1i; 1 0])
%!test
%! ## a sparse graph: a stored entry is an edge, a structural zero none
%! S = sparse ([1 2 3 3], [2 3 1 4], [5 -1 2 7], 4, 4);
%! F = [0 5 Inf Inf; Inf 0 -1 Inf; 2 Inf 0 7; Inf Inf Inf 0];
%! [D, P] = gd_apsp (S);
%! [E, Q] = gd_apsp (F);
%! assert (D, E);
%! assert (P, Q);
%! assert (D(4,:), [Inf Inf Inf 0]);
%! assert (D(1,4), 11);
%! assert (issparse (S) && nnz (S) == 4);   # not modified
%!error <must be square> gd_apsp (sparse (2, 3))
%!error <logical> gd_apsp (sparse (logical ([0 1; 1 0])))
%!error <'Distributed', true: gd_apsp's D and P come back whole> gd_apsp ([0 1; 1 0], "Distributed", true)
%!error <unknown variant> gd_apsp (W, "Variant", "dijkstra")
%!test
%! ## all pairs of a sparse graph: 'auto' takes the sources method (a few
%! ## edges a vertex, none negative), D the dense rounds' for integer
%! ## weights, each P a tree of shortest paths, 0 where unreachable
%! n = 60;
%! S = sparse (randi (n, 3 * n, 1), randi (n, 3 * n, 1), randi (9, 3 * n, 1), n, n);
%! S(:, n) = 0;                     # a vertex no one reaches
%! F = full (S); F(F == 0) = Inf;
%! [Dd, Pd] = gd_apsp (F, "Variant", "cpu");
%! for v = {"auto", "sources"}
%!   [D, P, info] = gd_apsp (S, "Variant", v{1});
%!   assert (! isempty (strfind (info.kernel, "sources")));
%!   assert (D, Dd);
%!   assert (P(:, n), zeros (n, 1));
%!   for i = 1:n
%!     j = find (P(i,:));
%!     assert (D(i, P(i,j)) + F(sub2ind ([n n], P(i,j), j)), D(i,j));
%!     assert (all (isinf (Dd(i, P(i,:) == 0 & (1:n) != i))));
%!   endfor
%! endfor
%! assert (gd_apsp (S, "Variant", "sources", "IndexClass", "int32") >= 0);
%! [~, ~, info] = gd_apsp (S, "Variant", "cpu");    # dense rounds still asked for
%! assert (isempty (strfind (info.kernel, "sources")));
%! S(1, 2) = -1;                    # a negative weight: still the sources
%! [Ds, Ps, info] = gd_apsp (S);    # (label-correcting, or the GPU's rounds)
%! assert (! isempty (strfind (info.kernel, "sources")));
%! F(1, 2) = -1;
%! assert (Ds, gd_apsp (F, "Variant", "cpu"));
%! assert (all (Ps(isinf (Ds)) == 0));
%! [~, ~, info] = gd_apsp (sparse (ones (100)));   # past 64 edges a vertex: dense
%! assert (isempty (strfind (info.kernel, "sources")));

%!demo
%! ## all shortest paths of a small directed graph (Inf: no edge), with the
%! ## predecessors that spell out each route
%! W = [0 4 1 Inf; Inf 0 Inf 1; Inf 2 0 5; 3 Inf Inf 0];
%! [D, P] = gd_apsp (W)
%! r = gd_path (P, 1, 4);
%! printf ("route 1 -> 4: %s, length %g\n", mat2str (r), D(1,4));
