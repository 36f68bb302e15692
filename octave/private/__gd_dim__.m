## -*- texinfo -*-
## @deftypefn {} {@var{d} =} __gd_dim__ (@var{G}, @var{args}, @var{extreme})
## The dimension of a reduction that needs none of @code{__gd_reduce__}'s
## rules (internal): 1 or 2 where @var{args} is @{dim@} (max and min,
## @var{extreme}: @{[], dim@}) and the gdArray @var{G} is not
## empty; else 0 (also where @var{G}, the method's first argument, is
## not the gdArray).
## @end deftypefn

function d = __gd_dim__ (G, args, extreme = false)
  d = 0;
  if (! isa (G, "gdArray"))
    return;
  endif
  if (extreme)
    if (numel (args) != 2 || ! (isempty (args{1}) && isnumeric (args{1})))
      return;
    endif
    args = args(2);
  endif
  if (numel (args) == 1 && isnumeric (args{1}) && isscalar (args{1}) && ! isempty (G) ...
      && (args{1} == 1 || args{1} == 2))
    d = args{1};
  endif
endfunction
