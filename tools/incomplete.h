/*
 * Output of a run that stopped early (a stop signal): the library's file,
 * with a marker no reader can take for a complete result.
 *   JSON  a first member "incomplete": {"frames": N, "reason": "..."}
 *   XML   <VMAF ... incomplete="true"> and a first child
 *         <incomplete frames="N" reason="..." />
 *   CSV, SUB  a first line "# INCOMPLETE: N frames, <reason>"
 * N is the number of frames the scores cover (frames 0 .. N-1).
 */
#ifndef EXACTVMAF_TOOLS_INCOMPLETE_H
#define EXACTVMAF_TOOLS_INCOMPLETE_H

#include "libvmaf/libvmaf.h"

typedef struct CliIncomplete {
    unsigned frames;        /**< frames computed */
    const char *reason;     /**< e.g. "interrupted by SIGINT" */
} CliIncomplete;

/**
 * Write the output file as vmaf_write_output() does (complete or nothing
 * at path), marked when incomplete is not NULL. Errors are printed.
 * @return 0 or negative errno.
 */
int cli_write_output(VmafContext *vmaf, const char *path, enum VmafOutputFormat fmt,
                     const CliIncomplete *incomplete);

#endif
