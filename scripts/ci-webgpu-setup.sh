#!/usr/bin/env bash
# Makes WebGPU usable without a GPU for the `webgpu` (Dawn) npm package: installs Debian's
# chromium package, whose /usr/lib/chromium holds SwiftShader's Vulkan driver
# (vk_swiftshader_icd.json + libvk_swiftshader.so) and a Vulkan loader. Also installs the system
# Vulkan loader (libvulkan1) when missing; src/webgpu/gpu.ts can fall back to chromium's copy,
# but the system one is the ordinary setup.
#
# Idempotent: apt-get runs only when something is missing. Needs root (or sudo) and apt.
# After it, run tests with (or let openWebGpu() set) VK_ICD_FILENAMES=<icd json below>.
set -euo pipefail

ICD=/usr/lib/chromium/vk_swiftshader_icd.json

have_vulkan_loader() {
  ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 '
}

pkgs=()
[ -f "$ICD" ] || pkgs+=(chromium)
have_vulkan_loader || pkgs+=(libvulkan1)

if [ ${#pkgs[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "ci-webgpu-setup: installing ${pkgs[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}"
fi

if [ ! -f "$ICD" ]; then
  echo "ci-webgpu-setup: $ICD still missing after install" >&2
  exit 1
fi
echo "ci-webgpu-setup: SwiftShader ICD at $ICD"
echo "VK_ICD_FILENAMES=$ICD"
