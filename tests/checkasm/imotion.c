/*
 * checkasm room: the integer motion SAD (src/feature/integer_motion/imotion_dsp.h),
 * the vectorisable C build ("vec") and the AVX2, AVX-512 (or NEON) builds against the plain-C
 * reference: every bit depth from 8 to 16, widths and heights from the
 * smallest the filter takes (3) to 1920 + odd, random strides, rows ending
 * at the end of their buffer (overreads are caught by ASan and valgrind),
 * and current frames equal to, one sample off, or unrelated to the previous.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "cpu.h"
#include "feature/integer_motion/imotion_dsp.h"

static unsigned rnd_below(unsigned n)
{
    return ca_rand_below(n);
}

void checkasm_imotion(int isa_max)
{
    enum { W_MAX = 1920 + 21, H_MAX = 24 };
    /* The reference, then the table's build for each set up to isa_max. */
    static const ImotionSadFn *const table[EV_ISA_COUNT] = EV_SIMD_TABLE(imotion_sad);
    ImotionSadFn fns[EV_ISA_COUNT + 1] = { imotion_sad_ref };
    const char *names[EV_ISA_COUNT + 1] = { "ref" };
    int n_fns = 1;
    for (int isa = EV_ISA_C; isa <= isa_max; isa++) {
        fns[n_fns] = *table[isa];
        names[n_fns++] = ev_isa_name(isa);
    }
    for (int f = 1; f < n_fns; f++)
        ca_declare("imotion sad", names[f]);
    ImotionScratch scr;
    if (imotion_scratch_alloc(&scr, W_MAX))
        exit(2);
    const size_t stride_max = (W_MAX + 40) * 2;
    uint8_t *prev_buf = ca_alloc(stride_max * H_MAX), *cur_buf = ca_alloc(stride_max * H_MAX);
    static const int widths[] = { 3, 4, 5, 7, 8, 9, 16, 17, 31, 33, 64, 100, 1920, 1920 + 21 };
    static const int heights[] = { 3, 4, 5, 8, 13, 24 };
    for (unsigned bpc = 8; bpc <= 16; bpc++) {
        for (int wi = 0; wi < (int)(sizeof(widths) / sizeof(widths[0])); wi++) {
            for (int hi = 0; hi < (int)(sizeof(heights) / sizeof(heights[0])); hi++) {
                for (int kind = 0; kind < CA_KIND_COUNT; kind++) {
                    const int w = widths[wi], h = heights[hi];
                    if (w > 200 && h > 8 && kind > 1)
                        continue;
                    const size_t bytes = bpc > 8 ? 2 : 1;
                    const ptrdiff_t ps = (ptrdiff_t)(w * bytes + rnd_below(40) * bytes);
                    const ptrdiff_t cs = (ptrdiff_t)(w * bytes + rnd_below(40) * bytes);
                    /* The last row ends at the end of the buffer (overreads are caught). */
                    uint8_t *prev = prev_buf + stride_max * H_MAX - ((size_t)(h - 1) * ps + w * bytes);
                    uint8_t *cur = cur_buf + stride_max * H_MAX - ((size_t)(h - 1) * cs + w * bytes);
                    for (int i = 0; i < h; i++) {
                        ca_fill(prev + i * ps, w, bpc, (enum CaKind)kind, i);
                        /* cur: another draw, the same rows (zero difference), or one change */
                        const int how = (int)rnd_below(4);
                        if (how == 0) {
                            memcpy(cur + i * cs, prev + i * ps, (size_t)w * bytes);
                        } else if (how == 1) {
                            memcpy(cur + i * cs, prev + i * ps, (size_t)w * bytes);
                            const int j = (int)rnd_below((unsigned)w);
                            if (bytes == 1)
                                cur[i * cs + j] ^= 0xff;
                            else
                                ((uint16_t *)(void *)(cur + i * cs))[j] ^= 0xffff;
                        } else {
                            ca_fill(cur + i * cs, w, bpc,
                                 kind == CA_CHECKER ? CA_CHECKER : (enum CaKind)kind, i + how);
                        }
                    }
                    uint64_t sad[4];
                    for (int f = 0; f < n_fns; f++)
                        sad[f] = fns[f](prev, ps, cur, cs, w, h, bpc, &scr);
                    for (int f = 1; f < n_fns; f++)
                        ca_check("imotion sad", names[f], sad[f] == sad[0],
                                 "%dx%d bpc %u %s: %" PRIu64 " vs %" PRIu64, w, h, bpc,
                                 ca_kind_name[kind], sad[0], sad[f]);
                }
            }
        }
    }
    free(prev_buf);
    free(cur_buf);
    imotion_scratch_free(&scr);
}
