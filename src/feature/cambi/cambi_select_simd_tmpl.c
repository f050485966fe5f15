/*
 * cambi_select.h's stopper scans, built once per instruction set
 * (src/simd.h). The C build (and NEON's) tests one position at a time.
 * AVX2 and AVX-512: a block of 8 or 16
 * values is compared with the pivot at once, and the positions of the lanes
 * that pass are packed to the front of a vector (AVX2: through a table of
 * lane lists; AVX-512: vpcompressd into a register, since a compress
 * straight to memory is slow on some processors) and stored whole: the
 * entries past the count are overwritten by the next block or left unused.
 * Right scans load the block ending at `from` and reverse its lanes, so that
 * lane k is position from - k.
 */
#include <stdint.h>

#include "cambi_select.h"

#if EV_SIMD_IS_AVX2 || EV_SIMD_IS_AVX512
#include <immintrin.h>
#endif

/* The scalar scans (the C build's, and the vector builds' tails): the
 * positions x = from..to (left) or from down to to (right) whose value is at
 * most (at least) the pivot, appended to buf after its first n. */
static inline int scan_left(const float *a, int x, int to, float pivot, int *buf, int n)
{
    for (; x <= to; x++) {
        buf[n] = x;
        n += a[x] <= pivot;
    }
    return n;
}

static inline int scan_right(const float *a, int x, int to, float pivot, int *buf, int n)
{
    for (; x >= to; x--) {
        buf[n] = x;
        n += a[x] >= pivot;
    }
    return n;
}

