## -*- texinfo -*-
## @deftypefn  {} {@var{R} =} __gd_shape__ ("cat", @var{dim}, @var{parts})
## @deftypefnx {} {@var{R} =} __gd_shape__ ("reshape", @var{G}, @var{args})
## @deftypefnx {} {@var{R} =} __gd_shape__ ("repmat", @var{G}, @var{args})
## gdArray's concatenation, reshape and repmat (internal), as Octave's: the
## result's class Octave's own (the concatenation of a sample of each
## part), the parts converted to it, the sizes checked with Octave's
## messages; the data moved on the GPU where a part is there.
## @end deftypefn

function R = __gd_shape__ (what, varargin)
  switch (what)
    case "cat"
      R = cat_parts (varargin{:});
    case "reshape"
      R = reshape_to (varargin{:});
    case "repmat"
      R = repmat_of (varargin{:});
  endswitch
endfunction

function R = cat_parts (dim, parts)
  if (! (isequal (dim, 1) || isequal (dim, 2)))
    error ("gd:input", "gdArray: cat along dimension %s: gdArrays are 2-D (1 or 2)", num2str (dim));
  endif
  keep = ! cellfun (@(x) ! isa (x, "gdArray") && isequal (size (x), [0 0]), parts);
  parts = parts(keep);
  samples = cell (size (parts));
  for p = 1:numel (parts)
    x = parts{p};
    if (isa (x, "gdArray"))
      samples{p} = cast (0, classUnderlying (x));
    elseif (isnumeric (x) || islogical (x) || ischar (x))
      if (ndims (x) > 2 || issparse (x) || iscomplex (x))
        error ("gd:input", "gdArray: concatenation with a %s part is not offered (full, real, 2-D parts)",
               merge (issparse (x), "sparse", merge (iscomplex (x), "complex", "N-D")));
      endif
      samples{p} = x(1:min (1, numel (x)));
      if (isempty (samples{p}))
        samples{p} = resize (x, 1, 1);
      endif
    else
      samples{p} = x;                  # (Octave's own error below)
    endif
  endfor
  rc = class (cat (dim, samples{:}));
  if (! any (strcmp (rc, {"double", "single", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "logical"})))
    error ("gd:gather", "gdArray: concatenation giving %s does not take a gdArray: gather it first (A = gather (G))", rc);
  endif
  sz = size (parts{1});
  for p = 2:numel (parts)
    s = size (parts{p});
    if (s(3 - dim) != sz(3 - dim))
      error ("Octave:nonconformant-args", "%s dimensions mismatch (%dx%d vs %dx%d)",
             merge (dim == 2, "horizontal", "vertical"), sz, s);
    endif
    sz(dim) += s(dim);
  endfor
  for p = 1:numel (parts)
    x = parts{p};
    if (isa (x, "gdArray"))
      if (! strcmp (classUnderlying (x), rc))
        parts{p} = __gd__ ("convert", x, rc);
      endif
    else
      parts{p} = cast (x, rc);
    endif
  endfor
  R = __gd__ ("cat", dim, parts{:});
endfunction

function R = reshape_to (G, args)
  n = numel (G);
  if (numel (args) == 1)
    d = args{1};
  else
    e = cellfun (@isempty, args);
    if (sum (e) > 1)
      error ("Octave:invalid-input-type", "reshape: only a single dimension can be unknown");
    endif
    d = zeros (1, numel (args));
    d(! e) = [args{! e}];
    if (any (e))
      k = prod (d(! e));
      if (k == 0 || mod (n, k))
        error ("Octave:invalid-input-type", "reshape: SIZE is not divisible by the product of known dimensions (= %d)", k);
      endif
      d(e) = n / k;
    endif
  endif
  if (! (isnumeric (d) && isvector (d) && all (d >= 0 & d == fix (d))) || numel (d) < 2)
    error ("Octave:invalid-input-type", "reshape: SIZE must be non-negative integers");
  endif
  if (prod (d) != n)
    sz = size (G);
    error ("Octave:invalid-input-type", "reshape: can't reshape %dx%d array to %s array", sz,
           strjoin (arrayfun (@num2str, d, "UniformOutput", false), "x"));
  endif
  if (any (d(3:end) != 1))
    error ("gd:input", "gdArray: reshape to %d dimensions: gdArrays are 2-D", numel (d));
  endif
  R = __gd__ ("convert", G, classUnderlying (G), d(1), d(2));
endfunction

function R = repmat_of (G, args)
  if (numel (args) == 1)
    m = args{1};
  else
    m = [args{:}];
  endif
  if (isscalar (m))
    m = [m m];
  endif
  if (! (isnumeric (m) && isvector (m) && all (m == fix (m))))
    error ("Octave:invalid-input-type", "repmat: M and N must be integers");
  endif
  if (any (m(3:end) != 1))
    error ("gd:input", "gdArray: repmat to more than 2 dimensions: gdArrays are 2-D");
  endif
  m = max (m(1:2), 0);
  [r, c] = size (G);
  I = repmat (1:r, 1, m(1));
  J = repmat (1:c, 1, m(2));
  if (isempty (I) || isempty (J))
    R = gdArray (cast (zeros (numel (I), numel (J)), classUnderlying (G)));
  else
    R = __gd__ ("index", G, I(:), J(:), numel (I), numel (J));
  endif
endfunction
