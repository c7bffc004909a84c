#!/usr/bin/env bash
# Installs what the project needs to build and test, only what is missing:
#   * Debian packages (checked one by one with dpkg-query; if any is missing,
#     `apt-get update` and one `apt-get install` of the missing ones);
#   * xDSL (`xdsl-opt`), an optional test peer, with pip into the `python3` on
#     PATH; failing to get it only prints a warning (its tests are skipped).
# Idempotent and non-interactive. Runs as root, or through sudo when not root.
set -euo pipefail

PACKAGES=(
  # toolchain
  cmake ninja-build g++ ccache git ca-certificates
  # building isl with imath (scripts/build-isl.sh)
  make curl xz-utils
  # MLIR/LLVM 22 (shared libMLIR.so/libLLVM.so, tablegen, lit, FileCheck)
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools libomp-22-dev
  # polyhedral library, unit tests
  libisl-dev libgtest-dev
  # Debian's interpreter with numpy (execution tests and references)
  python3 python3-numpy
  # MPI for distributed programs (libStencilMpi, mpirun, mpi4py)
  libopenmpi-dev openmpi-bin python3-mpi4py
)
XDSL_VERSION="${XDSL_VERSION:-0.74.0}"

log() { echo "install-deps: $*"; }

is_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

if ! command -v dpkg-query >/dev/null 2>&1; then
  log "error: dpkg-query not found; this script supports Debian/Ubuntu only" >&2
  exit 1
fi

missing=()
for p in "${PACKAGES[@]}"; do
  is_installed "$p" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      SUDO=(sudo -n)
    else
      log "error: not root and no sudo; cannot install: ${missing[*]}" >&2
      exit 1
    fi
  fi
  log "installing ${missing[*]}"
  APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" update
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" \
    install -y --no-install-recommends "${missing[@]}"
  still=()
  for p in "${missing[@]}"; do is_installed "$p" || still+=("$p"); done
  if [ ${#still[@]} -gt 0 ]; then
    log "error: still missing after apt-get install: ${still[*]}" >&2
    exit 1
  fi
else
  log "all ${#PACKAGES[@]} Debian packages present"
fi

# xDSL: a test peer only (cross-checks of the text form); never required.
if command -v xdsl-opt >/dev/null 2>&1; then
  log "xdsl-opt present"
elif command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then
  log "installing xdsl==${XDSL_VERSION} with $(command -v python3) -m pip"
  if timeout 900 python3 -m pip install --quiet --disable-pip-version-check \
       --no-input "xdsl==${XDSL_VERSION}" </dev/null; then
    # pyenv only sees new console scripts after a rehash.
    if command -v pyenv >/dev/null 2>&1; then pyenv rehash || true; fi
    hash -r
    if command -v xdsl-opt >/dev/null 2>&1; then
      log "installed xdsl (test peer)"
    else
      log "warning: xdsl installed but xdsl-opt is not on PATH; xDSL cross-check tests will be skipped"
    fi
  else
    log "warning: could not pip install xdsl; xDSL cross-check tests will be skipped"
  fi
else
  log "warning: no pip for python3; xDSL cross-check tests will be skipped"
fi
exit 0