#if EV_SIMD_IS_AVX2
/* For each 8-bit lane mask, the set lanes ascending, one per byte. */
static const uint64_t set_lanes[256] = {
    0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000001ull, 0x0000000000000100ull,
    0x0000000000000002ull, 0x0000000000000200ull, 0x0000000000000201ull, 0x0000000000020100ull,
    0x0000000000000003ull, 0x0000000000000300ull, 0x0000000000000301ull, 0x0000000000030100ull,
    0x0000000000000302ull, 0x0000000000030200ull, 0x0000000000030201ull, 0x0000000003020100ull,
    0x0000000000000004ull, 0x0000000000000400ull, 0x0000000000000401ull, 0x0000000000040100ull,
    0x0000000000000402ull, 0x0000000000040200ull, 0x0000000000040201ull, 0x0000000004020100ull,
    0x0000000000000403ull, 0x0000000000040300ull, 0x0000000000040301ull, 0x0000000004030100ull,
    0x0000000000040302ull, 0x0000000004030200ull, 0x0000000004030201ull, 0x0000000403020100ull,
    0x0000000000000005ull, 0x0000000000000500ull, 0x0000000000000501ull, 0x0000000000050100ull,
    0x0000000000000502ull, 0x0000000000050200ull, 0x0000000000050201ull, 0x0000000005020100ull,
    0x0000000000000503ull, 0x0000000000050300ull, 0x0000000000050301ull, 0x0000000005030100ull,
    0x0000000000050302ull, 0x0000000005030200ull, 0x0000000005030201ull, 0x0000000503020100ull,
    0x0000000000000504ull, 0x0000000000050400ull, 0x0000000000050401ull, 0x0000000005040100ull,
    0x0000000000050402ull, 0x0000000005040200ull, 0x0000000005040201ull, 0x0000000504020100ull,
    0x0000000000050403ull, 0x0000000005040300ull, 0x0000000005040301ull, 0x0000000504030100ull,
    0x0000000005040302ull, 0x0000000504030200ull, 0x0000000504030201ull, 0x0000050403020100ull,
    0x0000000000000006ull, 0x0000000000000600ull, 0x0000000000000601ull, 0x0000000000060100ull,
    0x0000000000000602ull, 0x0000000000060200ull, 0x0000000000060201ull, 0x0000000006020100ull,
    0x0000000000000603ull, 0x0000000000060300ull, 0x0000000000060301ull, 0x0000000006030100ull,
    0x0000000000060302ull, 0x0000000006030200ull, 0x0000000006030201ull, 0x0000000603020100ull,
    0x0000000000000604ull, 0x0000000000060400ull, 0x0000000000060401ull, 0x0000000006040100ull,
    0x0000000000060402ull, 0x0000000006040200ull, 0x0000000006040201ull, 0x0000000604020100ull,
    0x0000000000060403ull, 0x0000000006040300ull, 0x0000000006040301ull, 0x0000000604030100ull,
    0x0000000006040302ull, 0x0000000604030200ull, 0x0000000604030201ull, 0x0000060403020100ull,
    0x0000000000000605ull, 0x0000000000060500ull, 0x0000000000060501ull, 0x0000000006050100ull,
    0x0000000000060502ull, 0x0000000006050200ull, 0x0000000006050201ull, 0x0000000605020100ull,
    0x0000000000060503ull, 0x0000000006050300ull, 0x0000000006050301ull, 0x0000000605030100ull,
    0x0000000006050302ull, 0x0000000605030200ull, 0x0000000605030201ull, 0x0000060503020100ull,
    0x0000000000060504ull, 0x0000000006050400ull, 0x0000000006050401ull, 0x0000000605040100ull,
    0x0000000006050402ull, 0x0000000605040200ull, 0x0000000605040201ull, 0x0000060504020100ull,
    0x0000000006050403ull, 0x0000000605040300ull, 0x0000000605040301ull, 0x0000060504030100ull,
    0x0000000605040302ull, 0x0000060504030200ull, 0x0000060504030201ull, 0x0006050403020100ull,
    0x0000000000000007ull, 0x0000000000000700ull, 0x0000000000000701ull, 0x0000000000070100ull,
    0x0000000000000702ull, 0x0000000000070200ull, 0x0000000000070201ull, 0x0000000007020100ull,
    0x0000000000000703ull, 0x0000000000070300ull, 0x0000000000070301ull, 0x0000000007030100ull,
    0x0000000000070302ull, 0x0000000007030200ull, 0x0000000007030201ull, 0x0000000703020100ull,
    0x0000000000000704ull, 0x0000000000070400ull, 0x0000000000070401ull, 0x0000000007040100ull,
    0x0000000000070402ull, 0x0000000007040200ull, 0x0000000007040201ull, 0x0000000704020100ull,
    0x0000000000070403ull, 0x0000000007040300ull, 0x0000000007040301ull, 0x0000000704030100ull,
    0x0000000007040302ull, 0x0000000704030200ull, 0x0000000704030201ull, 0x0000070403020100ull,
    0x0000000000000705ull, 0x0000000000070500ull, 0x0000000000070501ull, 0x0000000007050100ull,
    0x0000000000070502ull, 0x0000000007050200ull, 0x0000000007050201ull, 0x0000000705020100ull,
    0x0000000000070503ull, 0x0000000007050300ull, 0x0000000007050301ull, 0x0000000705030100ull,
    0x0000000007050302ull, 0x0000000705030200ull, 0x0000000705030201ull, 0x0000070503020100ull,
    0x0000000000070504ull, 0x0000000007050400ull, 0x0000000007050401ull, 0x0000000705040100ull,
    0x0000000007050402ull, 0x0000000705040200ull, 0x0000000705040201ull, 0x0000070504020100ull,
    0x0000000007050403ull, 0x0000000705040300ull, 0x0000000705040301ull, 0x0000070504030100ull,
    0x0000000705040302ull, 0x0000070504030200ull, 0x0000070504030201ull, 0x0007050403020100ull,
    0x0000000000000706ull, 0x0000000000070600ull, 0x0000000000070601ull, 0x0000000007060100ull,
    0x0000000000070602ull, 0x0000000007060200ull, 0x0000000007060201ull, 0x0000000706020100ull,
    0x0000000000070603ull, 0x0000000007060300ull, 0x0000000007060301ull, 0x0000000706030100ull,
    0x0000000007060302ull, 0x0000000706030200ull, 0x0000000706030201ull, 0x0000070603020100ull,
    0x0000000000070604ull, 0x0000000007060400ull, 0x0000000007060401ull, 0x0000000706040100ull,
    0x0000000007060402ull, 0x0000000706040200ull, 0x0000000706040201ull, 0x0000070604020100ull,
    0x0000000007060403ull, 0x0000000706040300ull, 0x0000000706040301ull, 0x0000070604030100ull,
    0x0000000706040302ull, 0x0000070604030200ull, 0x0000070604030201ull, 0x0007060403020100ull,
    0x0000000000070605ull, 0x0000000007060500ull, 0x0000000007060501ull, 0x0000000706050100ull,
    0x0000000007060502ull, 0x0000000706050200ull, 0x0000000706050201ull, 0x0000070605020100ull,
    0x0000000007060503ull, 0x0000000706050300ull, 0x0000000706050301ull, 0x0000070605030100ull,
    0x0000000706050302ull, 0x0000070605030200ull, 0x0000070605030201ull, 0x0007060503020100ull,
    0x0000000007060504ull, 0x0000000706050400ull, 0x0000000706050401ull, 0x0000070605040100ull,
    0x0000000706050402ull, 0x0000070605040200ull, 0x0000070605040201ull, 0x0007060504020100ull,
    0x0000000706050403ull, 0x0000070605040300ull, 0x0000070605040301ull, 0x0007060504030100ull,
    0x0000070605040302ull, 0x0007060504030200ull, 0x0007060504030201ull, 0x0706050403020100ull,
};

