## -*- texinfo -*-
## @deftypefn  {} {@var{C} =} gd_sgemm (@var{A}, @var{B})
## @deftypefnx {} {@var{C} =} gd_sgemm (@dots{}, "Variant", @var{name})
## @deftypefnx {} {@var{C} =} gd_sgemm (@dots{}, "Edges", @var{how})
## @deftypefnx {} {[@var{C}, @var{info}] =} gd_sgemm (@dots{})
## @deftypefnx {} {} gd_sgemm ("variants")
## @deftypefnx {} {@var{list} =} gd_sgemm ("variants")
## Single-precision matrix multiply on the GPU: @code{single (@var{A}) *
## single (@var{B})}.
##
## @var{A} is m-by-k, @var{B} k-by-n, any sizes. The product is computed in
## single precision and the result is single (the S in SGEMM): double
## operands are converted to single first. Sums run in another order than
## the host BLAS, so results agree with @code{single (A) * single (B)} to
## rounding (relative error of order k*eps('single')), and exactly for
## small-integer operands. A 1x1 operand multiplies element by element,
## as Octave's scalar product does (a zero product keeps its sign); that
## runs on the host whatever the variant, and @code{info.variant} says
## @qcode{"elementwise"}. Either operand may be a gdArray; the result is
## then a gdArray (see @code{gdArray}).
##
## Options:
## @table @asis
## @item "Variant"
## The kernel: the ladder of Michael Wolfe's "Compilers and More:
## Optimizing GPU Kernels" (HPCwire, 2008) -- @qcode{"k1-32"},
## @qcode{"k1-64"}, @qcode{"k1-128"} (one thread per output),
## @qcode{"k2-32"} @dots{} @qcode{"k2-64-u2"} (a strip of B cached in shared
## memory), @qcode{"k3-32-i2"}, @qcode{"k3-32-i3"}, @qcode{"k3-64-i2"} (the
## i loop unrolled), @qcode{"k4-32-j2"} @dots{} @qcode{"k4-128-j4-k4"} (the
## j and k loops unrolled), @qcode{"k5"} (16x16 shared tiles) --,
## @qcode{"tuned"} (register-tiled), @qcode{"cublas"} (the reference,
## FP32 without TF32), @qcode{"cpu"} (the host BLAS) or @qcode{"auto"}
## (default: the fastest for the size). @code{gd_sgemm ("variants")} lists
## them with a line each.
## @item "Edges"
## How the K kernels meet sizes that are not multiples of their tile:
## @qcode{"pad"} (default: operands padded with zeros on the GPU) or
## @qcode{"guard"} (bounds-checked loads on the unpadded operands).
## @qcode{"tuned"} always pads.
## @item "Devices"
## Which GPUs compute: @qcode{"all"} (the default, or the environment
## variable GD_DEVICES's list) or a vector of indices as @code{gd_info}'s
## @code{devices} numbers them. Several devices each compute a panel of @var{C}'s columns; the tuned kernels' panels are the one-device result bit for bit (cuBLAS picks its kernel by the panel's shape, so its sums may round differently). @qcode{"all"} divides a product of 2^39 flops a device or more. A call on gdArrays runs on the first one's device and leaves @var{C} there; with @qcode{"Devices"} given it divides as well, @var{C} put together on the first device named.
## @item "Distributed"
## @code{true}: a divided call on gdArrays leaves each device's panel of @var{C} where it computed it, a distributed gdArray (see @code{gdArray}). Default @code{false}.
## @end table
##
## @var{info} is a struct as for @code{gd_minplus}: size [m k n], ops
## 2*m*k*n, rate in flop/s of kernel time (rate_unit @qcode{"flop/s"}).
##
## Example:
## @example
## @group
## A = rand (2000, 300); B = rand (300, 1000);
## [C, info] = gd_sgemm (A, B, "Variant", "k4-128-j4-k4");
## norm (C - single (A) * single (B), "fro") / norm (single (A) * single (B), "fro")
## @end group
## @end example
## @var{info} says which operands were gdArrays on the GPU already
## (@code{resident}) and whether the result stayed there (@code{kept}).
##
## In an MPI job, gdCodistributed @var{A} and @var{B} laid out
## @qcode{'2dbc'} on one grid give @var{C} laid out so too: each rank
## multiplies its grid row's rows of @var{A} by its grid column's columns
## of @var{B}, whole, so that @qcode{"cpu"} gives one process's bits (see
## the guide's "Many hosts"); every rank calls it at once.
##
## With the environment variable @env{GD_VERBOSE} set to 1, each call
## prints its variant, device and times; one longer than 2 s also prints
## how far it is, about once a second (2: from its start). Ctrl-C stops a
## call within about a second (@qcode{"gd:interrupted"}).
##
## @seealso{gd_minplus, gd_info, gdArray}
## @end deftypefn

