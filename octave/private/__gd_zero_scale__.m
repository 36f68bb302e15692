## -*- texinfo -*-
## @deftypefn {} {[@var{R}, @var{I}, @var{info}] =} __gd_zero_scale__ (@var{zero}, @var{op}, @var{data}, @var{args}, @var{nout})
## seuclidean's distances where a scale is 0. By the definition,
## @code{sqrt (sum (((x - y) ./ S).^2))}, a column of scale 0 adds Inf
## where x and y differ there and NaN where they are equal or either is
## NaN (0/0), so each distance is NaN where the other columns' distance is
## NaN or some zero-scale column adds NaN, else Inf. @var{zero}: those
## columns (__gd_prepare__'s); @var{op}: "pdist", "pdist2" or
## "knnsearch" (pdist2's, the K a row a query);
## @var{data}: the prepared rows ({X} or {X, Y}, without those columns);
## @var{args}: the prepared arguments. The gateway computes the other
## columns' distances (all of them: 'Smallest' and 'Largest' are taken
## here, by Octave's sort, which orders Inf by index before NaN, as the
## kernels do); @var{R} keeps its class and, for gdArray data, stays a
## gdArray.
## @end deftypefn

function [R, I, info] = __gd_zero_scale__ (zero, op, data, args, nout)
  I = [];
  ## gd_knnsearch's form: pdist2's, its results a row a query
  by_query = strcmp (op, "knnsearch");
  if (by_query)
    op = "pdist2";
  endif
  ## 'Smallest' / 'Largest' K and 'IndexClass' taken out, for the whole
  ## matrix; a value the gateway would refuse goes to it, for its error
  K = [];
  mode = "ascend";
  iclass = "double";
  keep = true (size (args));
  for a = 2:numel (args) - 1
    if (keep(a) && ischar (args{a}) && any (strcmpi (args{a}, {"smallest", "largest", "indexclass"})))
      if (strcmpi (args{a}, "indexclass"))
        iclass = args{a+1};
      else
        K = args{a+1};
        if (strcmpi (args{a}, "largest"))
          mode = "descend";
        endif
      endif
      keep(a:a+1) = false;
    endif
  endfor
  valid = isempty (K) && all (keep) ...
          || (isnumeric (K) && isscalar (K) && isreal (K) && K >= 1 && K == fix (K) ...
              && ischar (iclass) && any (strcmp (iclass, {"double", "int32"})));
  if (! valid)
    [R, I, info] = __gd__ (op, data{:}, args{:});   # the gateway's error
    return;
  endif
  args = args(keep);
  if (columns (data{1}) == 0)
    ## no other column: their distance is 0 (the gateway still checks the
    ## options, on rows of one zero column)
    data = cellfun (@(Z) zeros (rows (Z), 1, __gd_class__ (Z)), data, "UniformOutput", false);
  endif
  if (strcmp (op, "pdist"))
    [R, info] = __gd__ (op, data{:}, args{:});
  else
    [R, ~, info] = __gd__ (op, data{:}, args{:});
  endif
  resident = isa (R, "gdArray");
  R = gather (R);
  cls = class (R);
  X = zero.x;
  Y = zero.y;
  pairs = strcmp (op, "pdist");
  if (pairs)
    Y = X;
  endif
  nx = rows (X);
  ny = rows (Y);
  nanx = any (isnan (X), 2);
  nany = any (isnan (Y), 2);
  ## pdist2's R is nx x ny; pdist's holds the pairs i < j column by column
  ## of the lower triangle, one column of it at a time
  if (pairs)
    out = R;
    at = 0;
    for j = 1:nx - 1
      i = (j + 1:nx)';
      nan = isnan (out(at + (1:numel (i)))).' | nanx(i) | nanx(j);
      for k = 1:columns (X)
        nan |= X(i, k) == X(j, k);
      endfor
      v = repmat (cast (Inf, cls), numel (i), 1);
      v(nan) = NaN;
      out(at + (1:numel (i))) = v;
      at += numel (i);
    endfor
    R = out;
  else
    for j = 1:ny
      nan = isnan (R(:, j)) | nanx | nany(j);
      for k = 1:columns (X)
        nan |= X(:, k) == Y(j, k);
      endfor
      v = repmat (cast (Inf, cls), nx, 1);
      v(nan) = NaN;
      R(:, j) = v;
    endfor
    if (! isempty (K))
      ## each column's K first by Octave's order (stable: ties by index)
      K = min (double (K), nx);
      [R, I] = sort (R, 1, mode);
      R = R(1:K, :);
      I = cast (I(1:K, :), iclass);
      if (by_query)
        R = R.';
        I = I.';
      endif
    endif
  endif
  if (resident)
    R = gdArray (R);
    if (! isempty (I))
      I = gdArray (I);
    endif
  endif
endfunction
