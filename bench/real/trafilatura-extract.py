"""Reads a JSON list of {"id", "path", "url"} on stdin; writes {id: text} on stdout: trafilatura's main
text of each page with its default settings (None when it finds nothing). For the cleaner bench only."""

import json
import sys

import trafilatura


def main() -> None:
    pages = json.load(sys.stdin)
    out = {}
    for page in pages:
        with open(page["path"], encoding="utf-8", errors="replace") as file:
            html = file.read()
        out[page["id"]] = trafilatura.extract(html, url=page["url"], output_format="txt")
    json.dump(out, sys.stdout)


main()
