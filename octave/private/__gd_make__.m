## -*- texinfo -*-
## @deftypefn {} {@var{R} =} __gd_make__ (@var{what}, @var{args})
## gdArray's zeros, ones, eye, rand and randn (internal), in the
## @code{like} form: @code{zeros (m, n, "like", G)} a gdArray of G's class
## on G's device (zeros, ones and eye made there; rand and randn drawn by
## Octave's generators on the host, in G's class, then uploaded, so that
## a seed gives what it gives Octave). Sizes as Octave's: n (n x n), m, n
## or [m n]; 2-D.
## @end deftypefn

function R = __gd_make__ (what, args)
  at = find (cellfun (@(a) ischar (a) && strcmpi (a, "like"), args), 1);
  if (isempty (at) || at != numel (args) - 1 || ! isa (args{end}, "gdArray"))
    error ("gd:input", "%s: a gdArray comes as the like form: %s (m, n, \"like\", G)", what, what);
  endif
  G = args{end};
  d = args(1:at - 1);
  if (! all (cellfun (@(x) isnumeric (x) && isreal (x), d)))
    error ("gd:input", "%s: the dimensions must be numbers", what);
  endif
  d = double ([d{:}]);
  if (isempty (d))
    d = [1 1];
  elseif (isscalar (d))
    d = [d d];
  endif
  if (numel (d) > 2 && any (d(3:end) != 1))
    error ("gd:input", "%s: gdArrays are 2-D", what);
  endif
  d = max (fix (d(1:2)), 0);
  cls = classUnderlying (G);
  dev = device (G)(1);
  switch (what)
    case {"zeros", "ones"}
      R = __gd__ ("fill", cls, d(1), d(2), strcmp (what, "ones"), dev);
    case "eye"
      R = __gd__ ("fill", cls, d(1), d(2), 0, dev);
      k = (1:min (d))';
      if (! isempty (k))
        R = __gd__ ("assign", R, k + (k - 1) * d(1), cast (1, cls));
      endif
    otherwise                           # rand, randn: Octave's generators
      if (! any (strcmp (cls, {"single", "double"})))
        error ("gd:input", "%s: the like array must be single or double, not %s", what, cls);
      endif
      R = gdArray (feval (what, d(1), d(2), cls), "Device", dev);
  endswitch
endfunction
