/*
 * tests/unit/carry_test.c - tma_store_tc's carried boxes (07_tma_multicast/carry.cuh):
 * for every K-step count, number of carried boxes and stride the kernel can be
 * built with, every carried box is stored exactly once, by a K step of the next
 * tile's loop or at its end. The same check on a catch-up that is one box off
 * must fail, so the check can.
 *
 *   cc -std=c11 -Wall -Wextra -Werror -I. tests/unit/carry_test.c -o carry_test && ./carry_test
 */
#include <stdio.h>

#include "07_tma_multicast/carry.cuh"

/* 0 when each of the @p carried boxes is stored once after a K loop of @p k steps */
static int check(int k, int carried, int stride, int off)
{
    int times[16] = {0}, kt, d;
    for (kt = 0; kt < k; ++kt)
        if ((d = carry_box_at(kt, carried, stride)) >= 0) times[d]++;
    for (d = carry_left_from(k, stride) + off; d < carried; ++d) times[d < 0 ? 0 : d]++;
    for (d = 0; d < carried; ++d)
        if (times[d] != 1) return 1;
    return 0;
}

int main(void)
{
    int k, carried, stride, bad = 0, caught = 0, cases = 0;
    for (stride = 2; stride <= 8; ++stride)
        for (carried = 0; carried <= 8; ++carried)
            for (k = 1; k <= 80; ++k) {
                cases++;
                if (check(k, carried, stride, 0)) {
                    if (bad++ < 10) printf("FAIL: %d K steps, %d boxes carried, stride %d\n", k, carried, stride);
                }
                caught += carried > 0 && (check(k, carried, stride, 1) || check(k, carried, stride, -1));
            }
    printf("%d cases, %d wrong; a catch-up one box off caught in %d\n", cases, bad, caught);
    return bad != 0 || caught == 0;
}
