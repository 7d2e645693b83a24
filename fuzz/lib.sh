# Shared by nightly.sh and seed_corpora.sh (sourced, not run): the targets,
# the toolchain, and where the binaries are.
#
# cargo-fuzz needs nightly Rust for the sanitizers (`-Zsanitizer`); without
# nightly everything still works on stable with `-s none` — coverage-guided
# fuzzing with the properties' own checks, minus AddressSanitizer, which
# matters little here since the targets call almost no `unsafe` code.

# Every fuzz target; each has corpora/<target>/.
TARGETS=(differential structured roundtrip chunking lossy encode utf16 variants)

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DICT=$ROOT/corpora/utf8.dict

fuzz_log() { printf '[fuzz] %s\n' "$*" >&2; }

# Installs cargo-fuzz when it is missing.
ensure_cargo_fuzz() {
    if ! cargo fuzz --version >/dev/null 2>&1; then
        fuzz_log "installing cargo-fuzz"
        cargo install cargo-fuzz --locked
    fi
}

# Sets TOOLCHAIN (`+nightly` or empty) and SANITIZER (`address` by default
# on nightly, `none` on stable, whatever FUZZ_SANITIZER says if set).
pick_toolchain() {
    if cargo +nightly --version >/dev/null 2>&1; then
        TOOLCHAIN=+nightly
        SANITIZER=${FUZZ_SANITIZER:-address}
    else
        TOOLCHAIN=
        if [ "${FUZZ_SANITIZER:-none}" != none ]; then
            fuzz_log "no nightly toolchain: sanitizer ${FUZZ_SANITIZER} needs it; using none"
        fi
        SANITIZER=none
        fuzz_log "no nightly toolchain: fuzzing on stable with -s none"
    fi
    # One target directory per sanitizer: switching would rebuild everything.
    # And one per FUZZ_TRACE_COMPARES mode: Cargo does not see what the
    # wrapper adds, so it would keep a crate built with another mode. Set
    # FUZZ_TARGET_DIR too when FUZZ_BUILD_FLAGS changes the build.
    local trace=${FUZZ_TRACE_COMPARES:-none} suffix=
    [ "$trace" = none ] || suffix=-trace-$trace
    FUZZ_TARGET_DIR=${FUZZ_TARGET_DIR:-$ROOT/fuzz/target-$SANITIZER$suffix}
    local host
    host=$(rustc -vV | sed -n 's/^host: //p')
    BIN_DIR=$FUZZ_TARGET_DIR/$host/release
}

# Builds the named targets (all by default), optimised, with debug info.
#
# No comparison tracing by default (FUZZ_TRACE_COMPARES=none). libFuzzer's
# comparison hooks let it solve `byte == 0xED`-style branches, but a byte
# has 256 values, the dictionary lists every boundary, and the `structured`
# input type builds the malformations itself: from an empty corpus, in 90 s
# without the hooks, every target reaches the coverage it reaches with them
# in utf8conform (`differential` 8 edges short, of 574), at 1.15 to 2.5
# times the exec/s (fuzz/README.md, "Running", has the numbers).
# FUZZ_TRACE_COMPARES=utf8conform traces that crate alone
# (fuzz/trace-compares.sh), =all every crate, as plain `cargo fuzz build`
# does. FUZZ_BUILD_FLAGS adds cargo-fuzz build flags.
build_targets() {
    local trace=(--no-trace-compares) wrapper=()
    case "${FUZZ_TRACE_COMPARES:-none}" in
    all) trace=() ;;
    none) ;;
    utf8conform) wrapper=(RUSTC_WRAPPER="$ROOT/fuzz/trace-compares.sh"
        UTF8CONFORM_INNER_WRAPPER="${RUSTC_WRAPPER:-}") ;;
    *)
        fuzz_log "FUZZ_TRACE_COMPARES=${FUZZ_TRACE_COMPARES}: expected none, utf8conform or all"
        return 2
        ;;
    esac
    # Under ASan, libFuzzer itself is built without it (fuzz/cxx-libfuzzer-no-asan.sh).
    if [ "$SANITIZER" = address ]; then
        wrapper+=(CXX="$ROOT/fuzz/cxx-libfuzzer-no-asan.sh"
            UTF8CONFORM_INNER_CXX="${CXX:-}")
    fi
    # shellcheck disable=SC2086 # TOOLCHAIN and FUZZ_BUILD_FLAGS are word lists
    (cd "$ROOT" && env "${wrapper[@]}" cargo $TOOLCHAIN fuzz build -O -s "$SANITIZER" \
        --target-dir "$FUZZ_TARGET_DIR" "${trace[@]}" ${FUZZ_BUILD_FLAGS:-} "$@")
}

# Number of files in a directory (0 if it does not exist).
count_files() {
    if [ -d "$1" ]; then find "$1" -maxdepth 1 -type f | wc -l; else echo 0; fi
}

# ---- the second engine: AFL++ through afl.rs (fuzz/afl/) ------------------

# The AFL++ targets' build (cargo afl build, its own target directory).
AFL_TARGET_DIR=$ROOT/fuzz/target-afl

# Installs cargo-afl when it is missing; its install builds AFL++ from the
# sources the crate carries (needs make and a C compiler).
ensure_cargo_afl() {
    if ! cargo afl --version >/dev/null 2>&1; then
        fuzz_log "installing cargo-afl (builds AFL++ from source)"
        cargo install cargo-afl --locked
    fi
}

# Builds the named AFL++ targets (all by default), instrumented by
# `cargo afl build`, optimised, on the stable toolchain.
build_afl() {
    local bins=()
    for t in "$@"; do bins+=(--bin "$t"); done
    (cd "$ROOT/fuzz/afl" && cargo afl build --release --locked --target-dir "$AFL_TARGET_DIR" "${bins[@]}")
}

# run_afl TARGET SECONDS OUT [afl-fuzz args...]: fuzzes TARGET from its
# committed corpus corpora/TARGET into OUT (OUT/default/queue holds what it
# found) for SECONDS, with the shared dictionary. afl-fuzz's checks of the
# machine's set-up (core_pattern, CPU frequency governor) are for dedicated
# fuzzing hosts; here they only warn.
run_afl() {
    local t=$1 seconds=$2 out=$3
    shift 3
    mkdir -p "$out"
    AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
        AFL_NO_AFFINITY=1 \
        cargo afl fuzz -i "$ROOT/corpora/$t" -o "$out" -x "$DICT" -V "$seconds" -t 25000 -m none "$@" \
        -- "$AFL_TARGET_DIR/release/$t"
}

# afl_stat OUT KEY: one field of afl-fuzz's final fuzzer_stats.
afl_stat() {
    sed -n "s/^$2 *: *//p" "$1/default/fuzzer_stats" 2>/dev/null | head -1 | grep . || echo 0
}
