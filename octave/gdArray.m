classdef gdArray < handle
## -*- texinfo -*-
## @deftypefn  {} {@var{G} =} gdArray (@var{A})
## @deftypefnx {} {@var{G} =} gdArray (@var{A}, "Device", @var{d})
## @deftypefnx {} {@var{G} =} gdArray (@var{A}, "Devices", @var{list})
## A matrix kept in GPU memory across calls.
##
## @code{@var{G} = gdArray (@var{A})} copies the real, full, 2-D single,
## double or integer (int8 @dots{} uint64) matrix @var{A} to the GPU once.
## Every gd function
## (@code{gd_minplus}, @code{gd_sgemm}, @code{gd_pdist}, @code{gd_pdist2},
## @code{gd_squareform}) takes a gdArray wherever it takes a matrix, and
## returns a gdArray when any of its matrix arguments is one (the rule of
## MATLAB's gpuArray), so a chain of calls moves nothing between host and
## GPU until @code{gather} brings the result back. Integer gdArrays are
## operands of @code{gd_minplus} (the others compute in single or double
## and say so); @code{gather} and the methods below take every class.
##
## @example
## @group
## G = gdArray (single (W));
## for s = 1:ceil (log2 (rows (W)))
##   G = gd_minplus (G);          # stays on the GPU
## endfor
## D = gather (G);                 # one copy back, bit for bit
## @end group
## @end example
##
## A gdArray lives on one device: device 1, or @var{d} as @code{gd_info}
## numbers them (@code{device (@var{G})} says which). An operation on
## gdArrays runs on the device of its first gdArray argument and leaves
## its result there; a gdArray on another device is copied there first,
## peer to peer. With @qcode{"Devices"} naming several devices, products
## (@code{gd_minplus}, @code{gd_sgemm}, @code{gd_pdist2}) divide across
## them and put the result together on the first device named; the other
## operations run on that first device alone.
##
## A distributed gdArray keeps its columns in pieces on several devices:
## @code{gdArray (@var{A}, "Devices", @var{list})} (or @qcode{"all"})
## divides @var{A}'s columns over them, each device uploading its own
## piece; and a call divided over devices with @qcode{"Distributed"},
## @code{true} (@code{gd_minplus}, @code{gd_sgemm}, @code{gd_pdist2},
## @code{gd_pdist}) leaves each device's columns of the result where it
## computed them, so that nothing is gathered onto one device.
## @code{gather} brings the pieces to the host, every device copying its
## own at once; @code{device} lists the pieces' devices and @code{disp}
## their columns. Every operation takes a distributed gdArray: one that
## reads a whole matrix on one device copies the pieces there, peer to
## peer, for that call.
##
## An operation never writes into its operands; an Octave matrix passed
## beside a gdArray is copied to the GPU for that call only. Mixed classes
## compute in single, as with Octave matrices.
##
## gdArray is a handle class: @code{H = G} shares the data, and the GPU
## memory is freed when the last handle goes (@code{clear G}, reassignment,
## the end of a function). @code{gd_info} reports how many gdArrays are
## alive and the bytes they hold.
##
## Methods: @code{gather}, @code{device}, @code{size}, @code{rows},
## @code{columns}, @code{numel}, @code{ndims}, @code{length},
## @code{isempty}, @code{isscalar}, @code{isvector}, @code{isrow},
## @code{iscolumn}, @code{ismatrix}, @code{issquare},
## @code{classUnderlying}, @code{underlyingType}, @code{isfloat},
## @code{isinteger}, @code{isnumeric}, @code{isreal}, @code{existsOnGPU},
## @code{transpose} and @code{ctranspose} (@code{G.'} and @code{G'}, on
## the GPU), and @code{()} indexing by Octave's rules (@code{G(i, j)},
## @code{G(mask)}, @code{G(:)}, @code{end}: a gdArray on @var{G}'s device,
## gathered there). @code{logical}, @code{any}, @code{all},
## @code{isequal} and @code{isequaln} give the answer the matrix gives
## (computed on the GPU, the answer gathered). @code{+}, @code{-}, @code{.*}, @code{./},
## @code{.\}, unary @code{-}, @code{abs}, @code{sqrt}, @code{floor},
## @code{ceil}, @code{round}, @code{fix}, @code{sign}, and @code{exp},
## @code{log}, @code{log2}, @code{log1p}, @code{expm1}, @code{sin},
## @code{cos}, @code{tanh} (CUDA's, within 3 ulp of Octave's) compute on
## the GPU (with a
## gdArray, an Octave array or a scalar as the other operand): Octave's
## broadcasting, its class rules (single beside double is single; an
## integer class beside itself, single or double stays that class, rounded
## to the nearest, halves away from zero, and saturated; int64 and uint64
## beside a fraction are not yet) and IEEE arithmetic, bit for bit what
## Octave computes; so do @code{double}, @code{single} and @code{int8}
## @dots{} @code{uint64} (Octave's conversions: to an integer class
## rounded, halves away from zero, and saturated), and @code{[@var{G},
## @var{H}]}, @code{[@var{G}; @var{H}]}, @code{cat}, @code{reshape} and
## @code{repmat} (Octave's result class and sizes, the data moved on the
## GPU), @code{sum}, @code{prod}, @code{mean}, @code{cumsum},
## @code{cumprod}, @code{max} and @code{min} along a dimension (sums in
## order, as Octave's; the first extreme, NaN skipped), @code{max} and
## @code{min} of two arrays, and @code{nnz}. Comparisons (@code{==},
## @code{~=}, @code{<}, @code{<=}, @code{>}, @code{>=}), @code{&},
## @code{|}, @code{~}, @code{isnan}, @code{isinf}, @code{isfinite} and
## @code{logical} give logical gdArrays (held as bytes on the GPU; Octave's
## comparison rules, NaN without a truth value refused as Octave refuses
## it); @code{any} and @code{all} along a dimension (an Octave logical
## where the answer is one value), @code{mod}, @code{rem}, @code{.^} and
## scalar @code{^} (Octave's rules; a complex result refused; the
## floating powers the library's pow, within 2 ulp on the GPU),
## @code{triu}, @code{tril}, @code{diag}, @code{norm} (an Octave value),
## @code{zeros}, @code{ones}, @code{eye}, @code{rand} and @code{randn}
## (@dots{}, @qcode{"like"}, @var{G}), and indexed assignment
## @code{@var{G}(@var{i}, @var{j}) = @var{x}}, @code{@var{G}(@var{mask}) =
## @var{x}} and deletion @code{@var{G}(:, @var{k}) = []} (Octave's rules:
## G keeps its class, grows with zeros; a new gdArray, the old one
## unchanged) compute on the GPU too, and @code{*} of single matrices
## (by @code{gd_sgemm}) and of double ones (cuBLAS's dgemm), within their
## rounding of Octave's BLAS. @code{arrayfun (@var{fh}, @var{G}, @dots{})}
## with an anonymous function of element-wise arithmetic runs its chain as
## one kernel (compiled at its first use with NVRTC where the CUDA
## toolkit's is found), the unfused operations' bits (else Octave's
## arrayfun on the gathered values). Octave's other operators and functions
## (@code{*} of integer matrices, @code{/} and @code{\} by a matrix, sort,
## find @dots{}) do not take a gdArray yet: they raise
## @qcode{"gd:gather"}, which says to gather first.
##
## A gdArray in a condition (@code{if @var{G}}, @code{while @var{G}},
## @code{@var{G} && @var{x}}) is always false: Octave evaluates a
## classdef object there without calling any of its methods, so no
## error can be raised. Write @code{if (all (@var{G}(:)))} (an Octave
## logical) or @code{if (gather (@var{G}))}.
##
## Without a GPU a gdArray holds its data in host memory and every
## operation on it runs on the CPU, warning once with id
## @qcode{"gd:nogpu"}: code written for the GPU runs unchanged.
##
## Octave 7 cannot save classdef objects and calls no @code{saveobj} for them:
## @code{save -v7} stores a struct of the handle's fields (not the matrix) and
## the other formats fail. Gather a gdArray before @code{save}. Assigning a
## property (@code{G.id = 7}) fails with Octave's message about a structure
## array: Octave asks @code{numel} before the assignment and refuses a count
## other than 1. Only gd makes a gdArray of an id, once: its properties are set
## by gd alone. A gdArray whose data is gone (deleted with @code{delete}, or
## the gd gateway unloaded) raises @qcode{"gd:stale"} when used.
## @seealso{gather, gd_info, gd_minplus, gd_pdist}
## @end deftypefn

  properties
    ## (no comment between classdef and here: Octave 7 would show it as
    ## the class's help instead of the texinfo above.) Set by the
    ## constructor alone, once: subsasgn below refuses a property that
    ## holds its value already (a second object on the same id would free
    ## its memory when it goes). Not SetAccess = private: once Octave
    ## 7 has called this constructor through a function handle (@gdArray),
    ## later constructor calls set properties as if from outside the class
    ## (and, with numel overloaded, through numel: hence sz is set last and
    ## its default has one element).
    ## the table entry of the gateway that owns the memory (not a pointer)
    id = -1;
    cls = "";
    ## size and class, kept here so that asking costs no gateway call
    sz = [1 1 1];
  endproperties

  methods

    function G = gdArray (A, varargin)
      if (nargin == 2 && ischar (A) && strcmp (A, "__gd_wrap__"))
        ## a result of a gd operation: the gateway's table holds the id
        ## and gives its size and class, to one object alone (an id held
        ## already, or one made up, is refused)
        [id, sz, cls] = __gd__ ("claim", varargin{1});
        G.id = id;
        G.cls = cls;
        G.sz = sz;
        return;
      endif
      if (nargin == 3 && ischar (varargin{1}) && strcmpi (varargin{1}, "Device"))
        dev = varargin(2);
      elseif (nargin == 3 && ischar (varargin{1}) && strcmpi (varargin{1}, "Devices"))
        dev = {"devices", varargin{2}};
      elseif (nargin != 1)
        error ("gd:input", "gdArray: expected one matrix: G = gdArray (A), gdArray (A, 'Device', d) or gdArray (A, 'Devices', list)");
      else
        dev = {};
      endif
      if (isa (A, "gdArray"))
        A = gather (A);           # a copy, as for any other matrix
      endif
      G.id = __gd__ ("upload", A, dev{:});
      G.cls = class (A);
      G.sz = size (A);
    endfunction

    function delete (G)
      __gd__ ("free", G.id);
    endfunction

    ## gather (A, B, ...): each argument's host value, one output each
    ## (Octave calls this method whenever an argument is a gdArray)
    function varargout = gather (varargin)
      varargout = __gd_gather__ (nargout, varargin{:});
    endfunction

    ## the device G lives on, as gd_info numbers them (1 without a GPU);
    ## a distributed G's devices, one a piece of its columns, in order
    function d = device (G)
      d = __gd__ ("device", G);
    endfunction

    function varargout = size (G, d)
      if (nargin == 2)
        if (! (isnumeric (d) && isscalar (d) && d >= 1 && d == fix (d)))
          error ("gd:input", "size: DIM must be a positive integer");
        endif
        varargout{1} = 1;
        if (d <= 2)
          varargout{1} = G.sz(d);
        endif
      elseif (nargout <= 1)
        varargout{1} = G.sz;
      else
        v = [G.sz, ones(1, nargout - 2)];
        varargout = num2cell (v(1:nargout));
      endif
    endfunction

    function r = rows (G)
      r = G.sz(1);
    endfunction

    function c = columns (G)
      c = G.sz(2);
    endfunction

    ## numel (G, idx...): how many values G(idx...) gives, one gdArray (Octave
    ## asks it before subsref)
    function n = numel (G, varargin)
      if (nargin > 1)
        n = 1;
      else
        n = prod (G.sz);
      endif
    endfunction

    ## G(i, j), G(k): Octave's indexing (numbers, ranges, logical masks, ':',
    ## end), the result a gdArray on G's device, gathered there: the
    ## subscripts become lists of positions (__gd_index__, Octave's rules
    ## and errors) and a kernel copies the elements. {} indexing is
    ## refused; G.name reaches the methods.
    function varargout = subsref (G, s)
      switch (s(1).type)
        case "()"
          subs = s(1).subs;
          if (isempty (subs))
            R = G;
          else
            [I, J, r, c] = __gd_index__ (G.sz, subs);
            if (r * c == 0)
              R = gdArray (cast (zeros (r, c), G.cls), "Device", device (G)(1));
            else
              R = __gd__ ("index", G, I, J, r, c);
            endif
          endif
        case "{}"
          error ("gd:input", "gdArray: {} indexing is not defined for a gdArray (it is not a cell): use ()");
        otherwise
          [varargout{1:max (nargout, 1)}] = builtin ("subsref", G, s);
          return;
      endswitch
      if (numel (s) > 1)
        [varargout{1:max (nargout, 1)}] = subsref (R, s(2:end));
      else
        varargout{1} = R;
      endif
    endfunction

    ## end inside G(...): the size along subscript k of n
    function e = end (G, k, n)
      if (n == 1)
        e = prod (G.sz);
      elseif (k < n)
        e = G.sz(min (k, 2));
        if (k > 2) e = 1; endif
      else
        e = prod ([G.sz(min (k, 2):end), 1]);
        if (k > 2) e = 1; endif
      endif
    endfunction

    ## gpuArray's answers: the class's, for the data a gdArray holds
    function tf = isfloat (G)
      tf = any (strcmp (G.cls, {"single", "double"}));
    endfunction
    function tf = isinteger (G)
      tf = ! isfloat (G) && ! islogical (G);
    endfunction
    function tf = isnumeric (G)
      tf = ! islogical (G);
    endfunction
    function tf = isreal (G)
      tf = true;
    endfunction
    function tf = islogical (G)
      tf = strcmp (G.cls, "logical");
    endfunction
    function c = underlyingType (G)
      c = G.cls;
    endfunction
    ## whether its data is held on a GPU (false where gd holds it in host
    ## memory for want of one, and for a gdArray whose data is gone)
    function tf = existsOnGPU (G)
      tf = __gd__ ("on_gpu", G);
    endfunction

    function n = ndims (G)
      n = 2;
    endfunction

    function n = length (G)
      n = 0;
      if (all (G.sz))
        n = max (G.sz);
      endif
    endfunction

    function tf = isempty (G)
      tf = any (G.sz == 0);
    endfunction

    function c = classUnderlying (G)
      c = G.cls;
    endfunction

    function R = transpose (G)
      R = __gd__ ("transpose", G);
    endfunction

    function R = ctranspose (G)
      R = __gd__ ("transpose", G);
    endfunction

    ## truth: logical (G) a logical gdArray (NaN refused, as Octave's); any
    ## and all on the device, an Octave logical where the answer is one
    ## value (Octave 7 takes "if G" on any classdef object as false,
    ## without asking the class: "if any (G(:))" must see a logical);
    ## isequal and isequaln by == (and isnan) on the device, the answer
    ## gathered (__gd_isequal__)
    function R = logical (G)
      R = __gd__ ("convert", G, "logical");
    endfunction
    function R = any (G, varargin)
      R = __gd_reduce__ ("any", G, varargin);
    endfunction
    function R = all (G, varargin)
      R = __gd_reduce__ ("all", G, varargin);
    endfunction
    function tf = isequal (varargin)
      tf = __gd_isequal__ (false, varargin{:});
    endfunction
    function tf = isequaln (varargin)
      tf = __gd_isequal__ (true, varargin{:});
    endfunction
    function tf = isscalar (G)
      tf = all (G.sz(1:2) == 1);
    endfunction
    function tf = isvector (G)
      tf = any (G.sz(1:2) == 1) && prod (G.sz(1:2)) >= 1;
    endfunction
    function tf = isrow (G)
      tf = G.sz(1) == 1;
    endfunction
    function tf = iscolumn (G)
      tf = G.sz(2) == 1;
    endfunction
    function tf = ismatrix (G)
      tf = true;
    endfunction
    function tf = issquare (G)
      tf = G.sz(1) == G.sz(2);
    endfunction

    ## assignment: G(i, j) = x, G(mask) = x, G(:, k) = [] by Octave's
    ## rules (__gd_assign__), a new gdArray (gdArrays are values: a copy
    ## of G is not changed). G.name = x: the constructor's own (which
    ## come here once Octave 7 has called it through a function handle),
    ## each property once, while it holds its default; any other is
    ## refused (a second object on the same id would free its memory when
    ## it goes)
    function G = subsasgn (G, s, x)
      if (! isa (G, "gdArray"))         # A(i) = G, A an Octave array
        G = subsasgn (G, s, gather (x));
        return;
      endif
      if (strcmp (s(1).type, "()") && numel (s) == 1)
        G = __gd_assign__ (G, s(1).subs, x);
        return;
      elseif (strcmp (s(1).type, "."))
        name = s(1).subs;
        unset = (strcmp (name, "id") && isequal (G.id, -1)) ...
                || (strcmp (name, "cls") && isempty (G.cls)) ...
                || (strcmp (name, "sz") && numel (G.sz) == 3);
        if (! unset || numel (s) > 1)
          error ("gd:input", "gdArray: its properties are set by gd alone ('%s' cannot be assigned)", name);
        endif
        G = builtin ("subsasgn", G, s, x);
        return;
      endif
      __gd_refuse__ ("this assignment (G(...) = x is offered, G{...} and G(...).f are not)");
    endfunction

    ## Octave's operators and functions that do not take a gdArray yet:
    ## an error with id "gd:gather" that says to gather first (Octave's own
    ## would say "method not defined" or "wrong type argument 'object'")
    function R = plus (a, b)
      R = __gd_ew__ ("+", a, b);
    endfunction
    function R = minus (a, b)
      R = __gd_ew__ ("-", a, b);
    endfunction
    function R = times (a, b)
      R = __gd_ew__ (".*", a, b);
    endfunction
    function R = rdivide (a, b)
      R = __gd_ew__ ("./", a, b);
    endfunction
    function R = ldivide (a, b)
      R = __gd_ew__ (".\\", a, b);
    endfunction
    ## arrayfun (fh, G, ...): an element-wise chain in one pass
    ## (private/__gd_arrayfun__)
    function varargout = arrayfun (fh, varargin)
      [varargout{1:max (1, nargout)}] = __gd_arrayfun__ (fh, varargin{:});
    endfunction
    ## a * b: private/__gd_mtimes__
    function R = mtimes (a, b)
      R = __gd_mtimes__ (a, b);
    endfunction
    function R = mrdivide (a, b)          # (by a scalar: element-wise)
      if (! isscalar (b))
        __gd_refuse__ ("'/' (mrdivide) by a matrix");
      endif
      R = __gd_ew__ ("./", a, b);
    endfunction
    function R = mldivide (a, b)
      if (! isscalar (a))
        __gd_refuse__ ("'\\' (mldivide) of a matrix");
      endif
      R = __gd_ew__ (".\\", a, b);
    endfunction
    function R = power (a, b)
      R = __gd_matrix__ ("power", a, {b});
    endfunction
    function R = mpower (a, b)
      if (! (isscalar (a) && isscalar (b)))
        __gd_refuse__ ("'^' (mpower) of a matrix");
      endif
      R = __gd_matrix__ ("power", a, {b});
    endfunction
    function R = uminus (G)
      R = __gd_ew1__ (0, G);
    endfunction
    function R = uplus (G)
      R = G;
    endfunction
    function R = abs (G)
      R = __gd_ew1__ (1, G);
    endfunction
    function R = lt (a, b)
      R = __gd_cmp__ ("<", a, b);
    endfunction
    function R = le (a, b)
      R = __gd_cmp__ ("<=", a, b);
    endfunction
    function R = gt (a, b)
      R = __gd_cmp__ (">", a, b);
    endfunction
    function R = ge (a, b)
      R = __gd_cmp__ (">=", a, b);
    endfunction
    function R = eq (a, b)
      R = __gd_cmp__ ("==", a, b);
    endfunction
    function R = ne (a, b)
      R = __gd_cmp__ ("!=", a, b);
    endfunction
    function R = and (a, b)
      R = __gd_cmp__ ("&", a, b);
    endfunction
    function R = or (a, b)
      R = __gd_cmp__ ("|", a, b);
    endfunction
    function R = not (G)
      R = __gd__ ("test", 4, G);
    endfunction
    function varargout = colon (varargin)
      __gd_refuse__ ("':' (colon)");
    endfunction
    function R = horzcat (varargin)
      R = __gd_shape__ ("cat", 2, varargin);
    endfunction
    function R = vertcat (varargin)
      R = __gd_shape__ ("cat", 1, varargin);
    endfunction
    function R = cat (dim, varargin)
      R = __gd_shape__ ("cat", dim, varargin);
    endfunction
    function R = sum (G, varargin)
      if ((d = __gd_dim__ (G, varargin)))      # dim 1 or 2: the gateway at once
        R = __gd__ ("reduce", 0, G, d);
      else
        R = __gd_reduce__ ("sum", G, varargin);
      endif
    endfunction
    function R = prod (G, varargin)
      R = __gd_reduce__ ("prod", G, varargin);
    endfunction
    function R = cumsum (G, varargin)
      R = __gd_reduce__ ("cumsum", G, varargin);
    endfunction
    function R = cumprod (G, varargin)
      R = __gd_reduce__ ("cumprod", G, varargin);
    endfunction
    function [R, I] = max (G, varargin)
      if (! (d = __gd_dim__ (G, varargin, true)))
        [R, I] = __gd_reduce__ ("max", G, varargin, nargout);
      elseif (nargout < 2)
        R = __gd__ ("reduce", 2, G, d);
      else
        [R, I] = __gd__ ("reduce", 2, G, d);
      endif
    endfunction
    function [R, I] = min (G, varargin)
      if (! (d = __gd_dim__ (G, varargin, true)))
        [R, I] = __gd_reduce__ ("min", G, varargin, nargout);
      elseif (nargout < 2)
        R = __gd__ ("reduce", 3, G, d);
      else
        [R, I] = __gd__ ("reduce", 3, G, d);
      endif
    endfunction
    function R = mean (G, varargin)
      R = __gd_reduce__ ("mean", G, varargin);
    endfunction
    function varargout = median (varargin)
      __gd_refuse__ ("median");
    endfunction
    function varargout = mode (varargin)
      __gd_refuse__ ("mode");
    endfunction
    function R = sqrt (G)
      if (isinteger (G))                # Octave's: in double
        G = double (G);
      endif
      if (numel (G) && gather (min (min (G))) < 0)
        __gd_refuse__ ("sqrt of a negative element (a complex result)");
      endif
      R = __gd_ew1__ (2, G);
    endfunction
    function R = exp (G)
      R = __gd_math__ (8, G, -Inf);
    endfunction
    function R = log (G)
      R = __gd_math__ (9, G, 0);
    endfunction
    function R = log2 (G)
      R = __gd_math__ (10, G, 0);
    endfunction
    function varargout = log10 (varargin)
      __gd_refuse__ ("log10");
    endfunction
    function R = log1p (G)
      R = __gd_math__ (11, G, -1);
    endfunction
    function R = expm1 (G)
      R = __gd_math__ (12, G, -Inf);
    endfunction
    function R = sin (G)
      R = __gd_math__ (13, G, -Inf);
    endfunction
    function R = cos (G)
      R = __gd_math__ (14, G, -Inf);
    endfunction
    function varargout = tan (varargin)
      __gd_refuse__ ("tan");
    endfunction
    function R = tanh (G)
      R = __gd_math__ (15, G, -Inf);
    endfunction
    function R = floor (G)
      R = __gd_ew1__ (3, G);
    endfunction
    function R = ceil (G)
      R = __gd_ew1__ (4, G);
    endfunction
    function R = round (G)
      R = __gd_ew1__ (5, G);
    endfunction
    function R = fix (G)
      R = __gd_ew1__ (6, G);
    endfunction
    function R = sign (G)
      R = __gd_ew1__ (7, G);
    endfunction
    function R = mod (a, b)
      R = __gd_ew__ ("mod", a, b);
    endfunction
    function R = rem (a, b)
      R = __gd_ew__ ("rem", a, b);
    endfunction
    function R = isnan (G)
      R = __gd__ ("test", 0, G);
    endfunction
    function R = isinf (G)
      R = __gd__ ("test", 1, G);
    endfunction
    function R = isfinite (G)
      R = __gd__ ("test", 2, G);
    endfunction
    function R = double (G)
      R = __gd__ ("convert", G, "double");
    endfunction
    function R = single (G)
      R = __gd__ ("convert", G, "single");
    endfunction
    function R = int8 (G)
      R = __gd__ ("convert", G, "int8");
    endfunction
    function R = int16 (G)
      R = __gd__ ("convert", G, "int16");
    endfunction
    function R = int32 (G)
      R = __gd__ ("convert", G, "int32");
    endfunction
    function R = int64 (G)
      R = __gd__ ("convert", G, "int64");
    endfunction
    function R = uint8 (G)
      R = __gd__ ("convert", G, "uint8");
    endfunction
    function R = uint16 (G)
      R = __gd__ ("convert", G, "uint16");
    endfunction
    function R = uint32 (G)
      R = __gd__ ("convert", G, "uint32");
    endfunction
    function R = uint64 (G)
      R = __gd__ ("convert", G, "uint64");
    endfunction
    function varargout = char (varargin)
      __gd_refuse__ ("char");
    endfunction
    function R = reshape (G, varargin)
      R = __gd_shape__ ("reshape", G, varargin);
    endfunction
    function R = repmat (G, varargin)
      R = __gd_shape__ ("repmat", G, varargin);
    endfunction
    function R = diag (G, varargin)
      R = __gd_matrix__ ("diag", G, varargin);
    endfunction
    function R = triu (G, k = 0)
      R = __gd__ ("tri", G, k, true);
    endfunction
    function R = tril (G, k = 0)
      R = __gd__ ("tri", G, k, false);
    endfunction
    ## zeros, ones, eye, rand, randn (..., "like", G)
    function R = zeros (varargin)
      R = __gd_make__ ("zeros", varargin);
    endfunction
    function R = ones (varargin)
      R = __gd_make__ ("ones", varargin);
    endfunction
    function R = eye (varargin)
      R = __gd_make__ ("eye", varargin);
    endfunction
    function R = rand (varargin)
      R = __gd_make__ ("rand", varargin);
    endfunction
    function R = randn (varargin)
      R = __gd_make__ ("randn", varargin);
    endfunction
    function varargout = sort (varargin)
      __gd_refuse__ ("sort");
    endfunction
    function varargout = find (varargin)
      __gd_refuse__ ("find");
    endfunction
    function n = nnz (G)
      n = 0;
      if (numel (G))
        n = sum (gather (__gd__ ("reduce", 4, G, 1)));
      endif
    endfunction
    function r = norm (G, varargin)
      r = __gd_matrix__ ("norm", G, varargin);
    endfunction
    function varargout = full (varargin)
      __gd_refuse__ ("full");
    endfunction
    function varargout = sparse (varargin)
      __gd_refuse__ ("sparse");
    endfunction
    function varargout = permute (varargin)
      __gd_refuse__ ("permute");
    endfunction
    function varargout = squeeze (varargin)
      __gd_refuse__ ("squeeze");
    endfunction
    function varargout = circshift (varargin)
      __gd_refuse__ ("circshift");
    endfunction
    function varargout = fliplr (varargin)
      __gd_refuse__ ("fliplr");
    endfunction
    function varargout = flipud (varargin)
      __gd_refuse__ ("flipud");
    endfunction
    function varargout = kron (varargin)
      __gd_refuse__ ("kron");
    endfunction
    function varargout = dot (varargin)
      __gd_refuse__ ("dot");
    endfunction

    function s = disp (G)
      if (nargout > 0)
        s = [__gd__("describe", G), "\n"];
      else
        printf ("  %s\n", __gd__ ("describe", G));
      endif
    endfunction

  endmethods

