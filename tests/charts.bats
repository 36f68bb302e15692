#!/usr/bin/env bats
# make charts (bench/bench_charts.m): a PNG an operation from
# bench/results/<device>.md, drawn by Octave headless; here from the
# committed results and from a results file with a nearest-neighbours table.

load helpers

# png_ok FILE: a PNG of 1200 x 600 pixels and more than 20 kB (a chart
# with its axes, lines and labels; an empty figure is a few kB)
png_ok() {
    [ -f "$1" ] || { echo "missing: $1"; return 1; }
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || { echo "not a PNG: $1"; return 1; }
    local wh
    wh=$(od -An -tu1 -j16 -N8 "$1" | awk '{print $3*256+$4, $7*256+$8}')
    [ "$wh" = "1200 600" ] || { echo "$1 is $wh"; return 1; }
    [ "$(stat -c %s "$1")" -gt 20000 ] || { echo "$1 is $(stat -c %s "$1") bytes"; return 1; }
}

draw() {
    cd "$1"
    run octave-cli -q --no-gui --no-init-file --no-history --eval "source('$GD_ROOT/bench/bench_charts.m')"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "the committed results give a chart for min-plus, sgemm, pdist and shortest paths" {
    command -v gnuplot >/dev/null || skip "no gnuplot (make deps installs it)"
    mkdir -p "$BATS_TEST_TMPDIR/bench/results"
    cp "$GD_ROOT"/bench/results/*.md "$BATS_TEST_TMPDIR/bench/results/"
    draw "$BATS_TEST_TMPDIR"
    # make bench's files (make bench-devices's and bench-ranks's, *-devices.md
    # and *-ranks.md, hold one table of speed-ups, no chart)
    # a file of some operations (GD_BENCH_OPS) charts those it holds; the
    # H100's holds them all
    local drawn=0
    for f in "$BATS_TEST_TMPDIR"/bench/results/*.md; do
        [[ "$f" == *-devices.md || "$f" == *-ranks.md ]] && { [ ! -e "${f%.md}-minplus.png" ] || return 1; continue; }
        for op in "minplus:min-plus" "sgemm:sgemm" "pdist:pdist" "apsp:shortest paths (gd_apsp)"; do
            if grep -qx "## ${op#*:}" "$f"; then
                png_ok "${f%.md}-${op%%:*}.png"
                drawn=$((drawn + 1))
            else
                [ ! -e "${f%.md}-${op%%:*}.png" ] || { echo "a chart without its table: ${f%.md}-${op%%:*}.png"; return 1; }
            fi
        done
    done
    [ -f "$BATS_TEST_TMPDIR/bench/results/NVIDIA_H100_80GB_HBM3-apsp.png" ] && [ "$drawn" -ge 4 ]
}

@test "a nearest-neighbours table gives its chart; a results file without tables gives none" {
    command -v gnuplot >/dev/null || skip "no gnuplot (make deps installs it)"
    mkdir -p "$BATS_TEST_TMPDIR/bench/results"
    cat > "$BATS_TEST_TMPDIR/bench/results/Test_GPU.md" <<'MD'
# gd benchmarks: Test GPU

## nearest neighbours

| queries x points | class | K | kernel ms | h2h ms | full distances ms | kernel / full | splits |
|---|---|---:|---:|---:|---:|---:|---|
| 8192 x 65536 | single | 10 | 13.16 | 24.61 | 5.18 | 2.54 | 32 splits |
| 8192 x 65536 | single | 100 | 27.10 | 48.18 | 5.18 | 5.23 | 32 splits |
| 10000 x 1000000 | single | 1 | 119.89 | 121.33 | 153.78 | 0.78 | 5 splits |
| 10000 x 1000000 | single | 100 | 142.35 | 144.07 | 153.78 | 0.93 | 5 splits |
| 10000 x 1000000 | single | 4096 | 2975.66 | 2977.77 | 153.78 | 19.35 | 5 splits |
MD
    printf '# gd benchmarks: Empty\n\nnothing measured\n' > "$BATS_TEST_TMPDIR/bench/results/Empty.md"
    draw "$BATS_TEST_TMPDIR"
    png_ok "$BATS_TEST_TMPDIR/bench/results/Test_GPU-knn.png"
    [ -z "$(ls "$BATS_TEST_TMPDIR"/bench/results/Empty-*.png 2>/dev/null)" ]
    [ -z "$(ls "$BATS_TEST_TMPDIR"/bench/results/Test_GPU-minplus.png 2>/dev/null)" ]
}

@test "a bench run of some operations replaces their tables and keeps the others" {
    run octave_run "source('$GD_ROOT/bench/bench_common.m');
      old = fileread('$GD_ROOT/bench/results/NVIDIA_H100_80GB_HBM3.md');
      new = sprintf('\n## sgemm\n\nnew sgemm table\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## a new section\n\nits text\n');
      h = sprintf('HEAD\n\n');
      t = merge_results(old, h, new);
      s = regexp(t, '(?m)^## ([^\n]*)', 'tokens');
      s = cellfun(@(c) c{1}, s, 'UniformOutput', false);
      o = regexp(old, '(?m)^## ([^\n]*)', 'tokens');
      o = cellfun(@(c) c{1}, o, 'UniformOutput', false);
      assert(s, [o, {'a new section'}]);
      assert(strncmp(t, [h '## '], 9));
      assert(! isempty(strfind(t, 'new sgemm table')));
      assert(isempty(strfind(t, old(strfind(old, '## sgemm'):strfind(old, '## pdist')(1) - 1))));
      m = strfind(old, ['## min-plus' char(10)])(1); p = strfind(old, '## sgemm')(1);
      assert(! isempty(strfind(t, strtrim(old(m:p - 1)))));
      assert(merge_results(t, h, new), t);
      disp('merged')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *merged* ]]
}
