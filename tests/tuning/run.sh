#!/bin/bash
# SPDX-License-Identifier: MIT
# Tuning files and profile names: cwbench tune writes a file the
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
for k in nt_threshold rep_movsb stream_prefetch src_noreuse persist_small memcpy_mid memcpy_inline impl; do
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
    [ "$k" = profile ] || [ "$k" = cpu ] && continue
    n=$((n + 1))
    [ "$(val "$k" "$got")" = "$v" ] || bad "round trip: $k = '$(val "$k" "$got")', file says '$v'"
    [ "$(src "$k" "$got")" = file ] || bad "round trip: $k source '$(src "$k" "$got")', want file"
done < <(grep -v '^#' "$work/t.conf" | grep '=')
[ $n -ge 14 ] || bad "the tuner's file has only $n settings"
sig=$(sed -n 's/^signature (a tuning file.s "cpu" line): //p' <<<"$base")
[ -n "$sig" ] || bad "cwbench info names no signature"
grep -qxF "cpu = $sig" "$work/t.conf" || bad "the tuner's file lacks 'cpu = $sig'"
grep -q "CACHEWISE_TUNING=/" "$work/tune.out" || bad "tune's message names no absolute path"

# 1b. the file travels with its CPU: another CPU's file is ignored and
# recorded, "cpu = any" applies anywhere, a file without a cpu line applies
other="GenuineIntel family 6 model 207 stepping 2, L1d 48K, L2 2M, L3 260M, avx512"
[ "$sig" = "$other" ] && other="AuthenticAMD family 26 model 2 stepping 1, L1d 48K, L2 1M, L3 508M, avx512"
sed "s/^cpu = .*/cpu = $other/" "$work/t.conf" >"$work/other.conf"
got=$(info CACHEWISE_TUNING="$work/other.conf")
grep -q "^tuning: [^/]* (cpu)" <<<"$got" || bad "another CPU's file applied: $(grep '^tuning' <<<"$got")"
grep -qF "other.conf: measured on another CPU, ignored" <<<"$got" || bad "another CPU's file not recorded: $got"
# the message names the file however long the path to it is
deep="$work/a-directory-name-long-enough-to-push-the-file-name-past-any-cut-off/x/y"
mkdir -p "$deep" && cp "$work/other.conf" "$deep/other-cpu.conf"
got=$(info CACHEWISE_TUNING="$deep/other-cpu.conf")
grep -qF "other-cpu.conf: measured on another CPU, ignored (cpu = " <<<"$got" ||
    bad "a long path's message does not name the file: $(grep 'measured on' <<<"$got")"
[ "$(src nt_threshold "$got")" = table ] || bad "another CPU's file set nt_threshold"
sed "s/^cpu = .*/cpu = any/" "$work/t.conf" >"$work/any.conf"
got=$(info CACHEWISE_TUNING="$work/any.conf")
grep -q "^tuning: $work/any.conf (env)" <<<"$got" && [ "$(src nt_threshold "$got")" = file ] ||
    bad "cpu = any not applied: $(grep '^tuning' <<<"$got")"
sed "s/^cpu = \(.*\)/cpu =    \1   /" "$work/t.conf" >"$work/spaced.conf"
got=$(info CACHEWISE_TUNING="$work/spaced.conf")
[ "$(src nt_threshold "$got")" = file ] || bad "a signature with other spacing did not match"

# 1c. a directory of per-CPU files: the first matching file by name; files of
# other CPUs, without a cpu line or not named *.conf are passed over
mkdir -p "$work/fleet"
cp "$work/other.conf" "$work/fleet/a-other.conf"
grep -v '^cpu' "$work/t.conf" >"$work/fleet/b-nocpu.conf"
sed 's/^nt_threshold = .*/nt_threshold = 3M/' "$work/t.conf" >"$work/fleet/c-mine.conf"
sed 's/^nt_threshold = .*/nt_threshold = 5M/' "$work/t.conf" >"$work/fleet/d-mine.conf"
sed 's/^nt_threshold = .*/nt_threshold = 7M/' "$work/t.conf" >"$work/fleet/0-mine.conf.tmp"
printf 'garbage\n' >"$work/fleet/e-bad.conf"
got=$(info CACHEWISE_TUNING="$work/fleet")
grep -q "^tuning: $work/fleet/c-mine.conf (env)" <<<"$got" || bad "directory choice: $(grep '^tuning' <<<"$got")"
[ "$(val nt_threshold "$got")" = 3M ] || bad "directory choice: nt_threshold $(val nt_threshold "$got")"
grep -q '^configuration errors (ignored): 0$' <<<"$got" || bad "directory choice recorded errors: $got"
rm "$work/fleet/c-mine.conf" "$work/fleet/d-mine.conf"
got=$(info CACHEWISE_TUNING="$work/fleet")
grep -qF "no *.conf file there was measured on this CPU" <<<"$got" || bad "no match in a directory: $got"
[ "$(src nt_threshold "$got")" = table ] || bad "no match in a directory: a file applied"
# tune --install-dir writes the matching file atomically, named by the CPU
"${clean[@]}" "${cwbench[@]}" tune --quick --install-dir "$work/inst" >"$work/inst.out" 2>&1 ||
    { bad "cwbench tune --install-dir failed"; cat "$work/inst.out"; }
ls "$work/inst"/*.conf >/dev/null 2>&1 || bad "tune --install-dir wrote no *.conf file"
ls "$work/inst" | grep -qv '\.conf$' && bad "tune --install-dir left a temporary file: $(ls "$work/inst")"
got=$(info CACHEWISE_TUNING="$work/inst")
grep -q "^tuning: $work/inst/.*\.conf (env)" <<<"$got" || bad "the installed file was not chosen: $(grep '^tuning' <<<"$got")"

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
check_bad "an empty directory" 'no *.conf file there was measured on this CPU' CACHEWISE_TUNING="$work/dir.conf"
mkfifo "$work/fifo.conf"
check_bad "a FIFO" 'not a regular file' CACHEWISE_TUNING="$work/fifo.conf"
check_bad "malformed value" 'nt_threshold = "lots": not a byte count' CACHEWISE_TUNING="$work/bad.conf"
check_bad "unknown key" 'unknown setting "no_such_setting"' CACHEWISE_TUNING="$work/bad.conf"
check_bad "no =" 'bad.conf:3: expected "key = value"' CACHEWISE_TUNING="$work/bad.conf"
check_bad "unknown profile" 'profile "nope": no such built-in profile' CACHEWISE_TUNING="$work/bad.conf"
check_bad "bad enum" 'rep_movsb = "sometimes": not one of off aligned align-dst' CACHEWISE_TUNING="$work/bad.conf"
check_bad "bad variable" 'CACHEWISE_STREAM_PREFETCH="far": not a byte count' CACHEWISE_STREAM_PREFETCH=far
check_bad "misspelled variable" 'CACHEWISE_NT_THRESHHOLD: unknown setting (misspelled?)' CACHEWISE_NT_THRESHHOLD=1M
check_bad "too large" 'CACHEWISE_STREAM_PREFETCH="2M": larger than the limit' CACHEWISE_STREAM_PREFETCH=2M

[ $fail = 0 ] || exit 1
echo "tuning files: round trip of $n settings, CPU signatures, a per-CPU directory, overrides, profile names and 12 kinds of bad input"
