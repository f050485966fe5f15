/*
 * Command-line parsing. The flags and their syntax are Netflix `vmaf`
 * v3.2.0's (tools/cli_parse.c), so existing scripts run unchanged, with
 * two differences that make mistakes visible: an unknown flag, a stray
 * argument or a malformed value is an error (Netflix ignores some), and
 * errors return instead of exiting so that the caller cleans up.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/os/os.h"
#include "cli.h"

enum {
    ARG_OUTPUT_XML = 256,
    ARG_OUTPUT_JSON,
    ARG_OUTPUT_CSV,
    ARG_OUTPUT_SUB,
    ARG_THREADS,
    ARG_FEATURE,
    ARG_SUBSAMPLE,
    ARG_CPUMASK,
    ARG_GPUMASK,
    ARG_AOM_CTC,
    ARG_NFLX_CTC,
    ARG_FRAME_CNT,
    ARG_FRAME_SKIP_REF,
    ARG_FRAME_SKIP_DIST,
    ARG_PRECISION,
    ARG_DIVISION,
    ARG_RCPSS_FINGERPRINT,
    ARG_BACKEND,
    ARG_GPU,
    ARG_FRAMES_IN_FLIGHT,
    ARG_OPENCL_DEVICE,
    ARG_OPENCL_FP64,
    ARG_LIST_DEVICES,
    ARG_LIST_EXTRACTORS,
    ARG_LOG_LEVEL,
    ARG_SCALE,
    ARG_SCALE_TO_REF,
    ARG_CONVERT,
    ARG_HWDEC,
    ARG_HWDEC_SESSIONS,
    ARG_HWDEC_AHEAD,
    ARG_REPORT,
    ARG_PLOT,
    ARG_REPORT_FRAME,
    ARG_HELP,
    ARG_END,    /* keep last: sizes the table of options given */
};

/* Leading ':' so that a missing argument is reported as such. */
static const char short_opts[] = ":r:d:w:h:p:b:m:o:nvq";

static const struct option long_opts[] = {
    { "reference",         required_argument, NULL, 'r' },
    { "distorted",         required_argument, NULL, 'd' },
    { "width",             required_argument, NULL, 'w' },
    { "height",            required_argument, NULL, 'h' },
    { "pixel_format",      required_argument, NULL, 'p' },
    { "bitdepth",          required_argument, NULL, 'b' },
    { "model",             required_argument, NULL, 'm' },
    { "output",            required_argument, NULL, 'o' },
    { "xml",               no_argument,       NULL, ARG_OUTPUT_XML },
    { "json",              no_argument,       NULL, ARG_OUTPUT_JSON },
    { "csv",               no_argument,       NULL, ARG_OUTPUT_CSV },
    { "sub",               no_argument,       NULL, ARG_OUTPUT_SUB },
    { "threads",           required_argument, NULL, ARG_THREADS },
    { "feature",           required_argument, NULL, ARG_FEATURE },
    { "subsample",         required_argument, NULL, ARG_SUBSAMPLE },
    { "cpumask",           required_argument, NULL, ARG_CPUMASK },
    { "gpumask",           required_argument, NULL, ARG_GPUMASK },
    { "aom_ctc",           required_argument, NULL, ARG_AOM_CTC },
    { "nflx_ctc",          required_argument, NULL, ARG_NFLX_CTC },
    { "frame_cnt",         required_argument, NULL, ARG_FRAME_CNT },
    { "frame_skip_ref",    required_argument, NULL, ARG_FRAME_SKIP_REF },
    { "frame_skip_dist",   required_argument, NULL, ARG_FRAME_SKIP_DIST },
    { "no_prediction",     no_argument,       NULL, 'n' },
    { "version",           no_argument,       NULL, 'v' },
    { "quiet",             no_argument,       NULL, 'q' },
    { "precision",         required_argument, NULL, ARG_PRECISION },
    { "division",          required_argument, NULL, ARG_DIVISION },
    { "rcpss-fingerprint", no_argument,       NULL, ARG_RCPSS_FINGERPRINT },
    { "backend",           required_argument, NULL, ARG_BACKEND },
    { "gpu",               required_argument, NULL, ARG_GPU },
    { "frames-in-flight",  required_argument, NULL, ARG_FRAMES_IN_FLIGHT },
    { "opencl-device",     required_argument, NULL, ARG_OPENCL_DEVICE },
    { "opencl-fp64",       required_argument, NULL, ARG_OPENCL_FP64 },
    { "list-devices",      no_argument,       NULL, ARG_LIST_DEVICES },
    { "list-extractors",   no_argument,       NULL, ARG_LIST_EXTRACTORS },
    { "log-level",         required_argument, NULL, ARG_LOG_LEVEL },
    { "scale",             required_argument, NULL, ARG_SCALE },
    { "scale-to-ref",      no_argument,       NULL, ARG_SCALE_TO_REF },
    { "convert",           no_argument,       NULL, ARG_CONVERT },
    { "hwdec",             required_argument, NULL, ARG_HWDEC },
    { "hwdec-sessions",    required_argument, NULL, ARG_HWDEC_SESSIONS },
    { "hwdec-ahead",       required_argument, NULL, ARG_HWDEC_AHEAD },
    { "report",            required_argument, NULL, ARG_REPORT },
    { "plot",              required_argument, NULL, ARG_PLOT },
    { "report-frame",      required_argument, NULL, ARG_REPORT_FRAME },
    { "help",              no_argument,       NULL, ARG_HELP },
    { NULL,                0,                 NULL, 0 },
};

