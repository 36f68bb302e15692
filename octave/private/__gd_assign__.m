## -*- texinfo -*-
## @deftypefn {} {@var{R} =} __gd_assign__ (@var{G}, @var{subs}, @var{x})
## gdArray's indexed assignment (internal): @code{G(subs@{:@}) = x} as a
## new gdArray on G's device, by Octave's rules: the subscripts as
## indexing takes them (':', numbers, logical masks, a logical gdArray
## mask gathered first); @var{x} one value or as many as the places
## (@qcode{"Octave:nonconformant-args"} else), converted to G's class (G
## keeps its class, as an Octave array does); where positions repeat, the
## last value; the array grown with zeros past its end (a vector, or an
## empty array, by a linear index; any array by two subscripts; else
## @qcode{"Octave:invalid-resize"}). @code{x = []} (an empty Octave
## matrix) deletes: one subscript that is not ':' (rows or columns), or
## a linear index (the rest as a row, a vector keeping its orientation).
## @end deftypefn

function R = __gd_assign__ (G, subs, x)
  for t = 1:numel (subs)                # a logical gdArray mask: its places
    if (isa (subs{t}, "gdArray"))
      subs{t} = gather (subs{t});
    endif
  endfor
  if (! isa (x, "gdArray") && (isnumeric (x) || ischar (x)) && isequal (size (x), [0 0]))
    R = delete_part (G, subs);
    return;
  endif
  sz = size (G);
  if (numel (subs) == 1)
    top = reach (subs{1}, prod (sz));
    if (top > prod (sz))
      if (sz(1) == 1 || isequal (sz, [0 0]))
        G = grow (G, [1 top]);
      elseif (sz(2) == 1)
        G = grow (G, [top 1]);
      else
        error ("Octave:invalid-resize", "Octave:invalid-resize: Invalid resizing operation or ambiguous assignment to an out-of-bounds array element");
      endif
    endif
  else
    need = sz;
    for t = 1:2
      need(t) = max (sz(t), reach (subs{t}, sz(t)));
    endfor
    if (any (need > sz))
      G = grow (G, need);
    endif
  endif
  sz = size (G);
  [I, J, r, c] = __gd_index__ (sz, subs);
  if (isempty (J))
    P = I;
    places = [r * c, 1];
  else
    P = I + (J' - 1) * sz(1);
    P = P(:);
    places = [r c];
  endif
  nx = numel (x);
  sq = @(d) d(d != 1);
  if (nx != 1 && (nx != numel (P) || (numel (subs) > 1 && ! isequal (sq ([r c]), sq (size (x))))))
    error ("Octave:nonconformant-args", "=: nonconformant arguments (op1 is %dx%d, op2 is %dx%d)",
           places, size (x));
  endif
  if (isempty (P))
    R = G;
    return;
  endif
  x = in_class (x, classUnderlying (G));
  if (nx > 1)
    [P, last] = unique (P, "last");     # (the last value where places repeat)
    if (numel (last) < nx)
      x = x(last);
    endif
  endif
  R = __gd__ ("assign", G, P, x);
endfunction

## the largest position a subscript reaches (len for ':')
function top = reach (k, len)
  if (ischar (k) && strcmp (k, ":"))
    top = len;
  elseif (islogical (k))
    top = max ([find(k(:), 1, "last"); 0]);
  elseif (isnumeric (k) && isreal (k) && ! isempty (k))
    top = max (double (k(:)));
    if (! (top >= 1 && top == fix (top) && top < 2^53))
      top = len;                        # (__gd_index__ names the bad one)
    endif
  else
    top = len;
  endif
endfunction

## G padded with zeros to size sz (rows below, then columns to the
## right: gd's concatenation on the device)
function R = grow (G, sz)
  [r, c] = size (G);
  cls = classUnderlying (G);
  dev = device (G)(1);
  R = G;
  if (sz(1) > r)
    R = __gd__ ("cat", 1, R, __gd__ ("fill", cls, sz(1) - r, c, 0, dev));
  endif
  if (sz(2) > c)
    R = __gd__ ("cat", 2, R, __gd__ ("fill", cls, sz(1), sz(2) - c, 0, dev));
  endif
endfunction

## x in class c: a gdArray converted on its device, a matrix on the host
## (logical: its truth, NaN refused)
function x = in_class (x, c)
  if (isa (x, "gdArray"))
    if (! strcmp (classUnderlying (x), c))
      x = __gd__ ("convert", x, c);
    endif
  elseif (! (isnumeric (x) || islogical (x) || ischar (x)) || issparse (x) || iscomplex (x))
    error ("gd:input", "gdArray: G(...) = x takes a real full array or a gdArray x, not %s", class (x));
  elseif (! strcmp (class (x), c))
    x = cast (x, c);
  endif
endfunction

## G(subs) = []: Octave's deletion
function R = delete_part (G, subs)
  [m, n] = size (G);
  if (numel (subs) == 1)
    if (ischar (subs{1}) && strcmp (subs{1}, ":"))   # G(:) = []: 0 x 0
      R = __gd__ ("fill", classUnderlying (G), 0, 0, 0, device (G)(1));
      return;
    endif
    [I, ~] = __gd_index__ ([m n], subs);
    keep = true (m * n, 1);
    keep(I) = false;
    if (all (keep))
      R = G;
      return;
    endif
    k = find (keep);
    ## Octave's shape: a row stays a row, and the last element of a matrix
    ## alone goes as a row shortens (resize); else a column
    row = m == 1 || (n != 1 && isscalar (I) && I == m * n);
    if (isempty (k))
      R = __gd__ ("fill", classUnderlying (G), row, ! row, 0, device (G)(1));
    elseif (row)
      R = __gd__ ("index", G, k, [], 1, numel (k));
    else
      R = __gd__ ("index", G, k, [], numel (k), 1);
    endif
    return;
  endif
  colon = cellfun (@(s) ischar (s) && strcmp (s, ":"), subs(1:2));
  [I, J] = __gd_index__ ([m n], subs(1:2));
  rows_all = colon(1) || isequal (unique (I(:)), (1:m)');
  cols_all = colon(2) || isequal (unique (J(:)), (1:n)');
  full_ = [rows_all, cols_all];
  if (all (full_))
    R = __gd__ ("fill", classUnderlying (G), 0, n, 0, device (G)(1));
    return;
  endif
  if (! any (full_))
    error ("Octave:nonconformant-args", "a null assignment can only have one non-colon index");
  endif
  if (full_(1))                         # columns J go
    keepc = setdiff (1:n, J);
    R = part (G, (1:m)', keepc(:));
  else                                  # rows I go
    keepr = setdiff (1:m, I);
    R = part (G, keepr(:), (1:n)');
  endif
endfunction

## G(I, J), a gdArray (of no element where I or J is empty)
function R = part (G, I, J)
  if (isempty (I) || isempty (J))
    R = __gd__ ("fill", classUnderlying (G), numel (I), numel (J), 0, device (G)(1));
  else
    R = __gd__ ("index", G, I, J, numel (I), numel (J));
  endif
endfunction
