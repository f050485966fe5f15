/* Opening the CLI's videos and checking output paths (inputs.c). */
#ifndef EXACTVMAF_TOOLS_INPUTS_H
#define EXACTVMAF_TOOLS_INPUTS_H

#include "cli.h"
#include "video_input.h"

/** "4:2:0", "4:2:2", ... for messages. */
const char *cli_pix_fmt_name(enum VmafPixelFormat f);

/**
 * Open the reference and the distorted video as the settings say (the
 * distorted one scaled to the reference's size with --scale-to-ref).
 * @return 0, or a negative errno after printing why.
 */
int cli_open_inputs(VideoInput **ref, VideoInput **dist, const CliSettings *c);

/**
 * Refuse an output path that cannot be written, before anything is
 * computed (printed). NULL and "-" pass. @return 0 or a negative errno.
 */
int cli_check_output_path(const char *path);

#endif
