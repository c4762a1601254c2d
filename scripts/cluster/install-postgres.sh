#!/usr/bin/env bash
# Makes sure PostgreSQL's server (Debian's package) is installed, for the cluster only (npm run
# start:cluster / test:cluster; npm test and npm start never need it). Prints the directory of its programs
# (initdb, postgres) on stdout; progress goes to stderr. POSTGRES_BIN_DIR names another installation.
set -euo pipefail
log() { printf '[install] %s\n' "$*" >&2; }

find_bin() {
  if [ -n "${POSTGRES_BIN_DIR:-}" ]; then printf '%s\n' "$POSTGRES_BIN_DIR"; return 0; fi
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$dir/postgres" ] && [ -x "$dir/initdb" ] && { printf '%s\n' "$dir"; return 0; }
  done
  return 1
}

if ! find_bin >/dev/null; then
  [ "$(id -u)" -eq 0 ] || { log "PostgreSQL is not installed: run 'apt-get install postgresql' as root"; exit 1; }
  log "installing PostgreSQL (Debian's package)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  # The package's own cluster is not used (the cluster runs its own in its data folder).
  apt-get install -y -qq --no-install-recommends postgresql >&2
fi
find_bin
