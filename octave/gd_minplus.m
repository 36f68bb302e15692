## -*- texinfo -*-
## @deftypefn  {} {@var{R} =} gd_minplus (@var{A})
## @deftypefnx {} {@var{R} =} gd_minplus (@var{A}, @var{B})
## @deftypefnx {} {@var{R} =} gd_minplus (@dots{}, "Variant", @var{name})
## @deftypefnx {} {[@var{R}, @var{K}] =} gd_minplus (@dots{}, "IndexClass", @var{c})
## @deftypefnx {} {[@var{R}, @var{K}, @var{info}] =} gd_minplus (@dots{})
## @deftypefnx {} {} gd_minplus ("variants")
## @deftypefnx {} {@var{list} =} gd_minplus ("variants")
## Min-plus (tropical) matrix product on the GPU, and where each minimum is.
##
## @code{@var{R} = gd_minplus (@var{A}, @var{B})} for an m-by-k @var{A} and a
## k-by-n @var{B} gives the m-by-n @var{R} with
##
## @example
## R(i,j) == min (A(i,:)' + B(:,j))
## @end example
##
## computed exactly as that Octave expression computes it, in the class of
## the inputs: NaN terms are skipped unless all are NaN, and Inf + -Inf is
## NaN. With one argument, @var{A} must be square and the result is
## @var{A} (x) @var{A}, the shortest paths of at most two edges of the graph
## whose edge weights @var{A} holds (Inf where there is no edge). An inner
## dimension of 0 gives @code{Inf (m, n)}.
##
## The second output @var{K} is the witness: @code{K(i,j)} is the k at
## which @code{R(i,j)} is attained, as
## @code{[~, K(i,j)] = min (A(i,:)' + B(:,j))} gives it: the first such k,
## NaN terms skipped, 1 where every term is NaN, 0 where the inner dimension
## is 0. It is what recovers a route: the midpoint of the best two-step
## path from i to j. @var{K} is double, like the index @code{min} returns;
## @code{"IndexClass", "int32"} gives int32 (half the memory). With @var{K}
## asked for, @var{R} carries exactly the value of that first term (the
## sign of a zero minimum included). Variants giving @var{K}:
## @qcode{"auto"}, @qcode{"v0"}, @qcode{"v1"}, @qcode{"v5"} and
## @qcode{"cpu"}; the others raise @qcode{"gd:variant"}.
##
## single inputs give a single result, double inputs a double result
## computed in double; a single and a double give single (the double is
## converted first, as Octave does for @code{single + double}).
##
## The integer classes (int8 @dots{} uint64) give a result of their class,
## bit for bit Octave's expression with its saturating addition
## (@code{int8 (100) + int8 (100)} is 127); both operands must be of the
## same integer class (an integer with a floating operand, or two
## integer classes, raise @qcode{"gd:input"}: cast one, as Octave would
## otherwise compute the mixed sum in double and round it). An inner
## dimension of 0 gives @code{intmax} of the class (Inf has no integer
## value). They run on the GPU as @qcode{"v5"}: the same tiles on integer
## lanes with Hopper's DPX instructions (min (a + b, c) in one; two 16-bit
## entries at once for int8 @dots{} uint16), in the narrowest lanes in
## which the operands' ranges prove that no sum can wrap (else wider lanes
## or saturating 64-bit sums: @var{info}.kernel names the form), and on
## the host as @qcode{"cpu"}. With @var{K}, v5 compares keys, each sum
## and its index in one 32-bit lane (one DPX instruction a step), where the
## ranges prove that no sum saturates and each fits 16 bits; else it runs a
## tile on 64-bit lanes whose sums saturate to the class before they are
## compared, so that @var{K} is Octave's first index of the saturated sums
## (@code{[~, K] = min (int8 ([100; 100]) + int8 ([100; 50]))} is 1: both
## sums are 127). @var{info}.kernel says which (@qcode{"witness, dpx
## keys"} or @qcode{"witness, int64 lanes"}).
## @qcode{"auto"} takes the GPU. Another variant raises
## @qcode{"gd:variant"}. Integer gdArrays are operands as the others are
## (and give a gdArray). Logical, char, complex, sparse and N-D arrays
## are rejected.
##
## Options:
## @table @asis
## @item "Variant"
## The kernel: @qcode{"auto"} (default: v5 on a GPU, the fastest from
## n = 1024 up; the CPU for tiny products or when no GPU is
## present), @qcode{"v0"} @dots{} @qcode{"v4"} (the
## kernel ladder of "Programming Parallel Computers", chapter 4),
## @qcode{"v5"} (beyond the course: 128x64 tiles of 128 threads, operands
## copied into shared memory by cp.async, three stages deep; in single,
## when no element of @var{A} or @var{B} is negative or -0, the minimum of
## the sums is taken on their bit patterns as integers, three terms an
## instruction, which gives the same result about 16% sooner), or
## @qcode{"cpu"}. @code{gd_minplus ("variants")} lists them with a line
## each.
## @item "IndexClass"
## The class of @var{K}: @qcode{"double"} (default) or @qcode{"int32"}.
## @item "Devices"
## Which GPUs compute: @qcode{"all"} (the default, or the environment
## variable GD_DEVICES's list) or a vector of indices as @code{gd_info}'s
## @code{devices} numbers them. Several devices each compute a panel of @var{R}'s columns (and of @var{K}) with the whole of @var{A}: the result is the one-device result bit for bit. @qcode{"all"} divides a product of 2^36 steps a device or more; below, one device is faster. A call on gdArrays runs on the first one's device and leaves @var{R} there; with @qcode{"Devices"} given it divides as well, @var{R} put together on the first device named (panels copied peer to peer).
## @item "Distributed"
## @code{true}: a divided call on gdArrays leaves each device's panels of @var{R} (and @var{K}) where it computed them, a distributed gdArray (see @code{gdArray}), instead of putting them together on one device. Default @code{false}.
## @end table
##
## @var{info} (the output after those of Octave's @code{min}) is a struct:
## the variant that ran, the kernel it chose where
## it has two (v5 in single: @qcode{"integer min"} where no operand is
## negative; else the sign split, @qcode{"integer max on t of T tiles,
## fminf on f"}: the integer max of the sums' bits, exact wherever a sum is
## negative, then fminf on the f tiles with a result that has none,
## preceded by @qcode{"integer min on c tiles, then "} where c tiles'
## rows of @var{A} and columns of @var{B} have no negative element; with
## @var{K}, @qcode{"fminf"}; the integer classes: the form; empty
## otherwise), the device, the class and
## size [m k n], the milliseconds of upload, layout preparation, kernel and
## download (CUDA events), the whole call's wall time, the operation count
## m*k*n and the rate in min-plus steps per second of kernel time
## (rate_unit @qcode{"steps/s"}).
## @code{[R, ~, info] = gd_minplus (@dots{})} gives the timing without
## computing @var{K}.
##
## Without a GPU the @qcode{"auto"} variant runs on the CPU and warns once
## with id @qcode{"gd:nogpu"}; a GPU variant asked for by name raises that
## error. The only difference to Octave's result without @var{K}: a zero
## minimum reached by both +0 and -0 may carry the other sign
## (@code{isequaln} holds), except in double with @qcode{"v5"}, which keeps
## Octave's (the first least term's).
##
## Example: shortest paths by repeated squaring (@code{gd_apsp} does the
## whole job, with routes)
## @example
## @group
## W = [0 3 Inf; Inf 0 1; 2 Inf 0];
## D = W;
## for s = 1:ceil (log2 (rows (W)))
##   D = gd_minplus (D);
## endfor
## D
##   @result{} [0 3 4; 3 0 1; 2 5 0]
## [R, K] = gd_minplus (W);
## K(1,3)          # the best path 1 -> 3 of two steps goes through 2
##   @result{} 2
## @end group
## @end example
## Any matrix argument may be a gdArray (data kept on the GPU); the results
## are then gdArrays, and nothing is copied back until @code{gather}.
## @var{info} then says which operands were resident (@code{resident}) and
## whether the result stayed on the GPU (@code{kept}).
##
## With the environment variable @env{GD_VERBOSE} set to 1, each call
## prints its variant, device and times; one longer than 2 s also prints
## how far it is, about once a second (2: from its start). Ctrl-C stops a
## call within about a second (@qcode{"gd:interrupted"}).
##
## @seealso{gd_apsp, gd_info, gdArray}
## @end deftypefn

