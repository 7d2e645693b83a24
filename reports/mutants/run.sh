#!/usr/bin/env bash
# The mutation campaign (cargo-mutants), one group of files at a time, each
# tested by the tests that exercise it; then reports/mutants/summary.md.
#
# Usage: reports/mutants/run.sh [GROUP...]      (default: every group)
#        reports/mutants/run.sh --list [GROUP...]  count the mutants only
#
# Groups (the files, of those .cargo/mutants.toml examines, then the tests
# each mutant runs):
#   codec      codec/src/*.rs               codec: lib tests + codec/tests/*
#              codec/src/utf16/*.rs (not x86/)
#   reference  src/reference/*.rs           utf8conform: lib tests + tests/exhaustive.rs
#   kit        src/differential.rs src/level.rs src/audit/classify.rs
#              src/audit/mod.rs (level/flag logic) src/vectors/run.rs
#                                           utf8conform: lib tests + tests/vectors.rs
#
# Each group writes target/mutants/<group>/mutants.out/ (cargo-mutants'
# own output: outcomes.json, caught.txt, missed.txt, timeout.txt,
# unviable.txt, logs) and copies the four lists to reports/mutants/<group>/.
# A group already finished is not run again unless MUTANTS_RERUN=1.
#
# Environment: MUTANTS_ARGS adds cargo-mutants arguments (e.g. "--shard 0/8",
# or "--exclude src/reference/variants.rs" to leave a file out: a glob, which
# unlike --exclude-re also leaves out its "delete field" mutants); MUTANTS_JOBS sets -j
# (default 1); MUTANTS_TIME_LIMIT stops a group after that many seconds and
# keeps what it tested (default 0: no limit); MUTANTS_MEMORY_LIMIT is the
# `ulimit -v` (KiB) of cargo-mutants and all it runs (default 8 GiB), so
# that a mutant whose loop pushes without end aborts its test binary
# (caught) instead of filling the machine's memory; MUTANTS_PART names the
# part a run is (codec-f: target/mutants/codec-f and reports/mutants/codec-f,
# default the group's own name), so that a group run in parts (other files,
# mutants run again) keeps every part's results: summarize.py reads them all,
# a later part (in name order) having the last word on a mutant both ran.
set -euo pipefail
cd "$(dirname "$0")/../.."

GROUPS_ALL=(codec reference kit)
LIST=0
if [ "${1:-}" = --list ]; then
    LIST=1
    shift
fi
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=("${GROUPS_ALL[@]}")

cargo mutants --version >/dev/null 2>&1 || cargo install cargo-mutants --locked

# args GROUP: the cargo-mutants arguments, then `--` and the test targets.
args() {
    case "$1" in
    codec) echo "--package utf8conform-codec -- --lib --tests" ;;
    reference) echo "--package utf8conform --exclude-re ^src/[^r] --exclude src/audit/mod.rs -- --lib --test exhaustive" ;;
    kit) echo "--package utf8conform --features simdutf --exclude-re ^src/reference/ --exclude src/reference/*.rs -- --lib --test vectors" ;;
    *) echo "unknown group $1 (groups: ${GROUPS_ALL[*]})" >&2; return 2 ;;
    esac
}

for g in "${groups[@]}"; do
    a=$(args "$g")
    part=${MUTANTS_PART:-$g}
    # shellcheck disable=SC2086 # a and MUTANTS_ARGS are word lists (globs quoted by cargo-mutants)
    if [ "$LIST" = 1 ]; then
        printf '%-10s %s mutants\n' "$g" "$(set -f; cargo mutants --list ${a%% -- *} ${MUTANTS_ARGS:-} | wc -l)"
        continue
    fi
    out=target/mutants/$part
    if [ -f "$out/mutants.out/outcomes.json" ] && [ "${MUTANTS_RERUN:-0}" != 1 ] &&
        ! grep -q '"end_time": null' "$out/mutants.out/outcomes.json"; then
        echo "== $part: done before ($out), skipped (MUTANTS_RERUN=1 runs it again)"
        continue
    fi
    echo "== $part: $(date -u +%FT%TZ)"
    mkdir -p "$out" "reports/mutants/$part"
    # The mutants this run is to test, so that a run stopped early says
    # which it did not reach.
    (set -f; cargo mutants --list ${MUTANTS_ARGS:-} ${a%% -- *}) >"reports/mutants/$part/planned.txt"
    start=$(date +%s)
    status=0
    (set -f; ulimit -v "${MUTANTS_MEMORY_LIMIT:-8388608}"
        timeout -s INT "${MUTANTS_TIME_LIMIT:-0}" nice -n 10 cargo mutants --no-shuffle -j "${MUTANTS_JOBS:-1}" \
        --output "$out" ${MUTANTS_ARGS:-} ${a%% -- *} -- ${a#* -- }) || status=$?
    echo "== $part: exit $status after $(( $(date +%s) - start )) s"
    # 0: all caught; 2: some missed; 3: some timed out; 124: stopped at
    # MUTANTS_TIME_LIMIT (what ran is kept). Anything else failed.
    case $status in 0 | 2 | 3 | 124) ;; *) exit "$status" ;; esac
    for f in caught missed timeout unviable; do
        cp "$out/mutants.out/$f.txt" "reports/mutants/$part/$f.txt"
    done
    cp "$out/mutants.out/outcomes.json" "reports/mutants/$part/outcomes.json"
    # What this run was asked for (summarize.py prints it with the run).
    printf '%s\n' "cargo mutants ${MUTANTS_ARGS:-} ${a%% -- *} -- ${a#* -- }" >"reports/mutants/$part/command.txt"
done
[ "$LIST" = 1 ] || python3 reports/mutants/summarize.py
