## bench_charts.m - the charts of bench/results/<device>.md, drawn by
## Octave headless (the gnuplot toolkit, its pngcairo terminal): one PNG an
## operation, bench/results/<device>-<operation>.png, each rate against the
## size for every variant with the device's ceiling as a line (the ladders
## as bars at their one size). make bench runs it after the tables; `make
## charts` alone redraws them from the committed results. Where no
## headless toolkit exists it says so and draws nothing.

1;

## the rows of the table under HEADER: a struct array, one field a column
## (names made valid), numbers where the whole column is numeric
function t = read_table (lines, header)
  t = struct ([]);
  at = find (strcmp (lines, header), 1);
  if (isempty (at))
    return;
  endif
  i = at + 1;
  while (i <= numel (lines) && ! strncmp (lines{i}, "| ", 2))
    if (strncmp (lines{i}, "## ", 3))
      return;
    endif
    i++;
  endwhile
  if (i > numel (lines))
    return;
  endif
  cells = @(l) strtrim (strsplit (l(2:end-1), "|"));
  names = matlab.lang.makeValidName (cells (lines{i}));
  body = {};
  for j = i+2:numel (lines)
    if (! strncmp (lines{j}, "| ", 2))
      break;
    endif
    body(end+1,:) = cells (lines{j});
  endfor
  for c = 1:numel (names)
    v = str2double (body(:,c));
    if (all (! isnan (v)))
      col = num2cell (v);
    else
      col = body(:,c);
    endif
    [t(1:size (body, 1)).(names{c})] = col{:};
  endfor
endfunction

## the first number after WORD in the section's text
function v = ceiling_after (text, word)
  v = str2double (regexp (text, [word " ([0-9.e+]+)"], "tokens", "once"));
endfunction

## the text of the section under HEADER (to the next "## ")
function s = section_text (text, header)
  s = "";
  b = strfind (text, [header "\n"]);
  if (isempty (b))
    return;
  endif
  s = text(b(1) + numel (header):end);
  e = strfind (s, "\n## ");
  if (! isempty (e))
    s = s(1:e(1));
  endif
endfunction

## the K-th of twelve colours no two of which look alike (a chart's
## lines never share one: Octave's own order has seven)
function c = colour (k)
  p = [0.00 0.45 0.74; 0.85 0.33 0.10; 0.47 0.67 0.19; 0.49 0.18 0.56;
       0.93 0.69 0.13; 0.30 0.75 0.93; 0.64 0.08 0.18; 0.00 0.00 0.00;
       1.00 0.00 1.00; 0.50 0.50 0.50; 0.00 0.60 0.50; 0.60 0.40 0.00];
  c = p(mod (k - 1, rows (p)) + 1, :);
endfunction

## a log n axis with the sizes as plain numbers
function axes_n (n)
  n = unique (n);
  set (gca, "XScale", "log", "XTick", n, "XTickLabel", arrayfun (@num2str, n, "UniformOutput", false));
  xlim ([min(n) / 1.2, max(n) * 1.2]);
  grid on;
endfunction

## single and double side by side, against n: a line for each LABEL (one
## at a single size only, an experiment, is left out) of the values Y, and
## the dotted line REF (r0, class) gives as {x, y, name} (none where its y
## is NaN)
function by_class (t, label, y, ref, ylab, where, what)
  cls = {"single", "double"};
  for c = 1:2
    subplot (1, 2, c);
    hold on;
    r0 = strcmp ({t.class}, cls{c});
    names = unique (label(r0));
    for k = 1:numel (names)
      r = r0 & strcmp (label, names{k});
      if (sum (r) >= 2)
        plot ([t(r).n], y(r), "-o", "Color", colour (k), "LineWidth", 1.5, "DisplayName", names{k});
      endif
    endfor
    line = ref (r0, cls{c});
    if (! isempty (line{1}) && ! any (isnan (line{2})))
      plot (line{1}, line{2}, "k:", "LineWidth", 2, "DisplayName", line{3});
    endif
    axes_n ([t(r0).n]);
    set (gca, "YScale", "log");
    xlabel ("n"); ylabel (ylab);
    legend ("location", where);
    title (sprintf ("%s, %s", what, cls{c}));
  endfor
endfunction

function finish (h, file, titletext)
  if (! isempty (titletext))
    title (titletext);
  endif
  grid on;
  print (h, file, "-dpngcairo");
  close (h);
  printf ("written: %s\n", file);
endfunction

if (! any (strcmp (available_graphics_toolkits (), "gnuplot")))
  printf ("bench_charts: no headless graphics toolkit (install gnuplot: make deps); no charts drawn\n");
  return;
endif
warning ("off", "Octave:gnuplot-graphics");
graphics_toolkit ("gnuplot");
warning ("off", "Octave:language-extension");

