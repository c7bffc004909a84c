#!/usr/bin/env bash
# Installs the Debian packages the project needs, only when some are missing
# (apt-get update first). Idempotent; safe to run on every build.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ ccache git
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libisl-dev libomp-22-dev libgtest-dev
  python3 python3-numpy
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO=sudo; else
    echo "install-deps: not root and no sudo; missing: ${missing[*]}" >&2; exit 1; fi
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all Debian packages present"
fi

# xDSL is a test peer only (cross-checks of the text form); never required.
if ! command -v xdsl-opt >/dev/null 2>&1; then
  if command -v pip >/dev/null 2>&1 || command -v pip3 >/dev/null 2>&1; then
    PIP=$(command -v pip || command -v pip3)
    "$PIP" install --quiet xdsl >/dev/null 2>&1 \
      && echo "install-deps: installed xdsl (test peer)" \
      || echo "install-deps: warning: could not pip install xdsl; xDSL cross-check tests will be skipped"
  else
    echo "install-deps: warning: no pip; xDSL cross-check tests will be skipped"
  fi
fi
