#!/usr/bin/env bash
# `npm test`'s set-up step: what the WebGPU, browser and native-baseline tests need beyond
# `npm install` — Debian's chromium (SwiftShader's Vulkan driver, and the headless browser) and a
# C compiler with OpenMP. Installs them when it can (root, or passwordless sudo, and apt-get),
# as .ci/run does; otherwise says what is missing and how to install it, and the tests that need
# it are left out with that reason (test/support/environment.ts). Never fails the test run.
# SIMT_TEST_SETUP=0 skips this step.
set -uo pipefail
cd "$(dirname "$0")/.."
[ "${SIMT_TEST_SETUP:-1}" = "0" ] && exit 0

has_vulkan_driver() {
  [ -n "${VK_ICD_FILENAMES:-}" ] || [ -f /usr/lib/chromium/vk_swiftshader_icd.json ] ||
    ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json >/dev/null 2>&1
}

missing=()
has_vulkan_driver && [ -x "${SIMT_CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v cc >/dev/null 2>&1 || missing+=(cc)
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo"; else SUDO="none"; fi
fi
if [ "$SUDO" = "none" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "test set-up: missing ${missing[*]}, and cannot install it here (needs apt-get and root or passwordless sudo):"
  echo "  the tests that need it are left out (the run says which); to run them: sudo bash scripts/ci-webgpu-setup.sh"
  echo "  (chromium: WebGPU on SwiftShader and the browser tests) and a C compiler with OpenMP (cc: native baselines)"
  exit 0
fi

echo "test set-up: installing ${missing[*]} (SIMT_TEST_SETUP=0 skips this)"
for m in "${missing[@]}"; do
  case "$m" in
    chromium) bash scripts/ci-webgpu-setup.sh || echo "test set-up: chromium could not be installed; the WebGPU and browser tests are left out" ;;
    cc) { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends gcc libc6-dev libgomp1; } ||
      echo "test set-up: gcc could not be installed; the native-baseline tests are skipped" ;;
  esac
done
exit 0
