/* mpi.c - MPI, loaded at run time: the ranks of a job that mpirun (or
 * srun) started, the same script in each, as MATLAB's spmd runs it.
 *
 * libmpi is opened with dlopen the first time a rank asks (RTLD_GLOBAL:
 * Open MPI's components resolve its symbols), so gd builds, installs and
 * runs where there is no MPI, and a process that no launcher started is
 * one rank of one without touching MPI. Open MPI's ABI: handles are the
 * addresses of its predefined objects (ompi_mpi_comm_world, ...), read
 * with dlsym; no mpi.h is needed to build. MPI is joined with
 * MPI_THREAD_FUNNELED (only Octave's thread calls it) and left at the
 * gateway's exit (gd_mpi_end) where gd joined it. No CUDA-aware MPI is
 * assumed: these move host memory.
 *
 * No rank waits for ever on one that has gone. A rank leaving (its
 * Octave exits: the script's end, an error, exit) first tells every
 * other rank so (a message of tag LEAVING), then calls MPI_Finalize, which
 * waits for them all; the collectives are non-blocking, polled, and a
 * rank waiting in one that finds such a message (or Ctrl-C) raises an
 * error naming the rank that left, so its script ends too and every rank
 * reaches MPI_Finalize. A rank that never joined, or that is killed,
 * leaves without MPI_Finalize, and mpirun then ends the job. */
#include "gd.h"

