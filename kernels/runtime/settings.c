/* settings.c - every environment variable gd reads is read here, and only
 * here. A setting is read when it is asked for, never cached: a test (or a
 * user) may change one between calls. The owners parse them (multi.cu the
 * device lists, memory.cu the caps, cpu.c the stack size); this file names
 * them, says what each does (README.md, "Settings", repeats the table) and
 * reads them. */
#include "gd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *what;
} table[GD_NSETTINGS] = {
    [GD_SET_DEVICES] = {"GD_DEVICES", "the devices a call runs on where it names none: 'all' (the "
                                      "default) or 1-based indices, \"1,2\""},
    [GD_SET_GPU_MEM_LIMIT] = {"GD_GPU_MEM_LIMIT", "a cap in bytes on what one call allocates on a "
                                                  "device; \"2:<bytes>,3:<bytes>\" caps devices 2 "
                                                  "and 3 alone"},
    [GD_SET_STAGE] = {"GD_STAGE", "0: copies between pageable host memory and the device go "
                                  "through the driver, not gd's page-locked staging slots"},
    [GD_SET_PREFAULT] = {"GD_PREFAULT", "0: a large host result's pages are not touched in "
                                        "parallel before the download writes them"},
    [GD_SET_MEMPOOL] = {"GD_MEMPOOL", "0: plain cudaMalloc and cudaFree instead of the stream-"
                                      "ordered pool"},
    [GD_SET_BLOCKS] = {"GD_BLOCKS", "q (1 to 8): a product in q x q sections, for experiments (1: "
                                    "one section, no copy overlapped)"},
    [GD_SET_SPLIT] = {"GD_SPLIT", "s (1 to 16): sgemm 'tuned' cuts k into s slices summed in "
                                  "order, for experiments (else the size decides)"},
    [GD_SET_SPLIT_SUM] = {"GD_SPLIT_SUM", "kernel: sgemm 'tuned''s slices are summed by a second "
                                          "kernel through a workspace, not in a cluster of their "
                                          "blocks (the same sums; for experiments)"},
    [GD_SET_BY_TILE] = {"GD_BY_TILE", "1: min-plus v5 in single takes the integer min on each "
                                      "tile free of negative operands whatever the product's "
                                      "size; 0: only where the whole product is (else the size "
                                      "decides), for experiments and tests"},
    [GD_SET_CHAIN] = {"GD_CHAIN", "global: gd_apsp follows the predecessors' chains in global "
                                  "memory whatever n (its form where a column is past shared "
                                  "memory, n > 40960), for tests"},
    [GD_SET_KNN_UNITS] = {"GD_KNN_UNITS", "q (1 to 8): nearest neighbours upload X in q "
                                            "units (1: one, no overlap of the upload, the "
                                            "bench's comparison; else the size decides)"},
    [GD_SET_SHARE] = {"GD_SHARE", "0: each device of a divided product uploads A whole (else "
                                  "each uploads a share and pulls the others' from their "
                                  "devices); twice: one array given as both operands goes "
                                  "up as each (else once)"},
    [GD_SET_POISON] = {"GD_POISON", "set (to anything): outputs on the device are filled with "
                                    "0xCD bytes before the kernels run, so an element a kernel "
                                    "fails to write shows (tests)"},
    [GD_SET_SIM_DEVICES] = {"GD_SIM_DEVICES", "N: gd sees N devices that are all CUDA's first "
                                              "(tests of the split on a machine with one GPU)"},
    [GD_SET_OMP_STACKSIZE] = {"OMP_STACKSIZE", "OpenMP's stack a thread; below 256 KiB gd's CPU "
                                               "work runs on one thread (gd:threads)"},
    [GD_SET_VERBOSE] = {"GD_VERBOSE", "1: each call prints a line with its variant, device and "
                                      "times; a call longer than 2 s also prints how far its "
                                      "rounds, blocks or panels are (host or GPU), about once a "
                                      "second (2: from its start)"},
    [GD_SET_MPI_RANKS] = {"OMPI_COMM_WORLD_SIZE", "set by Open MPI's mpirun: the process is a "
                                                  "rank of a job, and gd joins MPI at its first "
                                                  "gd_spmd call"},
    [GD_SET_PMIX_RANK] = {"PMIX_RANK", "set by a PMIx launcher (srun --mpi=pmix): as "
                                       "OMPI_COMM_WORLD_SIZE"},
    [GD_SET_LOCAL_RANK] = {"OMPI_COMM_WORLD_LOCAL_RANK", "set by Open MPI's mpirun: the "
                                                         "rank's place among its host's ranks, "
                                                         "which share the host's GPUs (GD_RANK_DEVICES)"},
    [GD_SET_LOCAL_SIZE] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "set by Open MPI's mpirun: the ranks on "
                                                         "the host"},
    [GD_SET_RANK_DEVICES] = {"GD_RANK_DEVICES", "all: every rank of a job sees every GPU of its "
                                                "host (else the host's ranks share them out: "
                                                "rank l of L sees the GPUs j with j mod L = l)"},
    [GD_SET_SSSP_DELTA] = {"GD_SSSP_DELTA", "w (1 to 1000000): gd_apsp's 'Sources' on the GPU "
                                            "takes near-far buckets w percent as wide as its "
                                            "rule's, for experiments"},
    [GD_SET_SSSP_ORDER] = {"GD_SSSP_ORDER", "0: gd_apsp's 'Sources' by near-far keeps W's vertex "
                                            "order (else where W's edges join vertices far apart "
                                            "in it, they are renumbered for the run)"},
    [GD_SET_NVRTC] = {"GD_NVRTC", "0: arrayfun's chains interpreted, never compiled with NVRTC"},
};

const char *gd_setting_name(gd_setting s)
{
    return s >= 0 && s < GD_NSETTINGS ? table[s].name : "";
}

const char *gd_setting_what(gd_setting s)
{
    return s >= 0 && s < GD_NSETTINGS ? table[s].what : "";
}

const char *gd_setting_text(gd_setting s)
{
    return s >= 0 && s < GD_NSETTINGS ? getenv(table[s].name) : NULL;
}

int gd_setting_is(gd_setting s, const char *value)
{
    const char *v = gd_setting_text(s);
    return v && strcmp(v, value) == 0;
}

int gd_setting_int(gd_setting s, long lo, long hi, long *out)
{
    const char *v = gd_setting_text(s);
    if (!v || !*v) return 0;
    char *end;
    errno = 0;
    const long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) return -1;
    *out = x;
    return 1;
}

int gd_setting_malformed(gd_setting s)
{
    long x;
    switch (s) {
    case GD_SET_BLOCKS:
    case GD_SET_KNN_UNITS: return gd_setting_int(s, 1, GD_MAX_SIDE, &x) < 0;
    case GD_SET_SPLIT: return gd_setting_int(s, 1, 16, &x) < 0;
    case GD_SET_SIM_DEVICES: return gd_setting_int(s, 0, GD_MAX_DEVICES, &x) < 0;
    case GD_SET_VERBOSE: return gd_setting_int(s, 0, 2, &x) < 0;
    case GD_SET_SSSP_DELTA: return gd_setting_int(s, 1, 1000000, &x) < 0;
    case GD_SET_SSSP_ORDER: return gd_setting_int(s, 0, 1, &x) < 0;
    case GD_SET_GPU_MEM_LIMIT: return gd_mem_limit_malformed();
    default: return 0;
    }
}