static const char usage_text[] =
"Usage: exactvmaf [options]\n"
"\n"
"Compute VMAF and its features for a reference/distorted video pair; scores are\n"
"bit-identical to Netflix libvmaf v3.2.0 (see --division).\n"
"\n"
"Input: .y4m, raw planar YUV when any of -w/-h/-p/-b is given (\"-\" = stdin, y4m\n"
"or raw), and with FFmpeg's libraries any file they read (mp4, mkv, mov, webm,\n"
"ivf, ...: H.264, HEVC, AV1, VP9, ProRes, FFV1, ...), decoded as it is: planar YUV\n"
"of 8 to 16 bits passes through untouched, other pixel formats need --convert.\n"
" -r, --reference PATH         reference video\n"
" -d, --distorted PATH         distorted video\n"
" -w, --width N                raw YUV: width\n"
" -h, --height N               raw YUV: height\n"
" -p, --pixel_format F         raw YUV: 420, 422, 444 or 400\n"
" -b, --bitdepth N             raw YUV: 8, 10, 12 or 16 (16-bit little-endian above 8)\n"
"     --frame_cnt N            process at most N frames\n"
"     --frame_skip_ref N       skip the first N reference frames\n"
"     --frame_skip_dist N      skip the first N distorted frames\n"
"     --subsample N            compute scores on every N-th frame only\n"
"     --scale WxH              scale both videos to WxH, and\n"
"     --scale-to-ref           the distorted one to the reference's size, with FFmpeg's\n"
"                              scale filter (flags=bicubic), as the recipe\n"
"                              ffmpeg -i dis -i ref -lavfi \"[0:v]scale=W:H:flags=bicubic\n"
"                              [d];[d][1:v]libvmaf\" -f null -  does\n"
"     --convert                convert other pixel formats (NV12, P010, RGB, ...) to\n"
"                              planar YUV of the same chroma layout and depth\n"
"     --hwdec auto|cuda|none   where compressed video is decoded (default auto): cuda\n"
"                              on the GPU with NVDEC, its frames handed to the\n"
"                              metrics there, or an error; none on the CPU; auto\n"
"                              NVDEC when the metrics run on CUDA (--backend cuda,\n"
"                              or auto finding a CUDA device) and NVDEC takes the\n"
"                              stream, else the CPU, saying why on stderr (with no\n"
"                              GPU driver at all, at --log-level info only). NVDEC\n"
"                              decodes H.264, HEVC, VP8, VP9 and AV1 only, whose\n"
"                              decoding the standards fix bit for bit: the scores\n"
"                              are the same either way\n"
"     --hwdec-sessions N       NVDEC sessions per input (1 to 16; default: the\n"
"                              GPU's NVDEC engines plus one, shared by the two\n"
"                              inputs (4 each on 7 engines), one per 0.7 gigapixels\n"
"                              of frames at most): the file is cut at closed-GOP\n"
"                              keyframes and segments are decoded side by side; the\n"
"                              scores do not change\n"
"     --hwdec-ahead MIB        with several sessions, decoded frames held ahead of\n"
"                              the scoring per input, in MiB of GPU memory at most\n"
"                              (64 to 65536; default 2048)\n"
"\n"
"What to compute:\n"
" -m, --model PARAMS           model, \":\"-separated key[=value] list:\n"
"                                version=NAME    built-in model (vmaf_float_v0.6.1, ...)\n"
"                                path=FILE       model JSON file\n"
"                                name=NAME       its scores' name in the output (vmaf)\n"
"                                disable_clip    do not clip scores to the model's range\n"
"                                enable_transform  apply the model's score transform\n"
"                                FEATURE.OPTION=VALUE  option for the model's extractor,\n"
"                                                e.g. float_adm.adm_enhn_gain_limit=1.0\n"
"                              repeat for several models; default: version=vmaf_v0.6.1\n"
"     --feature NAME[=OPT=VAL[:OPT=VAL...]]\n"
"                              also compute this extractor, e.g. float_vif=debug=true\n"
" -n, --no_prediction          features only: no model scores (and no default model)\n"
"     --aom_ctc VERSION        AOM CTC set of models and features (v1.0 ... v7.0)\n"
"     --nflx_ctc VERSION       Netflix CTC set of models and features (v1.0)\n"
"\n"
"Output:\n"
" -o, --output PATH            write per-frame and pooled scores (\"-\" = stdout);\n"
"                              the file appears only once complete, and not at\n"
"                              all after an error\n"
"     --xml | --json | --csv | --sub   its format (default XML)\n"
"     --precision N|max        N decimals as Netflix prints them (default 6), or max:\n"
"                              %.17g, every score exact\n"
"     --report FILE.html       a page to read: every model's and feature's scores\n"
"                              plotted per frame, pooled values, the worst frames,\n"
"                              the 5 worst in pictures (luma of both videos and\n"
"                              their difference as a heat map, 320 pixels wide,\n"
"                              read again from the files after the scoring), the\n"
"                              run's parameters (self-contained, printable)\n"
"     --report-frame N         also show frame N (of the scored frames) in pictures\n"
"     --plot FILE.svg          the models' per-frame scores as one SVG chart\n"
" -q, --quiet                  no progress line (shown only when stderr is a terminal)\n"
"     --log-level error|warning|info|debug\n"
"                              which messages reach stderr (default warning; errors\n"
"                              always)\n"
"\n"
"Execution:\n"
"     --threads N              worker threads, 0 to 256 (0: the calling thread only);\n"
"                              results do not depend on it\n"
"     --division ieee|rcp      float ADM division: ieee (default, the same on every\n"
"                              host) or rcp (Netflix's x86 reciprocal: equals Netflix\n"
"                              on this processor; x86 only)\n"
"     --backend cpu|cuda|opencl|auto|auto-opencl\n"
"                              where metrics run (default auto): cuda and opencl\n"
"                              compute every metric that has a twin for that backend\n"
"                              on the GPU (the others on the CPU) with the CPU's scores\n"
"                              bit for bit, and fail without a usable device or when\n"
"                              the GPU fails; auto is cuda when a device is usable,\n"
"                              else the CPU, and the CPU takes over (same scores, a\n"
"                              warning) from the frame where a GPU fails mid-run;\n"
"                              auto-opencl is the same with opencl. The output's\n"
"                              \"backends\" says which, and its \"devices\" (XML:\n"
"                              <backends>) which device: name, index, platform,\n"
"                              driver, fp64 mode\n"
"     --gpu N[,N...]|all       CUDA (or OpenCL) devices (default 0): frames are spread\n"
"                              over them, the scores equal one device's; a device may\n"
"                              repeat\n"
"     --opencl-device N|P:D    the OpenCL device: index over all platforms, or device D\n"
"                              of platform P (implies --backend opencl)\n"
"     --opencl-fp64 auto|on|off\n"
"                              OpenCL kernels on the device's fp64 (auto: where it has\n"
"                              it) or on exact fp64-free routines (off); same scores\n"
"     --list-devices           print every CUDA and OpenCL device this tool can use\n"
"                              (index, name, driver...), then exit\n"
"     --list-extractors        print every feature extractor: its outputs, options and\n"
"                              GPU twins (with --json as JSON), then exit\n"
"     --frames-in-flight K     frames on each GPU at once, 1 to 32 (default: from the\n"
"                              frame size and the free device memory)\n"
"     --cpumask N, --gpumask N accepted for compatibility; no effect on results\n"
"     --rcpss-fingerprint      print this processor's RCPSS fingerprint and the count of\n"
"                              refined reciprocals != IEEE over [1,2), then exit\n"
" -v, --version                print the version and exit\n"
"     --help                   print this help and exit\n"
"\n"
"Comparing encodes: exactvmaf compare [options] REF ENC...\n"
"scores each encode ENC against the reference REF (with the options above that\n"
"apply: --model, --backend, --threads, --hwdec, ...), reads its bitrate from its\n"
"container, groups the encodes into ladders, and prints each ladder's BD-rate\n"
"and BD-VMAF against the first one (piecewise cubic interpolation, as the\n"
"JCT-VC/JVET and AOM common test conditions) and the ladders' VMAF at the\n"
"bitrates they all reach ('exactvmaf compare --help' says more):\n"
"     --group-by REGEX         an encode's ladder: the first group (or the match)\n"
"                              of REGEX in its file name; default: its folder, or\n"
"                              with one folder its name without its last number\n"
"     --json FILE, --csv FILE, --report FILE.html\n"
"                              the results as JSON, CSV, and a page of the curves\n"
"     --points FILE.csv        no scoring: BD-rate and BD-VMAF of given points\n"
"                              (columns ladder, bitrate_kbps, vmaf)\n"
"\n"
"Numbers take decimal, 0x hexadecimal or 0 octal form. Each option that takes\n"
"one value may be given once; an extractor option may be set once per --feature\n"
"or --model (under its name or its alias).\n"
"\n"
"Interruption: on SIGINT (Ctrl-C), SIGTERM or SIGHUP the tool stops reading,\n"
"finishes the frames already read, prints the scores of those frames and writes\n"
"the output marked as incomplete (a second signal stops it at once):\n"
"  JSON  first member  \"incomplete\": {\"frames\": N, \"reason\": \"interrupted by SIGINT\"}\n"
"  XML   <VMAF ... incomplete=\"true\"> with first child\n"
"        <incomplete frames=\"N\" reason=\"interrupted by SIGINT\" />\n"
"  CSV, SUB  first line  # INCOMPLETE: N frames, interrupted by SIGINT\n"
"  stdout    each score line ends with [INCOMPLETE: N frames, ...]\n"
"N is the number of frames the scores cover (0 .. N-1).\n"
"\n"
"Files: OpenCL programs built for a device are kept so that later runs skip\n"
"the build (seconds with some drivers), in $EXACTVMAF_CACHE_DIR/opencl, else\n"
"$XDG_CACHE_HOME/exactvmaf/opencl, else ~/.cache/exactvmaf/opencl; one file per\n"
"program, named by a hash of the device, platform, driver, build options and\n"
"kernel text (a new driver or kernel is a new file; stale files may be deleted\n"
"at any time). EXACTVMAF_CACHE=0 turns the cache off; a cache that cannot be\n"
"read or written only costs the build. --log-level debug says what it does.\n"
"\n"
"Exit status: after any error there is no output file, and a message on\n"
"stderr names the file, frame or option at fault.\n"
"  0  success\n"
"  1  bad command line\n"
"  2  a video cannot be opened or read, is malformed or truncated, or the two\n"
"     videos do not match (size, chroma, bit depth, frame count)\n"
"  3  a model or feature is unavailable or rejects its options or the frame\n"
"     size, or scoring failed\n"
"  4  an output file (-o, --report, --plot) cannot be written (checked before\n"
"     any frame is read)\n"
"  129, 130, 143  stopped by SIGHUP, SIGINT, SIGTERM (128 + signal number):\n"
"     the output, if any frame was done, is marked incomplete\n";

