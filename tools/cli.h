/* Command line of the exactvmaf tool: Netflix `vmaf` v3.2.0 flags plus ours. */
#ifndef EXACTVMAF_TOOLS_CLI_H
#define EXACTVMAF_TOOLS_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "libvmaf/libvmaf.h"
#include "exactvmaf/exactvmaf.h"

#define CLI_MAX_MODELS 32
#define CLI_MAX_FEATURES 64
#define CLI_MAX_OVERLOADS 32
/** More threads than this is a typo; each has its own extractor buffers. (--help says 256.) */
#define CLI_MAX_THREADS 256

/** Exit statuses of the tool (listed in --help). */
enum CliExit {
    CLI_EXIT_OK = 0,
    CLI_EXIT_USAGE = 1,     /**< bad command line */
    CLI_EXIT_INPUT = 2,     /**< a video cannot be opened or read, or the two do not match */
    CLI_EXIT_COMPUTE = 3,   /**< model, feature or computation failure */
    CLI_EXIT_OUTPUT = 4,    /**< the output file cannot be written */
    /** Stopped by signal N (SIGINT, SIGTERM, SIGHUP): 128 + N, as shells
     *  report a process killed by N; the output, if any, is incomplete. */
    CLI_EXIT_SIGNAL_BASE = 128,
};

typedef struct CliFeature {
    char *name;                     /**< extractor, e.g. "float_adm" */
    VmafFeatureDictionary *opts;    /**< NULL when none; consumed by vmaf_use_feature */
} CliFeature;

#define CLI_MAX_GPUS 16

/** --hwdec: where compressed input is decoded. */
enum CliHwdec {
    CLI_HWDEC_AUTO = 0,     /**< NVDEC when the metrics run on CUDA and it takes the stream */
    CLI_HWDEC_CUDA,         /**< NVDEC, or an error */
    CLI_HWDEC_NONE,         /**< the CPU decoder */
};

typedef struct CliModel {
    const char *version;            /**< built-in model, or NULL */
    const char *path;               /**< model file, or NULL */
    VmafModelConfig cfg;
    struct {
        char *feature;
        const char *key;            /**< the option's key as given */
        VmafFeatureDictionary *opts;
    } overload[CLI_MAX_OVERLOADS];
    unsigned n_overload;
    char *buf;                      /**< owns the strings above */
} CliModel;

typedef struct CliSettings {
    const char *path_ref, *path_dist;
    unsigned frame_skip_ref, frame_skip_dist;
    unsigned frame_cnt;             /**< 0: all */
    /* Raw YUV geometry; use_yuv when any of these is given. */
    unsigned width, height, bitdepth;
    enum VmafPixelFormat pix_fmt;
    bool use_yuv;
    const char *output_path;        /**< NULL: no file */
    enum VmafOutputFormat output_fmt;
    CliModel model[CLI_MAX_MODELS];
    unsigned n_model;
    CliFeature feature[CLI_MAX_FEATURES];
    unsigned n_feature;
    unsigned subsample, threads;
    uint64_t cpumask, gpumask;
    bool no_prediction, quiet;
    enum VmafLogLevel log_level;    /**< --log-level (default warning) */
    bool common_bitdepth;           /**< --aom_ctc v6.0+: compare at the higher bit depth */
    /* exactvmaf extensions */
    bool precision_set;
    int precision;                  /**< exactvmaf_set_output_precision() digits */
    enum ExactvmafDivision division;
    enum ExactvmafBackend backend;  /**< --backend (default auto) */
    bool backend_set;               /**< --backend or --gpu given */
    int gpu[CLI_MAX_GPUS];          /**< --gpu N[,N...] */
    unsigned n_gpu;                 /**< 0 with --gpu all */
    bool gpu_set;                   /**< --gpu given */
    unsigned frames_in_flight;      /**< --frames-in-flight (0: chosen) */
    const char *opencl_device;      /**< --opencl-device N|P:D, or NULL */
    enum ExactvmafFp64 opencl_fp64; /**< --opencl-fp64 */
    bool opencl_fp64_set;
    bool list_devices;              /**< --list-devices */
    bool list_extractors;           /**< --list-extractors (--json: as JSON) */
    /* Input decoded through FFmpeg's libraries. */
    unsigned scale_w, scale_h;      /**< --scale WxH: both videos to this size */
    bool scale_to_ref;              /**< --scale-to-ref: the distorted to the reference's size */
    bool convert;                   /**< --convert: other pixel formats to planar YUV */
    enum CliHwdec hwdec;            /**< --hwdec (default auto) */
    unsigned hwdec_sessions;        /**< --hwdec-sessions N: NVDEC sessions per input; 0 auto */
    unsigned hwdec_ahead_mib;       /**< --hwdec-ahead MIB: decode-ahead per input; 0 default */
    /* Reports. */
    const char *report_path;        /**< --report FILE.html */
    const char *plot_path;          /**< --plot FILE.svg */
    /** --report-frame N: a frame shown in pictures besides the worst ones */
    unsigned report_frame;
    bool report_frame_set;
    bool print_fingerprint;
} CliSettings;

enum CliParseResult {
    CLI_PARSE_RUN,      /**< settings complete: run */
    CLI_PARSE_DONE,     /**< help or version printed: exit 0 */
    CLI_PARSE_ERROR,    /**< message printed: exit CLI_EXIT_USAGE */
};

enum CliParseResult cli_parse(int argc, char *const argv[], CliSettings *s);

/** Free what cli_parse allocated (dictionaries not yet consumed included). */
void cli_free(CliSettings *s);

/** The model's label in messages: its version or its path. */
const char *cli_model_label(const CliModel *m);

/**
 * What a command-line argument is to cli_parse: -1 not an option (or one it
 * does not know), 0 an option complete in itself (a flag, or --opt=VALUE),
 * 1 an option whose value is the next argument. *name: its long name.
 */
int cli_option_lookup(const char *arg, const char **name);

/** The first model's pooled scores of a run (cli_run). */
typedef struct CliRunScores {
    unsigned n_frames;
    double mean, harmonic_mean;
    unsigned fps_num, fps_den;      /**< the distorted video's rate; 0/0 unknown */
} CliRunScores;

/**
 * One run of the tool with these settings (run.c). With `scores`, the
 * first model's pooled scores are returned there instead of printed, and
 * the process goes on after a GPU run (compare scores many files).
 * @return the exit status (enum CliExit).
 */
int cli_run(CliSettings *c, char *const argv[], CliRunScores *scores);

/** `exactvmaf compare ...` (compare.c); argv[1] is "compare". @return the exit status. */
int compare_main(int argc, char *argv[]);

#endif
