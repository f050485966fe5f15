/*
 * The default number of NVDEC sessions per input (tools/session_count.h):
 * the engines plus one shared by the inputs decoded side by side, at most
 * one per SESSION_WORK pixels of frames, never 0 and never past the cap.
 * Exit 0 when every case holds, 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>

#include "session_count.h"

static int failed;

static void expect(uint64_t frames, unsigned w, unsigned h, unsigned engines, unsigned side,
                   unsigned most, unsigned want, const char *what)
{
    const unsigned got = session_count(frames, (uint64_t)w * h, engines, side, most);
    printf("%-52s %llu frames %ux%u, %u engines, %u inputs: %u sessions%s\n", what,
           (unsigned long long)frames, w, h, engines, side, got, got == want ? "" : " (WRONG)");
    if (got != want) {
        printf("  expected %u\n", want);
        failed = 1;
    }
}

int main(void)
{
    expect(720, 3840, 2160, 7, 2, 16, 4, "a 2160p pair on an H100's 7 engines");
    expect(1440, 1920, 1080, 7, 2, 16, 4, "a 1080p pair on 7 engines");
    expect(720, 3840, 2160, 7, 1, 16, 8, "one input alone takes every engine, plus one");
    expect(720, 3840, 2160, 3, 2, 16, 2, "3 engines shared by a pair");
    expect(720, 3840, 2160, 1, 2, 16, 1, "one engine: one session each");
    expect(240, 3840, 2160, 7, 2, 16, 2, "240 frames of 2160p pay for 2");
    expect(480, 1920, 1080, 7, 2, 16, 1, "480 frames of 1080p pay for 1");
    expect(48, 640, 360, 7, 2, 16, 1, "a short clip: 1, never 0");
    expect(0, 3840, 2160, 7, 2, 16, 1, "no frames counted: 1");
    expect(720, 3840, 2160, 0, 2, 16, 3, "engines not known: 3");
    expect(100000, 3840, 2160, 40, 1, 16, 16, "the cap holds");
    expect(UINT64_MAX, 3840, 2160, 7, 2, 16, 4, "no overflow in frames x pixels");
    printf("%s\n", failed ? "FAILED" : "every case holds");
    return failed;
}
