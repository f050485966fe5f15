#!/usr/bin/env bash
# The GPU gate in one command. On a machine with one NVIDIA GPU (CUDA 13's
# nvcc and compute-sanitizer, the driver with NVDEC and OpenCL, meson,
# ninja, python3; the ffmpeg tool is not needed) it builds this tree in a
# folder of its own and checks every GPU path against the CPU, bit for bit,
# within --budget (sized for 16 cores). Every test runs with EXACTVMAF_REQUIRE_GPU=1,
# under which a test that finds no device fails instead of skipping: a
# broken backend never reads as a skip.
#
# The parts (--only takes their names, --list prints them):
#   build                 meson setup -Dcuda=enabled -Dopencl=enabled with the
#                         kernels for this GPU's architecture only; ninja
#   pressure              tests/memory_pressure_test.py --backend cuda,opencl,
#                         first and alone: it takes the GPU's memory from the
#                         runs beside it
# then side by side until the time is up, the slowest first:
#   sanitize              scripts/gpu-sanitize.sh: memcheck, racecheck,
#                         synccheck and initcheck over the twins, the pipeline,
#                         device pictures and the CLI (a line per tool)
#   parity-cuda           tests/parity --quick --backend cuda
#   parity-opencl         tests/parity --quick --backend opencl (the device's fp64)
#   parity-opencl-nofp64  the same with --opencl-fp64 off, for the metrics that
#                         meson's "parity opencl fp64 off" names (those whose
#                         twins compute in binary64)
#   golden-cuda           every golden set, --backend cuda
#   golden-opencl         every OpenCL golden set, --backend opencl --opencl-fp64 on
#   golden-opencl-nofp64  the same with --opencl-fp64 off (ciede may decline)
#   pipeline-cuda         gpu_pipeline_test
#   pipeline-devpics      gpu_pipeline_test --device-pictures
#   pipeline-opencl       gpu_pipeline_test --quick --backend opencl
#   failover-cuda         tests/failover_test.py --backend cuda (four configurations)
#   failover-opencl       tests/failover_test.py --backend opencl --quick
#   gpu-tests             meson's other tests of a device: opencl device, opencl
#                         cache, device records, shared passes on the GPU,
#                         python gpu tensors
#   hwdec                 tests/hwdec_test.py: NVDEC == the CPU's decoder, on
#                         the clips of --clips DIR, or made by ffmpeg where it
#                         is; without either (or without FFmpeg's libraries in
#                         the build) the part is not run and its line says so
# A parity run is a process per metric and a golden run a process per set
# (each is single-threaded on the host), --jobs of them at once beside the
# sixteen sanitizer runs. The golden sets, the data folder and the fp64-free
# metrics are read from the build's test definitions (meson introspect), so
# the gate runs what tests/meson.build defines.
#
# usage: scripts/gpu-check.sh [--logs DIR] [--build DIR] [--data DIR] [--clips DIR]
#                             [--only PART,...] [--sets SET,...] [--metrics M,...]
#                             [--jobs N] [--budget SECONDS] [--opencl-any] [--list]
#                             [--summarise]
#   --logs DIR       the summary (summary.txt), each part's log (parts/), the
#                    sanitizers' logs (sanitize/) and the machine (machine.txt);
#                    default BUILD/logs
#   --build DIR      the build folder (default build-gpu-check); an existing one
#                    is built as it was configured
#   --data DIR       the fixtures and goldens (default: the folder that meson gives
#                    the tests, with the option it gives it under)
#   --clips DIR      NAME_ref.EXT / NAME_dis.EXT pairs for hwdec (also
#                    $EXACTVMAF_HWDEC_CLIPS; tests/hwdec_test.py --make-clips DIR
#                    makes them on a machine with ffmpeg)
#   --only PARTS     these parts only (build and pressure run first when named)
#   --sets, --metrics  only these golden sets, parity metrics
#   --jobs N         runs at once beside the sanitizers (default: 3/4 of the cores)
#   --budget S       seconds for the whole gate, build included (default 530:
#                    under nine minutes); a run still going then is stopped
#                    and fails, one not started fails
#   --opencl-any     accept an OpenCL device that is not NVIDIA's (without it
#                    the OpenCL parts fail on a machine whose OpenCL is not
#                    NVIDIA's: a run on PoCL proves nothing about the GPU)
#   --summarise      run nothing: the summary of the runs logged in --logs
#                    (logs copied back from the GPU machine, say)
# Without a GPU the parts still run, to check the gate itself: the CUDA ones
# fail (as they must), the OpenCL ones pass on PoCL with --opencl-any.
#
# Prints one line per part: PASS, FAIL or NOT RUN, its counts (identical
# outputs / total, checks, cases, sanitizer errors) and seconds; then the
# verdict. Exit 0 when every part asked for passed or could not run for a
# reason its line gives (hwdec without clips), 1 on any difference or failure.
set -uo pipefail

