#!/usr/bin/env bash
# A RUSTC_WRAPPER for fuzz builds made with `cargo fuzz build
# --no-trace-compares`: it turns comparison tracing back on for the
# utf8conform crate alone. lib.sh's build_targets uses it when
# FUZZ_TRACE_COMPARES=utf8conform; the default is no tracing at all.
#
# Why it exists: libFuzzer's comparison hooks (`__sanitizer_cov_trace_cmp*`)
# let it solve `byte == 0xED`-style branches. If a target ever needs that
# (say, a multi-byte magic value in a new input type), this traces the code
# under test (the codec, the reference and the properties) without paying
# for the hooks inside the oracles (encoding_rs, bstr, simdutf8). Today no
# target gains coverage from it (fuzz/README.md, "Running", has the numbers).
# cargo-fuzz applies its flags to every crate, and per-crate flags in Cargo
# (`profile-rustflags`) are nightly-only, need a config file or manifest
# key, and stable Cargo refuses both; a wrapper works with either toolchain.
#
# Cargo runs `$RUSTC_WRAPPER <rustc> <args…>`; UTF8CONFORM_INNER_WRAPPER, if
# set, is a wrapper that was already in use (e.g. sccache) and is kept.
set -euo pipefail
rustc=$1
shift
prev=
for arg in "$@"; do
    if [ "$prev" = --crate-name ] && [ "$arg" = utf8conform ]; then
        set -- "$@" -Cllvm-args=-sanitizer-coverage-trace-compares
        break
    fi
    prev=$arg
done
exec ${UTF8CONFORM_INNER_WRAPPER:-} "$rustc" "$@"
