/* check_land.c - runtime/land.h against plain loops: every length 0..700
 * at every alignment of source and destination (mod 32 bytes; every
 * fifth and seventh past 300 bytes), random
 * bytes and int32s (none among them, and the int32 range's ends), the
 * bytes around each destination left as they were. Prints "land exact". */
#include "runtime/land.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { MOST = 700, PAD = 64, GUARD = 0x5a };

static int fails;
static void fail(const char *what, size_t n, size_t a, size_t b)
{
    if (fails++ < 10) fprintf(stderr, "%s: n %zu, source at +%zu, destination at +%zu\n", what, n, a, b);
}

int main(void)
{
    srand((unsigned)time(NULL));
    static char src[MOST * 8 + 2 * PAD], dst[MOST * 8 + 2 * PAD];
    static double ds[MOST + 2 * PAD];
    static int32_t is[MOST + 2 * PAD];
    for (size_t k = 0; k < sizeof src; ++k) src[k] = (char)rand();
    const int32_t none = -1;
    const double none_as = NAN;
    for (int out = 0; out < 2; ++out)
        for (size_t n = 0; n <= MOST; ++n)
            for (size_t a = 0; a < 32; a += (n < 300 ? 1 : 7))
                for (size_t b = 0; b < 32; b += (n < 300 ? 1 : 5)) {
                    memset(dst, GUARD, sizeof dst);
                    gd_land_bytes(dst + b, src + a, n, out);
                    if (memcmp(dst + b, src + a, n)) fail("gd_land_bytes: a byte differs", n, a, b);
                    for (size_t k = 0; k < b + n + PAD; ++k)
                        if ((k < b || k >= b + n) && dst[k] != (char)GUARD) {
                            fail("gd_land_bytes: a byte outside was written", n, a, b);
                            break;
                        }
                }
    for (size_t n = 0; n <= MOST; ++n)
        for (size_t a = 0; a < 4; ++a)
            for (size_t b = 0; b < 4; ++b) { /* (a, b: elements of offset) */
                for (size_t k = 0; k < n; ++k) {
                    const int r = rand() % 8;
                    is[a + k] = r == 0 ? none : r == 1 ? INT32_MIN : r == 2 ? INT32_MAX
                                            : (int32_t)((unsigned)rand() * 2654435761u);
                }
                for (size_t k = 0; k < MOST + 2 * PAD; ++k) ds[k] = -0.5;
                gd_land_widen(ds + b, is + a, n, none, none_as);
                for (size_t k = 0; k < n; ++k) {
                    const double v = ds[b + k];
                    if (is[a + k] == none ? !isnan(v) : v != (double)is[a + k]) {
                        fail("gd_land_widen: a value differs", n, a, b);
                        break;
                    }
                }
                for (size_t k = 0; k < b + n + PAD; ++k)
                    if ((k < b || k >= b + n) && ds[k] != -0.5) {
                        fail("gd_land_widen: an element outside was written", n, a, b);
                        break;
                    }
            }
    if (fails) {
        printf("%d failures\n", fails);
        return 1;
    }
    printf("land exact\n");
    return 0;
}
