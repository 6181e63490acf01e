#!/bin/sh
# The cost of `procscope serve` with many processes: its own scrape duration and its memory.
#
#   benchmarks/serve-rss.sh [N] [SCRAPES]
#
# Starts N idle processes (benchmarks/src/main/c/idle.c, default 5,000), starts `./procscope serve` on a free
# localhost port with the launcher's serve options (PROCSCOPE_SERVE_JAVA_OPTS replaces them, as in the launcher),
# scrapes /metrics SCRAPES times (default 20), and prints the median of procscope_scrape_duration_seconds, the
# exporter's CPU time per scrape (all its threads), VmRSS (and its peak, VmHWM) and PSS (smaps_rollup), its threads,
# and the load average, and VmRSS again SERVE_SETTLE seconds later (default 10: the JVM gives the C library's free
# memory back every 5 s, the compiler's arenas with it). With SERVE_NMT=1 both servers below run with
# -XX:NativeMemoryTracking=summary, and it prints `jcmd PID VM.native_memory summary` and `GC.heap_info` of each;
# SERVE_ARGS are more options of `serve` (--no-doctor, say). Then it runs the smallest JVM HTTP server
# (benchmarks/src/main/startup/ConstantServer.java: com.sun.net.httpserver answering a constant string) under the
# very JVM options `serve` ran with (read from its /proc/PID/cmdline, the tool's own class-data archive and class
# path left out) and the same MALLOC_ARENA_MAX, scrapes it SCRAPES times, and prints its VmRSS, right after and
# SERVE_SETTLE seconds later, and the ratios of the two. Every process it starts is ended by its pid. Needs gcc,
# javac and curl; `./procscope` builds the tool if it is not built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"
n=${1:-5000}
scrapes=${2:-20}
settle=${SERVE_SETTLE:-10}
native=benchmarks/target/native
mkdir -p "$native"
[ -x "$native/idle" ] || gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$native/idle" benchmarks/src/main/c/idle.c
tmp=$(mktemp -d)
serve_pid=
idle_pid=
constant_pid=
finish() {
    trap - EXIT INT TERM
    [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
    if [ -n "$constant_pid" ]; then
        kill "$constant_pid" 2>/dev/null || true
        wait "$constant_pid" 2>/dev/null || true
    fi
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
# utime + stime of a process in clock ticks (fields 14 and 15 of /proc/PID/stat, counted after the command name)
cpu_ticks() {
    sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}
serve_ticks0=$(cpu_ticks "$serve_pid")
i=0
while [ "$i" -lt "$scrapes" ]; do
    if ! curl -fsS "http://127.0.0.1:$port/metrics" > "$tmp/body" 2> "$tmp/curl.err"; then
        echo "serve-rss.sh: scrape $((i + 1)) failed: $(cat "$tmp/curl.err"); the exporter said: $(cat "$tmp/serve.out")" >&2
        exit 1
    fi
    sed -n 's/^procscope_scrape_duration_seconds \(.*\)$/\1/p' "$tmp/body" >> "$tmp/durations"
    i=$((i + 1))
done
serve_ticks1=$(cpu_ticks "$serve_pid")
idle_count=$(sed -n 's/^namedprocess_namegroup_num_procs{groupname="idle"} \(.*\)$/\1/p' "$tmp/body")
median=$(sort -g "$tmp/durations" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m * 1000 }')
echo "processes: $(ls /proc | grep -c '^[0-9]') (idle group: $idle_count)"
echo "scrapes: $scrapes, median scrape duration: $median ms (min $(sort -g "$tmp/durations" | head -n 1), max $(sort -g "$tmp/durations" | tail -n 1) s)"
echo "serve's CPU time per scrape (all its threads, from /proc/PID/stat): $(awk -v a="$serve_ticks0" -v b="$serve_ticks1" -v n="$scrapes" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f ms", (b - a) * 1000 / hz / n }')"
echo "VmRSS: $(awk '/^VmRSS/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$serve_pid/status"), $(awk '/^(RssAnon|RssFile)/ { printf "%s %.1f MiB ", $1, $2 / 1024 }' "/proc/$serve_pid/status")(peak, VmHWM: $(awk '/^VmHWM/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$serve_pid/status"))"
echo "PSS: $(awk '/^Pss:/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$serve_pid/smaps_rollup")"
serve_rss_kb=$(awk '/^VmRSS/ { print $2 }' "/proc/$serve_pid/status")
sleep "$settle"
serve_settled_kb=$(awk '/^VmRSS/ { print $2 }' "/proc/$serve_pid/status")
echo "${settle} s later: VmRSS: $(awk -v k="$serve_settled_kb" 'BEGIN { printf "%.1f MiB", k / 1024 }'), $(awk '/^(RssAnon|RssFile)/ { printf "%s %.1f MiB ", $1, $2 / 1024 }' "/proc/$serve_pid/status")PSS: $(awk '/^Pss:/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$serve_pid/smaps_rollup")"
echo "threads: $(awk '/^Threads/ { print $2 }' "/proc/$serve_pid/status")"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# With SERVE_NMT=1: the JVM's own account of its memory (Native Memory Tracking), its heap, and its classes.
jvm_account() {
    jcmd_bin="$(dirname "$(readlink "/proc/$1/exe")")/jcmd"
    "$jcmd_bin" "$1" VM.native_memory summary | sed -n '/^Total/,/^$/p; /^-  *[A-Z]/,/^$/{/committed/p; /classes #/p; /instance classes/p; /threads #/p}'
    "$jcmd_bin" "$1" GC.heap_info | sed -n '2,$p'
}
if [ "${SERVE_NMT:-0}" = 1 ]; then
    jvm_account "$serve_pid"
