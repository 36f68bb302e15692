/* interrupt.c - Ctrl-C. The gateway gives the kernel layer a function that
 * says whether the user asked to stop (Octave's pending interrupt); the
 * host loops ask it between pieces of work (a round of Floyd-Warshall, a
 * block of columns, a chunk of queries) and leave the rest undone. The
 * gateway then finds the interrupt still pending, discards the results
 * and raises it (mex/gd_array.c). Without a function set, nothing stops. */
#include "gd.h"

#include <stddef.h>

static int (*volatile g_check)(void);

void gd_set_interrupt_check(int (*pending)(void)) { g_check = pending; }

int gd_interrupted(void)
{
    int (*f)(void) = g_check;
    return f ? f() != 0 : 0;
}
