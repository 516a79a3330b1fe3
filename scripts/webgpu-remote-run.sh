#!/usr/bin/env bash
# Runs simt's WebGPU cross-check and benchmark on a GPU machine without Node.js, from a folder made
# by scripts/webgpu-remote-pack.sh. Usage: webgpu-remote-run.sh DIR [SIZE]   (SIZE default 16M)
# JOBS (default: every cross-check job) picks the jobs, SEEDS (default 1) their seeds, and
# NO_BENCH=1 skips the benchmark.
# Writes DIR/../ nothing; results go to stdout and, when OUTDIR is set, to $OUTDIR/*.json.
set -uo pipefail
DIR=$(cd "${1:?usage: webgpu-remote-run.sh DIR [SIZE]}" && pwd)
SIZE=${2:-16777216}
OUTDIR=${OUTDIR:-}
WORK=${WORK:-/tmp/simt-remote}
mkdir -p "$WORK/bin" "$WORK/app"
# 1. The Vulkan loader and the GL dispatch libraries NVIDIA's ICD (libGLX_nvidia) links against,
#    if the system lacks them (the GPU driver's ICD itself is expected to be installed).
if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 ' || ! ldconfig -p 2>/dev/null | grep -q 'libGLX\.so\.0 '; then
  for f in "$DIR"/debs/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
# 1b. The native CUDA baseline of the same kernels, when nvcc is there.
if command -v nvcc >/dev/null && [ -f "$DIR/cuda/cuda/seeds.cu" ]; then
  (cd "$DIR/cuda/cuda" && nvcc -O3 -o "$WORK/seeds" seeds.cu && "$WORK/seeds" "$SIZE") | tee ${OUTDIR:+"$OUTDIR/native-cuda.json"}
fi
# The NVIDIA ICD where container images put it, unless the caller chose one.
for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json; do
  if [ -z "${VK_ICD_FILENAMES:-}" ] && [ -f "$icd" ]; then export VK_ICD_FILENAMES=$icd; fi
done
# 2. node, and a node_modules with webgpu (dawn.node) beside the built simt.
[ -x "$WORK/bin/node" ] || xz -dc "$DIR/node.xz" > "$WORK/bin/node" && chmod +x "$WORK/bin/node"
export PATH="$WORK/bin:$PATH"
rm -rf "$WORK/app" && cp -r "$DIR/simt" "$WORK/app"
mkdir -p "$WORK/app/node_modules/webgpu/dist/linux-x64"
cp "$DIR/webgpu/index.js" "$DIR/webgpu/package.json" "$WORK/app/node_modules/webgpu/"
xz -dc "$DIR/webgpu/dawn.node.xz" > "$WORK/app/node_modules/webgpu/dist/linux-x64/dawn.node"
cd "$WORK/app"
echo "node $(node --version), VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-unset}"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
# 3. What simt sees, the cross-checks, the benchmark.
node bin/simt.js info || echo "simt info exited $?"
rc=0
for job in ${JOBS:-vecMax vecMin vecSum countModules sts-sort pixel pet}; do
  for seed in ${SEEDS:-1}; do
    if [ -n "$OUTDIR" ]; then
      f="$OUTDIR/crosscheck-$job${SEEDS:+-$seed}.json"
      node bin/simt.js crosscheck "$job" --size "$SIZE" --seed "$seed" --json > "$f"; r=$?
      node -e "const r=require('$f'); console.log('crosscheck', r.job, 'seed $seed', r.equal ? 'equal' : 'DIFFER', r.runs.map(x=>x.backend+' '+x.elapsedMs.toFixed(1)+' ms').join(', '))"
    else
      node bin/simt.js crosscheck "$job" --size "$SIZE" --seed "$seed"; r=$?
    fi
    [ $r -eq 0 ] || rc=$r
  done
done
# Warp shuffles and votes against wasm in the form this device picks (subgroup builtins on a GPU
# whose subgroups are CUDA's warps).
if [ -f scripts/webgpu-warp-check.mjs ]; then
  node scripts/webgpu-warp-check.mjs > "${OUTDIR:-/tmp}/warp-check.json"; r=$?
  head -1 "${OUTDIR:-/tmp}/warp-check.json"; tail -1 "${OUTDIR:-/tmp}/warp-check.json"
  [ $r -eq 0 ] || rc=$r
fi
if [ -n "${NO_BENCH:-}" ]; then
  :
elif [ -n "$OUTDIR" ]; then
  node scripts/bench-suite.mjs webgpu --json ${QUICK:+--quick} > "$OUTDIR/bench-webgpu.json" 2> >(tee "$OUTDIR/bench-webgpu.log" >&2) || rc=$?
else
  node scripts/bench-suite.mjs webgpu ${QUICK:+--quick} || rc=$?
fi
exit $rc
