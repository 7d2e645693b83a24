#!/usr/bin/env bash
# The nightly fuzzing campaign, and its short CI form.
#
# Usage:
#   fuzz/nightly.sh [options] [SECONDS_PER_TARGET]     (default 600)
#   fuzz/nightly.sh --smoke [--runs N]                 (CI: a few minutes)
#   fuzz/nightly.sh --engine both [SECONDS_PER_TARGET] libFuzzer, then AFL++
#
# Builds every target once (nightly + AddressSanitizer; stable + `-s none`
# when there is no nightly), then for each target:
#   main pass  SECONDS × 4/5, inputs up to --max-len (4096) bytes, from the
#              working corpus fuzz/work/<target>/corpus plus corpora/<target>,
#              with the dictionary corpora/utf8.dict;
#   long pass  SECONDS × 1/5, inputs up to 1 MiB (-len_control=0, so long
#              inputs come at once), into fuzz/work/<target>/long;
#   merge      new coverage of the main pass into corpora/<target>
#              (`-merge=1`: only inputs that add coverage; long inputs stay in
#              fuzz/work so the committed corpora stay small).
# Crashes, timeouts and OOMs go to fuzz/artifacts/<target>/. A per-target
# summary (execs, exec/s, cov/ft, new corpus entries, crashes) ends the run;
# the exit status is 1 if anything crashed.
#
# --smoke: each target runs a fixed number of inputs (--runs, default 20000)
# from the committed corpora with a fixed seed, nothing is written back, and
# a crash fails. Reproducible, and a few minutes for all six with a warm build.
#
# --engine afl (or both: libFuzzer first, then AFL++, each SECONDS): the
# same properties under AFL++ (fuzz/afl/, built by `cargo afl build`), from
# the same committed corpus corpora/<target> and dictionary, into
# fuzz/work/<target>/afl; what it finds is merged into corpora/<target> with
# the libFuzzer binary (`-merge=1`), so the engines share one corpus.
#
# Options:
#   --engine E        libfuzzer (default), afl, or both
#   --targets a,b     only these targets (default: all)
#   --max-len N       main pass input limit (default 4096)
#   --long-share P    percent of the time for the long pass (default 20; 0 skips)
#   --runs N          with --smoke: inputs per target
#   --no-merge        leave corpora/ alone
#   --no-build        use the binaries already built
# Environment:
#   FUZZ_SANITIZER    address (default on nightly) or none
#   FUZZ_TRACE_COMPARES  none (default: no comparison tracing, see lib.sh),
#                     utf8conform (that crate only, fuzz/trace-compares.sh)
#                     or all
#   FUZZ_WORK         working corpora (default fuzz/work; cache it between runs)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

ENGINE=libfuzzer SMOKE=0 RUNS=20000 MAX_LEN=4096 LONG_SHARE=20 MERGE=1 BUILD=1 SECONDS_PER_TARGET=600
selected=("${TARGETS[@]}")
while [ $# -gt 0 ]; do
    case "$1" in
    --smoke) SMOKE=1 ;;
    --engine) ENGINE=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --targets) IFS=, read -r -a selected <<<"$2"; shift ;;
    --max-len) MAX_LEN=$2; shift ;;
    --long-share) LONG_SHARE=$2; shift ;;
    --no-merge) MERGE=0 ;;
    --no-build) BUILD=0 ;;
    -h | --help) usage; exit 0 ;;
    [0-9]*) SECONDS_PER_TARGET=$1 ;;
    *) usage >&2; exit 2 ;;
    esac
    shift
done
for t in "${selected[@]}"; do
    [[ " ${TARGETS[*]} " == *" $t "* ]] || { fuzz_log "unknown target $t"; exit 2; }
done
case "$ENGINE" in
libfuzzer | afl | both) ;;
*) fuzz_log "--engine $ENGINE: expected libfuzzer, afl or both"; exit 2 ;;
esac
if [ "$ENGINE" != libfuzzer ] && [ "$SMOKE" = 1 ]; then
    fuzz_log "--smoke runs libFuzzer only"
    exit 2
fi

ensure_cargo_fuzz
pick_toolchain
if [ "$BUILD" = 1 ]; then
    fuzz_log "building ${#TARGETS[@]} targets (sanitizer: $SANITIZER)"
    build_targets
    if [ "$ENGINE" != libfuzzer ]; then
        ensure_cargo_afl
        fuzz_log "building ${#selected[@]} AFL++ targets"
        build_afl "${selected[@]}"
    fi
fi

WORK=${FUZZ_WORK:-$ROOT/fuzz/work}
mkdir -p "$WORK"
# Flags every run shares. -timeout: a 1 MiB input through every decoder takes
# well under a second; 25 s means a hang. -rss_limit_mb: 1 MiB inputs are
# copied a few times per decoder.
COMMON=(-dict="$DICT" -timeout=25 -rss_limit_mb=4096 -print_final_stats=1)

# stat LOG KEY: a libFuzzer final statistic (0 if absent, e.g. after a crash).
stat() { sed -n "s/^stat::$2: *//p" "$1" | tail -1 | grep . || echo 0; }
# coverage LOG: "cov ft" of the last status line.
coverage() {
    local line
    line=$(grep -aE '^#[0-9]+' "$1" | grep -a 'cov:' | tail -1 || true)
    printf '%s %s' "$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$line" | grep . || echo -)" \
        "$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$line" | grep . || echo -)"
}

