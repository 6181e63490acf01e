#!/bin/bash
# Builds the kit that check-real-gpu.sh runs on a machine with an NVIDIA GPU (which may have no Java):
# a jlink'ed Java runtime plus the jars, in nvml-binding/target/device-kit. Run from the repository root
# after `mvn verify` (the jars and test classes must exist).
set -euo pipefail
root=$(pwd)
kit="$root/nvml-binding/target/device-kit"
version=$(sed -n 's:.*<version>\(.*-SNAPSHOT\)</version>.*:\1:p' pom.xml | head -1)
for f in procfs-api/target/procfs-api-$version.jar procfs-impl-linux/target/procfs-impl-linux-$version.jar \
         nvml-binding/target/nvml-binding-$version.jar nvml-binding/target/test-classes/io/github/procscope/nvml/RealGpuCheck.class; do
  [ -f "$f" ] || { echo "missing $f: run mvn verify first" >&2; exit 1; }
done
rm -rf "$kit"
mkdir -p "$kit/lib"
# Every runtime dependency (JNA for NVML; jnr-posix, jnr-ffi and jffi for the process table's native reads),
# resolved by Maven from the modules installed into the local repository.
mvn -q -B -DskipTests -Dmaven.javadoc.skip=true install -pl procfs-api,procfs-impl-linux
mvn -q -B dependency:copy-dependencies -pl nvml-binding -DincludeScope=runtime \
    -DexcludeGroupIds=io.github.procscope -DoutputDirectory="$kit/lib"
cp procfs-api/target/procfs-api-$version.jar procfs-impl-linux/target/procfs-impl-linux-$version.jar \
   nvml-binding/target/nvml-binding-$version.jar "$kit/lib/"
# The check itself lives in the test classes.
jar --create --file "$kit/lib/real-gpu-check.jar" -C nvml-binding/target/test-classes io/github/procscope/nvml/RealGpuCheck.class
# java.logging for JNA and jnr; jdk.unsupported for direct buffers; java.management for jnr-ffi; no AWT.
jlink --add-modules java.base,java.logging,jdk.unsupported,java.management --strip-debug --no-man-pages --no-header-files \
      --compress=2 --output "$kit/runtime"
cp nvml-binding/src/test/device/check-real-gpu.sh "$kit/"
du -sh "$kit"
