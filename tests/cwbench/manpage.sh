#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/cwbench.1: `man ./docs/cwbench.1` renders it without a warning, and
# it names every option that `cwbench --help` lists. Exit 77 (skipped)
# without man.
# usage: manpage.sh CWBENCH MANPAGE
# In a cross build cwbench runs under $CW_EMULATOR (tests/CMakeLists.txt).
set -u
cwbench=$1
page=$2
emu=${CW_EMULATOR:-}
if ! command -v man >/dev/null 2>&1; then
    echo "skipped: man is not installed (Debian: apt-get install man-db)"
    exit 77
fi
warnings=$(MANWIDTH=100 man --warnings -l "$page" 2>&1 >/dev/null)
if [ -n "$warnings" ]; then
    echo "man $page warns:"
    echo "$warnings"
    exit 1
fi
text=$(MANWIDTH=100 MANPAGER=cat man -l "$page" 2>/dev/null | sed 's/\x08.//g')
case $text in
*"cwbench - measure memory copies"*) ;;
*) echo "man $page does not render its NAME section"; exit 1 ;;
esac
missing=0
# shellcheck disable=SC2086
for opt in $($emu "$cwbench" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    case $text in
    *"$opt"*) ;;
    *) echo "the man page lacks $opt"; missing=1 ;;
    esac
done
[ "$missing" -eq 0 ] || exit 1
echo "the man page renders and names every option of --help"
