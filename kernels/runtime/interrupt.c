/* interrupt.c - Ctrl-C, and the progress of long host loops (below). The gateway gives the kernel layer a function that
 * says whether the user asked to stop (Octave's pending interrupt); the
 * host loops ask it between units of work (a round of Floyd-Warshall, a
 * block of columns, a chunk of queries) and leave the rest undone. The
 * gateway then finds the interrupt still pending, discards the results
 * and raises it (mex/gd_array.c). Without a function set, nothing stops. */
#include "gd.h"

#include <stddef.h>

static int (*volatile g_check)(void);

void gd_set_interrupt_check(int (*pending)(void)) { g_check = pending; }

static void (*volatile g_report)(const char *, double, double);

void gd_set_progress(void (*report)(const char *what, double done, double total))
{
    g_report = report;
}

void gd_progress(const char *what, double done, double total)
{
    void (*f)(const char *, double, double) = g_report;
    if (f) f(what, done, total);
}

int gd_interrupted(void)
{
    int (*f)(void) = g_check;
    return f ? f() != 0 : 0;
}
