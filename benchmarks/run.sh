#!/bin/sh
# Runs the procscope benchmarks once and writes BENCHMARKS.md at the repository root.
#
#   benchmarks/run.sh            the full run (about 15 minutes on two cores): fleets of 100, 1,000 and
#                                5,000 idle processes; results in benchmarks/results/latest.json
#   benchmarks/run.sh --quick    a smoke test: short iterations, N = 100 only; results and report go to
#                                benchmarks/target/quick/ and BENCHMARKS.md is left alone
#   benchmarks/run.sh --report-only
#                                no measuring: writes BENCHMARKS.md again from benchmarks/results/latest.*
#                                (after an edit of benchmarks/changes.md, say)
#
# Needs a JDK 17+, Maven, gcc and lsof. It builds the modules it needs, compiles the C parts (the idle
# process helper, the C references and the NVML test double), runs JMH once with the gc profiler, then
# runs the report generator. Every process the benchmarks start is ended by its pid.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"

quick=no
measure=yes
for arg in "$@"; do
    case "$arg" in
        --quick) quick=yes ;;
        --report-only) measure=no ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument $arg (try --quick or --report-only)" >&2; exit 2 ;;
    esac
done

for tool in java mvn gcc lsof; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "run.sh: $tool is needed and not on the PATH" >&2
        exit 2
    fi
done

echo "run.sh: building (tests skipped)..." >&2
mvn -q -B -DskipTests -Dskip.javadoc -Pbenchmarks-jar -pl benchmarks,procscope-cli -am package

native=benchmarks/target/native
mkdir -p "$native"
if [ "$measure" = yes ]; then
    echo "run.sh: compiling the C parts..." >&2
    gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$native/idle" benchmarks/src/main/c/idle.c
    gcc -std=gnu11 -O2 -Wall -Wextra -Werror -fPIC -shared -o "$native/libprocfloor.so" benchmarks/src/main/c/floor.c -ldl
    gcc -std=gnu11 -O2 -Wall -Wextra -Werror -fPIC -shared -pthread -fvisibility=hidden -DND_FULL \
        -Wl,-soname,libnvidia-ml.so.1 -o "$native/libnvidia-ml.so.1" nvml-binding/src/test/c/nvml_double.c
fi

if [ "$quick" = yes ]; then
    out=benchmarks/target/quick
    report=$out/BENCHMARKS.md
    jmh_opts="-wi 1 -i 3 -w 200ms -r 200ms -p fleetSize=100"
else
    out=benchmarks/results
    report=BENCHMARKS.md
    jmh_opts=""
fi
mkdir -p "$out"
json=$out/latest.json
census=$out/latest.census
machine=$out/latest.machine
jar=benchmarks/target/benchmarks.jar

if [ "$measure" = yes ]; then
    rm -f "$census"

    pom_property() {
        sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" pom.xml | head -n 1
    }

    commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    if [ -n "$(git status --porcelain -- procfs-api/src/main procfs-impl-linux/src/main nvml-binding/src/main procscope-cli/src/main 2>/dev/null)" ]; then
        commit="$commit (with uncommitted library changes)"
    fi
    {
        echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
        echo "Cores: $(nproc)"
        echo "Memory: $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
        echo "Kernel: $(uname -sr)"
        echo "OS: $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}")"
        echo "JDK: $(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.vm.name = //p') $(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.runtime.version = //p')"
        echo "procscope: $(pom_property version) at commit $commit"
        echo "OSHI: $(pom_property oshi.version) (oshi-core, on JNA $(pom_property jna.version))"
        echo "JMH: $(pom_property jmh.version)"
        echo "lsof: $(lsof -v 2>&1 | sed -n 's/^ *revision: *//p' | head -n 1)"
        echo "gcc: $(gcc -dumpfullversion)"
        echo "Processes before the run: $(ls /proc | grep -c '^[0-9]')"
        echo "pid_max: $(cat /proc/sys/kernel/pid_max)"
    } > "$machine"

    jvm_args="-Dprocscope.bench.native=$root/$native -Dprocscope.bench.census=$root/$census"
    jvm_args="$jvm_args -Dprocscope.bench.repository=$root -javaagent:$root/$jar"
    jvm_args="$jvm_args --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED"
    jvm_args="$jvm_args --add-opens=java.base/java.time=ALL-UNNAMED"

    echo "run.sh: running JMH (see the progress below)..." >&2
    # shellcheck disable=SC2086 # jmh_opts is a list of options
    java -jar "$jar" $jmh_opts -prof gc -rf json -rff "$json" -jvmArgsAppend "$jvm_args"
    # The raw results are kept in the repository: paths in them are made relative to its root.
    sed -i "s|$root/||g; s|$root|.|g" "$json"
fi

script=benchmarks/run.sh
if [ "$quick" = yes ]; then
    script="$script --quick"
fi
command="$script
# which builds, compiles the C parts into $native, and runs:
java -jar $jar ${jmh_opts:+$jmh_opts }-prof gc -rf json -rff $json \\
    -jvmArgsAppend \"-Dprocscope.bench.native=... -Dprocscope.bench.census=$census -Dprocscope.bench.repository=. -javaagent:$jar --add-opens=java.base/java.lang=ALL-UNNAMED ...\""

java -cp "$jar" io.github.procscope.benchmarks.Report --results "$json" --census "$census" \
    --machine "$machine" --changes benchmarks/changes.md --command "$command" --out "$report"
echo "run.sh: wrote $report (raw results: $json)" >&2