summary=()
failed=()
# run TARGET PASS LOG ARGS...: runs one libFuzzer pass, records its line.
run() {
    local t=$1 pass=$2 log=$3
    shift 3
    local art=$ROOT/fuzz/artifacts/$t
    mkdir -p "$art"
    local before status=0
    before=$(count_files "$art")
    "$BIN_DIR/$t" "$@" "${COMMON[@]}" -artifact_prefix="$art/" >"$log" 2>&1 || status=$?
    local crashes=$(($(count_files "$art") - before))
    if [ "$status" -ne 0 ] || [ "$crashes" -gt 0 ]; then
        failed+=("$t ($pass)")
        fuzz_log "$t $pass: FAILED (exit $status) — $log:"
        # The property's message: decoder, field, input.
        grep -a -A12 -m1 -E "panicked at|ERROR: libFuzzer|ERROR: AddressSanitizer" "$log" >&2 || tail -20 "$log" >&2
    fi
    read -r cov ft <<<"$(coverage "$log")"
    summary+=("$(printf '%-13s %-6s %12s %9s %6s %7s %7s' "$t" "$pass" \
        "$(stat "$log" number_of_executed_units)" "$(stat "$log" average_exec_per_sec)" \
        "$cov" "$ft" "$crashes")")
    LAST_NEW=$(stat "$log" new_units_added)
}

# afl_pass TARGET OUT: one AFL++ run of SECONDS_PER_TARGET, its line in the
# summary (cov: AFL++'s edges_found), its crashes copied to fuzz/artifacts.
afl_pass() {
    local t=$1 out=$2 status=0
    rm -rf "$out"
    fuzz_log "$t: AFL++ ${SECONDS_PER_TARGET}s"
    run_afl "$t" "$SECONDS_PER_TARGET" "$out" >"$out.log" 2>&1 || status=$?
    local crashes=0 art=$ROOT/fuzz/artifacts/$t
    mkdir -p "$art"
    for c in "$out"/default/crashes/id:*; do
        [ -e "$c" ] || continue
        cp "$c" "$art/afl-crash-$(basename "$c" | tr ':,' '__')"
        crashes=$((crashes + 1))
    done
    if [ "$status" -ne 0 ] || [ "$crashes" -gt 0 ]; then
        failed+=("$t (afl)")
        fuzz_log "$t afl: FAILED (exit $status, $crashes crashes) — $out.log"
        tail -20 "$out.log" >&2
    fi
    summary+=("$(printf '%-13s %-6s %12s %9s %6s %7s %7s' "$t" afl \
        "$(afl_stat "$out" execs_done)" "$(afl_stat "$out" execs_per_sec)" \
        "$(afl_stat "$out" edges_found)" - "$crashes")")
}

for t in "${selected[@]}"; do
    dir=$WORK/$t
    mkdir -p "$dir/corpus" "$dir/long"
    if [ "$SMOKE" = 1 ]; then
        scratch=$(mktemp -d)
        fuzz_log "$t: smoke, $RUNS runs"
        run "$t" smoke "$dir/smoke.log" "$scratch" "corpora/$t" \
            -runs="$RUNS" -seed=1 -max_len="$MAX_LEN"
        rm -rf "$scratch"
        summary[-1]+="        -"
        continue
    fi
    long=$((SECONDS_PER_TARGET * LONG_SHARE / 100))
    main=$((SECONDS_PER_TARGET - long))
    new=0
    if [ "$ENGINE" != afl ]; then
        fuzz_log "$t: main pass ${main}s (max_len $MAX_LEN), long pass ${long}s (1 MiB)"
        run "$t" main "$dir/main.log" "$dir/corpus" "corpora/$t" \
            -max_total_time="$main" -max_len="$MAX_LEN"
        new=$LAST_NEW
    fi
    if [ "$ENGINE" != afl ] && [ "$long" -gt 0 ]; then
        run "$t" long "$dir/long.log" "$dir/long" "$dir/corpus" "corpora/$t" \
            -max_total_time="$long" -max_len=1048576 -len_control=0
        summary[-1]+="$(printf ' %8s' "+$LAST_NEW")"
    fi
    found=("$dir/corpus")
    if [ "$ENGINE" != libfuzzer ]; then
        afl_pass "$t" "$dir/afl"
        found+=("$dir/afl/default/queue")
    fi
    merged=0
    if [ "$MERGE" = 1 ]; then
        before=$(count_files "corpora/$t")
        "$BIN_DIR/$t" -merge=1 -max_len="$MAX_LEN" "corpora/$t" "${found[@]}" \
            >"$dir/merge.log" 2>&1 || fuzz_log "$t: merge failed, see $dir/merge.log"
        merged=$(($(count_files "corpora/$t") - before))
    fi
    # The main line: new units found, and how many of them corpora/ kept.
    for i in "${!summary[@]}"; do
        if [[ ${summary[$i]} == "$t "*main* ]]; then
            summary[$i]+="$(printf ' %8s' "+$new/+$merged")"
        fi
    done
done

printf '\n%-13s %-6s %12s %9s %6s %7s %7s %s\n' target pass execs "exec/s" cov ft crashes " new/kept"
printf '%s\n' "${summary[@]}"
if [ "$SMOKE" = 0 ]; then
    printf '\ncorpora: %s; working corpora: %s; crashes: fuzz/artifacts/\n' \
        "$(du -shL corpora | cut -f1)" "$WORK"
fi
if [ ${#failed[@]} -gt 0 ]; then
    printf '\nFAILED: %s\n' "${failed[*]}"
    printf 'Reproduce: %s/<target> fuzz/artifacts/<target>/<crash file>; minimise: cargo %s fuzz tmin -O -s %s <target> <crash file>\n' \
        "$BIN_DIR" "$TOOLCHAIN" "$SANITIZER"
    exit 1
fi
