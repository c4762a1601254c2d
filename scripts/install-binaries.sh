#!/usr/bin/env bash
# Builds (once) the Temporal CLI dev server and FerretDB from Go modules and caches
# them per user under ${XDG_CACHE_HOME:-~/.cache}/extract-service, keyed by version.
# A binary already on PATH or named by TEMPORAL_BIN / FERRETDB_BIN is used instead.
# Prints nothing on success except progress to stderr.
set -euo pipefail

TEMPORAL_VERSION="${TEMPORAL_CLI_VERSION:-v1.5.1}"
FERRETDB_VERSION="${FERRETDB_VERSION:-v1.24.2}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/extract-service"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { printf '[install] %s\n' "$*" >&2; }

need_go() {
  command -v go >/dev/null 2>&1 || { log "Go is required to build $1 (or set ${2} to an existing binary)"; exit 1; }
}

install_temporal() {
  if [ -n "${TEMPORAL_BIN:-}" ]; then return; fi
  if command -v temporal >/dev/null 2>&1; then return; fi
  local dir="$CACHE_ROOT/temporal-$TEMPORAL_VERSION"
  [ -x "$dir/temporal" ] && return
  need_go temporal TEMPORAL_BIN
  log "building Temporal CLI $TEMPORAL_VERSION from Go modules (first run only; several minutes)"
  mkdir -p "$dir.tmp"
  GOBIN="$dir.tmp" GOFLAGS=-mod=mod go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_VERSION"
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
  log "Temporal CLI cached at $dir/temporal"
}

install_ferretdb() {
  if [ -n "${FERRETDB_BIN:-}" ]; then return; fi
  if command -v ferretdb >/dev/null 2>&1; then return; fi
  # Our patches to this version (scripts/patches/ferretdb-<version>-*.patch) name the build, so a binary
  # built before a patch was added is rebuilt.
  local patches=("$ROOT/scripts/patches/ferretdb-$FERRETDB_VERSION-"*.patch)
  [ -e "${patches[0]}" ] || patches=()
  local dir="$CACHE_ROOT/ferretdb-$FERRETDB_VERSION${patches:+-p${#patches[@]}}"
  [ -x "$dir/ferretdb" ] && return
  need_go FerretDB FERRETDB_BIN
  log "building FerretDB $FERRETDB_VERSION from Go modules (first run only; several minutes)"
  local src; src="$(go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -d "$src" ] || { log "could not download FerretDB module"; exit 1; }
  local work; work="$(mktemp -d)"
  cp -r "$src/." "$work/" && chmod -R u+w "$work"
  # The release build writes this file; the module source lacks it and the binary panics without it.
  printf '%s\n' "$FERRETDB_VERSION" > "$work/build/version/version.txt"
  local p
  for p in "${patches[@]}"; do
    log "applying $(basename "$p")"
    (cd "$work" && patch -p1 --forward --quiet < "$p") || { log "patch $p does not apply"; exit 1; }
  done
  mkdir -p "$dir.tmp"
  (cd "$work" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -o "$dir.tmp/ferretdb" ./cmd/ferretdb)
  rm -rf "$work" "$dir" && mv "$dir.tmp" "$dir"
  log "FerretDB cached at $dir/ferretdb"
}

case "${1:-all}" in
  temporal) install_temporal ;;
  ferretdb) install_ferretdb ;;
  all) install_temporal & t=$!; install_ferretdb & f=$!; wait $t; wait $f ;;
esac
