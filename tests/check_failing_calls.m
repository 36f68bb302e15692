function check_failing_calls (ncalls)
  ## check_failing_calls (N): N calls that fail after allocating GPU memory
  ## (a GD_GPU_MEM_LIMIT that lets A and B in but not the rest) or before
  ## (bad input) leave what gd holds on the device as it was (memory_held:
  ## this process's, whatever else runs on the GPU).
  A = rand (1000, "single"); B = rand (1000, "single");
  Ai = int32 (A * 100); Bi = int32 (B * 100);  # the integer path, the same
  gd_minplus (A, B, "Variant", "v4");          # context, stream, events
  held0 = gd_info ().memory_held;
  unwind_protect
    setenv ("GD_GPU_MEM_LIMIT", sprintf ("%d", 2.5 * 4e6));  # A + B + a bit
    for c = 1:ncalls
      try
        gd_minplus (A, B, "Variant", {"v2", "v3", "v4"}{mod(c, 3) + 1});
        error ("check_failing_calls: call %d did not fail", c);
      catch err
        assert (err.identifier, "gd:memory");
      end_try_catch
      try
        gd_minplus (Ai, Bi, "Variant", "v5");
        error ("check_failing_calls: integer call %d did not fail", c);
      catch err
        assert (err.identifier, "gd:memory");
      end_try_catch
      try
        gd_minplus (A, rand (3), "Variant", "v4");
      catch err
        assert (err.identifier, "gd:size");
      end_try_catch
    endfor
  unwind_protect_cleanup
    unsetenv ("GD_GPU_MEM_LIMIT");
  end_unwind_protect
  held1 = gd_info ().memory_held;
  printf ("held before %d, after %d failing calls %d bytes\n", held0, 3 * ncalls, held1);
  assert (held1, held0);
  assert (isequal (gd_minplus (A, B, "Variant", "v4"), gd_minplus (A, B, "Variant", "cpu")));
  assert (isequal (gd_minplus (Ai, Bi, "Variant", "v5"), gd_minplus (Ai, Bi, "Variant", "cpu")));
endfunction