static inline __m256i lanes_of(unsigned m)
{
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)&set_lanes[m]));
}

static int stoppers_left(const float *a, int from, int to, float pivot, int *buf)
{
    const __m256 p = _mm256_set1_ps(pivot);
    int n = 0, x = from;
    for (; x + 7 <= to; x += 8) {
        const unsigned m = (unsigned)_mm256_movemask_ps(
            _mm256_cmp_ps(_mm256_loadu_ps(a + x), p, _CMP_LE_OQ));
        _mm256_storeu_si256((__m256i *)(buf + n),
                            _mm256_add_epi32(_mm256_set1_epi32(x), lanes_of(m)));
        n += __builtin_popcount(m);
    }
    return scan_left(a, x, to, pivot, buf, n);
}

static int stoppers_right(const float *a, int from, int to, float pivot, int *buf)
{
    const __m256 p = _mm256_set1_ps(pivot);
    const __m256i rev = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    int n = 0, x = from;
    for (; x - 7 >= to; x -= 8) {
        const __m256 v = _mm256_permutevar8x32_ps(_mm256_loadu_ps(a + x - 7), rev);
        const unsigned m = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(v, p, _CMP_GE_OQ));
        _mm256_storeu_si256((__m256i *)(buf + n),
                            _mm256_sub_epi32(_mm256_set1_epi32(x), lanes_of(m)));
        n += __builtin_popcount(m);
    }
    return scan_right(a, x, to, pivot, buf, n);
}
#elif EV_SIMD_IS_AVX512
static int stoppers_left(const float *a, int from, int to, float pivot, int *buf)
{
    const __m512 p = _mm512_set1_ps(pivot);
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    int n = 0, x = from;
    for (; x + 15 <= to; x += 16) {
        const __mmask16 m = _mm512_cmp_ps_mask(_mm512_loadu_ps(a + x), p, _CMP_LE_OQ);
        const __m512i pos = _mm512_add_epi32(_mm512_set1_epi32(x), iota);
        _mm512_storeu_si512(buf + n, _mm512_maskz_compress_epi32(m, pos));
        n += __builtin_popcount(m);
    }
    return scan_left(a, x, to, pivot, buf, n);
}

static int stoppers_right(const float *a, int from, int to, float pivot, int *buf)
{
    const __m512 p = _mm512_set1_ps(pivot);
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i rev = _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    int n = 0, x = from;
    for (; x - 15 >= to; x -= 16) {
        const __m512 v = _mm512_permutexvar_ps(rev, _mm512_loadu_ps(a + x - 15));
        const __mmask16 m = _mm512_cmp_ps_mask(v, p, _CMP_GE_OQ);
        const __m512i pos = _mm512_sub_epi32(_mm512_set1_epi32(x), iota);
        _mm512_storeu_si512(buf + n, _mm512_maskz_compress_epi32(m, pos));
        n += __builtin_popcount(m);
    }
    return scan_right(a, x, to, pivot, buf, n);
}
#else
static int stoppers_left(const float *a, int from, int to, float pivot, int *buf)
{
    return scan_left(a, from, to, pivot, buf, 0);
}

static int stoppers_right(const float *a, int from, int to, float pivot, int *buf)
{
    return scan_right(a, from, to, pivot, buf, 0);
}
#endif

const CambiStopperScans EV_SIMD_NAME(cambi_stoppers) = { stoppers_left, stoppers_right };
