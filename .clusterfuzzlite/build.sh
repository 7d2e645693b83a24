#!/bin/bash -eu
# Builds the fuzz targets the OSS-Fuzz way: each binary in $OUT, with the
# dictionary as $OUT/<target>.dict and its seeds as
# $OUT/<target>_seed_corpus.zip. The sanitizer flags come from the
# environment the base image sets up ($SANITIZER, $RUSTFLAGS).
#
# Runs inside the image (cwd $SRC/utf8conform) or, to check it without
# Docker, anywhere with OUT and SRC set: SRC/utf8conform, if it exists, is
# the source tree, otherwise the tree this script lives in. cargo must be a
# nightly one, as in the image (RUSTUP_TOOLCHAIN=nightly outside it).
set -euo pipefail
if [ -d "$SRC/utf8conform" ]; then
    cd "$SRC/utf8conform"
else
    cd "$(dirname "$0")/.."
fi

# No comparison tracing, as fuzz/lib.sh builds by default: no target gains
# coverage from it, and it costs up to half the exec/s (fuzz/README.md,
# "Running").
cargo fuzz build -O --no-trace-compares
release=fuzz/target/x86_64-unknown-linux-gnu/release

for target in $(cargo fuzz list); do
    # The yardstick is not a property (fuzz/fuzz_targets/baseline.rs).
    [ "$target" != baseline ] || continue
    cp "$release/$target" "$OUT/"
    cp corpora/utf8.dict "$OUT/$target.dict"
    if [ -d "corpora/$target" ]; then
        rm -f "$OUT/${target}_seed_corpus.zip"
        (cd "corpora/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
    fi
done
