## gdarray_cases - the rest of gdArray's own %! tests (the class file
## keeps the first ones and its demo; octave.bats runs both): its display,
## construction through a handle, 'Device' and 'Devices', the constructor's
## refusals, the element-wise operators and indexing as a matrix gives
## them, the operators still refused with gd:gather.
function gdarray_cases ()
endfunction

%!shared A
%! warning ("off", "gd:nogpu");
%! A = rand (37, 23);

%!test
%! G = gdArray (A);
%! s = evalc ("disp (G)");
%! assert (! isempty (strfind (s, "37x23 double gdArray")));

%!test
%! ## constructed through a function handle, and after that directly
%! x = cellfun (@gdArray, {1, single(2)}, "UniformOutput", false);
%! f = @gdArray;
%! y = f (zeros (0, 3));
%! z = gdArray (3);
%! assert (gather (x{2}), single (2));
%! assert (size (y), [0 3]);
%! assert (gather (z), 3);

%!test
%! G = gdArray (A, "Device", 1);
%! assert (device (G), 1);
%! assert (gather (G), A);

%!error <expected one matrix> gdArray ()
%!error <expected one matrix> gdArray (1, "Devics", 1)
%!error <'Devices' must hold whole device indices> gdArray (1, "Devices", 0)

%!test
%! ## 'Devices' on one device (or none): an array of one piece
%! warning ("off", "gd:nogpu", "local");
%! G = gdArray (A, "Devices", 1);
%! assert (device (G), 1);
%! assert (gather (G), A);
%! G = gdArray (A, "Devices", "all");
%! assert (gather (G), A);
%! R = gd_minplus (gdArray (single (A(1:20, 1:20))), "Distributed", true);
%! assert (gather (R), gd_minplus (single (A(1:20, 1:20))));
%!error <'Distributed' must be true or false> gd_minplus (gdArray (1), "Distributed", "x")
%!error <'Distributed' must be true or false> gd_minplus (1, "Distributed", NaN)
%!error <'Distributed' must be true or false> gd_sgemm (1, 1, "Distributed", 2.5)
%!error <'Distributed' must be true or false> gd_apsp (0, "Distributed", -3)
%!error <'Distributed' must be true or false> gd_minplus (1, "Distributed", 2^40)
%!error <'Distributed' must be true or false> gd_minplus (1, "Distributed", -Inf)
%!error <'Device' must be one whole device index> gdArray (1, "Device", 0)
%!error <'Device' must be one whole device index> gdArray (1, "Device", [1 2])
%!error <expected one matrix> gdArray (1, 2)
%!error <single, double, integer or logical matrix, not a cell array> gdArray ({1})
%!error <single, double, integer or logical matrix, not char> gdArray ("abc")
%!error <complex> gdArray (1 + 2i)
%!error <sparse> gdArray (sparse (1))
%!error <2-D> gdArray (ones (2, 2, 2))
%!test
%! L = gdArray ([true false]);
%! assert (islogical (L) && isequal (gather (L), [true false]) && strcmp (classUnderlying (L), "logical"));

