classdef gdCodistributed
## -*- texinfo -*-
## @deftypefn  {} {@var{G} =} gdCodistributed (@var{L}, "1d")
## @deftypefnx {} {@var{G} =} gdCodistributed (@var{L}, "1d", @var{dim})
## @deftypefnx {} {@var{G} =} gdCodistributed (@var{L}, "2dbc", @var{grid}, @var{b}, @var{sz})
## A matrix whose parts live on the ranks of an MPI job, built from each
## rank's local part, as MATLAB's @code{codistributed.build} builds one.
## Every rank calls it at once (it is collective), each with its own
## part @var{L}: an Octave matrix or a gdArray (kept on that rank's GPU).
##
## @table @asis
## @item @qcode{"1d"}
## Rank r holds a panel of consecutive rows (@var{dim} 1, the default) or
## columns (@var{dim} 2), in rank order, of any size; the parts must agree
## in the other dimension and in class. MATLAB's @code{codistributor1d}.
## @item @qcode{"2dbc"}
## Two-dimensional block-cyclic on a @var{grid} = [pr pc] grid of ranks
## (pr * pc ranks; rank r at grid row @code{floor ((r-1) / pc)} and column
## @code{mod (r-1, pc)}, counted from 0, MATLAB's row orientation), square
## blocks of @var{b}, the whole matrix of size @var{sz}: block (I, J)
## (from 0) lives on the rank at grid position (mod (I, pr), mod (J, pc)),
## and a rank's part is its blocks side by side in order, as ScaLAPACK
## keeps a local array. MATLAB's @code{codistributor2dbc}.
## @end table
##
## @code{gather (@var{G})} assembles the matrix on every rank;
## @code{gather (@var{G}, @var{r})} on rank @var{r} alone (the others get
## []). @code{getLocalPart (@var{G})} is the rank's part as it was given;
## @code{globalIndices (@var{G}, @var{dim})} the rows or columns of the
## whole that a "1d" part holds. @code{size}, @code{disp} and
## @code{layout} say how it is laid out.
##
## Operations across the ranks, each rank computing on its own part
## (on its GPU where the part is a gdArray), their results the bits one
## process would give on the whole matrix:
##
## @itemize
## @item @code{gd_knnsearch (@var{X}, @var{Y}, @dots{})} and
## @code{gd_pdist2 (@var{X}, @var{Y}, @var{metric}, "Smallest"|"Largest",
## @var{K})} with @var{X} "1d" by rows and the queries @var{Y} the same on
## every rank: each rank's exact K best of its rows, then the ranks' lists
## merged in the search's order (distance, then the global row), on every
## rank. @qcode{"seuclidean"} and @qcode{"mahalanobis"} need their
## @qcode{"Scale"} or @qcode{"Cov"} given (the defaults are statistics of
## the whole of X); the offset they prepare rows with is the whole X's.
## @item @code{gd_rangesearch (@var{X}, @var{Y}, @var{r}, @dots{})} and
## @code{gd_knnsearch (@dots{}, "IncludeTies", true)} likewise: each
## rank's lists of its rows, merged query by query in the search's order
## (with ties: K and every later one at the K-th's distance).
## @item @code{gd_pdist2 (@var{X}, @var{Y}, @dots{})}: with @var{X} "1d"
## by rows, D's rows "1d" on the same ranks; with @var{Y} "1d" by rows,
## D's columns likewise.
## @item @code{gd_pdist (@var{X}, @dots{})} with @var{X} "1d" by rows:
## D (1 x n(n-1)/2, pdist's order) "1d" by columns, rank r holding the
## pairs of its rows with every later row (each rank takes the whole X
## for them: the later ranks' rows, and any metric's statistics of the
## whole).
## @item @code{gd_minplus (@var{A}, @var{B})} and @code{[@var{R},
## @var{K}] = gd_minplus (@dots{})} on "2dbc" operands of one grid and
## block size: SUMMA, for each block of the inner dimension the owners'
## panels of A broadcast along the grid's rows and of B along its columns,
## then each rank's min-plus product of them folded into its part of R
## (and the witness K) by min-plus's own rule, R "2dbc" like A. With
## gdArray parts and NCCL, the panels span the whole inner dimension, moved
## GPU to GPU, and each rank runs one product on its GPU.
## @end itemize
##
## The parts move between ranks through MPI in host memory
## (@code{gd_spmdBroadcast}, @code{gd_spmdCat}), or, where they are
## gdArrays and every rank has a GPU of its own, by NCCL from GPU to GPU;
## outside a job the one rank holds the whole matrix.
## @seealso{gd_spmdIndex, gd_spmdSize, gd_spmdCat, gd_knnsearch, gd_minplus}
## @end deftypefn

  properties (SetAccess = private)
    ## this rank's part (a matrix or a gdArray), and how the whole is laid
    ## out: kind "1d" (dim, counts: each rank's rows or columns) or "2dbc"
    ## (grid [pr pc], block b); gsize the whole's size, cls its class
    part = [];
    kind = "1d";
    dim = 1;
    counts = 0;
    grid = [1 1];
    b = 1;
    gsize = [0 0];
    cls = "double";
  endproperties

  methods

    function G = gdCodistributed (L, kind, varargin)
      if (nargin == 0)
        return;
      endif
      if (nargin < 2 || ! ischar (kind))
        error ("gd:input", "gdCodistributed: expected a local part and a layout, '1d' or '2dbc'");
      endif
      nr = gd_spmdSize ();
      r = gd_spmdIndex ();
      bad = "";
      if (! (isa (L, "gdArray") || ((isnumeric (L) || islogical (L)) && isreal (L)
                                    && ! issparse (L) && ndims (L) == 2)))
        bad = "must be a real, full 2-D matrix or a gdArray";
      endif
      if (islogical (L))
        L = double (L);
      endif
      c = __gd_ranks__ ("class_code", L);
      switch (lower (kind))
        case "1d"
          if (numel (varargin) > 1)
            error ("gd:input", "gdCodistributed: '1d' takes one more argument, the dimension (1 or 2)");
          endif
          d = 1;
          if (numel (varargin) == 1)
            d = varargin{1};
            if (! (isequal (d, 1) || isequal (d, 2)))
              error ("gd:input", "gdCodistributed: the dimension of '1d' must be 1 (rows) or 2 (columns)");
            endif
          endif
          s = size (L);
          info = gd_spmdCat ([s, c, isempty(bad)], 1);
          __gd_ranks__ ("refuse", info(:,4) == 1, "gdCodistributed", "the local part", bad);
          other = info(:, 3 - d);
          if (any (other != other(1)))
            k = find (other != other(1), 1);
            error ("gd:size", "gdCodistributed: rank %d's part has %d %s, rank 1's %d: the parts of '1d' along %s must agree in %s",
                   k, other(k), merge (d == 1, "columns", "rows"), other(1),
                   merge (d == 1, "rows", "columns"), merge (d == 1, "columns", "rows"));
          endif
          __gd_ranks__ ("same_class", info(:,3), "gdCodistributed");
          G.kind = "1d";
          G.dim = d;
          G.counts = info(:, d)';
          G.gsize = s;
          G.gsize(d) = sum (G.counts);
        case "2dbc"
          if (numel (varargin) != 3)
            error ("gd:input", "gdCodistributed: '2dbc' takes the grid [pr pc], the block size and the whole's size [m n]");
          endif
          [grid, b, sz] = varargin{:};
          if (! (isnumeric (grid) && numel (grid) == 2 && all (grid >= 1)
                 && all (grid == fix (grid)) && prod (grid) == nr))
            error ("gd:input", "gdCodistributed: the grid must be [pr pc] with pr * pc = %d, the job's ranks", nr);
          endif
          if (! (isnumeric (b) && isscalar (b) && b >= 1 && b == fix (b)))
            error ("gd:input", "gdCodistributed: the block size must be a positive whole number");
          endif
          if (! (isnumeric (sz) && numel (sz) == 2 && all (sz >= 0) && all (sz == fix (sz))))
            error ("gd:input", "gdCodistributed: the whole's size must be [m n], whole numbers");
          endif
          grid = double (grid(:)');
          sz = double (sz(:)');
          [pi, pj] = deal (floor ((r - 1) / grid(2)), mod (r - 1, grid(2)));
          want = [__gd_ranks__("numroc", sz(1), b, pi, grid(1)), ...
                  __gd_ranks__("numroc", sz(2), b, pj, grid(2))];
          if (isempty (bad) && ! isequal (size (L), want))
            bad = sprintf ("is %dx%d; its blocks of the %dx%d whole are %dx%d", rows (L),
                           columns (L), sz(1), sz(2), want(1), want(2));
          endif
          info = gd_spmdCat ([c, isempty(bad)], 1);
          __gd_ranks__ ("refuse", info(:,2) == 1, "gdCodistributed", "the local part", bad);
          __gd_ranks__ ("same_class", info(:,1), "gdCodistributed");
          G.kind = "2dbc";
          G.grid = grid;
          G.b = double (b);
          G.gsize = sz;
        otherwise
          error ("gd:input", "gdCodistributed: the layout must be '1d' or '2dbc', not '%s'", kind);
      endswitch
      G.part = L;
      G.cls = __gd_ranks__ ("class_name", c);
    endfunction

    function varargout = size (G, d)
      if (nargin == 2)
        s = G.gsize;
        s(end+1:max (d)) = 1;
        varargout{1} = s(d);
      elseif (nargout <= 1)
        varargout{1} = G.gsize;
      else
        for k = 1:nargout
          varargout{k} = 1;
          if (k <= 2)
            varargout{k} = G.gsize(k);
          endif
        endfor
      endif
    endfunction
    function r = rows (G)
      r = G.gsize(1);
    endfunction
    function c = columns (G)
      c = G.gsize(2);
    endfunction
    function n = numel (G, varargin)
      n = prod (G.gsize);
    endfunction
    function tf = isempty (G)
      tf = any (G.gsize == 0);
    endfunction
    function c = classUnderlying (G)
      c = G.cls;
    endfunction

    function L = getLocalPart (G)
      L = G.part;
    endfunction

    ## the rows (dim 1) or columns (dim 2) of the whole this rank's part
    ## holds
    function idx = globalIndices (G, d)
      r = gd_spmdIndex ();
      if (strcmp (G.kind, "1d"))
        if (d == G.dim)
          lo = sum (G.counts(1:r-1));
          idx = lo + (1:G.counts(r));
        else
          idx = 1:G.gsize(d);
        endif
      else
        g = [floor((r - 1) / G.grid(2)), mod(r - 1, G.grid(2))];
        idx = __gd_ranks__ ("block_indices", G.gsize(d), G.b, g(d), G.grid(d));
      endif
    endfunction

    function s = layout (G)
      s = struct ("Layout", G.kind, "Size", G.gsize, "Class", G.cls,
                  "Ranks", gd_spmdSize ());
      if (strcmp (G.kind, "1d"))
        s.Dimension = G.dim;
        s.Partition = G.counts;
      else
        s.Grid = G.grid;
        s.BlockSize = G.b;
      endif
      s.OnGPU = isa (G.part, "gdArray");
    endfunction

    function A = gather (G, dest)
      if (nargin < 2)
        dest = [];
      elseif (! (isnumeric (dest) && isscalar (dest) && dest >= 1 && dest <= gd_spmdSize ()
                 && dest == fix (dest)))
        error ("gd:input", "gdCodistributed/gather: the destination must be a rank, 1 to %d", gd_spmdSize ());
      endif
      A = __gd_ranks__ ("gather", G, dest);
    endfunction

    function disp (G)
      if (strcmp (G.kind, "1d"))
        printf ("  %dx%d %s, '1d' by %s over %d ranks (%s); this rank's part %dx%d%s\n",
                G.gsize(1), G.gsize(2), G.cls, merge (G.dim == 1, "rows", "columns"),
                numel (G.counts), strjoin (arrayfun (@num2str, G.counts, "uniformoutput", false), ", "),
                rows (G.part), columns (G.part), merge (isa (G.part, "gdArray"), " on the GPU", ""));
      else
        printf ("  %dx%d %s, '2dbc' on a %dx%d grid of ranks, blocks of %d; this rank's part %dx%d%s\n",
                G.gsize(1), G.gsize(2), G.cls, G.grid(1), G.grid(2), G.b, rows (G.part),
                columns (G.part), merge (isa (G.part, "gdArray"), " on the GPU", ""));
      endif
    endfunction
    function display (G)
      printf ("%s =\n\n", inputname (1));
      disp (G);
      printf ("\n");
    endfunction

  endmethods
endclassdef

%!test
%! ## outside a job: one rank holds the whole
%! A = magic (5);
%! G = gdCodistributed (A, "1d");
%! assert (size (G), [5 5]);
%! assert (gather (G), A);
%! assert (gather (G, 1), A);
%! assert (globalIndices (G, 1), 1:5);
%! s = layout (G);
%! assert (s.Layout, "1d");
%! assert (s.Partition, 5);
%! H = gdCodistributed (single (A), "2dbc", [1 1], 2, [5 5]);
%! assert (gather (H), single (A));
%! assert (classUnderlying (H), "single");
%!demo
%! ## each rank its own rows of the points; the neighbours of all of them
%! ## (run under mpirun -np N: every rank prints the same lists)
%! r = gd_spmdIndex ();
%! X = gdCodistributed (r * 10 + (1:3)' * [1 1], "1d");
%! Y = [11 11; 25 25];
%! [I, D] = gd_knnsearch (X, Y, "K", 2)

%!error <the grid must be> gdCodistributed (1, "2dbc", [2 1], 1, [1 1])
%!error <is 2x2; its blocks> gdCodistributed (ones (2), "2dbc", [1 1], 1, [3 3])
%!error <the layout must be> gdCodistributed (1, "3d")
%!error <must be a real, full> gdCodistributed ({1}, "1d")
