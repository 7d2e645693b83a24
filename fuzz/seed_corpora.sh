#!/usr/bin/env bash
# Regenerates the seed corpora corpora/<target>/ from three sources, then
# minimises each with `cargo fuzz cmin`:
#
#   1. shapes written here: the edges of RFC 3629 §3's table, every overlong
#      length, surrogates, values above U+10FFFF (4-, 5-, 6-byte forms),
#      bytes that never appear, stray continuations, every truncation point,
#      the RFC's and Unicode's own examples — alone and behind ASCII padding
#      that puts them on SIMD block edges;
#   2. the bytes of every case in vectors/*.json (one file each, plus each
#      category concatenated in ≤ 4 KiB pieces); skipped if there are none;
#   3. slices of the real-world texts in shared/seeds/*.txt (≤ 4 KiB each),
#      some cut mid-character or with one byte broken.
#
# Seeds are added to what corpora/<target>/ already holds (nightly runs merge
# new coverage there), then cmin keeps the smallest set with the same
# coverage. Each target gets inputs in its own format: `chunking` a split
# header (utf8conform::properties::split_plan), `utf16` the same and UTF-16
# code units too, `encode` 32-bit values too, `variants` raw bytes that are
# also read as UTF-16 units and 32-bit values.
#
# Usage: fuzz/seed_corpora.sh [--no-cmin]
#   SEEDS_DIR  where the seed texts are (default: ../shared/seeds beside the repo)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

CMIN=1
case "${1:-}" in
--no-cmin) CMIN=0 ;;
"") ;;
*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
SEEDS_DIR=${SEEDS_DIR:-$ROOT/../shared/seeds}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
raw=$stage/raw
mkdir -p "$raw" "$stage/structured" "$stage/encode" "$stage/chunking"
n=0

# put DIR ESCAPED: writes the bytes `printf %b` makes of ESCAPED to a new file.
put() {
    n=$((n + 1))
    printf '%b' "$2" >"$1/s$n"
}
# hex_esc HEX: "c080" -> "\xc0\x80".
hex_esc() { sed 's/../\\x&/g' <<<"$1"; }
# enc_any VALUE LEN: VALUE in a LEN-byte sequence of RFC 2279's pattern,
# shortest or not (how overlongs and out-of-range forms are made), escaped.
enc_any() {
    local v=$1 len=$2 out="" i
    if [ "$len" -eq 1 ]; then printf '\\x%02x' "$v"; return; fi
    for ((i = 1; i < len; i++)); do
        out=$(printf '\\x%02x' $((0x80 | (v & 0x3F))))$out
        v=$((v >> 6))
    done
    printf '\\x%02x%s' $(((0xFF00 >> len) & 0xFF | v)) "$out"
}
natural_len() {
    local v=$1
    if ((v < 0x80)); then echo 1; elif ((v < 0x800)); then echo 2
    elif ((v < 0x10000)); then echo 3; elif ((v < 0x200000)); then echo 4
    elif ((v < 0x4000000)); then echo 5; else echo 6; fi
}
enc() { enc_any "$1" "$(natural_len "$1")"; }
pad() { printf "%${1}s" "" | tr ' ' a; }
# slice FILE OFFSET LEN: LEN bytes of FILE from OFFSET.
slice() { dd if="$1" iflag=skip_bytes,count_bytes skip="$2" count="$3" bs=4096 status=none; }

# ---- 1. shapes ----
shapes=()
# Well-formed: the first and last value of every length, around the
# surrogates, noncharacters, U+FFFD, the BOM.
for v in 0x0 0x7F 0x80 0x7FF 0x800 0xFFF 0x1000 0xD7FF 0xE000 0xFDD0 0xFEFF \
    0xFFFD 0xFFFE 0xFFFF 0x10000 0x3FFFF 0x40000 0xFFFFF 0x100000 0x10FFFF; do
    shapes+=("$(enc $((v)))")