function [R, info, varargout] = gd_sgemm (varargin)
  ## named outputs: the lean path of a call (a third output reaches the
  ## gateway, which says too many)
  if (nargin && (isa (varargin{1}, "gdCodistributed")
                 || (nargin > 1 && isa (varargin{2}, "gdCodistributed"))))
    ## across the ranks of a job
    if (nargout > 2)
      error ("gd:input", "gd_sgemm: too many outputs (at most C and info)");
    endif
    [R, info] = __gd_ranks__ ("sgemm", varargin{:});
  elseif (nargout < 2)
    if (nargout == 0 && nargin == 1 && ischar (varargin{1}))
      __gd__ ("sgemm", varargin{:});               # prints the variant list
      return;
    endif
    R = __gd__ ("sgemm", varargin{:});
  else
    [R, info, varargout{1:nargout-2}] = __gd__ ("sgemm", varargin{:});
  endif
endfunction

%!shared A, B
%! A = randi ([-8 8], 37, 21); B = randi ([-8 8], 21, 19);

%!test
%! warning ("off", "gd:nogpu", "local");
%! C = gd_sgemm (A, B);
%! assert (class (C), "single");
%! assert (C, single (A) * single (B));
%!test
%! warning ("off", "gd:nogpu", "local");
%! assert (gd_sgemm (A, B, "Variant", "cpu"), single (A * B));
%!test
%! warning ("off", "gd:nogpu", "local");
%! X = rand (50, 40, "single"); Y = rand (40, 30, "single");
%! E = double (X) * double (Y);
%! C = gd_sgemm (X, Y);
%! assert (norm (double (C) - E, "fro") / norm (E, "fro") < 4 * 40 * eps ("single"));
%!test
%! warning ("off", "gd:nogpu", "local");
%! assert (gd_sgemm (zeros (3, 0), zeros (0, 4)), zeros (3, 4, "single"));
%! assert (size (gd_sgemm (zeros (0, 3), rand (3, 2))), [0 2]);
%!test
%! warning ("off", "gd:nogpu", "local");
%! [C, info] = gd_sgemm (A, B);
%! assert (info.size, [37 21 19]);
%! assert (info.ops, 2 * 37 * 21 * 19);
%! assert (info.rate_unit, "flop/s");
%!test
%! v = gd_sgemm ("variants");
%! assert (any (strcmp ({v.name}, "k4-128-j4-k4")));
%! assert (any (strcmp ({v.name}, "cublas")));
%! assert (any (strcmp ({v.name}, "cpu")));

%!error <gd_sgemm: expected matrices A and B> gd_sgemm ()
%!error <expected matrices A and B> gd_sgemm (A)
%!error <inner dimensions must agree> gd_sgemm (A, A)
%!error <unknown variant> gd_sgemm (A, B, "Variant", "k9")
%!error <'Edges' must be 'pad' or 'guard'> gd_sgemm (A, B, "Edges", "wrap")
%!error <not int8> gd_sgemm (int8 (A), B)
%!error <complex> gd_sgemm (A, B * 1i)
%!test
%! warning ("off", "gd:nogpu", "local");
%! ## a 1x1 operand multiplies element by element, as in Octave: -0 stays -0
%! assert (1 ./ gd_sgemm (single (-0), 5), single (-Inf));
%! assert (1 ./ gd_sgemm (single (-0), single ([5 1])), single ([-Inf -Inf]));
%! assert (1 ./ gd_sgemm (single ([-0; 2]), 5), 1 ./ (single ([-0; 2]) * 5));
%! assert (1 ./ gd_sgemm (-0, 5, "Variant", "cpu"), single (-Inf));

%!demo
%! ## C = A * B in single; the difference from Octave's own product is
%! ## the rounding of the sums' order
%! A = rand (300, 200, "single");  B = rand (200, 100, "single");
%! [C, info] = gd_sgemm (A, B);
%! printf ("%s on %s: largest relative difference from A * B %.2g\n", ...
%!         info.variant, info.device, max (abs (C - A * B)(:)) / max (abs (C(:))));
