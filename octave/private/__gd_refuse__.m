## -*- texinfo -*-
## @deftypefn {} {} __gd_refuse__ (@var{what})
## The error of an Octave operator or function a gdArray does not take
## yet: id @qcode{"gd:gather"}, naming @var{what} and saying to gather
## first, where Octave's own would say "method not defined" or "wrong type
## argument 'object'".
## @end deftypefn

function __gd_refuse__ (what)
  error ("gd:gather", "gdArray: %s does not take a gdArray: gather it first (A = gather (G)), compute on the host, and make a gdArray of the result if it should stay on the GPU", what);
endfunction