ALL_PARTS=(build pressure sanitize parity-cuda parity-opencl parity-opencl-nofp64 golden-cuda
           golden-opencl golden-opencl-nofp64 pipeline-cuda pipeline-devpics pipeline-opencl
           failover-cuda failover-opencl gpu-tests hwdec)
# meson's tests of a device that the parts above do not run.
GPU_TESTS=("opencl device" "opencl cache" "device records" "shared passes on the GPU"
           "python gpu tensors")
# Parity's metrics by their time on the host (the CPU reference of a run),
# slowest first; the others follow.
PARITY_SLOW=(float_adm float_vif cambi ciede adm)
# Those run as several processes, each a share of the cases (parity --shard
# K/N; item METRIC#K): float_adm alone took 335-365 s of a 520 s gate on an H100 (2026-12-08).
declare -A PARITY_SHARDS=([float_adm]=4 [float_vif]=2)

usage() {   # the header from "usage:" on
    awk '/^# usage:/ { on = 1 } on && !/^#/ { exit } on { sub(/^# ?/, ""); print }' "$0"
    exit "${1:-1}"
}
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

B=build-gpu-check LOGS="" DATA="" CLIPS=${EXACTVMAF_HWDEC_CLIPS:-} ONLY="" SETS="" METRICS=""
JOBS=$(( $(nproc) * 3 / 4 )) BUDGET=530 OPENCL_ANY=0 GOLDEN_OPT="" PARITY_OPT="" SUMMARISE=0
while [ $# -gt 0 ]; do
    case $1 in
    --logs) LOGS=$(abs "$2"); shift ;;
    --build) B=$(abs "$2"); shift ;;
    --data) DATA=$(abs "$2"); shift ;;
    --clips) CLIPS=$(abs "$2"); shift ;;
    --only) ONLY=$2; shift ;;
    --sets) SETS=$2; shift ;;
    --metrics) METRICS=$2; shift ;;
    --jobs) JOBS=$2; shift ;;
    --budget) BUDGET=$2; shift ;;
    --opencl-any) OPENCL_ANY=1 ;;
    --summarise) SUMMARISE=1 ;;
    --list) printf '%s\n' "${ALL_PARTS[@]}"; exit 0 ;;
    -h|--help) usage 0 ;;
    *) echo "gpu-check.sh: unknown option $1" >&2; usage ;;
    esac
    shift
done
[ -n "$CLIPS" ] && CLIPS=$(abs "$CLIPS")
cd "$(dirname "$0")/.." || exit 1
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1
LOGS=${LOGS:-$B/logs}
PARTS_DIR=$LOGS/parts
EXE=$B/tools/exactvmaf
export EXACTVMAF_REQUIRE_GPU=1
START=$(date +%s)
DEADLINE=$((START + BUDGET))

parts=()
if [ -n "$ONLY" ]; then
    IFS=, read -r -a only <<< "$ONLY"
    for p in "${only[@]}"; do
        [[ " ${ALL_PARTS[*]} " == *" $p "* ]] || { echo "gpu-check.sh: no part $p" >&2; exit 1; }
    done
    # In the gate's order, whatever --only's.
    for p in "${ALL_PARTS[@]}"; do [[ " ${only[*]} " == *" $p "* ]] && parts+=("$p"); done
