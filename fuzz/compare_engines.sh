#!/usr/bin/env bash
# libFuzzer against AFL++ on one target: the same property, the same
# starting corpus (corpora/<target>) and dictionary, the same time, one
# engine after the other; then what each reached, measured the same way
# (fuzz/coverage.sh over the seeds plus what the engine added).
#
# Usage: fuzz/compare_engines.sh [TARGET] [SECONDS]   (default: differential 300)
#
# Both builds are without a sanitizer (libFuzzer: `-s none`; AFL++: `cargo
# afl build`), so exec/s compares the engines, not ASan. Writes
# fuzz/work/compare/<engine>/ (the runs), fuzz/work/compare/<engine>.md (the
# coverage summaries) and prints one table.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

t=${1:-differential}
seconds=${2:-300}
work=$ROOT/fuzz/work/compare
rm -rf "$work"
mkdir -p "$work"

ensure_cargo_fuzz
ensure_cargo_afl
FUZZ_SANITIZER=none pick_toolchain
fuzz_log "building $t for libFuzzer (-s none) and AFL++"
build_targets "$t"
build_afl "$t"

fuzz_log "libFuzzer: $t for ${seconds}s"
mkdir -p "$work/libfuzzer-new"
"$BIN_DIR/$t" "$work/libfuzzer-new" "corpora/$t" -dict="$DICT" -max_total_time="$seconds" \
    -max_len=4096 -timeout=25 -print_final_stats=1 >"$work/libfuzzer.log" 2>&1
lf_execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/libfuzzer.log")
lf_rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/libfuzzer.log")
lf_new=$(count_files "$work/libfuzzer-new")

fuzz_log "AFL++: $t for ${seconds}s"
run_afl "$t" "$seconds" "$work/afl" >"$work/afl.log" 2>&1
afl_execs=$(afl_stat "$work/afl" execs_done)
afl_rate=$(afl_stat "$work/afl" execs_per_sec)
afl_queue=$(count_files "$work/afl/default/queue")
afl_edges=$(afl_stat "$work/afl" edges_found)

# Each engine's corpus as coverage.sh reads it: <root>/<target>/.
mkdir -p "$work/libfuzzer/$t" "$work/afl-corpus/$t"
cp "corpora/$t"/* "$work/libfuzzer-new"/* "$work/libfuzzer/$t/" 2>/dev/null || true
cp "$work/afl/default/queue"/id:* "$work/afl-corpus/$t/"
for engine in libfuzzer afl-corpus; do
    bash fuzz/coverage.sh --targets "$t" --corpus-root "$work/$engine" \
        --summary "$work/$engine.md" --html "$work/html-$engine" >/dev/null
done
lines() { grep -m1 '^Those files together' "$1" | sed 's/Those files together: //; s/\.$//'; }
total() {
    python3 - "$1" <<'EOF'
import re, sys
lines = regions = lines_all = regions_all = 0
for row in open(sys.argv[1]):
    m = re.match(r"\| \S+ \| (\d+)/(\d+) · (\d+)/(\d+) \|", row)
    if m:
        lines += int(m.group(1)); lines_all += int(m.group(2))
        regions += int(m.group(3)); regions_all += int(m.group(4))
print("%d/%d lines, %d/%d regions" % (lines, lines_all, regions, regions_all))
EOF
}
printf '\n%s, %ss each, from corpora/%s (%s inputs), load %s\n\n' "$t" "$seconds" "$t" \
    "$(count_files "corpora/$t")" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '| engine | execs | exec/s | inputs added | coverage, every file | coverage, files to cover |\n|---|---|---|---|---|---|\n'
printf '| libFuzzer | %s | %s | %s | %s | %s |\n' "$lf_execs" "$lf_rate" "$lf_new" "$(total "$work/libfuzzer.md")" "$(lines "$work/libfuzzer.md")"
printf '| AFL++ | %s | %s | %s (queue %s, edges %s) | %s | %s |\n' "$afl_execs" "$afl_rate" \
    "$((afl_queue - $(count_files "corpora/$t")))" "$afl_queue" "$afl_edges" "$(total "$work/afl-corpus.md")" "$(lines "$work/afl-corpus.md")"
