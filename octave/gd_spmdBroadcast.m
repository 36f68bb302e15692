## -*- texinfo -*-
## @deftypefn  {} {@var{X} =} gd_spmdBroadcast (@var{source}, @var{X})
## @deftypefnx {} {@var{X} =} gd_spmdBroadcast (@var{source})
## Rank @var{source}'s @var{X} on every rank of the MPI job, as MATLAB's
## @code{spmdBroadcast}: class and size as on @var{source}, the bytes the
## same. The other ranks may leave @var{X} out (what they pass is not
## used). @var{X} is a real, full numeric, logical or char array, or a
## gdArray: then every rank gets a gdArray, its bytes moved from GPU to
## GPU by NCCL where every rank has a GPU of its own (else through host
## memory). Where @var{source}'s value is refused, every rank raises the
## same @qcode{"gd:input"} naming @var{source}. Without a job it returns
## @var{X}.
## @seealso{gd_spmdIndex, gd_spmdSize, gd_spmdBarrier, gd_spmdCat}
## @end deftypefn

function X = gd_spmdBroadcast (source, varargin)
  if (nargin < 1 || nargin > 2)
    error ("gd:input", "gd_spmdBroadcast: expected a source rank and a value");
  endif
  mine = 0;
  if (numel (varargin) && isa (varargin{1}, "gdArray"))
    mine = 1;
  endif
  if (mine && gd_spmdSize () == 1 && isequal (source, 1))
    X = varargin{1};
  elseif (gd_spmdSize () == 1 || ! __gd__ ("spmd", "broadcast", source, mine))
    X = __gd__ ("spmd", "broadcast", source, varargin{:});
  elseif (__gd__ ("spmd", "gpu"))
    X = __gd__ ("spmd", "gpu_broadcast", source, varargin{:}, 0);
  else                                  # a gdArray through host memory
    if (mine)
      varargin{1} = gather (varargin{1});
    endif
    X = gdArray (__gd__ ("spmd", "broadcast", source, varargin{:}));
  endif
endfunction

%!assert (gd_spmdBroadcast (1, magic (3)), magic (3))
%!assert (gd_spmdBroadcast (1, int8 ([1 -2])), int8 ([1 -2]))
%!error <rank 1's value must be a real> gd_spmdBroadcast (1, {1})
%!error <the source must be a rank> gd_spmdBroadcast (2, 1)
%!test
%! G = gd_spmdBroadcast (1, gdArray (single ([1 2; 3 4])));
%! assert (isa (G, "gdArray") && isequal (gather (G), single ([1 2; 3 4])));

%!demo
%! ## rank 1 draws the data, every rank gets the same matrix
%! X = [];
%! if (gd_spmdIndex () == 1)
%!   X = rand (3);
%! endif
%! X = gd_spmdBroadcast (1, X)
