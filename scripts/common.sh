#!/usr/bin/env bash
# SPDX-License-Identifier: AGPL-3.0-or-later
# Shared by scripts/demo and scripts/test: install what is missing, configure and build.
set -euo pipefail

MARQUEE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${MARQUEE_BUILD_DIR:-$MARQUEE_ROOT/build}"
# marquee-server refuses to run as root (a venue runs it as its own user, or as root with --user NAME). The demo
# and the bench scripts run it on a developer's machine or in a CI container, often as root: they say so
# explicitly (docs/security.md, "Running as root").
if [ "$(id -u)" -eq 0 ]; then export MARQUEE_UNSAFE_ALLOW_ROOT=1; fi

# Debian 12 packages the build, the tests and the demo need.
MARQUEE_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  qt6-base-dev qt6-base-dev-tools qt6-declarative-dev qt6-httpserver-dev qt6-websockets-dev
  qt6-charts-dev qt6-virtualkeyboard-dev qt6-l10n-tools qt6-tools-dev-tools qt6-tools-dev
  libqt6sql6-psql libqt6sql6-sqlite libqt6svg6
  qml6-module-qtquick qml6-module-qtquick-controls qml6-module-qtquick-layouts qml6-module-qtquick-window
  qml6-module-qtquick-templates qml6-module-qtquick-shapes qml6-module-qttest qml6-module-qtcharts qml6-module-qt-labs-folderlistmodel
  qml6-module-qtqml-workerscript qml6-module-qtquick-virtualkeyboard qml6-module-qt-labs-settings
  libgl-dev libssl-dev libpq-dev libqrencode-dev libzxing-dev libgtest-dev libsqlite3-dev
  postgresql-15 postgresql-client-15 redis-server
  xvfb xauth poppler-utils curl fonts-dejavu-core
  haproxy openssl   # the TLS proxy in front of the server, and its test (tests/server/tst_tlsproxy.cpp)
  libgl1-mesa-dri libglx-mesa0 libegl1 libegl-mesa0   # Mesa: the OpenGL scene graph under Xvfb (tests/support/with-xvfb)
  python3 python3-yaml python3-jsonschema
)
# scripts/lint-openapi installs Redocly CLI with npm. A machine whose node and npm came from elsewhere (NodeSource
# bundles npm into its nodejs package) keeps them; only a machine without npm gets Debian's.
command -v npm >/dev/null 2>&1 || MARQUEE_PACKAGES+=(nodejs npm)

# What scripts/package (and the installer tests) need on top: dpkg-deb and dpkg-shlibdeps, lintian,
# systemd-analyze. Kept apart so a developer's machine does not grow packaging tools it never uses.
MARQUEE_PACKAGING_PACKAGES=(dpkg-dev lintian systemd)

# What scripts/fuzz (and the CTest test fuzz_smoke, through scripts/test) needs: clang with libFuzzer and the
# sanitizer runtimes. The fuzz targets are a clang build of their own (tests/fuzz/); the product build stays GCC.
MARQUEE_FUZZ_PACKAGES=(clang-14 libclang-rt-14-dev libfuzzer-14-dev)

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# ensure_packages [PACKAGE...]: without arguments, MARQUEE_PACKAGES.
ensure_packages() {
  local wanted=("$@")
  [ ${#wanted[@]} -gt 0 ] || wanted=("${MARQUEE_PACKAGES[@]}")
  local missing=()
  for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  log "installing ${#missing[@]} missing packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  # The Debian package of PostgreSQL starts a system cluster; Marquee never uses it (it runs its own).
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

configure_and_build() {
  log "configuring in $BUILD_DIR"
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    cmake -S "$MARQUEE_ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
  log "building"
  cmake --build "$BUILD_DIR" -- -j"$(nproc)"
}
