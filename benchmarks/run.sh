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
#   benchmarks/run.sh --jdks     only the cross-JDK section (about 15 minutes): on the JDK on the PATH and on a
#                                JDK 25 (JDK25_HOME, or the usual install places), start-up of `procscope ps`
#                                against a hello-world JVM, the first Signals.system() per native back end,
#                                and the snapshot against C and OSHI; results in benchmarks/results/jdks/.
#                                The full run measures this section too.
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
jdks_only=no
for arg in "$@"; do
    case "$arg" in
        --quick) quick=yes ;;
        --report-only) measure=no ;;
        --jdks) jdks_only=yes ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument $arg (try --quick, --report-only or --jdks)" >&2; exit 2 ;;
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
    gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$native/forker" benchmarks/src/main/c/forker.c
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

# ---------------------------------------------------------------- the cross-JDK section

jdkdir=$out/jdks
mkdir -p "$jdkdir"

# The JDK on the PATH, then a JDK 25 if there is one.
jdk_homes() {
    first=$(readlink -f "$(command -v java)")
    first=${first%/bin/java}
    echo "$first"
    for h in "${JDK25_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/java-25-openjdk-amd64; do
        if [ -n "$h" ] && [ -x "$h/bin/java" ] && [ "$(readlink -f "$h")" != "$first" ]; then
            echo "$h"
            return
        fi
    done
}

feature_of() {
    sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" | head -n 1
}

# Wall time of a command in nanoseconds, its output discarded.
elapsed() {
    t0=$(date +%s%N)
    "$@" </dev/null >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    echo $((t1 - t0))
}

measure_jdks() {
    rounds=15
    runs=11
    snapshot_opts="-p fleetSize=100,1000,5000"
    if [ "$quick" = yes ]; then
        rounds=3
        runs=3
        snapshot_opts="-wi 1 -i 3 -w 200ms -r 200ms -p fleetSize=100"
    fi
    mkdir -p "$native/hello"
    javac --release 17 -d "$native/hello" benchmarks/src/main/startup/Hello.java
    features=""
    for home in $(jdk_homes); do
        f=$(feature_of "$home")
        features="$features $f"
        "$home/bin/java" -version 2>&1 | sed -n 2p > "$jdkdir/jdk$f.version"
        echo "run.sh: JDK $f ($home): start-up, $rounds interleaved rounds..." >&2
        JAVA_HOME=$home ./procscope ps >/dev/null 2>&1   # makes the launcher's archive for this JDK
        echo "# round hello_ns ps_ns ps_without_archive_ns" > "$jdkdir/jdk$f.startup"
        i=1
        while [ "$i" -le "$rounds" ]; do
            hello=$(elapsed "$home/bin/java" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto -cp "$native/hello" Hello)
            ps=$(JAVA_HOME=$home elapsed sh ./procscope ps)
            bare=$(JAVA_HOME=$home PROCSCOPE_NO_ARCHIVE=1 elapsed sh ./procscope ps)
            echo "$i $hello $ps $bare" >> "$jdkdir/jdk$f.startup"
            i=$((i + 1))
        done
        backends=jnr
        if [ "$f" -ge 22 ]; then
            backends="ffm jnr"
        fi
        rm -f "$jdkdir/signal.note"   # figures measured here, with the rest: no separate note
        for b in $backends; do
            echo "run.sh: JDK $f: first Signals.system() on $b, $runs fresh JVMs..." >&2
            echo "# system_ns first_send_ns system_cpu_ns first_send_cpu_ns" > "$jdkdir/jdk$f-$b.signal"
            i=1
            while [ "$i" -le "$runs" ]; do
                "$home/bin/java" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto --enable-native-access=ALL-UNNAMED \
                    -Dprocscope.native.backend="$b" -cp "$jar" io.github.procscope.benchmarks.FirstSignalProbe \
                    2>/dev/null >> "$jdkdir/jdk$f-$b.signal"
                i=$((i + 1))
            done
        done
        echo "run.sh: JDK $f: the snapshot against C and OSHI (JMH)..." >&2
        rm -f "$jdkdir/jdk$f.census"
        jargs="-Dprocscope.bench.native=$root/$native -Dprocscope.bench.census=$root/$jdkdir/jdk$f.census"
        jargs="$jargs -Dprocscope.bench.repository=$root -javaagent:$root/$jar --enable-native-access=ALL-UNNAMED"
        jargs="$jargs --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED"
        jargs="$jargs --add-opens=java.base/java.time=ALL-UNNAMED"
        # shellcheck disable=SC2086 # snapshot_opts is a list of options
        # jmh.ignoreLock: on a shared machine another JMH run may hold /tmp/jmh.lock; the load it adds is
        # what every figure here is measured under, ratios within one run included.
        "$home/bin/java" -Djmh.ignoreLock=true -jar "$jar" 'SnapshotBenchmark\.(procscope|oshi|cEqualWork)$' $snapshot_opts -prof gc \
            -rf json -rff "$jdkdir/jdk$f.json" -jvm "$home/bin/java" -jvmArgsAppend "$jargs"
        sed -i "s|$root/||g; s|$root|.|g" "$jdkdir/jdk$f.json"
    done
    echo "$features" > "$jdkdir/features"
}

# Writes the cross-JDK section into the report, between its markers (added at the end the first time).
splice_jdks() {
    [ -f "$jdkdir/features" ] || return 0
    section=$jdkdir/section.md
    # shellcheck disable=SC2046 # one argument per JDK
    java -cp "$jar" io.github.procscope.benchmarks.JdkReport "$jdkdir" "$section" $(cat "$jdkdir/features")
    if grep -q '<!-- jdks:begin -->' "$report" 2>/dev/null; then
        awk -v f="$section" '/<!-- jdks:begin -->/ { print; while ((getline l < f) > 0) print l; skip = 1; next }
            /<!-- jdks:end -->/ { skip = 0 } !skip { print }' "$report" > "$report.tmp"
        mv "$report.tmp" "$report"
    else
        { printf '\n<!-- jdks:begin -->\n'; cat "$section"; printf '<!-- jdks:end -->\n'; } >> "$report"
    fi
}

if [ "$jdks_only" = yes ]; then
    [ "$measure" = yes ] && measure_jdks
    splice_jdks
    echo "run.sh: wrote the JDK section of $report (raw results: $jdkdir)" >&2
    exit 0
fi

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
if [ "$measure" = yes ]; then
    measure_jdks
fi
splice_jdks
echo "run.sh: wrote $report (raw results: $json, $jdkdir)" >&2
