#!/usr/bin/env bash
# Packs what a Linux x86-64 machine with a GPU and its Vulkan driver, but no Node.js, needs to run
# simt's WebGPU cross-check and benchmark (see docs/webgpu.md, "On a machine with a real GPU"):
#
#   DIR/node.xz                 this machine's `node` binary, xz-compressed (~24 MB)
#   DIR/webgpu/                 the `webgpu` package's index.js, package.json, dawn.node.xz (~5 MB)
#   DIR/debs/*.deb              the Vulkan loader and GL dispatch libraries (libvulkan1, libglvnd0,
#                               libglx0, libegl1, …) that NVIDIA's Vulkan ICD needs, for bare machines
#   DIR/cuda/                   the native CUDA baseline (bench/native/cuda/seeds.cu), built there with nvcc
#   DIR/simt/                   dist/, build/, bin/, the WGSL sources, package.json, kernels/ and
#                               examples/kernels/ with the modules the webgpu benchmark compiles (disk cache)
#
# Usage: npm run build && scripts/webgpu-remote-pack.sh [DIR]   (default .dev/remote, git-ignored)
# Then copy DIR (or the repo with DIR in it) to the GPU machine and run
# scripts/webgpu-remote-run.sh DIR there.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-.dev/remote}
mkdir -p "$DIR/webgpu" "$DIR/debs" "$DIR/simt/assembly"
NODE_BIN=$(command -v node)
[ -f "$DIR/node.xz" ] || xz -T0 -6 -c "$NODE_BIN" > "$DIR/node.xz"
WG=node_modules/webgpu
cp "$WG/index.js" "$WG/package.json" "$DIR/webgpu/"
[ -f "$DIR/webgpu/dawn.node.xz" ] || xz -T0 -6 -c "$WG/dist/linux-x64/dawn.node" > "$DIR/webgpu/dawn.node.xz"
if ! ls "$DIR"/debs/libglx0_*.deb >/dev/null 2>&1; then
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/simt-apt-amd64'
  mkdir -p /tmp/simt-apt-amd64/partial
  # shellcheck disable=SC2086
  apt-get $o update -qq && (cd "$DIR/debs" && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fi
rm -rf "$DIR/cuda" && mkdir -p "$DIR/cuda/cuda" && cp bench/native/simt_data.h "$DIR/cuda/" && cp bench/native/cuda/seeds.cu "$DIR/cuda/cuda/"
rm -rf "$DIR/simt/dist" "$DIR/simt/build" "$DIR/simt/bin" "$DIR/simt/assembly"
cp -r dist build bin package.json "$DIR/simt/"
mkdir -p "$DIR/simt/scripts" && cp scripts/bench-suite.mjs scripts/webgpu-warp-check.mjs scripts/webgpu-launch-probe.mjs scripts/webgpu-pixel-twins.mjs scripts/webgpu-findclus-variants.mjs \
  scripts/sts-sort-probe.mjs scripts/sts-stages-probe.mjs scripts/launch-scaling-probe.mjs scripts/webgpu-wide-twins.mjs scripts/webgpu-launch-builds.mjs scripts/pool-spin-probe.mjs scripts/pool-fanout-floor.mjs \
  scripts/count-side-by-side-floor.mjs scripts/sts-warmup-curve.mjs "$DIR/simt/scripts/"
# The floor probe's wasm, made here: the GPU machine has no Binaryen.
node scripts/count-side-by-side-floor.mjs --emit && cp scripts/count-side-by-side-floor.*.wasm "$DIR/simt/scripts/"
(find assembly -name '*.wgsl' | while read -r f; do mkdir -p "$DIR/simt/$(dirname "$f")" && cp "$f" "$DIR/simt/$f"; done)
# The kernel sources the webgpu benchmark compiles, and their built modules in the disk cache the
# compiler looks in first (the GPU machine gets no AssemblyScript compiler).
rm -rf "$DIR/simt/kernels" "$DIR/simt/examples" "$DIR/simt/node_modules/.cache/simt"
# The compiler caches in ./node_modules/.cache/simt only where ./node_modules exists (else in the
# system's temporary folder, which does not travel): make it, empty, on a fresh checkout.
mkdir -p "$DIR/simt/node_modules"
cp -r kernels "$DIR/simt/" && mkdir -p "$DIR/simt/examples" "$DIR/simt/test/kernels" && cp -r examples/kernels "$DIR/simt/examples/" && cp test/kernels/language.ts "$DIR/simt/test/kernels/" && mkdir -p "$DIR/simt/bench/kernels" && cp bench/kernels/*.ts "$DIR/simt/bench/kernels/"
# The kernel runtime's sources: the compiler hashes them into its cache key.
mkdir -p "$DIR/simt/assembly/threads" && cp -r assembly/runtime "$DIR/simt/assembly/" && cp assembly/threads/compiled.ts "$DIR/simt/assembly/threads/"
(cd "$DIR/simt" && node --input-type=module -e "
const { compileKernelFiles } = await import('./dist/src/compiler/index.js');
for (const f of ['kernels/reduce/vecMax.ts', 'kernels/pixel/countModules.ts', 'examples/kernels/shuffleSum.ts', 'test/kernels/language.ts', 'bench/kernels/warpSums.ts']) await compileKernelFiles([f]);
")
cp scripts/webgpu-remote-run.sh "$DIR/"
du -sh "$DIR"
