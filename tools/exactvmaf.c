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
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "exactvmaf/exactvmaf.h"
#include "report.h"
#include "../src/os/os.h"
#include "../src/os/stop_signals.h"

/* --list-devices: every device of every GPU backend, or why a backend has none. */
static int list_devices(void)
{
    static const enum ExactvmafBackend kinds[] = { EXACTVMAF_BACKEND_CUDA,
                                                   EXACTVMAF_BACKEND_OPENCL };
    unsigned total = 0;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        const char *name = exactvmaf_backend_name(kinds[k]);
        char line[512];
        unsigned i = 0;
        int err;
        while (!(err = exactvmaf_device_describe(kinds[k], i, line, sizeof(line)))) {
            printf("%s\n", line);
            i++;
        }
        if (err == -ENODEV) printf("%s: none (%s)\n", name, line);
        else if (!i) printf("%s: none\n", name);
        total += i;
    }
    return total ? CLI_EXIT_OK : CLI_EXIT_COMPUTE;
}

/* The GPU twins of extractor i as words: "cuda opencl", "opencl(fp64)", "none". */
static void twin_words(unsigned i, char *buf, size_t len)
{
    const int t = exactvmaf_extractor_twins(i);
    snprintf(buf, len, "%s%s%s%s", t & EXACTVMAF_TWIN_CUDA ? "cuda" : "",
             (t & EXACTVMAF_TWIN_CUDA) && (t & EXACTVMAF_TWIN_OPENCL) ? " " : "",
             t & EXACTVMAF_TWIN_OPENCL ? "opencl" : "",
             t & EXACTVMAF_TWIN_OPENCL_NEEDS_FP64 ? "(fp64)" : "");
    if (!*buf) snprintf(buf, len, "none");
}

/*
 * --list-extractors: the library's registry. Text: a line per extractor
 * (name, then its twins), with its outputs and options on indented lines,
 * so that `awk '!/^\t/ {print $1}'` gives the names. JSON with --json.
 */
static int list_extractors(bool json)
{
    const char *name;
    if (json) printf("{\"extractors\": [");
    for (unsigned i = 0; (name = exactvmaf_extractor_name(i)); i++) {
        const int t = exactvmaf_extractor_twins(i);
        const char *out, *opt, *alias;
        if (json) {
            printf("%s\n  {\"name\": ", i ? "," : "");
            report_json_str(stdout, name);
            printf(", \"twins\": {\"cuda\": %s, \"opencl\": %s, \"opencl_needs_fp64\": %s},"
                   "\n   \"outputs\": [", t & EXACTVMAF_TWIN_CUDA ? "true" : "false",
                   t & EXACTVMAF_TWIN_OPENCL ? "true" : "false",
                   t & EXACTVMAF_TWIN_OPENCL_NEEDS_FP64 ? "true" : "false");
            for (unsigned k = 0; (out = exactvmaf_extractor_output(i, k)); k++) {
                if (k) printf(", ");
                report_json_str(stdout, out);
            }
            printf("],\n   \"options\": [");
            for (unsigned k = 0; !exactvmaf_extractor_option(i, k, &opt, &alias, NULL); k++) {
                printf("%s{\"name\": ", k ? ", " : "");
                report_json_str(stdout, opt);
                if (alias) {
                    printf(", \"alias\": ");
                    report_json_str(stdout, alias);
                }
                printf("}");
            }
            printf("]}");
            continue;
        }
        char twins[64];
        twin_words(i, twins, sizeof(twins));
        printf("%s\ttwins: %s\n\toutputs:", name, twins);
        for (unsigned k = 0; (out = exactvmaf_extractor_output(i, k)); k++) printf(" %s", out);
        printf("\n\toptions:");
        for (unsigned k = 0; !exactvmaf_extractor_option(i, k, &opt, &alias, NULL); k++)
            printf(alias ? " %s (%s)" : " %s", opt, alias);
        printf("\n");
    }
    if (json) printf("\n]}\n");
    return CLI_EXIT_OK;
}

int main(int argc, char *argv[])
{
    /* Scores and outputs on stdout, videos on stdin: bytes, as on POSIX. */
    vmaf_os_binary_stdio();
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
    if (c.list_extractors) {
        exit_code = list_extractors(c.output_fmt == VMAF_OUTPUT_FORMAT_JSON);
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
