#!/bin/sh
# The cost of `procscope serve` with many processes: its own scrape duration and its memory.
#
#   benchmarks/serve-rss.sh [N] [SCRAPES]
#
# Starts N idle processes (benchmarks/src/main/c/idle.c, default 5,000), starts `./procscope serve` on a free
# localhost port with the launcher's serve options (PROCSCOPE_SERVE_JAVA_OPTS replaces them, as in the launcher),
# scrapes /metrics SCRAPES times (default 20), and prints the median of procscope_scrape_duration_seconds, the
# exporter's VmRSS (and its peak, VmHWM) and PSS (smaps_rollup), its threads, and the load average. With
# SERVE_NMT=1 it also runs the exporter with -XX:NativeMemoryTracking=summary and prints
# `jcmd PID VM.native_memory summary`; SERVE_ARGS are more options of `serve` (--no-doctor, say). Every process it
# starts is ended by its pid. Needs gcc and curl; `./procscope` builds the tool if it is not built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"
n=${1:-5000}
scrapes=${2:-20}
native=benchmarks/target/native
mkdir -p "$native"
[ -x "$native/idle" ] || gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$native/idle" benchmarks/src/main/c/idle.c
tmp=$(mktemp -d)
serve_pid=
idle_pid=
finish() {
    trap - EXIT INT TERM
    [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
    if [ -f "$tmp/pids" ]; then
        grep -E '^[0-9]+$' "$tmp/pids" | while read -r p; do kill "$p" 2>/dev/null || true; done
    fi
    exec 3>&- 2>/dev/null || true
    [ -n "$idle_pid" ] && kill "$idle_pid" 2>/dev/null && wait "$idle_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap finish EXIT INT TERM

mkfifo "$tmp/in"
"$native/idle" fleet "$n" < "$tmp/in" > "$tmp/pids" &
idle_pid=$!
exec 3> "$tmp/in"
while ! grep -q '^ready$' "$tmp/pids"; do sleep 0.2; done

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
if [ "${SERVE_NMT:-0}" = 1 ]; then
    # Added to whatever options the launcher chooses (the JVM reads JAVA_TOOL_OPTIONS and says so on stderr).
    JAVA_TOOL_OPTIONS="${JAVA_TOOL_OPTIONS:-} -XX:NativeMemoryTracking=summary"
    export JAVA_TOOL_OPTIONS
fi
# shellcheck disable=SC2086 # SERVE_ARGS is a list of options
./procscope serve --listen "127.0.0.1:$port" ${SERVE_ARGS:-} > "$tmp/serve.out" 2>&1 &
serve_pid=$!
i=0
until curl -fs "http://127.0.0.1:$port/healthz" > /dev/null; do
    i=$((i + 1))
    if [ "$i" -gt 600 ]; then
        echo "serve-rss.sh: the exporter did not answer: $(cat "$tmp/serve.out")" >&2
        exit 1
    fi
    sleep 0.5
done
: > "$tmp/durations"
i=0
while [ "$i" -lt "$scrapes" ]; do
    if ! curl -fsS "http://127.0.0.1:$port/metrics" > "$tmp/body" 2> "$tmp/curl.err"; then
        echo "serve-rss.sh: scrape $((i + 1)) failed: $(cat "$tmp/curl.err"); the exporter said: $(cat "$tmp/serve.out")" >&2
        exit 1
    fi
    sed -n 's/^procscope_scrape_duration_seconds \(.*\)$/\1/p' "$tmp/body" >> "$tmp/durations"
    i=$((i + 1))
done
idle_count=$(sed -n 's/^namedprocess_namegroup_num_procs{groupname="idle"} \(.*\)$/\1/p' "$tmp/body")
median=$(sort -g "$tmp/durations" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m * 1000 }')
echo "processes: $(ls /proc | grep -c '^[0-9]') (idle group: $idle_count)"
echo "scrapes: $scrapes, median scrape duration: $median ms (min $(sort -g "$tmp/durations" | head -n 1), max $(sort -g "$tmp/durations" | tail -n 1) s)"
echo "VmRSS: $(awk '/^VmRSS/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$serve_pid/status"), $(awk '/^(RssAnon|RssFile)/ { printf "%s %.1f MiB ", $1, $2 / 1024 }' "/proc/$serve_pid/status")(peak, VmHWM: $(awk '/^VmHWM/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$serve_pid/status"))"
echo "PSS: $(awk '/^Pss:/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$serve_pid/smaps_rollup")"
echo "threads: $(awk '/^Threads/ { print $2 }' "/proc/$serve_pid/status")"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${SERVE_NMT:-0}" = 1 ]; then
    "${JAVA_HOME:+$JAVA_HOME/bin/}jcmd" "$serve_pid" VM.native_memory summary | sed -n '/^Total/,/^$/p; /^-  *[A-Z]/,/^$/{/committed/p}'
fi