else
    parts=("${ALL_PARTS[@]}")
fi
asked() { [[ " ${parts[*]} " == *" $1 "* ]]; }

# Seconds left before the deadline, less a margin for the summary.
left() { echo $((DEADLINE - $(date +%s) - 10)); }
note() { printf '[%4d s] %s\n' $(($(date +%s) - START)) "$*" >&2; }

# ---- The runs ----

# The command of one run into CMD: a part's name, with @ITEM for a part of
# many runs (a metric, a golden set).
job_command() {
    local part=${1%@*} item=${1#*@}
    local sh=()
    local golden=(python3 tests/golden_test.py --exe "$EXE" "$GOLDEN_OPT" "$DATA" --set "$item")
    local parity=("$B/tests/parity" "$PARITY_OPT" "$DATA" --quick)
    case $part in
    build)
        local sm
        sm=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
             head -1 | tr -d ' .')
        # shellcheck disable=SC2016  # the inner shell expands them
        CMD=(bash -c 'set -e
                      [ -f "$1/build.ninja" ] || meson setup "$1" -Dcuda=enabled -Dopencl=enabled ${2:+-Dnvcc_sm=$2}
                      ninja -C "$1"' build "$B" "$sm") ;;
    pressure) CMD=(python3 tests/memory_pressure_test.py --exe "$EXE" --backend "cuda,opencl") ;;
    sanitize)
        local limit=$(($(left) - 20))
        [ "$limit" -ge 10 ] || limit=10
        CMD=(env SANITIZE_LOGS="$LOGS/sanitize" "SANITIZE_TIMEOUT=$limit"
             scripts/gpu-sanitize.sh "$B" "$DATA") ;;
    parity-cuda) read -r -a sh <<< "$(shard_args "$item")"; CMD=("${parity[@]}" --backend cuda "${sh[@]}") ;;
    parity-opencl) read -r -a sh <<< "$(shard_args "$item")"; CMD=("${parity[@]}" --backend opencl --opencl-fp64 auto "${sh[@]}") ;;
    parity-opencl-nofp64) read -r -a sh <<< "$(shard_args "$item")"; CMD=("${parity[@]}" --backend opencl --opencl-fp64 off "${sh[@]}") ;;
    golden-cuda) CMD=("${golden[@]}" --backend cuda) ;;
    golden-opencl) CMD=("${golden[@]}" --backend opencl --opencl-fp64 on) ;;
    golden-opencl-nofp64)
        CMD=("${golden[@]}" --backend opencl --opencl-fp64 off --may-decline
             "$(may_decline "$item")") ;;
    pipeline-cuda) CMD=("$B/tests/gpu_pipeline_test") ;;
    pipeline-devpics) CMD=("$B/tests/gpu_pipeline_test" --device-pictures) ;;
    pipeline-opencl) CMD=("$B/tests/gpu_pipeline_test" --quick --backend opencl) ;;
    failover-cuda) CMD=(python3 tests/failover_test.py --exe "$EXE" --backend cuda) ;;
    failover-opencl) CMD=(python3 tests/failover_test.py --exe "$EXE" --backend opencl --quick) ;;
    gpu-tests)
        CMD=(meson test -C "$B" --no-rebuild --print-errorlogs --logbase testlog-gpu-check
             "${GPU_TESTS[@]}") ;;
    hwdec) CMD=(python3 tests/hwdec_test.py --exe "$EXE" ${CLIPS:+--clips "$CLIPS"}) ;;
    esac
}