done
# Overlongs: each value in every longer form up to 6 bytes.
for v in 0x0 0x1 0x2F 0x7F 0x80 0x7FF 0x800 0xFFFF 0x10000 0x10FFFF; do
    for ((len = $(natural_len $((v))) + 1; len <= 6; len++)); do
        shapes+=("$(enc_any $((v)) $len)")
    done
done
# Surrogates (CESU-8 style), alone and as the §3 pair for U+233B4.
for v in 0xD800 0xDB7F 0xDB80 0xDBFF 0xDC00 0xDFFF; do
    shapes+=("$(enc_any $((v)) 3)")
done
shapes+=('\xED\xA1\x8C\xED\xBE\xB4')
# Above U+10FFFF in RFC 2279's 4-, 5- and 6-byte forms.
for v in 0x110000 0x13FFFF 0x140000 0x1FFFFF 0x200000 0x3FFFFFF 0x4000000 0x7FFFFFFF; do
    shapes+=("$(enc $((v)))")
done
# Bytes that never appear: alone, before a continuation, before ASCII.
for b in c0 c1 f5 f6 f7 f8 f9 fa fb fc fd fe ff; do
    shapes+=("\\x$b" "\\x$b\\x80" "\\x${b}a")
done
# Stray continuations at every edge, and runs of them.
for b in 80 8f 90 9f a0 bf; do shapes+=("\\x$b" "a\\x${b}b"); done
shapes+=('\x80\x80' '\x80\xbf\x80\xbf\x80' '\x80\x80\x80\x80\x80\x80\x80\x80')
# Every truncation point of every length: at the end, before ASCII, before
# a 2-byte and before a 3-byte character.
for v in 0x80 0x7FF 0x800 0x20AC 0xD7FF 0xE000 0xFFFF 0x10000 0x1F600 0x10FFFF; do
    full=$(enc $((v)))
    len=$(natural_len $((v)))
    for ((keep = 1; keep < len; keep++)); do
        cut=${full:0:$((keep * 4))}
        shapes+=("$cut" "${cut}a" "${cut}\\xC3\\xA9" "${cut}\\xE2\\x82\\xAC")
    done
done
# The RFC's examples (§7, §10) and Unicode §3.9 Table 3-8's line.
shapes+=('\x41\xE2\x89\xA2\xCE\x91\x2E' '\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4'
    '\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E' '\xEF\xBB\xBF\xF0\xA3\x8E\xB4'
    '\x2F\xC0\xAE\x2E\x2F' '\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64')
for s in "${shapes[@]}"; do put "$raw" "$s"; done
# A few shapes behind padding that puts them on 16-, 32- and 64-byte edges.
for s in '\xC0\xAF' '\xED\xA0\x80' '\xF4\x90\x80\x80' '\xE2\x82' '\xF0\x9F\x98' \
    '\x80' '\xE2\x82\xAC' '\xF0\x9F\x98\x80'; do
    for p in 14 15 16 30 31 32 61 62 63 64; do put "$raw" "$(pad $p)$s"; done
done

