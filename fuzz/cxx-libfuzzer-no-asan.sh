#!/usr/bin/env bash
# A C++ compiler wrapper (`CXX`) for AddressSanitizer fuzz builds: it
# compiles libFuzzer itself without ASan, and every other C++ crate (the
# simdutf oracle) as before (lib.sh's build_targets sets it up).
#
# Why: the `cc` crate (1.11 and later) passes `-fsanitize=address` to every
# C and C++ build of a crate graph that rustc builds with
# `-Zsanitizer=address`, and libfuzzer-sys builds libFuzzer with `cc`. So
# libFuzzer's own per-input work — collecting the features of every counter
# an input hit, which is a third of the time of a fast target — ran under
# ASan too, and with ASan's use-after-return detection (on by default) its
# per-feature callback took a fake stack frame for every feature of every
# input. libFuzzer is the fuzzing engine, not code under test (LLVM builds
# it without sanitizers); ASan still covers the Rust code and simdutf.
# fuzz/README.md, "Speed", has the numbers.
#
# A build script's compiler runs with Cargo's `CARGO_PKG_NAME` of the crate
# being built, which is how the wrapper tells libFuzzer from simdutf. The
# flag goes last: with GCC and Clang the last of `-fsanitize=address` and
# `-fno-sanitize=address` wins. UTF8CONFORM_INNER_CXX, if set, is the C++
# compiler that was already in use (`CXX`); otherwise `c++`, `cc`'s default.
set -euo pipefail
if [ "${CARGO_PKG_NAME:-}" = libfuzzer-sys ]; then
    set -- "$@" -fno-sanitize=address
fi
# shellcheck disable=SC2086 # the inner compiler may be a command with flags
exec ${UTF8CONFORM_INNER_CXX:-c++} "$@"
