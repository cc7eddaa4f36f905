#!/bin/bash
# SPDX-License-Identifier: MIT
# The library's manual (docs/man: cachewise(3), one page per group of calls
# with .so links for the group's other names, cachewise-preload(7)):
#   - every page renders with `man --warnings` (MANWIDTH=80) without a word
#     on stderr, read from the manual's root so that .so links resolve as
#     they do once installed, and has a NAME section;
#   - every .so link names a page that exists, and the page it names lists
#     the link's name in its NAME section;
#   - every function the header declares (its CW_API lines) has a page or a
#     link of its own name.
# Exits 77 (skipped) without man.
# usage: manpages.sh MAN_DIR HEADER
set -u
mandir=$1 header=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
if ! command -v man >/dev/null 2>&1; then
    echo "skipped: man is not installed (Debian: apt-get install man-db)"
    exit 77
fi
cd "$mandir" || exit 1
fail=0 n=0
for page in man*/*.[0-9]; do
    n=$((n + 1))
    warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    if [ -n "$warnings" ]; then
        echo "FAIL: man --warnings -l $page:"; echo "$warnings" | sed 's/^/    /'
        fail=1
    fi
    text=$(MANWIDTH=80 MANPAGER=cat man -l "$page" 2>/dev/null | sed 's/.\x08//g')
    case $text in
    *NAME*) ;;
    *) echo "FAIL: $page renders no NAME section"; fail=1 ;;
    esac
    name=$(basename "$page" | sed 's/\.[0-9]$//')
    target=$(sed -n 's/^\.so //p' "$page")
    src=$page
    if [ -n "$target" ]; then
        [ -f "$target" ] || { echo "FAIL: $page links to $target, which does not exist"; fail=1; continue; }
        src=$target
    fi
    # the NAME line (between .SH NAME and the next .SH) lists the page's name
    names=$(sed -n '/^\.SH NAME/,/^\.SH /p' "$src" | sed '1d;$d' | sed 's/\\-.*//; s/\\//g')
    grep -qw -- "$name" <<<"$names" ||
        { echo "FAIL: $src does not name $name in its NAME section ($names)"; fail=1; }
done
functions=$(sed -nE 's/^CW_API [^(]*\b(cw_[a-z0-9_]+)\(.*/\1/p' "$header")
[ -n "$functions" ] || { echo "FAIL: no CW_API function found in $header"; exit 1; }
for fn in $functions; do
    [ -f "man3/$fn.3" ] || { echo "FAIL: $fn has no page (man3/$fn.3)"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok: $n pages and links render without warnings; every function of the header has one"
exit $fail