function [R, K, info, varargout] = gd_minplus (varargin)
  ## named outputs: the lean path of a call (a fourth output reaches the
  ## gateway, which says too many)
  if (nargin && (isa (varargin{1}, "gdCodistributed")
                 || (nargin > 1 && isa (varargin{2}, "gdCodistributed"))))
    [R, K, info] = ranks (nargout, varargin);   # across the ranks of a job
  elseif (nargout < 2)
    if (nargout == 0 && nargin == 1 && ischar (varargin{1}))
      __gd__ ("minplus", varargin{:});               # prints the variant list
      return;
    endif
    R = __gd__ ("minplus", varargin{:});
  elseif (nargout == 2)
    [R, K] = __gd__ ("minplus", varargin{:});
  elseif (! isargout (2))
    [R, K, info, varargout{1:nargout-3}] = __gd__ ("minplus_info", varargin{:});
  else
    [R, K, info, varargout{1:nargout-3}] = __gd__ ("minplus", varargin{:});
  endif
endfunction

## gd_minplus on gdCodistributed operands (__gd_ranks__'s SUMMA)
function [R, K, info] = ranks (nout, args)
  K = info = [];
  if (nout <= 1)
    R = __gd_ranks__ ("minplus", args{:});
  elseif (nout == 2)
    [R, K] = __gd_ranks__ ("minplus", args{:});
  else
    [R, K, info] = __gd_ranks__ ("minplus", args{:});
  endif
