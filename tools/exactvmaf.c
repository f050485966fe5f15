/*
 * exactvmaf: the command-line tool. It runs the same sequence as Netflix's
 * `vmaf` v3.2.0 (load models, register features, read frame pairs, flush,
 * pool each model's scores, write the output), so that its output file is
 * Netflix's, score for score. Unlike Netflix's tool it stops with a
 * non-zero status, and writes no output, when an input cannot be read
 * completely or the two videos differ in length, and it prints the pooled
 * model scores on stdout whether or not stderr is a terminal. On SIGINT,
 * SIGTERM or SIGHUP it stops reading, finishes the frames in flight and
 * writes what it has, marked incomplete (see incomplete.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "exactvmaf/exactvmaf.h"
#include "stop_signals.h"

/* --list-devices: every device of every GPU backend, or why a backend has none. */
static int list_devices(void)
{
    static const struct {
        enum ExactvmafBackend backend;
        const char *name;
    } kinds[] = { { EXACTVMAF_BACKEND_CUDA, "cuda" }, { EXACTVMAF_BACKEND_OPENCL, "opencl" } };
    unsigned total = 0;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        char line[512];
        unsigned i = 0;
        int err;
        while (!(err = exactvmaf_device_describe(kinds[k].backend, i, line, sizeof(line)))) {
            printf("%s\n", line);
            i++;
        }
        if (err == -ENODEV) printf("%s: none (%s)\n", kinds[k].name, line);
        else if (!i) printf("%s: none\n", kinds[k].name);
        total += i;
    }
    return total ? CLI_EXIT_OK : CLI_EXIT_COMPUTE;
}

int main(int argc, char *argv[])
{
    if (argc > 1 && !strcmp(argv[1], "compare")) {
        int exit_code = compare_main(argc, argv);
        if (fflush(stdout) && exit_code == CLI_EXIT_OK) exit_code = CLI_EXIT_OUTPUT;
        return exit_code;
    }
    CliSettings c;
    const enum CliParseResult parsed = cli_parse(argc, argv, &c);
    int exit_code = parsed == CLI_PARSE_DONE ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (parsed != CLI_PARSE_RUN) goto done;

    if (c.list_devices) {
        exit_code = list_devices();
        goto done;
    }
    if (c.print_fingerprint) {
        const unsigned long long fp = exactvmaf_rcpss_fingerprint();
        if (!fp) {
            fprintf(stderr, "exactvmaf: this processor has no RCPSS instruction (not x86)\n");
            exit_code = CLI_EXIT_COMPUTE;
        } else {
            printf("%016llx %u\n", fp, exactvmaf_rcpss_refined_mismatches());
            exit_code = CLI_EXIT_OK;
        }
        goto done;
    }
    cli_install_stop_handlers();
    exit_code = cli_run(&c, argv, NULL);

done:
    cli_free(&c);
    if (fflush(stdout) && exit_code == CLI_EXIT_OK) exit_code = CLI_EXIT_OUTPUT;
    return exit_code;
}