# parity's arguments for an item: METRIC, or METRIC#K (shard K of PARITY_SHARDS[METRIC]).
shard_args() {
    local m=${1%%#*}
    if [ "$m" = "$1" ]; then echo "--only $m"
    else echo "--only $m --shard ${1#*#}/${PARITY_SHARDS[$m]}"; fi
}

# One run: its command and output in PARTS_DIR/JOB.log, "STATUS START END"
# in PARTS_DIR/JOB.rc (124: stopped at the deadline or after MAX seconds, or
# not started).
run_job() {
    local job=$1 max=${2:-} start t
    start=$(date +%s)
    t=$(left)
    if [ -n "$max" ] && [ "$max" -lt "$t" ]; then t=$max; fi
    if [ "$t" -le 5 ]; then
        echo "not started: no time was left" > "$PARTS_DIR/$job.log"
        echo "124 $start $start" > "$PARTS_DIR/$job.rc"
        return
    fi
    job_command "$job"
    {
        printf '$ %q' "${CMD[0]}"
        printf ' %q' "${CMD[@]:1}"
        echo
    } > "$PARTS_DIR/$job.log"
    timeout -k 10 "$t" "${CMD[@]}" >> "$PARTS_DIR/$job.log" 2>&1
    echo "$? $start $(date +%s)" > "$PARTS_DIR/$job.rc"
}

# The runs given, N at once, in the order given.
run_pool() {
    local n=$1 j
    shift
    for j in "$@"; do
        while [ "$(jobs -rp | wc -l)" -ge "$n" ]; do wait -n; done
        run_job "$j" &
    done
    wait
}

# ---- What the build's tests define ----

# The tests' definitions: NAME<TAB>ARG... a line (meson introspect --tests).
TESTS_TSV=""
read_tests() {
    TESTS_TSV=$(meson introspect --tests "$B" | python3 -c '
import json, sys
for t in json.load(sys.stdin):
    print("\t".join([t["name"]] + t["cmd"][1:]))')
}
# The value after OPTION in test NAME's arguments.
test_arg() {
    awk -F '\t' -v name="$1" -v opt="$2" \
        '$1 == name { for (i = 2; i < NF; i++) if ($i == opt) { print $(i + 1); exit } }' \
        <<< "$TESTS_TSV"
}
# The sets of the tests named PREFIX SET (one word).
test_sets() {
    awk -F '\t' -v p="$1 " 'index($1, p) == 1 && split(substr($1, length(p) + 1), w, " ") == 1 \
        { print substr($1, length(p) + 1) }' <<< "$TESTS_TSV"
}
may_decline() { test_arg "golden opencl $1" --may-decline; }
# The option under which test NAME is given the data folder, and the folder:
# the first option of its arguments whose value is a folder. The gate gives
# its runs the data as meson gives them, whatever the option is called.
data_arg() {
    local opt dir
    while IFS=$'\t' read -r opt dir; do
        if [ -d "$dir" ]; then printf '%s\t%s\n' "$opt" "$dir"; return; fi
    done < <(awk -F '\t' -v name="$1" '$1 == name {
                 for (i = 2; i < NF; i++) if ($i ~ /^--/) print $i "\t" $(i + 1) }' <<< "$TESTS_TSV")
}

# The items of a part: golden sets or parity metrics, narrowed by --sets, --metrics.
items_of() {
    local all=() want=()
    case $1 in
    golden-cuda) mapfile -t all < <(test_sets golden) ;;
    golden-opencl*) mapfile -t all < <(test_sets "golden opencl") ;;
    parity-opencl-nofp64)
        IFS=, read -r -a all <<< "$(test_arg "parity opencl fp64 off" --only)" ;;
    parity-cuda) mapfile -t all < <("$B/tests/parity" --list --backend cuda) ;;
    parity-opencl) mapfile -t all < <("$B/tests/parity" --list --backend opencl) ;;
    esac
    case $1 in golden*) IFS=, read -r -a want <<< "$SETS" ;; *) IFS=, read -r -a want <<< "$METRICS" ;; esac
    local x
    for x in "${all[@]}"; do
        if [ ${#want[@]} -eq 0 ] || [[ " ${want[*]} " == *" $x "* ]]; then echo "$x"; fi
    done
}

# ---- The summary ----

# "PASS|FAIL|NOT RUN<TAB>counts<TAB>seconds" of a part, from its runs' logs.
rc_of() { cut -d' ' -f1 "$PARTS_DIR/$1.rc" 2>/dev/null || echo "none"; }
seconds_of() {
    cat "$PARTS_DIR/$1".rc "$PARTS_DIR/$1"@*.rc 2>/dev/null |
        awk 'NR == 1 || $2 < s { s = $2 } NR == 1 || $3 > e { e = $3 } END { print (NR ? e - s : 0) }'
}
# The failed runs of a part, by item, with their status, then what the
# first of them says.
why_failed() {
    local f job rc out="" first=""
    for f in "$PARTS_DIR/$1".rc "$PARTS_DIR/$1"@*.rc; do
        [ -f "$f" ] || continue
        job=$(basename "$f" .rc)
        rc=$(cut -d' ' -f1 "$f")
        case $rc in 0|77) continue ;; esac
        out="$out ${job#*@}($(exit_said "$rc"))"
        [ -n "$first" ] || first=$(first_failure "$PARTS_DIR/$job.log")
    done
    echo "${out# }${first:+; $first}"
}

