// __gd_cells__.cc - [CA, CB] = __gd_cells__ (A, B, n): the first n(q)
// elements of row q of A and of B, each a row in cell q of CA and of CB
// (rows (A)-by-1 cells). gd_rangesearch's and gd_knnsearch's
// ('IncludeTies') lists from their searches' rows, where mat2cell takes
// about 10 ms for 10,000 queries.
//
// A and B: real matrices of one size, each single, double or int32; n:
// rows (A) whole numbers in 0 ... columns (A). Or the lists one after the
// other (gd_range's form): A and B rows of sum (n) elements, n any number
// of counts, cell q then elements sum (n(1:q-1)) + 1 ... sum (n(1:q)).
// Anything else raises gd:input.
#include <octave/oct.h>
#include <octave/Cell.h>

#include <cmath>

// cell q: k = n(q) elements of a, from p[q] a stride of rows (a) apart
// (the rows' form), or the next k in turn (runs)
template <class A>
static Cell lists_of (const A &a, const ColumnVector &n, bool runs)
{
  typedef typename A::element_type T;
  const octave_idx_type m = n.numel (), stride = runs ? 1 : a.rows ();
  const T *p = a.data ();
  Cell c (m, 1);
  for (octave_idx_type q = 0, at = 0; q < m; ++q)
    {
      const octave_idx_type k = (octave_idx_type) n(q), first = runs ? at : q;
      A r (dim_vector (1, k));
      T *d = r.fortran_vec ();
      for (octave_idx_type j = 0; j < k; ++j)
        d[j] = p[first + stride * j];
      at += k;
      c(q) = octave_value (r);
    }
  return c;
}

static Cell cells_of (const octave_value &v, const ColumnVector &n, bool runs)
{
  if (v.is_single_type ())
    return lists_of (v.float_array_value (), n, runs);
  if (v.is_int32_type ())
    return lists_of (v.int32_array_value (), n, runs);
  return lists_of (v.array_value (), n, runs);
}

static bool takes (const octave_value &v)
{
  return (v.is_double_type () || v.is_single_type () || v.is_int32_type ())
         && v.isreal () && ! v.issparse () && v.ndims () == 2;
}

DEFUN_DLD (__gd_cells__, args, ,
           "-*- texinfo -*-\n@deftypefn {} {[@var{CA}, @var{CB}] =} __gd_cells__ (@var{A}, @var{B}, @var{n})\n"
           "The first n(q) elements of row q of A and B, a row a cell (gd's lists).\n@end deftypefn")
{
  if (args.length () != 3 || ! takes (args(0)) || ! takes (args(1))
      || args(0).dims () != args(1).dims ())
    error_with_id ("gd:input", "__gd_cells__: expected A and B of one size (single, double or int32) and n");
  const octave_idx_type m = args(0).rows (), k = args(0).columns ();
  if (! args(2).isnumeric () || args(2).iscomplex ())
    error_with_id ("gd:input", "__gd_cells__: n must hold counts");
  // runs: A one row (or empty), n not one count a row of A
  const bool runs = args(2).numel () != m && (m == 1 || args(0).isempty ());
  if (! runs && args(2).numel () != m)
    error_with_id ("gd:input", "__gd_cells__: n must hold rows (A) counts");
  const ColumnVector n = ColumnVector (args(2).vector_value ());
  double total = 0;
  for (octave_idx_type q = 0; q < n.numel (); ++q)
    {
      if (! (n(q) >= 0 && (runs || n(q) <= k) && n(q) == std::floor (n(q))))
        error_with_id ("gd:input", "__gd_cells__: n(%ld) must be a whole number in 0..%ld",
                       (long) q + 1, (long) k);
      total += n(q);
    }
  if (runs && total != (double) args(0).numel ())
    error_with_id ("gd:input", "__gd_cells__: the counts n must add up to numel (A)");
  octave_value_list out (2);
  out(0) = cells_of (args(0), n, runs);
  out(1) = cells_of (args(1), n, runs);
  return out;
}
