#!/usr/bin/env bats
# The register-tiled kernels run at the edge of their register budget (128
# a thread for the single-precision layouts of tile.cuh): one spill in the
# k loop costs several percent. ptxas reports spills per kernel; none of
# the kernels of the product and distance files may have any on sm_90
# (but for the witness kernels named below: at most 160 bytes; the
# nearest neighbours of minkowski in double, where pow's registers beside
# the selection's state leave a few words spilled: at most 256 bytes; and
# the gemm neighbours' re-rank in double, whose rescue call leaves one
# word: at most 16 bytes; and dmma's triangle with the root or cosine,
# whose epilogue beside the 128 accumulators leaves a word or two: at
# most 8 bytes, as measured on the GPU).
# Needs nvcc only, no GPU.

load helpers

@test "no kernel spills registers on sm_90" {
    cd "$GD_ROOT"
    command -v "${NVCC:-nvcc}" >/dev/null || skip "no nvcc"
    for f in minplus/minplus minplus/int apsp/apsp pdist/pdist pdist/pdist_d pdist/pdist2 knn/knn knn/gemm sgemm/sgemm; do
        # the build's own report where it is newer than the source and has
        # sm_90 (make builds with -Xptxas -v), else a compile for sm_90
        log="build/ops/$f.ptxas"
        if [ -f "$log" ] && [ "$log" -nt "kernels/ops/$f.cu" ] && grep -q "for 'sm_90'" "$log"; then
            output="$(cat "$log")"
        else
            run "${NVCC:-nvcc}" -O3 -std=c++17 -arch=sm_90 -Ikernels -Xptxas -v -c "kernels/ops/$f.cu" \
                -o "$BATS_TEST_TMPDIR/${f//\//_}.o"
            [ "$status" -eq 0 ] || { echo "$output"; false; }
        fi
        report="$(echo "$output" | awk '/Compiling entry function/ { name = $0; sm90 = /sm_90/ }
                                        /spill stores/ && sm90 { print name " :: " $0 }')"
        [ -n "$report" ] || { echo "no ptxas report for $f.cu"; false; }
        # the witness kernels of min-plus other than the integer-min one
        # (minplus_first<K>, and the integer classes' int_first: 64
        # accumulators and 64 witnesses a thread) are allowed a few words;
        # every other kernel none
        spilled="$(echo "$report" | grep -v ' 0 bytes spill stores, 0 bytes spill loads' |
                   awk '!/minplus_firstILi|int_firstI|knn_fusedIdNS_11m_minkowski|rerankIdE|gd_dmma.*distILi128ELi16ELi[12]E.*dmma_tri/ { print; next }
                        { most = /minkowski/ ? 256 : /rerankIdE/ ? 16 : /gd_dmma/ ? 8 : 160
                          for (i = 1; i <= NF; ++i) if ($(i+1) == "bytes" && $(i+2) == "spill" && $i > most) print }' || true)"
        [ -z "$spilled" ] || { echo "$spilled"; false; }
    done
}