# A part of many runs that ran none proved nothing.
no_runs() {
    compgen -G "$PARTS_DIR/$1@*.rc" > /dev/null && return 1
    echo "FAIL	no runs (--sets or --metrics names none of this part's)"
}

summary_parity() {
    local logs=("$PARTS_DIR/$1"@*.log) counts bad
    no_runs "$1" && return
    counts=$(cat "${logs[@]}" 2>/dev/null | awk '
        $3 ~ /^[0-9]+\/[0-9]+$/ && ($2 == "cuda" || $2 == "opencl") {
            split($3, a, "/"); s += a[1]; t += a[2]; if (!($1 in seen)) { seen[$1]; m++ } }
        END { printf "%d/%d identical, %d metrics", s, t, m }')
    bad=$(why_failed "$1")
    echo "$([ -z "$bad" ] && echo PASS || echo FAIL)	$counts${bad:+; failed: $bad}"
}

summary_golden() {
    local logs=("$PARTS_DIR/$1"@*.log) counts bad skipped="" f
    no_runs "$1" && return
    counts=$(cat "${logs[@]}" 2>/dev/null | awk '
        /^set .*outputs bit-identical over/ {
            split($0, x, ": "); split(x[2], a, "[/ ]"); s += a[1]; t += a[2]; n++ }
        / differ as documented/ {
            for (i = 1; i + 2 <= NF; i++) if ($(i + 1) == "differ" && $(i + 2) == "as") d += $i }
        /^extractors on / {
            on += $4; runs += $6
            if (split($0, c, "; on the CPU: ") == 2) { n2 = split(c[2], w, ", ")
                for (i = 1; i <= n2; i++) cpu[w[i]] = 1 } }
        END { printf "%d/%d outputs identical over %d sets", s, t, n
              if (d) printf " (the other %d: Netflix'"'"'s documented 18x22 mismatch)", d
              if (runs) printf "; extractors on the backend: %d of %d", on, runs
              sep = " (on the CPU: "
              for (k in cpu) { printf "%s%s", sep, k; sep = ", " }
              if (sep == ", ") printf ")" }')
    for f in "$PARTS_DIR/$1"@*.rc; do
        [ -f "$f" ] || continue
        if [ "$(cut -d' ' -f1 "$f")" = 77 ]; then
            local job log
            job=$(basename "$f" .rc)
            log="$PARTS_DIR/$job.log"
            skipped="$skipped; ${job#*@} skipped: $(grep -m1 '^SKIP' "$log" | cut -c7-90)"
        fi
    done
    bad=$(why_failed "$1")
    echo "$([ -z "$bad" ] && echo PASS || echo FAIL)	$counts$skipped${bad:+; failed: $bad}"
}

summary_single() {   # a part of one run; counts from its log by the part's kind
    local part=$1 log="$PARTS_DIR/$1.log" rc counts=""
    rc=$(rc_of "$part")
    case $part in
    pipeline-*) counts=$(grep -aE '^[0-9]+ checks, [0-9]+ failed' "$log" | tail -1) ;;
    failover-*)
        counts=$(awk '/^ok  / { ok++ } /^FAIL [^:]/ { bad++ }
                      END { printf "%d cases, %d failed", ok + bad, bad }' "$log") ;;
    pressure)
        counts=$(awk '/^(ok  |FAIL) / && / identical/ {
                          n++; for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^identical/) {
                              split($i, a, "/"); s += a[1]; t += a[2] } }
                      END { printf "%d runs, %d/%d outputs identical to the CPU", n, s, t }' "$log") ;;
    hwdec) counts=$(grep -a '^hwdec: ' "$log" | tail -1 | cut -c8-) ;;
    gpu-tests)
        counts=$(python3 scripts/test_summary.py "$B/meson-logs/testlog-gpu-check.json" |
                 grep -v '^[0-9]* skipped$' | tr '\n' ';' | sed 's/;$//; s/;/; /g') ;;
    build)
        counts="$B, nvcc_sm $(meson introspect --buildoptions "$B" 2>/dev/null | python3 -c '
