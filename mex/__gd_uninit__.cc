// __gd_uninit__.cc - R = __gd_uninit__ (m, n, class): an m x n single,
// double or integer matrix whose elements are not set, for a gd gateway to
// fill.
//
// The gateways' results are made here rather than with zeros () or
// mxCreateNumericMatrix: zeros writes every element, one thread touching
// every page of a fresh buffer (about 200 ms for 256 MiB on the H100
// machine), and Octave's MEX layer copies an mxCreate'd output on return.
// This array is Octave's own (no copy on return); its pages are first
// touched by the gateway's parallel copy of the result into it. The one
// file that uses Octave's C++ API; a gateway must write every element
// before it returns the array.
//
// Uninitialised memory may hold another array's old contents, so only
// gd's own gateways (MEX functions named __gd_...__, calling through
// mexCallMATLAB) get it; any other caller gets an error. When the memory
// cannot be had the result is [] rather than an exception: the gateway
// calls here while the kernel layer holds GPU memory, and a C++
// exception would unwind past its cleanup (mexCallMATLABWithTrap catches
// Octave's errors, not std::bad_alloc). So is an array larger than the
// machine's memory and swap.
#include <octave/oct.h>
#include <octave/interpreter.h>
#include <octave/ov-fcn.h>

#include <sys/sysinfo.h>

#include <memory>
#include <new>

// More than the machine's memory and swap together can never be filled:
// refused here, because a system that overcommits memory would grant it
// and kill the process at the first touch of a page too many.
static bool beyond_memory (double bytes)
{
  struct sysinfo si;
  if (sysinfo (&si) != 0)
    return false;
  return bytes > ((double) si.totalram + (double) si.totalswap) * si.mem_unit;
}

template <class A>
static octave_value uninit (octave_idx_type m, octave_idx_type n)
{
  typedef typename A::element_type T;
  dim_vector dv (m, n);
  // Array's constructor from a pointer takes ownership of storage from
  // std::allocator (the allocator Array frees with) and leaves it as is
  const double bytes = (double) m * (double) n * sizeof (T);
  if (bytes > 9e18 || beyond_memory (bytes))
    return octave_value (Matrix ());
  try
    {
      T *p = std::allocator<T> ().allocate (m * n > 0 ? m * n : 1);
      return octave_value (A (Array<T> (p, dv)));
    }
  catch (const std::bad_alloc&)
    {
      return octave_value (Matrix ());
    }
}

DEFMETHOD_DLD (__gd_uninit__, interp, args, ,
               "-*- texinfo -*-\n@deftypefn {} {@var{R} =} __gd_uninit__ (@var{m}, @var{n}, @var{class})\n"
               "Internal to gd's gateways, which alone may call it: an @var{m} by @var{n} "
               "matrix of class \"single\", \"double\" or an integer class whose elements are not set.\n@end deftypefn")
{
  octave_function *caller = interp.get_evaluator ().caller_function ();
  if (! caller || ! caller->is_mex_function ()
      || caller->name ().compare (0, 5, "__gd_") != 0)
    error ("__gd_uninit__: internal to gd's gateways; use zeros");
  if (args.length () != 3)
    print_usage ();
  const octave_idx_type m = args(0).idx_type_value (true);
  const octave_idx_type n = args(1).idx_type_value (true);
  const std::string cls = args(2).string_value ();
  if (m < 0 || n < 0)
    error ("__gd_uninit__: M and N must be non-negative");
  if (cls == "single")
    return uninit<FloatNDArray> (m, n);
  if (cls == "double")
    return uninit<NDArray> (m, n);
  if (cls == "int32")
    return uninit<int32NDArray> (m, n);
  if (cls == "int8")
    return uninit<int8NDArray> (m, n);
  if (cls == "uint8")
    return uninit<uint8NDArray> (m, n);
  if (cls == "int16")
    return uninit<int16NDArray> (m, n);
  if (cls == "uint16")
    return uninit<uint16NDArray> (m, n);
  if (cls == "uint32")
    return uninit<uint32NDArray> (m, n);
  if (cls == "int64")
    return uninit<int64NDArray> (m, n);
  if (cls == "uint64")
    return uninit<uint64NDArray> (m, n);
  error ("__gd_uninit__: CLASS must be \"single\", \"double\" or an integer class");
}