endfunction

%!shared A, B
%! warning ("off", "gd:nogpu");
%! A = rand (7, 5); B = rand (5, 3);

%!function R = ref (A, B)
%!  R = Inf (rows (A), columns (B), class (A(1) + B(1)));
%!  for j = 1:columns (B)
%!    if (columns (A) > 0)
%!      R(:,j) = min (A + B(:,j)', [], 2);
%!    endif
%!  endfor
%!endfunction

%!assert (isequaln (gd_minplus (A, B), ref (A, B)))
%!assert (isequaln (gd_minplus (A, B, "Variant", "cpu"), ref (A, B)))
%!assert (isequaln (gd_minplus (single (A), B), ref (single (A), single (B))))
%!assert (class (gd_minplus (single (A), B)), "single")
%!assert (class (gd_minplus (A, single (B))), "single")
%!assert (class (gd_minplus (A, B)), "double")
%!assert (gd_minplus ([0 3 Inf; Inf 0 1; 2 Inf 0]), [0 3 4; 3 0 1; 2 5 0])
%!assert (gd_minplus (zeros (3, 0), zeros (0, 4)), Inf (3, 4))
%!assert (size (gd_minplus (zeros (0, 3), rand (3, 2))), [0 2])
%!assert (size (gd_minplus (rand (2, 3), zeros (3, 0))), [2 0])
%!assert (isequaln (gd_minplus ([NaN 1; NaN NaN], [NaN 2; 3 NaN]), [4 NaN; NaN NaN]))
%!assert (isequaln (gd_minplus ([Inf -Inf], [-Inf; Inf]), NaN))
%!test
%! [R, ~, info] = gd_minplus (A, B);
%! assert (isstruct (info));
%! assert (info.size, [7 5 3]);
%! assert (info.ops, 7 * 5 * 3);
%! assert (ischar (info.variant) && ischar (info.device));
%!function [R, K] = refk (A, B)
%!  R = Inf (rows (A), columns (B), class (A(1) + B(1)));
%!  K = zeros (rows (A), columns (B));
%!  for i = 1:rows (A)
%!    for j = 1:columns (B)
%!      if (columns (A) > 0)
%!        [R(i,j), K(i,j)] = min (A(i,:)' + B(:,j));
%!      endif
%!    endfor
%!  endfor
%!endfunction

%!test
%! for v = {"auto", "cpu"}
%!   A1 = randi (4, 9, 6) - 2; B1 = randi (4, 6, 5) - 2;   # ties
%!   A1(2,:) = NaN; B1(3,2) = NaN; A1(4,1) = -Inf; B1(1,4) = Inf;
%!   [R, K] = gd_minplus (A1, B1, "Variant", v{1});
%!   [Re, Ke] = refk (A1, B1);
%!   assert (isequaln (R, Re) && isequal (K, Ke));
%!   assert (class (K), "double");
%!   [R, K] = gd_minplus (single (A1), B1, "Variant", v{1}, "IndexClass", "int32");
%!   assert (class (K), "int32");
%!   assert (isequal (K, int32 (Ke)));
%! endfor
%!test
%! [R, K] = gd_minplus (zeros (3, 0), zeros (0, 2));
%! assert (isequal (R, Inf (3, 2)) && isequal (K, zeros (3, 2)));
%! [R, K] = gd_minplus (zeros (0, 3), rand (3, 2));
%! assert (size (K), [0 2]);
%!test
%! [R, K] = gd_minplus ([-0 0], [-0; -0], "Variant", "cpu");   # the first zero: -0
%! assert (K, 1); assert (1 / R, -Inf);
%!error <gives no witness> [R, K] = gd_minplus (A, B, "Variant", "v3");
%!error <'IndexClass' must be> [R, K] = gd_minplus (A, B, "IndexClass", "int8");

%!test
%! Ain = A; Bin = B;
%! gd_minplus (A, B);
%! assert (isequal (A, Ain) && isequal (B, Bin));
%!test
%! v = gd_minplus ("variants");
%! assert ({v.name}, {"v0", "v1", "v2", "v3", "v4", "v5", "cpu"});

%!error <gd_minplus: expected a matrix> gd_minplus ()
%!error <inner dimensions must agree> gd_minplus (rand (2, 3), rand (4, 2))
%!error <must be square> gd_minplus (rand (2, 3))
%!error <unknown variant 'v9'> gd_minplus (A, B, "Variant", "v9")
%!error <unknown option 'Foo'> gd_minplus (A, B, "Foo", 1)
%!error <A is int32 and B is double: integer min-plus takes two operands of the same integer class> gd_minplus (int32 (A), B)
%!error <A is double and B is uint8> gd_minplus (A, uint8 (B))
%!error <A is int8 and B is int16> gd_minplus (int8 (A), int16 (B))
%!error <the integer classes run on 'v5' \(the GPU\) and 'cpu'> gd_minplus (int8 (A), int8 (B), "Variant", "v4")
%!test
%! ## Octave's saturating sums: int8(100) + int8(100) is 127
%! [R, K] = gd_minplus (int8 ([100 -100; 50 60]), int8 ([100 1; 100 2]));
%! assert (R, int8 ([0 -98; 127 51]));
%! assert (K, [2 2; 1 1]);
%! assert (gd_minplus (uint8 (zeros (2, 0)), uint8 (zeros (0, 3))), repmat (intmax ("uint8"), 2, 3));
%!error <not logical> gd_minplus (true (2))
%!error <not char> gd_minplus ("ab")
%!error <complex> gd_minplus (A + 1i, B)
%!error <sparse> gd_minplus (sparse (A), B)
%!error <2-D> gd_minplus (rand (2, 2, 2))
%!error <cell> gd_minplus ({1})

%!demo
%! ## the min-plus product of a small weight matrix with itself: paths of
%! ## two edges; Octave's own expression gives the same matrix
%! W = [0 3 Inf; 2 0 1; Inf 4 0];
%! R = gd_minplus (W)
%! E = min (permute (W, [1 3 2]) + permute (W, [3 2 1]), [], 3);
%! printf ("same as Octave's min (A(i,:)' + B(:,j)): %d\n", isequal (R, E));
%! ## with the witness: K(i,j) is the k where the minimum was attained
%! [R, K] = gd_minplus (W)