# ---- 2. vectors ----
shopt -s nullglob
vectors=()
for f in "$ROOT"/vectors/*.json; do
    [ "$(basename "$f")" = schema.json ] || vectors+=("$f")
done
nvec=0
for f in "${vectors[@]}"; do
    hexes=$(grep -o '"bytes": *"[0-9a-f]*"' "$f" | sed 's/.*"\([0-9a-f]*\)"$/\1/' || true)
    [ -n "$hexes" ] || continue
    while IFS= read -r h; do
        put "$raw" "$(hex_esc "$h")"
        nvec=$((nvec + 1))
    done <<<"$hexes"
    # The whole category in one stream: errors next to each other.
    tr -d '\n' <<<"$hexes" | fold -w 8000 | while IFS= read -r piece; do
        n=$((n + 1))
        printf '%b' "$(hex_esc "$piece")" >"$raw/cat-$(basename "$f" .json)-$n"
    done
    # Scalars for the encoders, as 32-bit little-endian values.
    for v in $(grep -o '"scalar": *[0-9]*' "$f" | grep -o '[0-9]*$' || true); do
        put "$stage/encode" "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' \
            $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24 & 255)))"
    done
done
fuzz_log "vectors: ${#vectors[@]} files, $nvec cases"

# ---- 3. real-world text ----
ntext=0
for f in "$SEEDS_DIR"/*.txt; do
    size=$(wc -c <"$f")
    for off in 0 $((size / 3)) $((2 * size / 3)); do
        slice "$f" "$off" 4000 >"$raw/text-$ntext"
        ntext=$((ntext + 1))
    done
    for off in 1000 5001 9002 13003 17004; do
        [ "$off" -lt "$size" ] || continue
        slice "$f" "$off" 200 >"$raw/text-$ntext"
        # The same with one byte broken in the middle, and with a lone lead.
        cp "$raw/text-$ntext" "$raw/text-$ntext-bad"
        printf '\xC0' | dd of="$raw/text-$ntext-bad" bs=1 seek=100 conv=notrunc status=none
        { slice "$raw/text-$ntext" 0 150; printf '\xE2'; } >"$raw/text-$ntext-cut"
        ntext=$((ntext + 1))
    done
done
fuzz_log "text slices: $ntext from $SEEDS_DIR"

# ---- per-target formats ----
# chunking: a split header, then the bytes (properties::split_plan): one byte
# at a time for short seeds, every 7 bytes for long ones, and two explicit
# splits inside the first character.
for s in "$raw"/*; do
    size=$(wc -c <"$s")
    b=$(basename "$s")
    if [ "$size" -le 256 ]; then
        { printf '\x80'; cat "$s"; } >"$stage/chunking/$b-each"
        { printf '\x02\x01\x00\x02\x00'; cat "$s"; } >"$stage/chunking/$b-two"
    else
        { printf '\x86'; cat "$s"; } >"$stage/chunking/$b-every7"
    fi
done
# structured: entropy for generate::Structured, made reproducibly.
for i in $(seq 1 48); do
    e=$(for j in $(seq 1 $((i % 8 + 1))); do
        printf 'utf8conform structured seed %d/%d' "$i" "$j" | sha256sum | cut -c1-64
    done | tr -d '\n')
    printf '%b' "$(hex_esc "$e")" >"$stage/structured/e$i"
done
# encode: the §3 table's edges and non-scalars, one value each and all at once.
all=""
for v in 0x0 0x7F 0x80 0x7FF 0x800 0xD7FF 0xD800 0xDBFF 0xDC00 0xDFFF 0xE000 \
    0xFFFD 0xFFFF 0x10000 0x10FFFF 0x110000 0x1FFFFF 0x7FFFFFFF 0x80000000 0xFFFFFFFF; do
    v=$((v))
    e=$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24 & 255)))
    put "$stage/encode" "$e"
    all+=$e
done
put "$stage/encode" "$all"

# utf16: the chunking seeds (the same split header), and UTF-16 code units
# (little-endian, after a header with no splits): a pair, lone and reversed
# surrogates, alone and after 30 to 63 units of ASCII (the 32-unit steps).
mkdir -p "$stage/utf16"
for s in '\x3d\xd8\x00\xde' '\x00\xd8' '\x00\xdc' '\xff\xdb\xff\xdf' \
    '\x00\xdc\x00\xd8' '\x41\x00\x00\xd8\x42\x00' '\xe9\x00\xac\x20\xfd\xff'; do
    put "$stage/utf16" "\\x00$s"
    for p in 30 31 32 63; do
        put "$stage/utf16" "\\x00$(printf '\\x61\\x00%.0s' $(seq $p))$s"
    done
done

# variants: each neighbour's own cases, read as bytes (CESU-8 pairs as two
# 3-byte forms, U+10FFFF's pair, lone, reversed and cut pairs, a pair split
# by ASCII; Modified UTF-8's C0 80 for NUL, a raw NUL beside a surrogate,
# overlongs Java reads and the others refuse; 4-byte forms, alone and next
# to a surrogate so that no shortcut through UTF-8 applies; RFC 2279's 5-
# and 6-byte forms), and the same inputs after them as UTF-16 units or
# 32-bit values (the `utf16` and `encode` seeds).
mkdir -p "$stage/variants"
for s in '\xED\xA0\x81\xED\xB0\x80' '\xED\xAF\xBF\xED\xBF\xBF' '\xED\xA0\x80' \
    '\xED\xB0\x80' '\xED\xB0\x80\xED\xA0\x80' '\xED\xA0\x80a' '\xED\xA0\x80\xED\x80\x80' \
    '\xED\xA0\x80\xED\xA0\x80' '\xED\xA0\x80a\xED\xB0\x80' '\xED\xA0' '\xED\xA0\x81\xED' \
    '\xED\xA0\x81\xED\xB0' '\xED\xA0\x81\xEE\xB0\x80' '\xED\xA0\x81\xED\xA0\x80' \
    '\xED\xA0\x81\xED\xB0a' '\xED\xA0a' '\xED\x9F\xBF' '\xED\x80a' '\xEDa' \
    '\xC0\x80' '\xC0\x80\xC0\x80' 'a\xC0\x80b' '\x00\xED\xA0\x80' '\x00\xC0\x80' '\xC0\xAF' \
    '\xC1\xBF' '\xE0\x80\x80' '\xE0\x9F\xBF' '\xC0' '\xC0a' '\xE0\x80' \
    '\xF0\x9F\x98\x80' '\xF0\x9F\x98\x80\xED\xA0\x80' '\xF4\x8F\xBF\xBF\xC0\x80' \
    '\xF8\x88\x80\x80\x80' '\xFD\xBF\xBF\xBF\xBF\xBF' '\xFC\x84\x80\x80\x80\x80' \
    '\xF8\x87\xBF\xBF\xBF' '\xFC\x83\xBF\xBF\xBF\xBF' '\xFE' '\xFF\x80'; do
    put "$stage/variants" "$s"
done
for f in "$stage/utf16"/* "$stage/encode"/*; do
    cp "$f" "$stage/variants/$(basename "$f")-units"
done

# install SRC... TARGET: copies files into corpora/TARGET named by their
# SHA-1, as libFuzzer names corpus entries (so reruns add nothing twice).
install() {
    local target=${*: -1} dir
    mkdir -p "corpora/$target"
    for dir in "${@:1:$#-1}"; do
        find "$dir" -maxdepth 1 -type f -size -4097c -print0 | xargs -0 -r sha1sum |
            while read -r sum path; do cp "$path" "corpora/$target/$sum"; done
    done
}
install "$raw" differential
install "$raw" lossy
install "$raw" roundtrip
install "$raw" "$stage/encode" encode
install "$raw" "$stage/structured" structured
install "$stage/chunking" chunking
install "$stage/chunking" "$stage/utf16" utf16
install "$raw" "$stage/variants" variants

if [ "$CMIN" = 1 ]; then
    ensure_cargo_fuzz
    pick_toolchain
    build_targets
    for t in "${TARGETS[@]}"; do
        before=$(count_files "corpora/$t")
        cargo $TOOLCHAIN fuzz cmin -O -s "$SANITIZER" --target-dir "$FUZZ_TARGET_DIR" \
            "$t" "corpora/$t" -- -max_len=4096 >"$stage/cmin-$t.log" 2>&1 ||
            { cat "$stage/cmin-$t.log"; exit 1; }
        fuzz_log "$t: $before seeds -> $(count_files "corpora/$t") after cmin"
    done
fi
du -shL corpora | sed 's/^/[fuzz] corpora: /' >&2
