#!/usr/bin/env bash
# Source-based coverage of the fuzz corpora, as OSS-Fuzz's coverage build
# shows it: each cargo-fuzz target runs every input of its committed corpus
# (corpora/<target>) once, built with -Cinstrument-coverage, and llvm-cov
# turns the profiles into
#
#   fuzz/coverage/html/<target>/index.html   one target's lines and regions
#   fuzz/coverage/html/all/index.html        every target together
#   reports/coverage/summary.md              lines and regions covered per
#                                            file and per target (committed),
#                                            and the lines no target reaches
#                                            in the files the corpora must
#                                            cover (see reports/coverage/README.md)
#
# Usage: fuzz/coverage.sh [--targets a,b] [--corpus-root DIR] [--summary FILE]
#   --targets a,b      only these targets (default: all of fuzz/lib.sh's TARGETS)
#   --corpus-root DIR  read DIR/<target> instead of corpora/<target> (e.g. a
#                      fuzzer's output, to compare engines); default corpora
#   --summary FILE     where the Markdown summary goes
#                      (default reports/coverage/summary.md; - for stdout)
#   --html DIR         where the HTML goes (default fuzz/coverage/html)
#   --kernels a,b      codec kernels to pin for one more pass each over
#                      every corpus (UTF8CONFORM_KERNEL), besides the one the
#                      dispatcher picks (default: scalar,avx512,avx2,sse4.1;
#                      "" for none; a kernel this CPU lacks falls back to
#                      the dispatcher's and counts for nothing)
# Environment:
#   LLVM_BIN           directory with llvm-cov and llvm-profdata matching
#                      rustc +nightly's LLVM (default: the nightly toolchain's
#                      llvm-tools component, installed when missing)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

selected=("${TARGETS[@]}") CORPUS_ROOT=corpora SUMMARY=reports/coverage/summary.md
HTML=fuzz/coverage/html KERNELS=scalar,avx512,avx2,sse4.1
while [ $# -gt 0 ]; do
    case "$1" in
    --targets) IFS=, read -r -a selected <<<"$2"; shift ;;
    --corpus-root) CORPUS_ROOT=$2; shift ;;
    --summary) SUMMARY=$2; shift ;;
    --html) HTML=$2; shift ;;
    --kernels) KERNELS=$2; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
    shift
done

ensure_cargo_fuzz
if ! cargo +nightly --version >/dev/null 2>&1; then
    fuzz_log "coverage needs nightly Rust (-Cinstrument-coverage through cargo fuzz)"
    exit 2
fi
if [ -z "${LLVM_BIN:-}" ]; then
    rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^llvm-tools' ||
        rustup component add --toolchain nightly llvm-tools
    LLVM_BIN=$(rustc +nightly --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin
fi
host=$(rustc -vV | sed -n 's/^host: //p')
TARGET_DIR=$ROOT/fuzz/target-coverage
# cargo fuzz coverage builds into <target dir>/<host>/release when given --target-dir.
BIN=$TARGET_DIR/$host/release

profiles=() objects=()
mkdir -p fuzz/coverage/logs
for t in "${selected[@]}"; do
    fuzz_log "$t: running $(count_files "$CORPUS_ROOT/$t") inputs from $CORPUS_ROOT/$t"
    rm -rf "fuzz/coverage/$t"
    # -s none: coverage of the code, not of AddressSanitizer's checks.
    cargo +nightly fuzz coverage -O -s none --target-dir "$TARGET_DIR" \
        --llvm-path "$LLVM_BIN" "$t" "$CORPUS_ROOT/$t" >"fuzz/coverage/logs/$t.log" 2>&1 ||
        { tail -30 "fuzz/coverage/logs/$t.log" >&2; exit 1; }
    # The dispatcher runs the best kernel this CPU has; the scalar one
    # (and any other named) runs only when pinned: one more pass over the
    # corpus per pinned kernel, its profile merged into the target's.
    IFS=, read -r -a pinned <<<"$KERNELS"
    raws=()
    for k in "${pinned[@]}"; do
        raw=fuzz/coverage/$t/pinned-$k.profraw
        UTF8CONFORM_KERNEL=$k LLVM_PROFILE_FILE=$raw "$BIN/$t" -runs=0 "$CORPUS_ROOT/$t" \
            >"fuzz/coverage/logs/$t-$k.log" 2>&1 || { tail -30 "fuzz/coverage/logs/$t-$k.log" >&2; exit 1; }
        raws+=("$raw")
    done
    if [ ${#raws[@]} -gt 0 ]; then
        "$LLVM_BIN/llvm-profdata" merge -sparse "fuzz/coverage/$t/coverage.profdata" "${raws[@]}" \
            -o "fuzz/coverage/$t/merged.profdata"
        mv "fuzz/coverage/$t/merged.profdata" "fuzz/coverage/$t/coverage.profdata"
    fi
    profiles+=("fuzz/coverage/$t/coverage.profdata")
    objects+=(-object "$BIN/$t")
done
mkdir -p fuzz/coverage/all
"$LLVM_BIN/llvm-profdata" merge -sparse "${profiles[@]}" -o fuzz/coverage/all/coverage.profdata

# Only the project's own sources: not the standard library, not other
# crates, not the one-line fuzz targets.
IGNORE='/rustc/|/\.cargo/|/\.rustup/|/fuzz/'
# show PROFILE OUTDIR BINARY [-object BINARY]...: the HTML report.
show() {
    local profile=$1 out=$2
    shift 2
    rm -rf "$out"
    "$LLVM_BIN/llvm-cov" show -format=html -show-line-counts-or-regions -show-instantiations=false \
        -instr-profile="$profile" -ignore-filename-regex="$IGNORE" -output-dir="$out" "$@"
}
json=$(mktemp -d)
trap 'rm -rf "$json"' EXIT
for t in "${selected[@]}"; do
    show "fuzz/coverage/$t/coverage.profdata" "$HTML/$t" "$BIN/$t"
    "$LLVM_BIN/llvm-cov" export -summary-only -instr-profile="fuzz/coverage/$t/coverage.profdata" \
        -ignore-filename-regex="$IGNORE" "$BIN/$t" >"$json/$t.json"
done
show fuzz/coverage/all/coverage.profdata "$HTML/all" "${objects[@]:1}"
"$LLVM_BIN/llvm-cov" export -summary-only -instr-profile=fuzz/coverage/all/coverage.profdata \
    -ignore-filename-regex="$IGNORE" "${objects[@]:1}" >"$json/all.json"
# Line counts of every target together, for the lines no target reaches.
"$LLVM_BIN/llvm-cov" show -format=text -show-line-counts -show-instantiations=false \
    -instr-profile=fuzz/coverage/all/coverage.profdata -ignore-filename-regex="$IGNORE" \
    "${objects[@]:1}" >"$json/all.txt"

python3 fuzz/coverage_summary.py --json-dir "$json" --targets "$(IFS=,; echo "${selected[*]}")" \
    --root "$ROOT" --corpus-root "$CORPUS_ROOT" --pinned "$KERNELS" --out "$SUMMARY"
fuzz_log "HTML: $HTML/<target>/index.html and $HTML/all/index.html; summary: $SUMMARY"
