#!/bin/bash
# Builds the kit that check-real-gpu.sh runs on a machine with an NVIDIA GPU (which may have no Java):
# a jlink'ed Java runtime plus the jars, in nvml-binding/target/device-kit. Run from the repository root
# after `mvn verify` (the jars and test classes must exist).
set -euo pipefail
root=$(pwd)
kit="$root/nvml-binding/target/device-kit"
version=$(sed -n 's:.*<version>\(.*-SNAPSHOT\)</version>.*:\1:p' pom.xml | head -1)
jna=$(find "${MAVEN_REPO:-$HOME/.m2/repository}/net/java/dev/jna/jna" -name "jna-5.18.1.jar" | head -1)
for f in procfs-api/target/procfs-api-$version.jar procfs-impl-linux/target/procfs-impl-linux-$version.jar \
         nvml-binding/target/nvml-binding-$version.jar nvml-binding/target/test-classes/io/github/procscope/nvml/RealGpuCheck.class; do
  [ -f "$f" ] || { echo "missing $f: run mvn verify first" >&2; exit 1; }
done
[ -n "$jna" ] || { echo "jna-5.18.1.jar not found in the local Maven repository" >&2; exit 1; }
rm -rf "$kit"
mkdir -p "$kit/lib"
cp procfs-api/target/procfs-api-$version.jar procfs-impl-linux/target/procfs-impl-linux-$version.jar \
   nvml-binding/target/nvml-binding-$version.jar "$jna" "$kit/lib/"
# The check itself lives in the test classes.
jar --create --file "$kit/lib/real-gpu-check.jar" -C nvml-binding/target/test-classes io/github/procscope/nvml/RealGpuCheck.class
# java.logging for JNA; jdk.unsupported for JNA's direct buffers; no AWT.
jlink --add-modules java.base,java.logging,jdk.unsupported --strip-debug --no-man-pages --no-header-files \
      --compress=2 --output "$kit/runtime"
cp nvml-binding/src/test/device/check-real-gpu.sh "$kit/"
du -sh "$kit"
