#!/bin/bash
# SPDX-License-Identifier: MIT
# Tuning files and profile names (issue 13): cwbench tune writes a file the
# library loads (the round trip: every value comes back, with source
# "file"); names, files and single variables override in that order; bad
# names, paths, lines and values are recorded, printed with
# CACHEWISE_VERBOSE=1, ignored, and never fatal.
# Usage: run.sh CWBENCH WORKDIR [IMPL [ARCH]]: IMPL (default sse2), one this
# CPU runs that is not its default, is the hand-written file's; ARCH
# (default x86_64) picks the setting that shows the environment winning over
# the file: rep_movsb on x86-64, stream_prefetch elsewhere (rep_movsb is an
# x86 instruction; a CPU without ERMS keeps it off whatever is asked).
set -u
cwbench=$1 work=$2 impl=${3:-sse2} arch=${4:-x86_64}
. "$(dirname "$0")/../emulator.sh"
# the target program: under the emulator in a cross build (CW_EMULATOR)
cwbench=(${cw_emu[@]+"${cw_emu[@]}"} "$cwbench")
rm -rf "$work" && mkdir -p "$work"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# clean environment: no CACHEWISE_* from the caller
clean=(env $(env | sed -n 's/^\(CACHEWISE_[A-Z_0-9]*\)=.*/-u \1/p'))
info() { "${clean[@]}" "$@" "${cwbench[@]}" info; }
# value and source of a setting in `cwbench info` output
val() { awk -v k="$1" '$1 == k { print $2 }' <<<"$2"; }
src() { awk -v k="$1" '$1 == k { print $4 }' <<<"$2"; }
prof() { awk -v k="$1" '$1 == k { print $3 }' <<<"$2"; }

base=$(info) || bad "cwbench info failed"
grep -q '^configuration errors (ignored): 0$' <<<"$base" || bad "errors in a clean run: $base"
for k in nt_threshold rep_movsb stream_prefetch src_noreuse persist_small impl; do
    [ "$(src "$k" "$base")" = table ] || bad "$k: source $(src "$k" "$base"), want table"
done

# 1. the round trip
"${clean[@]}" "${cwbench[@]}" tune --quick --output "$work/t.conf" >"$work/tune.out" 2>&1 ||
    { bad "cwbench tune failed"; cat "$work/tune.out"; }
got=$(info CACHEWISE_TUNING="$work/t.conf") || bad "info with the tuning file failed"
grep -q "^tuning: $work/t.conf (env)" <<<"$got" || bad "tuning line: $(grep '^tuning' <<<"$got")"
grep -q '^configuration errors (ignored): 0$' <<<"$got" || bad "the tuner's file has errors: $got"
n=0
while IFS='=' read -r k v; do
    k=$(echo $k) v=$(echo $v)
    [ "$k" = profile ] && continue
    n=$((n + 1))
    [ "$(val "$k" "$got")" = "$v" ] || bad "round trip: $k = '$(val "$k" "$got")', file says '$v'"
    [ "$(src "$k" "$got")" = file ] || bad "round trip: $k source '$(src "$k" "$got")', want file"
done < <(grep -v '^#' "$work/t.conf" | grep '=')
[ $n -ge 10 ] || bad "the tuner's file has only $n settings"

# 2. a hand-written file: comments, spacing, a base profile; env wins over it
# the setting set in the file and again, differently, in the environment
case $arch in
x86_64) over=rep_movsb over_file=off over_var=CACHEWISE_REP_MOVSB over_env=aligned ;;
*) over=stream_prefetch over_file=4K over_var=CACHEWISE_STREAM_PREFETCH over_env=1K ;;
esac
cat >"$work/hand.conf" <<CONF
# a comment
profile = amd-zen3
   nt_threshold   =   3M    # trailing comment
$over=$over_file
impl = $impl
CONF
got=$(info CACHEWISE_TUNING="$work/hand.conf" "$over_var=$over_env")
[ "$(val nt_threshold "$got")" = 3M ] && [ "$(src nt_threshold "$got")" = file ] ||
    bad "hand file: nt_threshold $(val nt_threshold "$got") ($(src nt_threshold "$got"))"
