#!/usr/bin/env bash
# Builds (once) the real Temporal server (temporal-server) and its SQL schema tool (temporal-sql-tool)
# from Go modules and caches them per user under ${XDG_CACHE_HOME:-~/.cache}/extract-service, keyed by
# version. Only the cluster (npm run start:cluster / test:cluster) needs them: npm test and npm start run
# on the Temporal CLI's dev server (scripts/install-binaries.sh).
# Prints the cache directory holding both binaries on stdout; progress goes to stderr.
set -euo pipefail

VERSION="${TEMPORAL_SERVER_VERSION:-v1.29.1}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/extract-service"
DIR="$CACHE_ROOT/temporal-server-$VERSION"
log() { printf '[install] %s\n' "$*" >&2; }

if [ ! -x "$DIR/temporal-server" ] || [ ! -x "$DIR/temporal-sql-tool" ]; then
  command -v go >/dev/null 2>&1 || { log "Go is required to build the Temporal server"; exit 1; }
  log "building Temporal server $VERSION and temporal-sql-tool from Go modules (first run only; 10+ minutes)"
  rm -rf "$DIR.tmp" && mkdir -p "$DIR.tmp"
  # nice: the build takes both cores for many minutes; whatever else runs keeps its share.
  GOBIN="$DIR.tmp" GOFLAGS=-mod=mod CGO_ENABLED=0 nice -n 10 go install \
    "go.temporal.io/server/cmd/server@$VERSION" "go.temporal.io/server/cmd/tools/sql@$VERSION"
  mv "$DIR.tmp/server" "$DIR.tmp/temporal-server"
  mv "$DIR.tmp/sql" "$DIR.tmp/temporal-sql-tool"
  rm -rf "$DIR" && mv "$DIR.tmp" "$DIR"
  log "Temporal server cached at $DIR"
fi
printf '%s\n' "$DIR"
