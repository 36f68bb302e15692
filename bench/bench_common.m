## bench_common.m - the helpers bench.m, bench_fresh.m and bench_devices.m
## share (sourced by each).

1;

function r = time_call (fn, args, reps)
  ## medians over reps calls after a warm-up call: host to host (tic/toc,
  ## the result kept until toc, as `tic; R = fn (...); toc` keeps it), and
  ## the kernel and copy times the call reports
  ## info is the output after those of Octave's counterpart: gd_minplus's
  ## third ([R, ~, info] computes no witness), the others' second
  third = strcmp (func2str (fn), "gd_minplus");
  if (third) [~, ~, info] = fn (args{:}); else [~, info] = fn (args{:}); endif  # warm-up
  h2h = kern = up = down = zeros (1, reps);
  for i = 1:reps
    t0 = tic ();
    if (third)
      [R, ~, info] = fn (args{:});
    else
      [R, info] = fn (args{:});
    endif
    h2h(i) = toc (t0) * 1e3;
    clear R;
    kern(i) = info.kernel_ms; up(i) = info.upload_ms; down(i) = info.download_ms;
  endfor
  r = struct ("kernel_ms", median (kern), "copy_ms", median (up + down),
              "h2h_ms", median (h2h), "ops", info.ops, "variant", info.variant,
              "info", info);
endfunction

function t = new_array_ms (m, n, cls, reps)
  ## what a fresh m x n Octave array costs here: the result lands in one
  if (nargin < 4)
    reps = 3;
  endif
  t = zeros (1, reps);
  for i = 1:reps
    t0 = tic (); Z = zeros (m, n, cls); t(i) = toc (t0) * 1e3; clear Z;
  endfor
  t = median (t);
endfunction

function progress (what, total)
  ## progress (WHAT, TOTAL) starts an operation of TOTAL rows; progress ()
  ## after each of its rows prints a line: the rows done, the time spent,
  ## and what is left at the pace so far
  persistent name n done t0;
  if (nargin == 2)
    name = what; n = total; done = 0; t0 = tic ();
    return;
  endif
  done++;
  spent = toc (t0);
  if (done < n)
    printf ("  [%s: %d of %d rows, %.0f s; about %.0f s left]\n", name, done, n, spent,
            spent / done * (n - done));
  else
    printf ("  [%s: %d rows, %.0f s]\n", name, n, spent);
  endif
  fflush (stdout);
endfunction

function text = merge_results (old, head, new)
  ## merge_results (OLD, HEAD, NEW): a results file whose top is HEAD (the
  ## title, date and device lines) and whose "## " sections are OLD's,
  ## each replaced by NEW's section of the same name (NEW's others after
  ## them): a run of some operations (GD_BENCH_OPS) updates their tables
  ## and keeps the rest
  name = @(s) strtrim (strtok (s, "\n"));
  split = @(t) regexp (t, '(?m)^## ', "split")(2:end);
  kept = split (old);
  names = cellfun (name, kept, "UniformOutput", false);
  for s = split (new)
    j = find (strcmp (names, name (s{1})), 1);
    if (isempty (j))
      kept{end+1} = s{1};
      names{end+1} = name (s{1});
    else
      kept{j} = s{1};
    endif
  endfor
  text = head;
  for i = 1:numel (kept)
    s = regexprep (kept{i}, '\n*$', "\n");
    if (i < numel (kept))
      s(end+1) = "\n";
    endif
    text = [text "## " s];
  endfor
endfunction

function x = pick (cond, a, b)
  ## a when cond, else b
  if (cond)
    x = a;
  else
    x = b;
  endif
endfunction