#include <dlfcn.h>
#include <time.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* (runtime.h's, which is C++) */
gd_status gd_fail(gd_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef int (*fn_int_p)(int *);
typedef int (*fn_void)(void);
static struct {
    int tried, joined, ours; /* libmpi looked for; MPI_Init done (by gd: ours) */
    int rank, size;
    void *lib;
    char what[160]; /* what was found, for gd_info */
    fn_int_p initialized, finalized;
    int (*init_thread)(int *, char ***, int, int *);
    fn_void finalize;
    int (*comm_rank)(void *, int *), (*comm_size)(void *, int *);
    int (*version)(char *, int *);
    int (*ibcast)(void *, int, void *, int, void *, void **);
    int (*iallgather)(const void *, int, void *, void *, int, void *, void *, void **);
    int (*igatherv)(const void *, int, void *, void *, const int *, const int *, void *, int,
                    void *, void **);
    int (*iallgatherv)(const void *, int, void *, void *, const int *, const int *, void *,
                       void *, void **);
    int (*test)(void **, int *, void *);
    int (*iprobe)(int, int, void *, int *, void *);
    int (*isend)(const void *, int, void *, int, int, void *, void **);
    int (*comm_split)(void *, int, int, void **);
    void *world, *byte, *status_ignore;
    void *groups[GD_MPI_GROUPS]; /* the communicators gd_mpi_group made */
    int color[GD_MPI_GROUPS], key[GD_MPI_GROUPS]; /* (NCCL's groups are made alike) */
    int ngroups;
    int gone; /* 1 + the first rank known to have left, 0: none */
} M;

/* Open MPI's MPI_Status (4.x): its source first */
typedef struct {
    int source, tag, error, cancelled;
    size_t ucount;
} ompi_status;
enum { LEAVING = 30303, ANY_SOURCE = -1 };

static void *sym(const char *name) { return M.lib ? dlsym(M.lib, name) : NULL; }

/* libmpi and its functions; 0 where it is not there */
static int load(void)
{
    if (M.tried) return M.lib != NULL;
    M.tried = 1;
    const char *names[] = {"libmpi.so.40", "libmpi.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !M.lib; ++i)
        M.lib = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    if (!M.lib) {
        snprintf(M.what, sizeof M.what, "not found (libmpi.so.40: Open MPI)");
        return 0;
    }
    M.initialized = (fn_int_p)sym("MPI_Initialized");
    M.finalized = (fn_int_p)sym("MPI_Finalized");
    M.init_thread = (int (*)(int *, char ***, int, int *))sym("MPI_Init_thread");
    M.finalize = (fn_void)sym("MPI_Finalize");
    M.comm_rank = (int (*)(void *, int *))sym("MPI_Comm_rank");
    M.comm_size = (int (*)(void *, int *))sym("MPI_Comm_size");
    M.version = (int (*)(char *, int *))sym("MPI_Get_library_version");
    M.ibcast = (int (*)(void *, int, void *, int, void *, void **))sym("MPI_Ibcast");
    M.iallgather = (int (*)(const void *, int, void *, void *, int, void *, void *, void **))sym("MPI_Iallgather");
    M.igatherv = (int (*)(const void *, int, void *, void *, const int *, const int *, void *, int,
                          void *, void **))sym("MPI_Igatherv");
    M.iallgatherv = (int (*)(const void *, int, void *, void *, const int *, const int *, void *,
                             void *, void **))sym("MPI_Iallgatherv");
    M.test = (int (*)(void **, int *, void *))sym("MPI_Test");
    M.iprobe = (int (*)(int, int, void *, int *, void *))sym("MPI_Iprobe");
    M.isend = (int (*)(const void *, int, void *, int, int, void *, void **))sym("MPI_Isend");
    M.comm_split = (int (*)(void *, int, int, void **))sym("MPI_Comm_split");
    M.world = sym("ompi_mpi_comm_world");
    M.status_ignore = NULL; /* (Open MPI's MPI_STATUS_IGNORE is NULL) */
    M.byte = sym("ompi_mpi_byte");
    if (!M.initialized || !M.finalized || !M.init_thread || !M.finalize || !M.comm_rank ||
        !M.comm_size || !M.ibcast || !M.iallgather || !M.igatherv ||
        !M.iallgatherv || !M.test || !M.iprobe || !M.isend || !M.comm_split || !M.world ||
        !M.byte) {
        snprintf(M.what, sizeof M.what, "libmpi found but not Open MPI's (gd speaks Open MPI's ABI)");
        dlclose(M.lib);
        M.lib = NULL;
        return 0;
    }
    char v[256] = "";
    int len = 0;
    if (M.version && !M.version(v, &len)) v[strcspn(v, ",\n")] = 0;
    snprintf(M.what, sizeof M.what, "%s", v[0] ? v : "Open MPI");
    return 1;
}

int gd_mpi_launched(void)
{
    return gd_setting_text(GD_SET_MPI_RANKS) || gd_setting_text(GD_SET_PMIX_RANK);
}

gd_status gd_mpi_join(void)
{
    if (M.joined) return GD_OK;
    M.rank = 0;
    M.size = 1;
    if (!gd_mpi_launched()) return GD_OK; /* one rank of one, no MPI */
    if (!load())
        return gd_fail(GD_ERR_INPUT, "this process was started by an MPI launcher, but MPI "
                       "cannot be used: %s", M.what);
    int done = 0, provided = 0;
    M.initialized(&done);
    if (!done) {
        if (M.init_thread(NULL, NULL, 1 /* MPI_THREAD_FUNNELED */, &provided))
            return gd_fail(GD_ERR_INPUT, "MPI_Init_thread failed");
        M.ours = 1;
    }
    M.comm_rank(M.world, &M.rank);
    M.comm_size(M.world, &M.size);
    M.joined = 1;
    return GD_OK;
}

int gd_mpi_rank(void) { return M.joined ? M.rank : 0; }
int gd_mpi_size(void) { return M.joined ? M.size : 1; }

const char *gd_mpi_found(void)
{
    load(); /* (looked for, not joined) */
    return M.what;
}

int gd_mpi_left(void)
{
    if (M.joined && M.size > 1 && !M.gone) {
        int there = 0;
        ompi_status st;
        if (!M.iprobe(ANY_SOURCE, LEAVING, M.world, &there, &st) && there) M.gone = 1 + st.source;
    }
    return M.gone;
}

/* Waits for a non-blocking collective, polling: a rank that has left
 * (its LEAVING message) or Ctrl-C ends the wait with an error (the
 * request is left: the process is on its way out) */
static gd_status wait_for(void *req, const char *what)
{
    /* a rank that left after its part of this collective (the job's last
     * barrier, say) leaves it completable: two seconds of polling more
     * before it counts as gone */
    struct timespec t0 = {0, 0};
    for (unsigned spin = 0;; ++spin) {
        int done = 0;
        if (M.test(&req, &done, M.status_ignore)) return gd_fail(GD_ERR_INPUT, "%s failed", what);
        if (done) return GD_OK;
        gd_mpi_left();
        if (M.gone) {
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            if (!t0.tv_sec) t0 = t;
            if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > 2.0)
                return gd_fail(GD_ERR_INPUT, "rank %d has left the job (its Octave ended) while "
                               "this rank waited for it in %s", M.gone, what);
        }
        if (gd_interrupted()) return gd_fail(GD_ERR_INTERRUPT, "interrupted");
        if (spin > 1000) {
            struct timespec ts = {0, 100000}; /* 0.1 ms: a wait costs no core */
            nanosleep(&ts, NULL);
        }
    }
}

gd_status gd_mpi_barrier(void)
{
    if (!M.joined || M.size == 1) return GD_OK;
    char none = 0, all[GD_MPI_MOST];
    return gd_mpi_allgather(&none, 1, all);
}

/* bytes from root to every rank of comm, in chunks of at most INT_MAX
 * bytes */
static gd_status bcast_on(void *buf, size_t bytes, int root, void *comm)
{
    for (size_t at = 0; at < bytes; at += INT_MAX) {
        const size_t n = bytes - at < (size_t)INT_MAX ? bytes - at : (size_t)INT_MAX;
        void *req = NULL;
        if (M.ibcast((char *)buf + at, (int)n, M.byte, root, comm, &req))
            return gd_fail(GD_ERR_INPUT, "MPI_Ibcast failed");
        const gd_status s = wait_for(req, "a broadcast");
        if (s) return s;
    }
    return GD_OK;
}

gd_status gd_mpi_bcast(void *buf, size_t bytes, int root)
{
    if (!M.joined || M.size == 1) return GD_OK;
    return bcast_on(buf, bytes, root, M.world);
}

gd_status gd_mpi_group(int color, int key, int *group, int *rank, int *size)
{
    *group = 0;
    *rank = 0;
    *size = 1;
    if (!M.joined || M.size == 1) return GD_OK;
    if (M.ngroups == GD_MPI_GROUPS)
        return gd_fail(GD_ERR_INPUT, "more than %d groups of ranks", GD_MPI_GROUPS);
    /* every rank there first (polled: one that has left ends the wait),
     * then the split, which blocks */
    gd_status s = gd_mpi_barrier();
    if (s) return s;
    void *comm = NULL;
    if (M.comm_split(M.world, color, key, &comm)) return gd_fail(GD_ERR_INPUT, "MPI_Comm_split failed");
    M.comm_rank(comm, rank);
    M.comm_size(comm, size);
    M.groups[M.ngroups] = comm;
    M.color[M.ngroups] = color;
    M.key[M.ngroups] = key;
    *group = M.ngroups++;
    return GD_OK;
}

int gd_mpi_group_made(int group, int *color, int *key)
{
    if (!M.joined || group < 0 || group >= M.ngroups) return 0;
    *color = M.color[group];
    *key = M.key[group];
    return 1;
}

gd_status gd_mpi_bcast_in(void *buf, size_t bytes, int root, int group)
{
    if (!M.joined || M.size == 1) return GD_OK;
    if (group < 0 || group >= M.ngroups) return gd_fail(GD_ERR_INPUT, "internal: group %d", group);
    return bcast_on(buf, bytes, root, M.groups[group]);
}

gd_status gd_mpi_allgather(const void *mine, size_t bytes, void *all)
{
    if (!M.joined || M.size == 1) {
        memcpy(all, mine, bytes);
        return GD_OK;
    }
    if (bytes > (size_t)INT_MAX) return gd_fail(GD_ERR_SIZE, "internal: an allgather of %zu bytes", bytes);
    void *req = NULL;
    if (M.iallgather(mine, (int)bytes, M.byte, all, (int)bytes, M.byte, M.world, &req))
        return gd_fail(GD_ERR_INPUT, "MPI_Iallgather failed");
    return wait_for(req, "a gather");
}

gd_status gd_mpi_gatherv(const void *mine, size_t bytes, void *all, const size_t *counts,
                         int root, int every)
{
    if (!M.joined || M.size == 1) {
        memcpy(all, mine, bytes);
        return GD_OK;
    }
    int c[GD_MPI_MOST], d[GD_MPI_MOST];
    size_t off = 0;
    if (M.size > GD_MPI_MOST) return gd_fail(GD_ERR_SIZE, "more than %d ranks", GD_MPI_MOST);
    for (int r = 0; r < M.size; ++r) {
        if (counts[r] > (size_t)INT_MAX || off > (size_t)INT_MAX)
            return gd_fail(GD_ERR_SIZE, "a gather of more than 2 GiB across ranks (%zu bytes "
                           "from rank %d)", counts[r], r + 1);
        c[r] = (int)counts[r];
        d[r] = (int)off;
        off += counts[r];
    }
    void *req = NULL;
    if (every ? M.iallgatherv(mine, (int)bytes, M.byte, all, c, d, M.byte, M.world, &req)
              : M.igatherv(mine, (int)bytes, M.byte, all, c, d, M.byte, root, M.world, &req))
        return gd_fail(GD_ERR_INPUT, "MPI_I(all)gatherv failed");
    return wait_for(req, "a gather");
}

void gd_mpi_end(void)
{
    int done = 1;
    if (M.joined && M.ours && M.finalized && !M.finalized(&done) && !done) {
        /* every other rank told, so that none waits for this one in a
         * collective (small messages: sent eagerly, never waited for) */
        static int me;
        me = M.rank;
        for (int r = 0; r < M.size; ++r) {
            void *req = NULL;
            if (r != M.rank) M.isend(&me, 1, M.byte, r, LEAVING, M.world, &req);
        }
        M.finalize();
    }
    M.joined = 0;
}
