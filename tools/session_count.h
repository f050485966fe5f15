/*
 * How many NVDEC sessions decode an input when the user does not say
 * (--hwdec-sessions), apart from the decoding so that a test can hold it.
 */
#ifndef EXACTVMAF_TOOLS_SESSION_COUNT_H
#define EXACTVMAF_TOOLS_SESSION_COUNT_H

#include <stdint.h>

/*
 * A session decodes one picture at a time (FFmpeg's NVDEC decoder waits for
 * each), so one session leaves most of a GPU's NVDEC engines idle, and the
 * inputs decoded side by side (a pair) share them. Measured on an H100 (7
 * engines, 2160p HEVC, bench/results.md): one session per input decoded 285
 * frames/s each, three 195 each, seven pairs of sessions the engines' 1380
 * frames/s in all. So the inputs get one session more than there are
 * engines, shared out (4 each for a pair on 7 engines), so that no engine
 * idles while a session is between segments. A session costs about 0.1 s of
 * the driver's time to make (it makes decoders one after another), so a file
 * gets one for every SESSION_WORK pixels of its frames, about what an engine
 * decodes in half a second, and 3 where the engines are not known.
 */
#define SESSION_WORK 700000000ull
#define SESSIONS_ENGINES_UNKNOWN 3u

/* `frames` of `pixels` each; `engines` 0: not known; `side_by_side` 0 or 1: alone. */
static inline unsigned session_count(uint64_t frames, uint64_t pixels, unsigned engines,
                                     unsigned side_by_side, unsigned most)
{
    const unsigned share = side_by_side ? side_by_side : 1;
    unsigned n = engines ? (engines + share) / share : SESSIONS_ENGINES_UNKNOWN;
    const uint64_t by_work = pixels && frames <= UINT64_MAX / pixels ?
                             frames * pixels / SESSION_WORK : UINT64_MAX;
    if (n > by_work) n = by_work ? (unsigned)by_work : 1;
    return n < most ? n : most;
}

#endif
