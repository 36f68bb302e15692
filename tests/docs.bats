#!/usr/bin/env bats
# The README's performance section is what bench/perf_readme.m makes of
# bench/results: regenerating it changes nothing.

load helpers

@test "README performance section is generated from bench/results" {
    tmp="$BATS_TEST_TMPDIR/copy"
    mkdir -p "$tmp/bench"
    cp "$GD_ROOT/README.md" "$tmp/"
    cp -r "$GD_ROOT/bench/results" "$tmp/bench/"
    cp "$GD_ROOT/bench/perf_readme.m" "$tmp/bench/"
    cd "$tmp"
    run octave-cli -q --no-gui --no-init-file --no-history --eval "source('bench/perf_readme.m')"
    echo "$output"
    [ "$status" -eq 0 ]
    diff -u "$GD_ROOT/README.md" "$tmp/README.md"
}

@test "every user function and variant is named in the README" {
    for f in "$GD_ROOT"/octave/*.m; do
        grep -q "$(basename "$f" .m)" "$GD_ROOT/README.md" || { echo "README lacks $(basename "$f" .m)"; return 1; }
    done
    run octave_run "for op = {'gd_minplus', 'gd_apsp', 'gd_sgemm', 'gd_pdist', 'gd_pdist2'}; v = feval(op{1}, 'variants'); printf('%s\n', v.name); end"
    [ "$status" -eq 0 ]
    for v in $output; do
        grep -q "\`$v\`" "$GD_ROOT/README.md" || { echo "README lacks variant $v"; return 1; }
    done
}

@test "the README's install and citation name the package's version (pkg/DESCRIPTION)" {
    version=$(sed -n 's/^Version: *//p' "$GD_ROOT/pkg/DESCRIPTION")
    [ -n "$version" ]
    grep -q "make dist  *# writes gd-$version.tar.gz" "$GD_ROOT/README.md"
    grep -q "pkg install gd-$version.tar.gz" "$GD_ROOT/README.md"
    grep -q "version = {$version}" "$GD_ROOT/README.md"
    # no other version of the package named anywhere in the README
    ! grep -o 'gd-[0-9][0-9.]*[0-9]\.tar\.gz' "$GD_ROOT/README.md" | grep -v "gd-$version.tar.gz"
}

@test "every environment variable is read in runtime/settings.c alone and has a row in the README's Settings" {
    cd "$GD_ROOT"
    run grep -rln 'getenv' kernels mex --include=*.c --include=*.cu --include=*.h --include=*.cuh --include=*.cc
    [ "$output" = "kernels/runtime/settings.c" ] || { echo "getenv outside settings.c: $output"; false; }
    names=$(grep -o '\[GD_SET_[A-Z_]*\] = {"[A-Z_]*"' kernels/runtime/settings.c | sed 's/.*{"//; s/"//')
    [ "$(echo "$names" | wc -l)" -eq "$(grep -c '^    GD_SET_' kernels/gd.h)" ]
    section=$(awk '/^## Settings/ { on = 1; next } /^## / { on = 0 } on' README.md)
    for v in $names; do
        echo "$section" | grep -q "^| \`$v\`" || { echo "README's Settings lacks $v"; false; }
    done
}

@test "the README is at most 300 lines (the full guide is GUIDE.md, the tables bench/results)" {
    [ "$(wc -l < "$GD_ROOT/README.md")" -le 300 ]
    grep -q "GUIDE.md" "$GD_ROOT/README.md"
    [ -f "$GD_ROOT/GUIDE.md" ] && [ -f "$GD_ROOT/ARCHITECTURE.md" ]
}

@test "help gdArray shows the class's documentation, not an internal comment" {
    # the text Octave picks as the class's help (what help formats)
    run octave_run "[t, f] = get_help_text ('gdArray'); printf ('format: %s\n%s\n', f, t)"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"format: texinfo"* ]]
    [[ "$output" == *"A matrix kept in GPU memory across calls"* ]]
    [[ "$output" != *"Set by the constructor alone"* ]]
    # and formatted, where Octave has makeinfo to format Texinfo with
    # (without it Octave shows no Texinfo help at all, its own included)
    if octave_run "exit (! (system ([makeinfo_program() ' --version > /dev/null 2>&1']) == 0))" >/dev/null 2>&1; then
        run octave_run "help gdArray"
        echo "$output"
        [ "$status" -eq 0 ]
        [[ "$output" == *"A matrix kept in GPU memory across calls"* ]]
        [[ "$output" != *"Set by the constructor alone"* ]]
    fi
}


@test "kernels/NOTES.md is decisions and their measurements: at most 800 lines (the history is in git)" {
    [ "$(wc -l < "$GD_ROOT/kernels/NOTES.md")" -le 800 ]
}

@test "each gateway function's help names every option its parser takes (the list its unknown-option message gives)" {
    for call in "gd_minplus(1, 1" "gd_sgemm(1, 1" "gd_apsp(0" "gd_pdist(rand(3, 2), 'euclidean'" "gd_pdist2(rand(3, 2), rand(3, 2), 'euclidean'"; do
        f=${call%%(*}
        run octave_run "warning('off', 'all'); try $call, 'Zz', 1); catch e, disp(e.message); end"
        list=$(echo "$output" | grep -o "options: .*)" | grep -o "'[A-Za-z]*'" | tr -d "'")
        echo "$f: $list"
        [ -n "$list" ]
        for o in $list; do
            grep -q "^##.*\"$o\"" "$GD_ROOT/octave/$f.m" || { echo "$f's help does not name '$o'"; return 1; }
        done
    done
}

# the wrappers that parse their own options: OPTIONS = {...} in the .m is
# the one list, the help's @table names exactly it, and the parser takes
# every name in it (a value the option refuses aside)
@test "gd_knnsearch's and gd_rangesearch's help list exactly the options of their one list (OPTIONS), which the parser takes" {
    for f in gd_knnsearch gd_rangesearch; do
        m="$GD_ROOT/octave/$f.m"
        list=$(sed -n '/^  OPTIONS = {/,/};/p' "$m" | grep -o '"[A-Za-z]*"' | tr -d '"' | sort)
        help=$(sed -n '/^## @table/,/^## @end table/p' "$m" | grep '^## @item' | grep -o '@qcode{"[A-Za-z]*"}' \
            | sed 's/@qcode{"\(.*\)"}/\1/' | sort)
        echo "$f list: $list"; echo "$f help: $help"
        [ -n "$list" ]
        [ "$list" = "$help" ]
        args="rand(5, 2), rand(2, 2)"
        [ "$f" = gd_rangesearch ] && args="$args, 1"
        for o in $list; do
            run octave_run "warning('off', 'all'); try $f($args, '$o', 1); catch e, disp(e.message); end"
            [[ "$output" != *"unknown option"* ]]
        done
    done
}
