#!/bin/bash
# Every compute-sanitizer tool over the CUDA path; one line per tool.
#
# usage: scripts/gpu-sanitize.sh [BUILD_DIR] [DATA_DIR]
#        (defaults: build, BUILD_DIR/test-data, the test data the build unpacks;
#        a CUDA build: meson setup with cuda enabled)
#
# Each tool (memcheck with leak check, racecheck, synccheck, initcheck) runs
# over the same workloads, all sixteen runs side by side:
#   twins      parity --sanitize: every twin on 8/10/12/16-bit 4:2:0/4:2:2/4:4:4
#              content, odd sizes, 2-3 frames, each metric's first option set
#   pipeline   gpu_pipeline_test --sanitize: frames in flight, seams between two
#              pipelines, a bad frame, contexts in threads
#   devpics    gpu_pipeline_test --sanitize --device-pictures
#              (racecheck, at about half a minute a context, runs both with
#              --sanitize=light: one case each for several frames in flight,
#              seams on --gpu 0,0, 8 and 10 bits, odd sizes, device pictures)
#   cli        the CLI with --gpu 0,0 (two pipelines on one device) and 3
#              frames in flight on a 10-bit fixture, every extractor with a
#              twin and the v0.6.1 model
# A tool's line says "0 errors" only when every workload ran to its end
# (exit 0), the pipeline test's workloads ran checks (their number is on
# the line), and the tool reported nothing; anything else prints FAIL and
# the script exits 1. A workload is stopped after $SANITIZE_TIMEOUT seconds
# (default 1800). Logs: $SANITIZE_LOGS (default build/sanitize). Some of the
# tools only: SANITIZE_TOOLS="racecheck initcheck". Exits 77
# where there is no compute-sanitizer or no CUDA device, 1 there under
# EXACTVMAF_REQUIRE_GPU=1 (as tests/no_device.h does for the C tests).
set -u
cd "$(dirname "$0")/.." || exit 1
B=${1:-build}
S=${2:-$B/test-data}
LOGS=${SANITIZE_LOGS:-$B/sanitize}
LIMIT=${SANITIZE_TIMEOUT:-1800}
no_device() {
    if [ "${EXACTVMAF_REQUIRE_GPU:-}" = 1 ]; then
        echo "FAIL: $1 (EXACTVMAF_REQUIRE_GPU=1: a device must be there)"; exit 1
    fi
    echo "SKIP: $1"; exit 77
}
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
[ -n "$CS" ] || no_device "no compute-sanitizer on this machine"
if ! "$B/tests/parity" --self-check --only psnr > /dev/null 2>&1 ||
   ! nvidia-smi -L > /dev/null 2>&1; then
    no_device "no CUDA device on this machine (or no build in $B)"
fi
mkdir -p "$LOGS"
# A GPU run of the CLI ends with _exit once its outputs are written; the
# leak check needs the full clean-up.
export EXACTVMAF_FULL_TEARDOWN=1

FIX="$S/fixtures/src01_576x324_10b"
# Every extractor with a CUDA twin, from the library's registry.
FEATURES=()
for f in $("$B/tools/exactvmaf" --list-extractors | awk '!/^\t/ && /twins: cuda/ {print $1}'); do
    FEATURES+=(--feature "$f")
done
[ ${#FEATURES[@]} -gt 0 ] || { echo "gpu-sanitize: $B/tools/exactvmaf lists no CUDA twin" >&2; exit 1; }

workloads=(twins pipeline devpics cli)
command_of() {
    local light=--sanitize
    [ "$2" = racecheck ] && light=--sanitize=light
    case $1 in
    twins)    echo "$B/tests/parity --data $S --sanitize --backend cuda" ;;
    pipeline) echo "$B/tests/gpu_pipeline_test $light" ;;
    devpics)  echo "$B/tests/gpu_pipeline_test $light --device-pictures" ;;
    cli)      echo "$B/tools/exactvmaf -r $FIX/ref.yuv -d $FIX/dis.yuv --width 576 --height 324
                    --pixel_format 420 --bitdepth 10 --frame_cnt 6 --backend cuda --gpu 0,0
                    --frames-in-flight 3 --model version=vmaf_v0.6.1 ${FEATURES[*]}
                    --json -o $LOGS/cli-$2.json" ;;
    esac
}

# The count a tool's summary line gives; "?" where there is none.
count() {
    local n
    n=$(grep -ahoE "(ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazard)" "$1" |
        grep -oE "[0-9]+" | tail -1)
    echo "${n:-?}"
}

# The checks the pipeline test ran ("N checks, M failed"); "" for the other workloads.
checks() {
    case $2 in
    pipeline|devpics)
        local n
        n=$(grep -aoE "^[0-9]+ checks, [0-9]+ failed" "$1" | tail -1 | grep -oE "^[0-9]+")
        echo "${n:-0}" ;;
    esac
}

# One workload under one tool; its log ends with the exit status.
run_one() {
    local tool=$1 w=$2 args=()
    case $tool in
    memcheck) args=(--tool memcheck --leak-check full) ;;
    racecheck) args=(--tool racecheck --racecheck-report hazard) ;;
    synccheck) args=(--tool synccheck) ;;
    initcheck) args=(--tool initcheck) ;;
    esac
    local log="$LOGS/$tool-$w.log"
    # shellcheck disable=SC2046
    timeout "$LIMIT" "$CS" "${args[@]}" --print-limit 20 --error-exitcode 0 \
        $(command_of "$w" "$tool") > "$log" 2>&1
    echo "exit status $?" >> "$log"
}

summarise() {
    local tool=$1 total=0 bad="" parts=""
    for w in "${workloads[@]}"; do
        local log="$LOGS/$tool-$w.log" n rc c
        n=$(count "$log")
        rc=$(tail -1 "$log" | grep -oE "[0-9]+$")
        c=$(checks "$log" "$w")
        parts="$parts $w=$n${c:+ ($c checks)}"
        if [ "$rc" != 0 ]; then bad="$bad $w(exit $rc)"; fi
        if [ "$c" = 0 ]; then bad="$bad $w(no checks)"; fi
        if [ "$n" = "?" ]; then bad="$bad $w(no summary)"; else total=$((total + n)); fi
    done
    local what="errors"
    [ "$tool" = racecheck ] && what="hazards"
    if [ -z "$bad" ] && [ "$total" = 0 ]; then
        echo "$tool: 0 $what over ${#workloads[@]} workloads ($parts )"
    else
        echo "$tool: FAIL: $total $what ($parts )${bad:+; did not finish:$bad}; logs in $LOGS"
    fi
}

read -r -a tools <<< "${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}"
# Every (tool, workload) at once: the tools are bound by the host's cores.
for tool in "${tools[@]}"; do
    for w in "${workloads[@]}"; do run_one "$tool" "$w" & done
done
wait
status=0
for tool in "${tools[@]}"; do
    line=$(summarise "$tool")
    echo "$line"
    case $line in *FAIL*) status=1 ;; esac
done
exit $status
