#!/usr/bin/env bash
# Fetches the cleaner bench's corpus of real pages with expected content into
# ~/.cache/extract-service/cleaner-corpus (or $CLEANER_CORPUS), from test data that packages ship:
#   readability/  Mozilla Readability's test pages (source.html + expected.html), as the Go port
#                 codeberg.org/readeck/go-readability/v2 ships them in its module (MIT; pages follow Readability.js 0.6.0)
#   newspaper4k/  newspaper4k's test pages with their expected article text (tests/data/html + txt, MIT),
#                 from its source distribution on PyPI
#   trafilatura/  trafilatura's evaluation pages with the snippets each page's main text must and must not
#                 hold, as the Go port github.com/markusmobius/go-trafilatura ships them (Apache-2.0; the
#                 HTML in test-files/comparison, the snippets in scripts/comparison/data.go)
#   realworld/    trafilatura's real-world test pages with the snippets its tests assert the main text holds or
#                 not (same module: test-files/mock, realworld_test.go, realworld-mock_test.go); a page whose bytes
#                 equal an evaluation page's is left out
#   goose/        GoOse's test pages with the text GoOse extracts from each (Go module
#                 github.com/advancedlogic/GoOse, Apache-2.0: sites/*.html, expected texts in crawler_test.go)
# Needs go and pip. Idempotent: a source already fetched is skipped.
set -euo pipefail

CORPUS="${CLEANER_CORPUS:-$HOME/.cache/extract-service/cleaner-corpus}"
READABILITY_MODULE=codeberg.org/readeck/go-readability/v2@v2.1.3
NEWSPAPER=newspaper4k==0.9.6
TRAFILATURA_MODULE=github.com/markusmobius/go-trafilatura@v1.12.2
GOOSE_MODULE=github.com/advancedlogic/GoOse@v0.0.0-20191112112754-e742535969c1
mkdir -p "$CORPUS"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The directory of a Go module's files, downloaded through a throwaway module so no go.mod of ours is needed.
module_dir() {
  (cd "$work" && { [ -f go.mod ] || go mod init corpus >/dev/null 2>&1; } && GOFLAGS=-mod=mod go mod download -json "$1" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
}

if [ ! -d "$CORPUS/readability" ]; then
  dir="$(module_dir "$READABILITY_MODULE")"
  mkdir -p "$CORPUS/readability.tmp"
  for page in "$dir"/test-pages/*/; do
    name="$(basename "$page")"
    [ -f "$page/source.html" ] && [ -f "$page/expected.html" ] || continue
    mkdir -p "$CORPUS/readability.tmp/$name"
    cp "$page/source.html" "$page/expected.html" "$CORPUS/readability.tmp/$name/"
  done
  chmod -R u+w "$CORPUS/readability.tmp"
  mv "$CORPUS/readability.tmp" "$CORPUS/readability"
fi

if [ ! -d "$CORPUS/newspaper4k" ]; then
  pip download --quiet --no-binary :all: --no-deps -d "$work" "$NEWSPAPER"
  tar -xzf "$work"/newspaper4k-*.tar.gz -C "$work"
  data="$(echo "$work"/newspaper4k-*/tests/data)"
  mkdir -p "$CORPUS/newspaper4k.tmp"
  for html in "$data"/html/*.html; do
    name="$(basename "$html" .html)"
    [ -f "$data/txt/$name.txt" ] || continue
    cp "$html" "$CORPUS/newspaper4k.tmp/$name.html"
    cp "$data/txt/$name.txt" "$CORPUS/newspaper4k.tmp/$name.txt"
  done
  mv "$CORPUS/newspaper4k.tmp" "$CORPUS/newspaper4k"
fi

if [ ! -d "$CORPUS/trafilatura" ]; then
  dir="$(module_dir "$TRAFILATURA_MODULE")"
  mkdir -p "$CORPUS/trafilatura.tmp"
  cp "$dir"/test-files/comparison/*.html "$CORPUS/trafilatura.tmp/"
  cp "$dir/scripts/comparison/data.go" "$CORPUS/trafilatura.tmp/"
  chmod -R u+w "$CORPUS/trafilatura.tmp"
  mv "$CORPUS/trafilatura.tmp" "$CORPUS/trafilatura"
fi

if [ ! -d "$CORPUS/realworld" ]; then
  dir="$(module_dir "$TRAFILATURA_MODULE")"
  mkdir -p "$CORPUS/realworld.tmp"
  cp "$dir"/test-files/mock/*.html "$dir/realworld_test.go" "$dir/realworld-mock_test.go" "$CORPUS/realworld.tmp/"
  chmod -R u+w "$CORPUS/realworld.tmp"
  known="$(md5sum "$dir"/test-files/comparison/*.html | cut -d' ' -f1)"
  for page in "$CORPUS"/realworld.tmp/*.html; do
    if grep -qx "$(md5sum "$page" | cut -d' ' -f1)" <<<"$known"; then rm "$page"; fi
  done
  mv "$CORPUS/realworld.tmp" "$CORPUS/realworld"
fi

if [ ! -d "$CORPUS/goose" ]; then
  dir="$(module_dir "$GOOSE_MODULE")"
  mkdir -p "$CORPUS/goose.tmp"
  cp "$dir"/sites/*.html "$dir/crawler_test.go" "$CORPUS/goose.tmp/"
  chmod -R u+w "$CORPUS/goose.tmp"
  mv "$CORPUS/goose.tmp" "$CORPUS/goose"
fi

echo "corpus in $CORPUS: $(ls "$CORPUS/readability" | wc -l) readability pages, $(ls "$CORPUS/newspaper4k"/*.html | wc -l) newspaper4k pages, $(ls "$CORPUS/trafilatura"/*.html | wc -l) trafilatura pages, $(ls "$CORPUS/realworld"/*.html | wc -l) realworld pages, $(ls "$CORPUS/goose"/*.html | wc -l) goose pages"
