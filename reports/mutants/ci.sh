#!/usr/bin/env bash
# CI's mutation check, bounded to a few minutes:
#
#   * on a change (MUTANTS_BASE, default origin/main, exists and the Rust
#     sources differ from it): every mutant in the diff (`--in-diff`);
#   * otherwise (a clean clone of main): a deterministic sample, PER_GROUP
#     mutants of each group of reports/mutants/run.sh, the shard chosen by
#     the commit count, so that successive commits walk every mutant.
#
# Mutants run in place (--in-place), with the `test` profile that CI's
# `cargo test` has just built, so only the mutated crate is rebuilt. The
# mutants reports/mutants/verdicts.tsv argues are equivalent are left out
# (reports/mutants/verdicts.py finds their current names).
# Exits non-zero when a mutant is missed: a test is missing, or the mutant
# is equivalent and belongs in verdicts.tsv.
#
# Environment: MUTANTS_BASE (the branch a change is measured against),
# PER_GROUP (default 1), MUTANTS_TIME_LIMIT (seconds, default 600: the step
# is stopped then, and says what it did not reach), MUTANTS_TEST_TIMEOUT
# (seconds one mutant's tests may take, default 120), MUTANTS_MEMORY_LIMIT
# (`ulimit -v` for cargo-mutants and all it runs, KiB, default 8 GiB: a
# mutant that stops a decoding loop from advancing pushes to a Vec without
# end, and with the limit the test binary aborts, caught, instead of the
# runner running out of memory).
set -euo pipefail
cd "$(dirname "$0")/../.."

PER_GROUP=${PER_GROUP:-1}
LIMIT=${MUTANTS_TIME_LIMIT:-600}
if ! cargo mutants --version >/dev/null 2>&1; then
    echo "installing cargo-mutants"
    cargo install cargo-mutants --locked
fi

# Equivalent mutants, as --exclude-re arguments of their current names:
# verdicts.py matches each verdict by its anchor (the mutated line), not
# by the name it was judged under, whose line number moves with the code.
mapfile -t excludes < <(cargo mutants --list --json --workspace | python3 reports/mutants/verdicts.py excludes)

base=${MUTANTS_BASE:-origin/main}
diff=$(mktemp)
trap 'rm -f "$diff"' EXIT
mode=sample
if git rev-parse -q --verify "$base^{commit}" >/dev/null; then
    git diff "$(git merge-base "$base" HEAD)" -- '*.rs' >"$diff"
    [ -s "$diff" ] && mode=diff
fi
commits=$(git rev-list --count HEAD)
# On main, the sample is drawn from the groups whose every mutant the
# campaign has judged (summary.md): there a miss is a regression, not a
# mutant nobody has looked at yet. The codec and reference groups are
# judged whole, the kit group too. (A file of a sampled group left out
# would go in `unjudged`, as --exclude-re, or as --exclude, a glob, if it
# has "delete field" mutants: cargo-mutants 27 applies no --exclude-re to
# them.)
sample_groups=(codec reference kit)
unjudged=()
deadline=$(($(date +%s) + LIMIT))
missed=0

# The groups' arguments (reports/mutants/run.sh's `args`).
source <(sed -n '/^args() {/,/^}/p' reports/mutants/run.sh)
groups=(codec reference kit)
[ "$mode" = diff ] || groups=("${sample_groups[@]}")
for g in "${groups[@]}"; do
    a=$(args "$g")
    select=(--in-diff "$diff")
    if [ "$mode" = sample ]; then
        n=$(set -f; cargo mutants --list ${a%% -- *} "${unjudged[@]}" "${excludes[@]}" | wc -l)
        shards=$(((n + PER_GROUP - 1) / PER_GROUP))
        [ "$shards" -gt 0 ] || continue
        select=(--shard "$((commits % shards))/$shards" --sharding round-robin "${unjudged[@]}")
        echo "== $g: sample $((commits % shards)) of $shards ($n mutants, commit $commits)"
    else
        echo "== $g: the mutants in the diff against $base"
    fi
    left=$((deadline - $(date +%s)))
    if [ "$left" -le 30 ]; then
        echo "== $g: not run, the step's ${LIMIT}s are spent"
        continue
    fi
    status=0
    # No baseline run (CI's `cargo test` just passed), so no measured test
    # time to scale: a mutant's tests get MUTANTS_TEST_TIMEOUT seconds.
    (set -f; ulimit -v "${MUTANTS_MEMORY_LIMIT:-8388608}"
        timeout -s INT "$left" cargo mutants --in-place --profile test --baseline skip \
        --timeout "${MUTANTS_TEST_TIMEOUT:-120}" --no-shuffle "${select[@]}" "${excludes[@]}" ${a%% -- *} -- ${a#* -- }) || status=$?
    # 0: all caught; 3: some made the tests hang and were stopped (killed
    # too); 2: some missed.
    case $status in
    0 | 3) ;;
    2) missed=1 ;;
    124 | 130) echo "== $g: stopped at the step's time limit" ;;
    *) echo "== $g: cargo mutants failed (exit $status)"; exit "$status" ;;
    esac
done
# --in-place restores each file after its mutant; a run stopped mid-mutant
# could leave one behind, with cargo-mutants' marker in it.
if left=$(grep -rl 'changed by cargo-mutants' src codec/src); then
    echo "a mutant was left in the source tree: $left (git diff shows it)"
    exit 1
fi
[ "$missed" = 0 ] || { echo "missed mutants: see mutants.out/missed.txt"; exit 1; }