fi

# The smallest JVM HTTP server under serve's JVM options: argv of serve up to -jar, less argv[0] (the same java
# binary runs it) and the tool's own class-data archive (the constant server gets the JDK's default one, -Xshare:auto).
java_bin=$(readlink "/proc/$serve_pid/exe")
tr '\0' '\n' < "/proc/$serve_pid/cmdline" | sed -n '2,$p' | sed '/^-jar$/,$d' \
    | grep -v -e '^-XX:SharedArchiveFile=' -e '^-XX:AOTCache=' > "$tmp/options"
serve_malloc=$(tr '\0' '\n' < "/proc/$serve_pid/environ" | sed -n 's/^MALLOC_ARENA_MAX=//p')
kill "$serve_pid" 2>/dev/null || true
wait "$serve_pid" 2>/dev/null || true   # ended by SIGTERM: a non-zero status, which set -e must not take
serve_pid=
mkdir -p "$native/constant"
"$(dirname "$java_bin")/javac" -d "$native/constant" benchmarks/src/main/startup/ConstantServer.java
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# shellcheck disable=SC2046 # one argument per line of the options file
env ${serve_malloc:+MALLOC_ARENA_MAX=$serve_malloc} "$java_bin" $(cat "$tmp/options") -Xshare:auto \
    -cp "$native/constant" ConstantServer "$port" > "$tmp/constant.out" 2>&1 &
constant_pid=$!
i=0
until curl -fs "http://127.0.0.1:$port/metrics" > /dev/null; do
    i=$((i + 1))
    if [ "$i" -gt 600 ]; then
        echo "serve-rss.sh: the constant server did not answer: $(cat "$tmp/constant.out")" >&2
        exit 1
    fi
    sleep 0.2
done
i=0
while [ "$i" -lt "$scrapes" ]; do
    curl -fsS "http://127.0.0.1:$port/metrics" > /dev/null
    i=$((i + 1))
done
constant_rss_kb=$(awk '/^VmRSS/ { print $2 }' "/proc/$constant_pid/status")
echo "constant JVM HTTP server, serve's options ($(tr '\n' ' ' < "$tmp/options")-Xshare:auto${serve_malloc:+, MALLOC_ARENA_MAX=$serve_malloc}):"
echo "  VmRSS: $(awk -v k="$constant_rss_kb" 'BEGIN { printf "%.1f MiB", k / 1024 }'), $(awk '/^(RssAnon|RssFile)/ { printf "%s %.1f MiB ", $1, $2 / 1024 }' "/proc/$constant_pid/status")"
sleep "$settle"
constant_settled_kb=$(awk '/^VmRSS/ { print $2 }' "/proc/$constant_pid/status")
echo "  ${settle} s later: VmRSS: $(awk -v k="$constant_settled_kb" 'BEGIN { printf "%.1f MiB", k / 1024 }'), $(awk '/^(RssAnon|RssFile)/ { printf "%s %.1f MiB ", $1, $2 / 1024 }' "/proc/$constant_pid/status")"
echo "  PSS: $(awk '/^Pss:/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$constant_pid/smaps_rollup"), threads: $(awk '/^Threads/ { print $2 }' "/proc/$constant_pid/status")"
if [ "${SERVE_NMT:-0}" = 1 ]; then
    jvm_account "$constant_pid"
fi
echo "serve / constant server VmRSS: $(awk -v a="$serve_rss_kb" -v b="$constant_rss_kb" 'BEGIN { printf "%.2fx", a / b }') after the scrapes, $(awk -v a="$serve_settled_kb" -v b="$constant_settled_kb" 'BEGIN { printf "%.2fx", a / b }') ${settle} s later"