for f = dir ("bench/results/*.md")'
  text = fileread (fullfile ("bench/results", f.name));
  lines = strsplit (text, "\n");
  device = regexprep (lines{1}, "^# gd benchmarks: ", "");
  stem = fullfile ("bench/results", regexprep (f.name, "\\.md$", ""));

  ## min-plus: steps/s against n, a line a variant, the ceiling dotted
  t = read_table (lines, "## min-plus");
  if (! isempty (t))
    h = figure ("visible", "off", "position", [0 0 1200 600]);
    by_class (t, {t.variant}, [t.steps_s],
              @(r0, c) {[min([t(r0).n]) max([t(r0).n])], ceiling_after(section_text(text, "## min-plus"), c) * [1 1], "ceiling"},
              "min-plus steps/s (kernel)", "southeast", "min-plus");
    finish (h, [stem "-minplus.png"], "");
  endif

  ## sgemm: the ladder (4096^3, padded) as bars against the peak; the
  ## sweep, GFLOP/s against n, for tuned and cuBLAS
  t = read_table (lines, "## sgemm");
  if (! isempty (t))
    h = figure ("visible", "off", "position", [0 0 1200 600]);
    peak = 100 * t(1).GFLOP_sKernel / t(1).x_OfPeak;    # GFLOP/s of the peak
    subplot (1, 2, 1);
    r = strcmp ({t.section}, "ladder") & strcmp ({t.edges}, "pad");
    barh ([t(r).GFLOP_sKernel]);
    hold on;
    plot ([peak peak], [0 sum(r) + 1], ":", "LineWidth", 2);
    set (gca, "YTick", 1:sum (r), "YTickLabel", {t(r).variant}, "YDir", "reverse");
    xlabel ("GFLOP/s (kernel), 4096^3; dotted: the FP32 peak");
    title (sprintf ("sgemm ladder, %s", device));
    grid on;
    subplot (1, 2, 2);
    hold on;
    r = strcmp ({t.section}, "sweep");
    sz = cellfun (@(s) sscanf (s, "%dx%dx%d")', {t.mXKXN}, "UniformOutput", false);
    cube = cellfun (@(s) numel (s) == 3 && s(1) == s(2) && s(2) == s(3) && bitand (s(1), s(1) - 1) == 0, sz);
    vs = {"tuned", "cublas"};
    for k = 1:2
      q = r & cube & strcmp ({t.variant}, vs{k});
      plot (cellfun (@(s) s(1), sz(q)), [t(q).GFLOP_sKernel], "-o", "Color", colour (k),
            "LineWidth", 1.5, "DisplayName", vs{k});
    endfor
    n = cellfun (@(s) s(1), sz(r & cube));
    plot ([min(n) max(n)], [peak peak], "k:", "LineWidth", 2, "DisplayName", "FP32 peak");
    axes_n (n);
    xlabel ("n (n^3 products)"); ylabel ("GFLOP/s (kernel)");
    legend ("location", "southeast");
    finish (h, [stem "-sgemm.png"], sprintf ("sgemm sweep, %s", device));
  endif

  ## pdist: triples/s of each variant and size against the ceiling
  t = read_table (lines, "## pdist");
  if (! isempty (t))
    h = figure ("visible", "off", "position", [0 0 1200 600]);
    labels = strcat ({t.variant}, {" "}, {t.class}, {" "}, {t.nXD});
    barh ([t.triples_s]);
    hold on;
    ## the ceilings of the section's own text ("Ceilings: single X ...,
    ## double Y"), each a dotted line in its colour
    sec = section_text (text, "## pdist");
    cls = {"single", "double"};
    for c = 1:2
      v = ceiling_after (sec, cls{c});
      if (! isnan (v))
        plot ([v v], [0 numel(t) + 1], "--", "Color", colour (c + 1), "LineWidth", 2.5);
      endif
    endfor
    set (gca, "YTick", 1:numel (t), "YTickLabel", labels, "YDir", "reverse");
    xlabel ("(i, j, k) triples/s (kernel); dashed: the ceiling in single (red), in double (green)");
    finish (h, [stem "-pdist.png"], sprintf ("pdist, %s", device));
  endif

  ## shortest paths: kernel time against n for every variant, with and
  ## without predecessors, the time of one min-plus product of the same n
  ## dotted beneath (the bound)
  t = read_table (lines, "## shortest paths (gd_apsp)");
  if (! isempty (t))
    h = figure ("visible", "off", "position", [0 0 1200 600]);
    one = strcmp ({t.variant}, "fw") & strcmp ({t.P}, "no");
    by_class (t, strcat ({t.variant}, {", P "}, {t.P}), [t.kernelMs],
              @(r0, c) {[t(r0 & one).n], [t(r0 & one).min_plusProductMs], "one min-plus product"},
              "kernel ms", "northwest", "all-pairs shortest paths");
    finish (h, [stem "-apsp.png"], "");
  endif

  ## nearest neighbours: kernel time against K for each size, the full
  ## distance matrix's time as its line (the rows from the host compare
  ## the call's copies at one K: the table's)
  t = read_table (lines, "## nearest neighbours");
  if (! isempty (t))
    t = t(cellfun (@isempty, strfind ({t.queriesXPoints}, "(host)")));
  endif
  if (! isempty (t))
    h = figure ("visible", "off", "position", [0 0 1200 600]);
    hold on;
    label = strcat ({t.queriesXPoints}, {", "}, {t.class});
    names = unique (label);
    for k = 1:numel (names)
      r = strcmp (label, names{k});
      plot ([t(r).K], [t(r).kernelMs], "-o", "Color", colour (k), "LineWidth", 1.5,
            "DisplayName", names{k});
      ## the full matrix's line once a size (with its fused row)
      if (isempty (strfind (names{k}, ", gemm")) && isempty (strfind (names{k}, "torch")))
        full = t(find (r, 1)).fullDistancesMs;
        plot ([min([t.K]) max([t.K])], [full full], "--", "Color", colour (k), "LineWidth", 2,
              "DisplayName", ["the full matrix, " names{k}]);
      endif
    endfor
    axes_n ([t.K]);
    set (gca, "YScale", "log");
    xlabel ("K"); ylabel ("kernel ms");
    legend ("location", "northwest");
    finish (h, [stem "-knn.png"], sprintf ("nearest neighbours (d = 128), %s", device));
  endif
endfor