import json, sys
print(",".join(v for o in json.load(sys.stdin) if o["name"] == "nvcc_sm" for v in o["value"]))')" ;;
    esac
    case $rc in
    0) echo "PASS	$counts" ;;
    77) echo "NOT RUN	$(grep -a -m1 '^SKIP' "$log" | cut -c7-200)" ;;
    none) echo "FAIL	did not run" ;;
    *) echo "FAIL	$(exit_said "$rc")${counts:+; $counts}; $(first_failure "$log")" ;;
    esac
}

exit_said() { case $1 in 124|137) echo "timed out" ;; *) echo "exit $1" ;; esac; }
# What a failed run's log says first about its failure (or its last line).
first_failure() {
    local l
    l=$(grep -a -m1 -E '^(FAIL|ERROR|error)|: error|Error' "$1" 2>/dev/null)
    [ -n "$l" ] || l=$(grep -av '^\$ ' "$1" 2>/dev/null | grep -a . | tail -1)
    echo "${l:0:200}"
}

# A line per tool from gpu-sanitize.sh's own summary.
summary_sanitize() {
    local log="$PARTS_DIR/sanitize.log" rc lines
    rc=$(rc_of sanitize)
    lines=$(grep -aE '^(memcheck|racecheck|synccheck|initcheck): ' "$log" 2>/dev/null)
    if [ -z "$lines" ]; then
        summary_single sanitize | sed 's/^/sanitize\t/'
        return
    fi
    local t
    while IFS= read -r t; do
        local tool=${t%%: *} rest=${t#*: } st=PASS
        case $rest in FAIL*) st=FAIL ;; esac
        [ "$rc" = 0 ] || st=FAIL
        printf 'sanitize/%s\t%s\t%s\n' "$tool" "$st" "${rest#FAIL: }"
    done <<< "$lines"
}

