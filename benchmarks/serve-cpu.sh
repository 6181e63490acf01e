#!/bin/sh
# The CPU time of `procscope serve` and of prometheus-process-exporter per scrape, whole processes, in one run.
#
#   benchmarks/serve-cpu.sh [N] [SCRAPES] [MODE]
#
# Starts N idle processes (benchmarks/src/main/c/idle.c, default 1,000), then `./procscope serve` (the launcher's
# options; SERVE_ARGS are more options of `serve`, e.g. --no-doctor) and prometheus-process-exporter 0.7.10 (the
# Debian package; PROCESS_EXPORTER names another binary, -threads=false -gather-smaps=false as serve's defaults),
# each on a free localhost port. MODE `comm` (the default) groups every process by its command name in both
# (`{{.Comm}}`); MODE `rules` groups by a regular expression on the command line, `idle` then `other`, in both
# (serve: --group-by idle=cmdline:idle --group-by 'other=.*'), as ScrapeBenchmark's scrapeRules and
# exporterScrapeRules do. Both are scraped 10 times to warm up, then SCRAPES times each (default 20), alternating
# one scrape of each, and the script prints each one's CPU time per scrape (utime + stime of all its threads, from
# /proc/PID/stat, over the alternating scrapes: garbage collection, compilation and background threads included),
# the ratio exporter / serve, the median wall time of a scrape of each (curl's time_total) and its ratio, the
# process count and the load average. Every process it starts is ended by its pid.
# Needs gcc, curl and python3; `./procscope` builds the tool if it is not built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"
n=${1:-1000}
scrapes=${2:-20}
mode=${3:-comm}
native=benchmarks/target/native
mkdir -p "$native"
[ -x "$native/idle" ] || gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$native/idle" benchmarks/src/main/c/idle.c
tmp=$(mktemp -d)
serve_pid=
exporter_pid=
idle_pid=
finish() {
    trap - EXIT INT TERM
    for p in $serve_pid $exporter_pid; do
        kill "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    exec 3>&- 2>/dev/null || true
    if [ -n "$idle_pid" ]; then
        kill "$idle_pid" 2>/dev/null || true
        wait "$idle_pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap finish EXIT INT TERM

case "$mode" in
    comm)
        set --
        printf 'process_names:\n  - name: "{{.Comm}}"\n    cmdline:\n    - %s\n' "'.+'" > "$tmp/config.yml"
        ;;
    rules)
        set -- --group-by idle=cmdline:idle --group-by 'other=.*'
        printf 'process_names:\n  - name: idle\n    cmdline:\n    - %s\n  - name: other\n    cmdline:\n    - %s\n' \
            "'idle'" "'.*'" > "$tmp/config.yml"
        ;;
    *)
        echo "serve-cpu.sh: MODE is comm or rules, not $mode" >&2
        exit 2
        ;;
esac

mkfifo "$tmp/in"
"$native/idle" fleet "$n" < "$tmp/in" > "$tmp/pids" &
idle_pid=$!
exec 3> "$tmp/in"
while ! grep -qs '^ready$' "$tmp/pids"; do sleep 0.2; done

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
serve_port=$(free_port)
# shellcheck disable=SC2086 # SERVE_ARGS is a list of options
./procscope serve --listen "127.0.0.1:$serve_port" ${SERVE_ARGS:-} "$@" > "$tmp/serve.out" 2>&1 &
serve_pid=$!
exporter_port=$(free_port)
"${PROCESS_EXPORTER:-prometheus-process-exporter}" -web.listen-address "127.0.0.1:$exporter_port" \
    -config.path "$tmp/config.yml" -threads=false -gather-smaps=false > "$tmp/exporter.out" 2>&1 &
exporter_pid=$!
for port in "$serve_port" "$exporter_port"; do
    i=0
    until curl -fs "http://127.0.0.1:$port/metrics" > /dev/null; do
        i=$((i + 1))
        if [ "$i" -gt 600 ]; then
            echo "serve-cpu.sh: nothing answered on port $port: $(cat "$tmp/serve.out" "$tmp/exporter.out")" >&2
            exit 1
        fi
        sleep 0.5
    done
done
# One scrape of port $1; its wall time (curl's time_total: connecting, the scrape, the transfer) goes to wall.$1.
scrape() {
    if ! curl -fsS -o "$tmp/body.$1" -w '%{time_total}\n' "http://127.0.0.1:$1/metrics" >> "$tmp/wall.$1" \
            2> "$tmp/curl.err"; then
        echo "serve-cpu.sh: a scrape of port $1 failed: $(cat "$tmp/curl.err")" >&2
        exit 1
    fi
}
# utime + stime of a process in clock ticks (fields 14 and 15 of /proc/PID/stat, counted after the command name)
cpu_ticks() {
    sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}
# Scrapes serve and the exporter in turn, $1 times each.
scrape_both() {
    i=0
    while [ "$i" -lt "$1" ]; do
        scrape "$serve_port"
        scrape "$exporter_port"
        i=$((i + 1))
    done
}
scrape_both 10
: > "$tmp/wall.$serve_port"
: > "$tmp/wall.$exporter_port"
serve0=$(cpu_ticks "$serve_pid")
exporter0=$(cpu_ticks "$exporter_pid")
scrape_both "$scrapes"
serve1=$(cpu_ticks "$serve_pid")
exporter1=$(cpu_ticks "$exporter_pid")
idle_serve=$(sed -n 's/^namedprocess_namegroup_num_procs{groupname="idle"} \(.*\)$/\1/p' "$tmp/body.$serve_port")
idle_exporter=$(sed -n 's/^namedprocess_namegroup_num_procs{groupname="idle"} \(.*\)$/\1/p' "$tmp/body.$exporter_port")
hz=$(getconf CLK_TCK)
echo "mode: $mode, serve options: ${SERVE_ARGS:-} $*"
echo "processes: $(ls /proc | grep -c '^[0-9]') (idle group: serve $idle_serve, exporter $idle_exporter)"
awk -v s0="$serve0" -v s1="$serve1" -v e0="$exporter0" -v e1="$exporter1" -v n="$scrapes" -v hz="$hz" 'BEGIN {
    s = (s1 - s0) * 1000 / hz / n; e = (e1 - e0) * 1000 / hz / n
    printf "CPU per scrape, whole process, %d scrapes each: serve %.1f ms, process-exporter %.1f ms\n", n, s, e
    if (s > 0) printf "exporter / serve: %.2fx\n", e / s
}'
# the median of a file of numbers, in milliseconds
median_ms() {
    sort -g "$1" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m * 1000 }'
}
serve_wall=$(median_ms "$tmp/wall.$serve_port")
exporter_wall=$(median_ms "$tmp/wall.$exporter_port")
echo "wall time per scrape (curl's time_total), median of $scrapes each: serve $serve_wall ms, process-exporter $exporter_wall ms"
awk -v s="$serve_wall" -v e="$exporter_wall" 'BEGIN { if (s > 0) printf "exporter / serve, wall: %.2fx\n", e / s }'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