#if defined(__GNUC__)
VMAF_OS_PRINTF(1, 2)
#endif
static enum CliParseResult fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("exactvmaf: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\nTry 'exactvmaf --help' for the options.\n", stderr);
    va_end(ap);
    return CLI_PARSE_ERROR;
}

static const char *opt_name(int val)
{
    for (const struct option *o = long_opts; o->name; o++)
        if (o->val == val) return o->name;
    return "?";
}

static int parse_u64(const char *arg, int val, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    /* strtoull accepts "-1"; a count or mask never starts with a sign. */
    const unsigned long long v = strtoull(arg, &end, 0);
    if (!*arg || *arg == '-' || *arg == '+' || *end || errno || v > max) {
        fail("invalid value \"%s\" for --%s: expected an integer from 0 to %llu",
             arg, opt_name(val), (unsigned long long)max);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_unsigned(const char *arg, int val, unsigned *out)
{
    uint64_t v;
    if (parse_u64(arg, val, UINT32_MAX, &v)) return -1;
    *out = (unsigned)v;
    return 0;
}

static int dict_set(VmafFeatureDictionary **d, const char *key, const char *val)
{
    const int err = vmaf_feature_dictionary_set(d, key, val);
    if (err) fail("cannot store option %s=%s: %s", key, val, strerror(-err));
    return err;
}

/* Split s at the first c: returns the part before, s moves past c (or to NULL). */
static char *split(char **s, char c)
{
    char *start = *s;
    if (!start) return NULL;
    char *at = strchr(start, c);
    if (at) {
        *at = '\0';
        *s = at + 1;
    } else {
        *s = NULL;
    }
    return start;
}

/*
 * An extractor option set twice in one --feature or --model, under the same
 * key or under its name and its alias (egl=1:adm_enhn_gain_limit=1.2): the
 * library would apply the last, so the other is silently lost. `prev` are
 * the keys already given for extractor fex (unknown extractors are left to
 * the library to report).
 */
static int check_twice(const char *flag, const char *arg, const char *fex,
                       const char *const *prev, unsigned n_prev, const char *key)
{
    const char *name = exactvmaf_option_name(fex, key);
    for (unsigned i = 0; i < n_prev; i++) {
        if (!strcmp(prev[i], key)) {
            fail("%s \"%s\": option %s of %s is set twice", flag, arg, key, fex);
            return -1;
        }
        if (name && exactvmaf_option_name(fex, prev[i]) == name) {
            fail("%s \"%s\": option %s of %s is set twice (as %s and as %s)", flag, arg,
                 name, fex, prev[i], key);
            return -1;
        }
    }
    return 0;
}

/* "name=key=val:key=val" (Netflix's syntax). */
static int parse_feature(const char *arg, CliFeature *f)
{
    memset(f, 0, sizeof(*f));
    char *buf = strdup(arg);
    if (!buf) {
        fail("out of memory");
        return -1;
    }
    char *rest = buf;
    const char *name = split(&rest, '=');
    if (!*name) {
        fail("--feature \"%s\": no extractor name", arg);
        goto fail;
    }
    f->name = strdup(name);
    if (!f->name) {
        fail("out of memory");
        goto fail;
    }
    const char *keys[64];
    unsigned n_keys = 0;
    while (rest) {
        char *val = split(&rest, ':');
        const char *key = split(&val, '=');
        if (!*key || !val || strchr(val, '=')) {
            fail("--feature \"%s\": \"%s%s%s\" is not an OPTION=VALUE pair", arg, key,
                 val ? "=" : "", val ? val : "");
            goto fail;
        }
        if (n_keys == sizeof(keys) / sizeof(keys[0])) {
            fail("--feature \"%s\": more than %zu options", arg, sizeof(keys) / sizeof(keys[0]));
            goto fail;
        }
        if (check_twice("--feature", arg, f->name, keys, n_keys, key)) goto fail;
        keys[n_keys++] = key;
        if (dict_set(&f->opts, key, val)) goto fail;
    }
    free(buf);
    return 0;

fail:
    free(buf);
    free(f->name);
    vmaf_feature_dictionary_free(&f->opts);
    memset(f, 0, sizeof(*f));
    return -1;
}

static int parse_bool_flag(const char *arg, const char *key, const char *val, bool *set)
{
    if (!val || !strcmp(val, "true")) {
        *set = true;
        return 0;
    }
    if (!strcmp(val, "false")) {
        *set = false;
        return 0;
    }
    fail("--model \"%s\": %s takes true or false, not \"%s\"", arg, key, val);
    return -1;
}

/* "version=...:name=...:path=...:disable_clip:enable_transform:feat.opt=val". */
static int parse_model(const char *arg, CliModel *m)
{
    memset(m, 0, sizeof(*m));
    m->cfg.name = "vmaf";
    m->cfg.flags = VMAF_MODEL_FLAGS_DEFAULT;
    m->buf = strdup(arg);
    if (!m->buf) {
        fail("out of memory");
        return -1;
    }
    char *rest = m->buf;
    while (rest) {
        char *val;
        if (VMAF_OS_WINDOWS && !strncmp(rest, "path=", 5) && isalpha((unsigned char)rest[5]) &&
            rest[6] == ':' && (rest[7] == '\\' || rest[7] == '/')) {
            /* path=C:\... : the drive's colon is the path's, not a separator. */
            char *sep = strchr(rest + 8, ':');
            val = rest;
            rest = sep ? sep + 1 : NULL;
            if (sep) *sep = '\0';
        } else {
            val = split(&rest, ':');
        }
        char *key = split(&val, '=');
        bool flag;
        if (!*key) {
            fail("--model \"%s\": empty parameter", arg);
            return -1;
        }
        if (!strcmp(key, "disable_clip") || !strcmp(key, "enable_transform")) {
            if (parse_bool_flag(arg, key, val, &flag)) return -1;
            const uint64_t bit = key[0] == 'd' ? VMAF_MODEL_FLAG_DISABLE_CLIP :
                                                 VMAF_MODEL_FLAG_ENABLE_TRANSFORM;
            m->cfg.flags = flag ? (m->cfg.flags | bit) : (m->cfg.flags & ~bit);
            continue;
        }
        if (!val || !*val) {
            fail("--model \"%s\": parameter \"%s\" needs a value (%s=...)", arg, key, key);
            return -1;
        }
        if (!strcmp(key, "path")) {
            m->path = val;
        } else if (!strcmp(key, "version")) {
            m->version = val;
        } else if (!strcmp(key, "name")) {
            m->cfg.name = val;
        } else {
            char *opt = key;
            char *feature = split(&opt, '.');
            if (!opt || !*feature || !*opt || strchr(opt, '.')) {
                fail("--model \"%s\": unknown parameter \"%s\" (known: version, path, "
                     "name, disable_clip, enable_transform, FEATURE.OPTION=VALUE)",
                     arg, key);
                return -1;
            }
            if (m->n_overload == CLI_MAX_OVERLOADS) {
                fail("--model \"%s\": more than %d feature options", arg, CLI_MAX_OVERLOADS);
                return -1;
            }
            const char *prev[CLI_MAX_OVERLOADS];
            unsigned n_prev = 0;
            for (unsigned j = 0; j < m->n_overload; j++)
                if (!strcmp(m->overload[j].feature, feature)) prev[n_prev++] = m->overload[j].key;
            if (check_twice("--model", arg, feature, prev, n_prev, opt)) return -1;
            m->overload[m->n_overload].feature = feature;
            m->overload[m->n_overload].key = opt;
            if (dict_set(&m->overload[m->n_overload].opts, opt, val)) return -1;
            m->n_overload++;
        }
    }
    if (!m->version && !m->path) {
        fail("--model \"%s\": give version=NAME or path=FILE", arg);
        return -1;
    }
    return 0;
}

static void free_model(CliModel *m)
{
    /* Every slot: a failed parse can leave one past n_overload. */
    for (unsigned i = 0; i < CLI_MAX_OVERLOADS; i++)
        vmaf_feature_dictionary_free(&m->overload[i].opts);
    free(m->buf);
    memset(m, 0, sizeof(*m));
}

static void free_feature(CliFeature *f)
{
    free(f->name);
    vmaf_feature_dictionary_free(&f->opts);
    memset(f, 0, sizeof(*f));
}

static int add_model(CliSettings *s, const char *arg)
{
    if (s->n_model == CLI_MAX_MODELS) {
        fail("more than %d models", CLI_MAX_MODELS);
        return -1;
    }
    if (parse_model(arg, &s->model[s->n_model])) {
        free_model(&s->model[s->n_model]);
        return -1;
    }
    s->n_model++;
    return 0;
}

/* replace: a later setting of the same extractor replaces the earlier (aom_ctc v7.0). */
static int add_feature(CliSettings *s, const char *arg, bool replace)
{
    CliFeature f;
    if (parse_feature(arg, &f)) return -1;
    if (replace) {
        for (unsigned i = 0; i < s->n_feature; i++) {
            if (strcmp(s->feature[i].name, f.name)) continue;
            free_feature(&s->feature[i]);
            s->feature[i] = f;
            return 0;
        }
    }
    if (s->n_feature == CLI_MAX_FEATURES) {
        free_feature(&f);
        fail("more than %d --feature options", CLI_MAX_FEATURES);
        return -1;
    }
    s->feature[s->n_feature++] = f;
    return 0;
}

/* Netflix's CTC presets, expanded into the models and features they stand for. */
static int add_aom_ctc(CliSettings *s, const char *v)
{
    static const char *const versions[] = { "v1.0", "v2.0", "v3.0", "v4.0", "v5.0",
                                            "v6.0", "v7.0" };
    int n = -1;
    for (int i = 0; i < 7; i++)
        if (!strcmp(v, versions[i])) n = i + 1;
    if (n < 0) {
        fail("unknown --aom_ctc version \"%s\" (known: v1.0 ... v7.0)", v);
        return -1;
    }
    if (add_model(s, "version=vmaf_v0.6.1:name=vmaf") ||
        add_model(s, "version=vmaf_v0.6.1neg:name=vmaf_neg") ||
        add_feature(s, "psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5", false) ||
        add_feature(s, "ciede", false) ||
        add_feature(s, "float_ssim=enable_db=true:clip_db=true", false) ||
        add_feature(s, "float_ms_ssim=enable_db=true:clip_db=true", false) ||
        add_feature(s, "psnr_hvs", false))
        return -1;
    if (n >= 3 && add_feature(s, "cambi", false)) return -1;
    if (n >= 6) s->common_bitdepth = true;
    if (n >= 7 && add_feature(s, "float_ssim=scale=1:enable_db=true:clip_db=true", true))
        return -1;
    return 0;
}

static int add_nflx_ctc(CliSettings *s, const char *v)
{
    if (strcmp(v, "v1.0")) {
        fail("unknown --nflx_ctc version \"%s\" (known: v1.0)", v);
        return -1;
    }
    if (add_model(s, "version=vmaf_4k_v0.6.1:name=vmaf") ||
        add_model(s, "version=vmaf_4k_v0.6.1neg:name=vmaf_neg") ||
        add_feature(s, "psnr=enable_chroma=true:enable_apsnr=true", false) ||
        add_feature(s, "float_ssim=enable_db=true:clip_db=true", false) ||
        add_feature(s, "cambi", false))
        return -1;
    return 0;
}

static int parse_option(CliSettings *s, int o, const char *arg)
{
    switch (o) {
    case 'r': s->path_ref = arg; return 0;
    case 'd': s->path_dist = arg; return 0;
    case 'w': s->use_yuv = true; return parse_unsigned(arg, o, &s->width);
    case 'h': s->use_yuv = true; return parse_unsigned(arg, o, &s->height);
    case 'p':
        s->use_yuv = true;
        if (!strcmp(arg, "420")) s->pix_fmt = VMAF_PIX_FMT_YUV420P;
        else if (!strcmp(arg, "422")) s->pix_fmt = VMAF_PIX_FMT_YUV422P;
        else if (!strcmp(arg, "444")) s->pix_fmt = VMAF_PIX_FMT_YUV444P;
        else if (!strcmp(arg, "400")) s->pix_fmt = VMAF_PIX_FMT_YUV400P;
        else {
            fail("invalid value \"%s\" for --pixel_format: expected 420, 422, 444 or 400", arg);
            return -1;
        }
        return 0;
    case 'b':
        s->use_yuv = true;
        if (parse_unsigned(arg, o, &s->bitdepth)) return -1;
        if (s->bitdepth != 8 && s->bitdepth != 10 && s->bitdepth != 12 && s->bitdepth != 16) {
            fail("invalid value \"%s\" for --bitdepth: expected 8, 10, 12 or 16", arg);
            return -1;
        }
        return 0;
    case 'o': s->output_path = arg; return 0;
    case ARG_OUTPUT_XML: s->output_fmt = VMAF_OUTPUT_FORMAT_XML; return 0;
    case ARG_OUTPUT_JSON: s->output_fmt = VMAF_OUTPUT_FORMAT_JSON; return 0;
    case ARG_OUTPUT_CSV: s->output_fmt = VMAF_OUTPUT_FORMAT_CSV; return 0;
    case ARG_OUTPUT_SUB: s->output_fmt = VMAF_OUTPUT_FORMAT_SUB; return 0;
    case 'm': return add_model(s, arg);
    case ARG_FEATURE: return add_feature(s, arg, false);
    case ARG_THREADS:
        if (parse_unsigned(arg, o, &s->threads)) return -1;
        if (s->threads > CLI_MAX_THREADS) {
            fail("invalid value \"%s\" for --threads: expected 0 to %d", arg, CLI_MAX_THREADS);
            return -1;
        }
        return 0;
    case ARG_SUBSAMPLE: return parse_unsigned(arg, o, &s->subsample);
    case ARG_CPUMASK: return parse_u64(arg, o, UINT64_MAX, &s->cpumask);
    case ARG_GPUMASK: return parse_u64(arg, o, UINT64_MAX, &s->gpumask);
    case ARG_AOM_CTC: return add_aom_ctc(s, arg);
    case ARG_NFLX_CTC: return add_nflx_ctc(s, arg);
    case ARG_FRAME_CNT: return parse_unsigned(arg, o, &s->frame_cnt);
    case ARG_FRAME_SKIP_REF: return parse_unsigned(arg, o, &s->frame_skip_ref);
    case ARG_FRAME_SKIP_DIST: return parse_unsigned(arg, o, &s->frame_skip_dist);
    case 'n': s->no_prediction = true; return 0;
    case 'q': s->quiet = true; return 0;
    case ARG_LOG_LEVEL:
        if (!strcmp(arg, "error")) s->log_level = VMAF_LOG_LEVEL_ERROR;
        else if (!strcmp(arg, "warning")) s->log_level = VMAF_LOG_LEVEL_WARNING;
        else if (!strcmp(arg, "info")) s->log_level = VMAF_LOG_LEVEL_INFO;
        else if (!strcmp(arg, "debug")) s->log_level = VMAF_LOG_LEVEL_DEBUG;
        else
            return fail("invalid value \"%s\" for --log-level: expected error, warning, info "
                        "or debug", arg);
        return 0;
    case ARG_PRECISION: {
        s->precision_set = true;
        if (!strcmp(arg, "max")) {
            s->precision = 0;
            return 0;
        }
        unsigned n;
        if (parse_unsigned(arg, o, &n) || !n || n > 16) {
            fail("invalid value \"%s\" for --precision: expected 1 to 16 or max", arg);
            return -1;
        }
        s->precision = (int)n;
        return 0;
    }
    case ARG_DIVISION:
        if (!strcmp(arg, "ieee")) s->division = EXACTVMAF_DIVISION_IEEE;
        else if (!strcmp(arg, "rcp")) s->division = EXACTVMAF_DIVISION_RCP;
        else {
            fail("invalid value \"%s\" for --division: expected ieee or rcp", arg);
            return -1;
        }
        return 0;
    case ARG_BACKEND:
    {
        s->backend_set = true;
        const int b = exactvmaf_backend_from_name(arg);
        if (b < 0) {
            char names[128] = "";
            const char *n;
            for (int k = 0; (n = exactvmaf_backend_name((enum ExactvmafBackend)k)); k++)
                snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                         k ? ", " : "", n);
            fail("invalid value \"%s\" for --backend: expected one of %s", arg, names);
            return -1;
        }
        s->backend = (enum ExactvmafBackend)b;
        return 0;
    }
    case ARG_OPENCL_DEVICE: {
        const size_t n = strspn(arg, "0123456789:");
        const char *colon = strchr(arg, ':');
        if (!*arg || arg[n] || n > 16 || arg[0] == ':' || (colon && (!colon[1] ||
            strchr(colon + 1, ':')))) {
            fail("invalid value \"%s\" for --opencl-device: expected N or P:D", arg);
            return -1;
        }
        s->opencl_device = arg;
        return 0;
    }
    case ARG_OPENCL_FP64:
        if (!strcmp(arg, "auto")) s->opencl_fp64 = EXACTVMAF_FP64_AUTO;
        else if (!strcmp(arg, "off")) s->opencl_fp64 = EXACTVMAF_FP64_OFF;
        else if (!strcmp(arg, "on")) s->opencl_fp64 = EXACTVMAF_FP64_ON;
        else {
            fail("invalid value \"%s\" for --opencl-fp64: expected auto, on or off", arg);
            return -1;
        }
        s->opencl_fp64_set = true;
        return 0;
    case ARG_GPU: {
        s->backend_set = true;
        s->gpu_set = true;
        s->n_gpu = 0;
        if (!strcmp(arg, "all")) return 0;
        for (const char *p = arg;;) {
            char item[32];
            const size_t len = strcspn(p, ",");
            unsigned n;
            if (len == 0 || len >= sizeof(item) || s->n_gpu == CLI_MAX_GPUS) {
                fail("invalid value \"%s\" for --gpu: expected all, or up to %d device "
                     "indices separated by commas", arg, CLI_MAX_GPUS);
                return -1;
            }
            memcpy(item, p, len);
            item[len] = '\0';
            if (parse_unsigned(item, o, &n) || n > 1024) {
                fail("invalid value \"%s\" for --gpu: expected a device index, 0 to 1024, "
                     "or all", arg);
                return -1;
            }
            s->gpu[s->n_gpu++] = (int)n;
            if (!p[len]) return 0;
            p += len + 1;
        }
    }
    case ARG_SCALE: {
        unsigned w = 0, h = 0;
        char extra;
        if (sscanf(arg, "%ux%u%c", &w, &h, &extra) != 2 || !w || !h || w > 32768 || h > 32768) {
            fail("invalid value \"%s\" for --scale: expected WIDTHxHEIGHT, e.g. 1920x1080", arg);
            return -1;
        }
        s->scale_w = w;
        s->scale_h = h;
        return 0;
    }
    case ARG_SCALE_TO_REF:
        s->scale_to_ref = true;
        return 0;
    case ARG_CONVERT:
        s->convert = true;
        return 0;
    case ARG_HWDEC:
        if (!strcmp(arg, "auto")) s->hwdec = CLI_HWDEC_AUTO;
        else if (!strcmp(arg, "cuda")) s->hwdec = CLI_HWDEC_CUDA;
        else if (!strcmp(arg, "none")) s->hwdec = CLI_HWDEC_NONE;
        else {
            fail("invalid value \"%s\" for --hwdec: expected auto, cuda or none", arg);
            return -1;
        }
        return 0;
    case ARG_HWDEC_SESSIONS: {
        char *end = NULL;
        const unsigned long n = strtoul(arg, &end, 10);
        if (!*arg || *end || n < 1 || n > 16) {
            fail("invalid value \"%s\" for --hwdec-sessions: expected 1 to 16", arg);
            return -1;
        }
        s->hwdec_sessions = (unsigned)n;
        return 0;
    }
    case ARG_HWDEC_AHEAD: {
        char *end = NULL;
        const unsigned long n = strtoul(arg, &end, 10);
        if (!*arg || *end || n < 64 || n > 65536) {
            fail("invalid value \"%s\" for --hwdec-ahead: expected 64 to 65536 (MiB)", arg);
            return -1;
        }
        s->hwdec_ahead_mib = (unsigned)n;
        return 0;
    }
    case ARG_REPORT:
        s->report_path = arg;
        return 0;
    case ARG_PLOT:
        s->plot_path = arg;
        return 0;
    case ARG_REPORT_FRAME:
        s->report_frame_set = true;
        return parse_unsigned(arg, o, &s->report_frame);
    case ARG_FRAMES_IN_FLIGHT: {
        unsigned n;
        if (parse_unsigned(arg, o, &n) || n < 1 || n > 32) {
            fail("invalid value \"%s\" for --frames-in-flight: expected 1 to 32", arg);
            return -1;
        }
        s->frames_in_flight = n;
        return 0;
    }
    default:
        fail("internal: option %d has no handler", o);
        return -1;
    }
}

const char *cli_model_label(const CliModel *m)
{
    return m->version ? m->version : m->path;
}

int cli_option_lookup(const char *arg, const char **name)
{
    *name = NULL;
    if (arg[0] != '-' || !arg[1]) return -1;
    if (arg[1] != '-') {
        const char *p = strchr(short_opts + 1, arg[1]);
        if (!p || arg[1] == ':') return -1;
        for (const struct option *o = long_opts; o->name; o++)
            if (o->val == arg[1]) *name = o->name;
        return p[1] == ':' && !arg[2] ? 1 : 0;
    }
    const size_t len = strcspn(arg + 2, "=");
    for (const struct option *o = long_opts; o->name; o++) {
        if (strlen(o->name) != len || strncmp(o->name, arg + 2, len)) continue;
        *name = o->name;
        return o->has_arg == required_argument && !arg[2 + len] ? 1 : 0;
    }
    return -1;
}

enum CliParseResult cli_parse(int argc, char *const argv[], CliSettings *s)
{
    memset(s, 0, sizeof(*s));
    s->precision = 6;
    s->backend = EXACTVMAF_BACKEND_AUTO;
    s->n_gpu = 1;
    s->log_level = VMAF_LOG_LEVEL_WARNING;
    opterr = 0;
    /* 0, not 1: glibc and musl then also forget a half-read group of short
     * options from an earlier call (the fuzzer calls this repeatedly). */
    optind = 0;

    /* Options that take one value: a second one is a mistake, not an
     * override (which of two paths was meant?). */
    static const int once[] = { 'r', 'd', 'w', 'h', 'p', 'b', 'o', ARG_THREADS,
                                ARG_SUBSAMPLE, ARG_CPUMASK, ARG_GPUMASK, ARG_FRAME_CNT,
                                ARG_FRAME_SKIP_REF, ARG_FRAME_SKIP_DIST, ARG_PRECISION,
                                ARG_DIVISION, ARG_BACKEND, ARG_GPU, ARG_FRAMES_IN_FLIGHT,
                                ARG_OPENCL_DEVICE, ARG_OPENCL_FP64, ARG_SCALE, ARG_HWDEC,
                                ARG_REPORT, ARG_PLOT, ARG_REPORT_FRAME };
    bool given[ARG_END] = { false };
    int format_flag = 0;

    int o;
    while ((o = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
        for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++) {
            if (o != once[i]) continue;
            if (given[o]) return fail("--%s is given more than once", opt_name(o));
            given[o] = true;
        }
        if (o >= ARG_OUTPUT_XML && o <= ARG_OUTPUT_SUB) {
            if (format_flag && format_flag != o)
                return fail("--%s and --%s: choose one output format", opt_name(format_flag),
                            opt_name(o));
            format_flag = o;
        }
        switch (o) {
        case '?':
            if (optopt && optopt < 256) return fail("unknown option -%c", optopt);
            return fail("unknown or ambiguous option \"%s\"", argv[optind - 1]);
        case ':':
            if (optopt && optopt < 256) return fail("option -%c needs a value", optopt);
            return fail("option \"%s\" needs a value", argv[optind - 1]);
        case ARG_HELP:
            fputs(usage_text, stdout);
            return CLI_PARSE_DONE;
        case 'v':
            /* On stderr, as Netflix's tool prints it. */
            fprintf(stderr, "%s\n", vmaf_version());
            return CLI_PARSE_DONE;
        case ARG_RCPSS_FINGERPRINT:
            s->print_fingerprint = true;
            break;
        case ARG_LIST_DEVICES:
            s->list_devices = true;
            break;
        case ARG_LIST_EXTRACTORS:
            s->list_extractors = true;
            break;
        default:
            if (parse_option(s, o, optarg)) return CLI_PARSE_ERROR;
            break;
        }
    }
    if (optind < argc) return fail("unexpected argument \"%s\"", argv[optind]);
    if (s->print_fingerprint || s->list_devices || s->list_extractors) return CLI_PARSE_RUN;
    if (s->opencl_device) {
        if (s->backend_set && s->backend != EXACTVMAF_BACKEND_OPENCL &&
            s->backend != EXACTVMAF_BACKEND_AUTO_OPENCL)
            return fail("--opencl-device needs --backend opencl or auto-opencl");
        if (given[ARG_GPU]) return fail("--opencl-device and --gpu: choose one");
        if (!s->backend_set) s->backend = EXACTVMAF_BACKEND_OPENCL;
        s->backend_set = true;
    }

    if (!s->output_fmt) s->output_fmt = VMAF_OUTPUT_FORMAT_XML;
    if (!s->path_ref) return fail("the reference video (-r/--reference) is required");
    if (!s->path_dist) return fail("the distorted video (-d/--distorted) is required");
    if (!strcmp(s->path_ref, "-") && !strcmp(s->path_dist, "-"))
        return fail("only one of the two videos can be read from stdin (\"-\")");
    if (s->use_yuv && !(s->width && s->height && s->pix_fmt && s->bitdepth)) {
        return fail("raw YUV input needs all of --width, --height, --pixel_format and "
                    "--bitdepth (missing:%s%s%s%s)", s->width ? "" : " --width",
                    s->height ? "" : " --height", s->pix_fmt ? "" : " --pixel_format",
                    s->bitdepth ? "" : " --bitdepth");
    }
    if (s->scale_w && s->scale_to_ref)
        return fail("--scale and --scale-to-ref: choose one");
    if (s->report_frame_set && !s->report_path)
        return fail("--report-frame shows a frame in the --report page: give --report too");
    /* Netflix's default model. */
    if (!s->n_model && !s->no_prediction && add_model(s, "version=vmaf_v0.6.1"))
        return CLI_PARSE_ERROR;

    for (unsigned i = 0; i < s->n_model; i++)
        for (unsigned j = i + 1; j < s->n_model; j++)
            if (!strcmp(s->model[i].cfg.name, s->model[j].cfg.name))
                return fail("two models are named \"%s\"; name each with "
                            "--model ...:name=NAME", s->model[i].cfg.name);
    return CLI_PARSE_RUN;
}

void cli_free(CliSettings *s)
{
    for (unsigned i = 0; i < s->n_model; i++) free_model(&s->model[i]);
    for (unsigned i = 0; i < s->n_feature; i++) free_feature(&s->feature[i]);
    s->n_model = s->n_feature = 0;
}
