#!/usr/bin/env bash
# Install what is missing, with apt-get (Debian/Ubuntu; elsewhere it says what to install).
# usage: scripts/install-missing.sh [COMMAND:PACKAGE | PACKAGE]...
#   COMMAND:PACKAGE  PACKAGE when COMMAND is not on PATH
#   PACKAGE          PACKAGE when dpkg does not list it as installed
set -uo pipefail
need=()
for arg in "$@"; do
    if [[ $arg == *:* ]]; then
        command -v "${arg%%:*}" >/dev/null || need+=("${arg#*:}")
    elif command -v dpkg-query >/dev/null; then
        dpkg-query -W -f='${Status}' "$arg" 2>/dev/null | grep -q "ok installed" || need+=("$arg")
    fi
done
[ ${#need[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null; then
    echo "install these first: ${need[*]}" >&2
    exit 1
fi
if [ "$(id -u)" = 0 ]; then s=; else s=sudo; fi
$s apt-get update -qq
DEBIAN_FRONTEND=noninteractive $s apt-get install -y -qq "${need[@]}" >/dev/null
