#!/usr/bin/env bats
# The README's performance section is what examples/perf_readme.m makes of
# bench/results: regenerating it changes nothing.

load helpers

@test "README performance section is generated from bench/results" {
    tmp="$BATS_TEST_TMPDIR/copy"
    mkdir -p "$tmp/bench" "$tmp/examples"
    cp "$GD_ROOT/README.md" "$tmp/"
    cp -r "$GD_ROOT/bench/results" "$tmp/bench/"
    cp "$GD_ROOT/examples/perf_readme.m" "$tmp/examples/"
    cd "$tmp"
    run octave-cli -q --no-gui --no-init-file --no-history --eval "source('examples/perf_readme.m')"
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