endclassdef

%!shared A
%! warning ("off", "gd:nogpu");
%! A = rand (37, 23);

%!test
%! G = gdArray (A);
%! assert (isa (G, "gdArray"));
%! assert (gather ([G, G]), [A, A]);
%! assert (gather (G), A);
%! assert (size (G), [37 23]);
%! assert (size (G, 1), 37);
%! assert (size (G, 3), 1);
%! [r, c] = size (G);
%! assert ([r c], [37 23]);
%! assert ([rows(G) columns(G) numel(G) ndims(G)], [37 23 37*23 2]);
%! assert (classUnderlying (G), "double");
%! assert (! isempty (G));

%!test
%! S = single (A);
%! G = gdArray (S);
%! assert (classUnderlying (G), "single");
%! assert (isequal (gather (G), S));
%! assert (class (gather (G)), "single");
%! T = G';
%! assert (isa (T, "gdArray"));
%! assert (isequal (gather (T), S'));
%! assert (isequal (gather (G.'), S.'));

%!test
%! ## bit for bit: NaN, Inf, -0, denormals
%! X = [NaN -0 Inf; -Inf realmin/4 1];
%! assert (isequaln (gather (gdArray (X)), X));
%! assert (1 ./ gather (gdArray (-0)), -Inf);

%!test
%! ## every integer class, bit for bit, at its limits; the transpose
%! for c = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"}
%!   X = [intmin(c{1}) intmax(c{1}) 0; 1 2 3];
%!   X(:, end+1) = cast (randi (100, 2, 1), c{1});
%!   G = gdArray (X);
%!   assert (classUnderlying (G), c{1});
%!   assert (isequal (gather (G), X) && strcmp (class (gather (G)), c{1}));
%!   assert (isequal (gather (G.'), X.'));
%!   assert (! isempty (strfind (evalc ("disp (G)"), ["2x4 " c{1} " gdArray"])));
%! endfor

%!test
%! assert (gather (A), A);                   # an ordinary matrix: unchanged
%! assert (gather ("text"), "text");

%!test
%! G = gdArray (zeros (0, 3));
%! assert (isempty (G));
%! assert (size (gather (G)), [0 3]);

%!test
%! G = gdArray (A);
%! H = G;                                    # a handle: the same data
%! clear G
%! assert (gather (H), A);


%!demo
%! ## data kept on the GPU (on the host where there is none): repeated
%! ## min-plus squaring without a copy between the calls, one gather
%! W = [0 1 Inf Inf; Inf 0 1 Inf; Inf Inf 0 1; 1 Inf Inf 0];
%! G = gdArray (W);
%! for s = 1:2
%!   G = gd_minplus (G);
%! endfor
%! G
%! D = gather (G)