%!test
%! ## () indexing: Octave's answer, as a gdArray on the same device
%! warning ("off", "gd:nogpu", "local");
%! for c = {"double", "single", "int16", "uint8"}
%!   A = cast (randi (100, 5, 7), c{1});
%!   G = gdArray (A);
%!   M = A > 50;
%!   cases = {{":", 1}, {2, 3}, {"end", "end"}, {2:4, [1 3 7]}, {M}, {":"}, {[]}, {5}, ...
%!            {[true false true], ":"}, {1, ":"}, {[3 1 3], 2}};
%!   for k = 1:numel (cases)
%!     s = cases{k};
%!     s(strcmp (s, "end")) = {[]};
%!     if (k == 3)
%!       R = G(end, end); E = A(end, end);
%!     else
%!       R = G(s{:}); E = A(s{:});
%!     endif
%!     assert (isa (R, "gdArray"));
%!     assert (gather (R), E);
%!     assert (device (R), device (G));
%!   endfor
%!   assert (gather (G(end)), A(end));
%!   assert (gather (G(2:end, 1)), A(2:end, 1));
%!   assert (gather (G(1, 1, 1)), A(1, 1));
%!   assert (size (G(:, 2)), [5 1]);
%!   assert (numel (G), 35);
%!   assert (isfloat (G), any (strcmp (c{1}, {"double", "single"})));
%!   assert (isinteger (G), ! isfloat (G));
%!   assert (isnumeric (G) && isreal (G) && ! islogical (G));
%!   assert (underlyingType (G), c{1});
%!   assert (existsOnGPU (G), gd_info ().available);
%!   assert (gather (G), A);     # indexing left G as it was
%! endfor
%!test
%! ## () indexing against Octave's own on random shapes and subscripts:
%! ## values, shapes (a vector's orientation), class, and Octave's errors
%! ## naming G (gathered on the device where G is there)
%! warning ("off", "gd:nogpu", "local");
%! shapes = {[5 7], [1 9], [8 1], [1 1], [3 4], [64 300]};
%! for q = 1:numel (shapes)
%!   sz = shapes{q};
%!   N = prod (sz);
%!   A = cast (reshape (randperm (N), sz), "int32");
%!   G = gdArray (A);
%!   subs = {{":"}, {randi(N, 1, 3)}, {randi(N, 3, 1)}, {randi(N, 2, 2)}, {rand(sz) > 0.5}, ...
%!           {rand(1, N) > 0.5}, {[rand(1, N) > 0.5, false, false]}, {N + 1}, {0}, {1.5}, ...
%!           {{1}}, {":", randi(sz(2), 1, 2)}, {randi(sz(1), 2, 1), ":"}, ...
%!           {rand(sz(1), 1) > 0.5, 1}, {sz(1) + 1, 1}, {1, sz(2) + 2}, {[], ":"}, ...
%!           {":", []}, {[1, N + 2]}, {-1}, {[true(1, N), true]}, {randi(N, 3, 4)}, ...
%!           {sz(1):-1:1, sz(2)}, {NaN}, {[]}, {zeros(1, 0)}, {Inf}, {1e20}, {":", 2.5}};
%!   for k = 1:numel (subs)
%!     s = subs{k};
%!     failed = false;
%!     try
%!       E = A(s{:});
%!     catch err
%!       E = err;
%!       failed = true;
%!     end_try_catch
%!     if (failed)
%!       try
%!         G(s{:});
%!         error ("test:case", "case %d of shape %dx%d: no error", k, sz);
%!       catch err2
%!         assert (err2.identifier, E.identifier);
%!         assert (err2.message, strrep (E.message, "A(", "G("));
%!       end_try_catch
%!     else
%!       R = G(s{:});
%!       assert (isa (R, "gdArray"));
%!       assert (size (R), size (E));
%!       assert (isequal (gather (R), E) && strcmp (class (gather (R)), "int32"));
%!     endif
%!   endfor
%! endfor
%!error <out of bound> G = gdArray (magic (3)); G(4, 1)
%!error <\{\} indexing is not defined> G = gdArray (magic (3)); G{1}
%!test
%! G = gdArray (magic (3)); G(1, 1) = 0; A = magic (3); A(1, 1) = 0;
%! assert (gather (G), A);
%!test
%! ## the answers a matrix gives (any and all logical gdArrays, or an
%! ## Octave logical where the answer is one value); the operators not
%! ## offered refused with gd:gather
%! warning ("off", "gd:nogpu", "local");
%! A = magic (3);
%! G = gdArray (A);
%! assert (gather (any (G)), any (A));
%! assert (gather (all (gdArray (double (A > 4)))), all (A > 4));
%! assert (gather (any (gdArray (zeros (2)))), [false false]);
%! assert (gather (all (G, 2)), all (A, 2));
%! assert (islogical (any (G(:))) && any (G(:)) && ! isa (all (G(:) > 5), "gdArray"));
%! assert (isequal (G, A) && isequal (A, G) && isequal (G, G, A));
%! assert (! isequal (G, A + 1));
%! assert (isequaln (gdArray ([NaN 1]), [NaN 1]));
%! assert (gather (logical (gdArray ([0 2]))), [false true]);
%! assert ([isscalar(G) isscalar(gdArray(1)) isvector(G(1, :)) isrow(G(1, :)) iscolumn(G(:, 1)) ismatrix(G) issquare(G)], [false true true true true true true]);
%! ops = {@() G / G, @() G \ G, @() sort (G), @() find (G)};
%! for k = 1:numel (ops)
%!   try
%!     ops{k} ();
%!     error ("test:case", "operation %d: no error", k);
%!   catch err
%!     assert (err.identifier, "gd:gather");
%!     assert (! isempty (strfind (err.message, "gather it first")));
%!   end_try_catch
%! endfor
%! assert (gather (G), A);
%!error <G\(_,_,2\): out of bound 1 \(dimensions are 3x3\)> G = gdArray (magic (3)); G(1, 1, 2)
%!error id=Octave:index-out-of-bounds G = gdArray (magic (3)); G(1, 1, 2)
%!error <past the second must each be 1> G = gdArray (magic (3)); G(1, 1, [1 1])
%!test
%! ## as a matrix: later subscripts of 1, a sparse subscript's values
%! warning ("off", "gd:nogpu", "local");
%! A = magic (4);
%! G = gdArray (A);
%! assert (gather (G(2, 3, 1)), A(2, 3, 1));
%! assert (gather (G(:, 2, 1, 1)), A(:, 2, 1, 1));
%! assert (gather (G(sparse (5))), A(sparse (5)));
%! assert (gather (G(2, sparse (3))), A(2, 3));
%!error <there is no device 5> gdArray (1, "Device", 5)
%!error id=gd:input gdArray (1, "Device", 5)
%!test
%! ## isequal and isequaln compare on the device (== and isnan there, the
%! ## answer gathered), and agree with Octave's own for every pair of
%! ## classes and shapes; other arguments go to Octave's own
%! warning ("off", "gd:nogpu", "local");
%! A = rand (5, 4); N = A; N(2) = NaN; B = A; B(3) = 7;
%! cases = {{A, A}, {A, A, A}, {A, B}, {A, A(:,1:3)}, {single(A), A}, {N, N}, ...
%!          {int8([1 2 3]), [1 2 3]}, {[97 98], "ab"}, {zeros(0,3), zeros(0,3)}, ...
%!          {zeros(0,3), zeros(3,0)}, {true(2), true(2)}, {int64(2^53)+1, 2^53}, ...
%!          {uint8(200), int8(127)}, {single(NaN), NaN}, {[1 NaN], [1 NaN], [1 NaN]}, ...
%!          {A, sparse(A)}, {A, {A}}, {[-0 0], [0 -0]}};
%! for c = 1:numel (cases)
%!   x = cases{c};
%!   for g = find (cellfun (@(v) (isnumeric (v) || islogical (v)) && ! issparse (v), x))
%!     y = x;
%!     y{g} = gdArray (y{g});
%!     assert ([isequal(y{:}), isequaln(y{:})], [isequal(x{:}), isequaln(x{:})]);
%!   endfor
%! endfor
