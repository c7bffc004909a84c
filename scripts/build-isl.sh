#!/usr/bin/env bash
# Builds isl 0.25 -- the version Debian 12's libisl-dev ships, from the same
# source tarball in Debian's archive (checked against the SHA-256 of
# Debian's isl_0.25-1.1.dsc) -- with isl's own small-integer arithmetic
# (`--with-int=imath-32`) instead of GMP, as a static, position-independent
# library installed into PREFIX (include/isl, lib/libisl.a).
#
# Why: isl with GMP spends about half of the polyhedral passes' time in GMP
# calls on numbers that fit a machine word; the same isl with imath-32
# computes the same results (the generated code is identical) about twice as
# fast (docs/performance.md, "Compile time").
#
#   scripts/build-isl.sh PREFIX
#
# Does nothing when PREFIX already holds this build. Exits non-zero when the
# tarball cannot be fetched or built; scripts/build.sh then falls back to the
# system's libisl (GMP).
set -euo pipefail

PREFIX="${1:?usage: build-isl.sh PREFIX}"
VERSION=0.25
TARBALL="isl_${VERSION}.orig.tar.xz"
URL="${ISL_URL:-http://deb.debian.org/debian/pool/main/i/isl/${TARBALL}}"
SHA256=be7b210647ccadf90a2f0b000fca11a4d40546374a850db67adb32fad4b230d9
STAMP="$PREFIX/.stencil-isl-${VERSION}-imath-32"
JOBS="${JOBS:-$(nproc)}"

log() { echo "build-isl: $*"; }

if [ -f "$STAMP" ] && [ -f "$PREFIX/lib/libisl.a" ]; then
  exit 0
fi

mkdir -p "$PREFIX"
PREFIX="$(cd "$PREFIX" && pwd)"
work="$PREFIX/src"
rm -rf "$work"
mkdir -p "$work"

log "fetching $URL"
if ! curl -fsSL --retry 3 -o "$work/$TARBALL" "$URL"; then
  log "error: cannot fetch $URL" >&2
  exit 1
fi
if ! echo "$SHA256  $work/$TARBALL" | sha256sum -c --status; then
  log "error: $TARBALL does not have the expected SHA-256" >&2
  exit 1
fi
tar -xJf "$work/$TARBALL" -C "$work"

cc=(gcc)
if command -v ccache >/dev/null 2>&1; then
  cc=(ccache gcc)
  # The sources unpack into a new temporary directory each time.
  export CCACHE_BASEDIR="$work"
fi
log "configuring and building (imath-32, static, PIC)"
(
  cd "$work/isl-${VERSION}"
  ./configure --prefix="$PREFIX" --with-int=imath-32 --disable-shared \
    --enable-static --with-pic CC="${cc[*]}" CFLAGS="-O2" >"$work/configure.log" 2>&1 ||
    { tail -20 "$work/configure.log" >&2; exit 1; }
  # The library and its headers only (no isl tools or tests).
  make -j"$JOBS" gitversion.h libisl.la >"$work/make.log" 2>&1 || { tail -20 "$work/make.log" >&2; exit 1; }
  make install-libLTLIBRARIES install-pkgincludeHEADERS install-nodist_pkgincludeHEADERS \
    >"$work/install.log" 2>&1 || { tail -20 "$work/install.log" >&2; exit 1; }
)
rm -rf "$work"
touch "$STAMP"
log "installed into $PREFIX"
