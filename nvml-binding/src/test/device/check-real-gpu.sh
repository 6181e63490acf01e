#!/bin/bash
# Runs the NVML binding against a real NVIDIA driver and compares it with nvidia-smi and with a PyTorch
# process that allocates a known amount of GPU memory. Usage, from the repository root of a checkout that
# carries nvml-binding/target/device-kit (built by prepare-kit.sh):
#
#   bash nvml-binding/src/test/device/check-real-gpu.sh [KIT_DIR]
#
# Everything it prints and every file it writes goes to $OUT (or ./device-out): nvidia-smi's views, the
# binding's report, the comparison, and RESULT PASS/FAIL. Exit status: 0 pass, 1 a comparison failed,
# 2 NVML unavailable, 3 the environment lacks nvidia-smi.
set -uo pipefail
kit=${1:-nvml-binding/target/device-kit}
out=${OUT:-device-out}
mkdir -p "$out"
exec > >(tee "$out/check.log") 2>&1

java="$kit/runtime/bin/java"
[ -x "$java" ] || java=$(command -v java || true)
[ -n "$java" ] || { echo "no Java: build the kit with prepare-kit.sh"; exit 3; }
command -v nvidia-smi >/dev/null || { echo "nvidia-smi not found: not a GPU machine"; exit 3; }

query=index,uuid,name,pci.bus_id,memory.total,memory.used,utilization.gpu,temperature.gpu,power.draw,enforced.power.limit,clocks.sm,clocks.mem,pstate,driver_version,temperature.memory,utilization.encoder,utilization.decoder
nvidia-smi > "$out/nvidia-smi.txt" 2>&1
nvidia-smi -q > "$out/nvidia-smi-q.txt" 2>&1
cat "$out/nvidia-smi.txt"

# A PyTorch process holding a known allocation: 1 GiB of float32 on GPU 0.
torch_pid=""
torch_bytes=$((1024 * 1024 * 1024))
if command -v python3 >/dev/null && python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  python3 -u - "$torch_bytes" > "$out/torch.log" 2>&1 <<'PY' &
import os, sys, time, torch
n = int(sys.argv[1]) // 4
x = torch.empty(n, dtype=torch.float32, device="cuda:0")
x.fill_(1.0)
torch.cuda.synchronize()
print("READY", os.getpid(), torch.cuda.memory_allocated(0), flush=True)
time.sleep(300)
PY
  torch_pid=$!
  for _ in $(seq 1 240); do
    grep -q READY "$out/torch.log" 2>/dev/null && break
    kill -0 "$torch_pid" 2>/dev/null || break
    sleep 0.5
  done
  if grep -q READY "$out/torch.log"; then
    echo "PyTorch process $torch_pid holds $torch_bytes bytes: $(cat "$out/torch.log")"
  else
    echo "PyTorch process did not get ready:"; cat "$out/torch.log"; kill "$torch_pid" 2>/dev/null; torch_pid=""
  fi
else
  echo "no PyTorch with CUDA here: the process check is skipped"
fi

nvidia-smi --query-gpu=$query --format=csv,noheader,nounits > "$out/smi.csv"
nvidia-smi --query-compute-apps=pid,used_memory,gpu_uuid --format=csv,noheader,nounits > "$out/smi-apps.csv"
nvidia-smi dmon -c 3 > "$out/dmon.txt" 2>&1 || true
cat "$out/smi.csv" "$out/smi-apps.csv"

args=(--smi "$out/smi.csv" --apps "$out/smi-apps.csv")
[ -n "$torch_pid" ] && args+=(--torch-pid "$torch_pid" --torch-bytes "$torch_bytes")
"$java" -cp "$kit/lib/*" io.github.procscope.nvml.RealGpuCheck "${args[@]}" > "$out/binding.txt" 2>&1
rc=$?
cat "$out/binding.txt"

[ -n "$torch_pid" ] && kill "$torch_pid" 2>/dev/null && wait "$torch_pid" 2>/dev/null
exit $rc
