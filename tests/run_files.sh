#!/bin/bash
# run_files.sh JOBS FILE...: the BATS files side by side, JOBS at a time, each
# in a bats of its own, where GNU parallel (which bats --jobs needs) is
# missing; their outputs printed in the files' order as each is done; fails
# where any file fails. BATS: the bats to run (default bats).
jobs=$1; shift
bats=${BATS:-bats}
dir=$(mktemp -d) || exit 1
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
i=0
for f in "$@"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    ( "$bats" "$f" > "$dir/$i.out" 2>&1; echo $? > "$dir/$i.rc" ) &
    i=$((i + 1))
done
rc=0
for ((k = 0; k < i; ++k)); do
    while [ ! -s "$dir/$k.rc" ]; do sleep 1; done
    cat "$dir/$k.out"
    [ "$(cat "$dir/$k.rc")" = 0 ] || rc=1
done
exit $rc