# The end of each failed part's log (of a failed test's output for gpu-tests),
# so that the summary says why even where the logs stay on the machine.
failure_tails() {
    local p log
    for p in "$@"; do
        case $p in sanitize/*) p=sanitize ;; esac
        if [ "$p" = gpu-tests ] && [ -f "$B/meson-logs/testlog-gpu-check.json" ]; then
            echo "--- $p: the failed tests' output, the last 15 lines each"
            python3 - "$B/meson-logs/testlog-gpu-check.json" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t.get('result') not in ('OK', 'SKIP', 'EXPECTEDFAIL'):
        print('[%s] %s' % (t.get('name'), t.get('result')))
        out = (t.get('stdout') or '') + (t.get('stderr') or '')
        print('\n'.join([l for l in out.splitlines() if l.strip()][-15:]))
PY
            continue
        fi
        for log in "$PARTS_DIR/$p.log" "$PARTS_DIR/$p"@*.log; do
            [ -f "$log" ] || continue
            # a run of a several-run part that passed says nothing here
            [ "$(cut -d' ' -f1 "${log%.log}.rc" 2>/dev/null)" = 0 ] && continue
            echo "--- $(basename "$log" .log): the last 15 lines of its log"
            grep -a . "$log" | tail -15
        done
    done
}

summary_line() {   # NAME STATUS COUNTS SECONDS
    printf '%-24s %-8s %s (%s s)\n' "$1" "$2" "$3" "$4"
}

summarise() {
    local p st counts out status=0 notrun="" failed=""
    for p in "${parts[@]}"; do
        case $p in
        sanitize)
            while IFS=$'\t' read -r name st counts; do
                summary_line "$name" "$st" "$counts" "$(seconds_of sanitize)"
                [ "$st" = FAIL ] && failed="$failed $name"
            done < <(summary_sanitize)
            continue ;;
        parity-*) out=$(summary_parity "$p") ;;
        golden-*) out=$(summary_golden "$p") ;;
        *) out=$(summary_single "$p") ;;
        esac
        if [ -n "${BLOCKED[$p]:-}" ]; then out="FAIL	${BLOCKED[$p]}"; fi
        st=${out%%	*}
        counts=${out#*	}
        summary_line "$p" "$st" "$counts" "$(seconds_of "$p")"
        case $st in
        FAIL) failed="$failed $p" ;;
        "NOT RUN") notrun="$notrun $p" ;;
        esac
    done
    # The time from the first run's start to the last one's end.
    local took
    took=$(cat "$PARTS_DIR"/*.rc 2>/dev/null |
           awk 'NR == 1 || $2 < s { s = $2 } NR == 1 || $3 > e { e = $3 } END { print e - s }')
    echo
    if [ -n "$failed" ]; then
        # shellcheck disable=SC2086  # a word per part
        failure_tails $failed
        echo "gpu-check: FAIL:$failed${notrun:+; not run:$notrun} (${took:-0} s; logs in $LOGS)"
        status=1
    else
        echo "gpu-check: PASS: every part equal bit for bit${notrun:+, except not run:$notrun (see its line)} (${took:-0} s)"
    fi
    return $status
}

# ---- The machine ----

# NVIDIA's OpenCL driver is not registered with the ICD loader on some
# machines: the driver's library is there, the vendor file is not.
register_nvidia_opencl() {
    local icd=/etc/OpenCL/vendors/nvidia.icd
    [ -e "$icd" ] && return
    ldconfig -p 2>/dev/null | grep -q 'libnvidia-opencl\.so\.1 ' || return
    if [ "$(id -u)" = 0 ]; then
        mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > "$icd" &&
            note "registered NVIDIA's OpenCL driver ($icd)"
    else
        note "NVIDIA's OpenCL driver is not registered ($icd) and this is not root"
    fi
}

describe_machine() {
    local cs
    cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
    {
        echo "commit: $(git rev-parse HEAD 2>/dev/null)$(git status --porcelain 2>/dev/null |
                                                      grep -q . && echo ' (with local changes)')"
        echo "cores: $(nproc)"
        if command -v nvidia-smi > /dev/null; then
            nvidia-smi -L 2>&1
            nvidia-smi --query-gpu=driver_version,compute_cap,memory.total --format=csv 2>&1
        else
            echo "no nvidia-smi"
        fi
        if [ -n "$cs" ]; then "$cs" --version 2>&1 | tail -1; else echo "no compute-sanitizer"; fi
        echo "exactvmaf $("$EXE" --version 2>&1)"
        "$EXE" --list-devices 2>&1
    } > "$LOGS/machine.txt"
}

# ---- Main ----

declare -A BLOCKED=()
if [ "$SUMMARISE" = 1 ]; then
    ran=()
    for p in "${parts[@]}"; do
        compgen -G "$PARTS_DIR/$p.rc" > /dev/null || compgen -G "$PARTS_DIR/$p@*.rc" > /dev/null &&
            ran+=("$p")
    done
    parts=("${ran[@]}")
    summarise
    exit
fi
rm -rf "$PARTS_DIR"
mkdir -p "$PARTS_DIR"
note "gate: ${parts[*]}; logs in $LOGS; $BUDGET s"
register_nvidia_opencl

if asked build; then
    note "build ($B)"
    run_job build
fi
if [ ! -x "$EXE" ] || [ ! -x "$B/tests/parity" ]; then
    for p in "${parts[@]}"; do [ "$p" = build ] || BLOCKED[$p]="no build in $B"; done
    summarise | tee "$LOGS/summary.txt"
    exit 1
fi
describe_machine
read_tests
IFS=$'\t' read -r GOLDEN_OPT golden_dir <<< "$(data_arg "golden float-features")"
IFS=$'\t' read -r PARITY_OPT _ <<< "$(data_arg parity)"
DATA=${DATA:-$golden_dir}
if [ -z "$GOLDEN_OPT" ] || [ -z "$PARITY_OPT" ] || [ ! -d "$DATA" ]; then
    echo "gpu-check.sh: the tests of $B name no data folder that is there (--data DIR)" >&2
    exit 1
fi
# The OpenCL parts count only on NVIDIA's OpenCL (the default device is the
# first GPU): elsewhere they would pass on another device, PoCL say.
if [ "$OPENCL_ANY" = 0 ] && ! "$EXE" --list-devices 2>/dev/null | grep -q '^opencl .*NVIDIA'; then
    for p in "${parts[@]}"; do
        case $p in
        *opencl*) BLOCKED[$p]="no NVIDIA OpenCL device listed (machine.txt; --opencl-any accepts another)" ;;
        esac
    done
fi

if asked pressure; then
    # Five runs of 120 frames: one that hangs must not take the others' time.
    note "pressure (alone on the GPU)"
    run_job pressure 180
fi

# The runs beside the sanitizers: the slow ones first.
queue=()
add() { asked "$1" && [ -z "${BLOCKED[$1]:-}" ] && queue+=("$1"); }
add_items() {
    asked "$1" && [ -z "${BLOCKED[$1]:-}" ] || return 0
    local x
    while IFS= read -r x; do [ -n "$x" ] && queue+=("$1@$x"); done < <(items_of "$1")
}
parity_order() {   # parity's runs of a part, the slow ones first, split into their shards
    local all x k
    all=$(items_of "$1")
    for x in "${PARITY_SLOW[@]}"; do grep -qx "$x" <<< "$all" && echo "$x"; done |
    while IFS= read -r x; do
        if [ -n "${PARITY_SHARDS[$x]:-}" ]; then
            for ((k = 0; k < PARITY_SHARDS[$x]; k++)); do echo "$x#$k"; done
        else echo "$x"; fi
    done
    for x in $all; do [[ " ${PARITY_SLOW[*]} " == *" $x "* ]] || echo "$x"; done
}
add_parity() {
    local p=$1 x
    asked "$p" && [ -z "${BLOCKED[$p]:-}" ] || return 0
    while IFS= read -r x; do [ -n "$x" ] && queue+=("$p@$x"); done < <(parity_order "$p" | head -"$2")
}
add_parity_rest() {
    local p=$1 x
    asked "$p" && [ -z "${BLOCKED[$p]:-}" ] || return 0
    while IFS= read -r x; do [ -n "$x" ] && queue+=("$p@$x"); done < <(parity_order "$p" | tail -n +"$(($2 + 1))")
}
# (float_adm's and float_vif's shards: 6 runs.)
add pipeline-cuda
for p in parity-cuda parity-opencl parity-opencl-nofp64; do add_parity "$p" 6; done
add failover-cuda
add failover-opencl
add hwdec
add pipeline-devpics
add pipeline-opencl
add_items golden-cuda
add_items golden-opencl
add_items golden-opencl-nofp64
for p in parity-cuda parity-opencl parity-opencl-nofp64; do add_parity_rest "$p" 6; done
add gpu-tests

if asked sanitize; then
    note "sanitize (in the background, $(($(left) - 20)) s per workload at most)"
    run_job sanitize &
fi
note "${#queue[@]} runs, $JOBS at once"
# In a subshell of its own: the pool counts its own runs, not the sanitizers.
(run_pool "$JOBS" "${queue[@]}")
wait
note "done"
summarise | tee "$LOGS/summary.txt"
