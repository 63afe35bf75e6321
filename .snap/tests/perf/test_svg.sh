#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# @file test_svg.sh
# The SVG writer's files must open in a browser: an XML error there shows nothing but the error.
# test_svg (CMocka) checks what the charts contain; this runs it with GFEC_SVG_OUT pointing at a
# fresh directory and then parses every .svg it wrote with a real XML parser: xmllint, or else
# Python's minidom. Having neither is a failure, not a skip, so the check cannot quietly vanish.
#
# usage: test_svg.sh PATH/TO/test_svg
set -euo pipefail

BIN=${1:?usage: test_svg.sh PATH/TO/test_svg}
[[ -x $BIN && -f $BIN ]] || { echo "test_svg.sh: '$BIN' is not an executable" >&2; exit 1; }
# test_svg writes this many files at least; fewer means it stopped writing them somewhere.
MIN_FILES=10

fail() {
	echo "test_svg.sh: FAIL: $*" >&2
	exit 1
}

if command -v xmllint >/dev/null 2>&1; then
	PARSER=xmllint
	parse() { xmllint --noout "$1"; }
elif command -v python3 >/dev/null 2>&1; then
	PARSER="python3 xml.dom.minidom"
	parse() { python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$1"; }
else
	fail "neither xmllint (apt-get install libxml2-utils) nor python3 is installed to parse SVG"
fi

DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

GFEC_SVG_OUT=$DIR "$BIN" || fail "$BIN exited $?"

shopt -s nullglob
files=("$DIR"/*.svg)
((${#files[@]} >= MIN_FILES)) || fail "expected at least $MIN_FILES .svg files in $DIR, found ${#files[@]}"
for f in "${files[@]}"; do
	parse "$f" || fail "$(basename "$f") is not well-formed XML ($PARSER)"
	grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$f" || fail "$(basename "$f") has no SVG root"
done
echo "test_svg.sh: ${#files[@]} SVG files well-formed ($PARSER)"