[ "$(val "$over" "$got")" = "$over_env" ] && [ "$(src "$over" "$got")" = env ] ||
    bad "env over file: $over $(val "$over" "$got") ($(src "$over" "$got"))"
[ "$(val rep_movsb_min "$got")" = 32K ] && [ "$(prof rep_movsb_min "$got")" = 32K ] ||
    bad "base profile amd-zen3: rep_movsb_min $(val rep_movsb_min "$got")"
grep -q "^implementation: $impl (file)" <<<"$got" || bad "impl = $impl: $(grep '^implementation' <<<"$got")"
grep -q 'profile amd-zen3' <<<"$got" || bad "profile line not applied"

# 3. a profile by name
got=$(info CACHEWISE_TUNING=generic)
grep -q '^tuning: generic (env), profile generic' <<<"$got" || bad "CACHEWISE_TUNING=generic: $(grep '^tuning' <<<"$got")"
[ "$(val rep_movsb "$got")" = off ] || bad "generic: rep_movsb $(val rep_movsb "$got")"

# 4. bad input: recorded, printed with CACHEWISE_VERBOSE=1, ignored, never fatal
printf 'nt_threshold = lots\nno_such_setting = 1\njust words\nprofile = nope\nrep_movsb = sometimes\n' >"$work/bad.conf"
mkdir -p "$work/dir.conf"
check_bad() { # DESCRIPTION EXPECTED-ERROR-TEXT ENV...
    local what=$1 want=$2
    shift 2
    local out err
    out=$("${clean[@]}" CACHEWISE_VERBOSE=1 "$@" "${cwbench[@]}" info 2>"$work/err") ||
        { bad "$what: cwbench info exited $?"; return; }
    grep -qF -- "$want" <<<"$out" || bad "$what: no error '$want' in cw_get_info: $out"
    grep -qF -- "$want" "$work/err" || bad "$what: CACHEWISE_VERBOSE=1 did not print '$want'"
    for k in nt_threshold rep_movsb; do
        [ "$(val "$k" "$out")" = "$(val "$k" "$base")" ] ||
            bad "$what: $k = $(val "$k" "$out"), want the default $(val "$k" "$base")"
    done
}
check_bad "unknown name" 'CACHEWISE_TUNING="no-such-cpu": no such profile' CACHEWISE_TUNING=no-such-cpu
check_bad "missing file" 'No such file or directory' CACHEWISE_TUNING="$work/missing.conf"
check_bad "a directory" 'not a regular file' CACHEWISE_TUNING="$work/dir.conf"
check_bad "malformed value" 'nt_threshold = "lots": not a byte count' CACHEWISE_TUNING="$work/bad.conf"
check_bad "unknown key" 'unknown setting "no_such_setting"' CACHEWISE_TUNING="$work/bad.conf"
check_bad "no =" 'bad.conf:3: expected "key = value"' CACHEWISE_TUNING="$work/bad.conf"
check_bad "unknown profile" 'profile "nope": no such built-in profile' CACHEWISE_TUNING="$work/bad.conf"
check_bad "bad enum" 'rep_movsb = "sometimes": not one of off aligned align-dst' CACHEWISE_TUNING="$work/bad.conf"
check_bad "bad variable" 'CACHEWISE_STREAM_PREFETCH="far": not a byte count' CACHEWISE_STREAM_PREFETCH=far
check_bad "misspelled variable" 'CACHEWISE_NT_THRESHHOLD: unknown setting (misspelled?)' CACHEWISE_NT_THRESHHOLD=1M
check_bad "too large" 'CACHEWISE_STREAM_PREFETCH="2M": larger than the limit' CACHEWISE_STREAM_PREFETCH=2M

[ $fail = 0 ] || exit 1
echo "tuning files: round trip of $n settings, overrides, profile names and 11 kinds of bad input"
