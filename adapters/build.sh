#!/usr/bin/env bash
# Builds the adapters that need building (C, Java, Go) into their build/
# folders (git-ignored), from the repository root or anywhere else.
#
#   bash adapters/build.sh [--install] [NAME...]
#
# NAME is one of: iconv icu glib unistring utf8proc java go ruby php
# (default: all). ruby and php have nothing to build; naming them only checks
# (and with --install, installs) their runtime.
#
# Without --install nothing is installed: an adapter whose compiler or library
# is missing is skipped with one line saying why. With --install the missing
# Debian packages are installed first (apt-get, as root or through sudo); CI
# runs `bash adapters/build.sh --install`.
#
# A binary newer than its sources is left alone, so the harness can run this
# before every use. Builds run under a lock (adapters/.build.lock) and write a
# temporary file that is then renamed, so two harness workers building the
# same adapter do not collide.
# Exits 0 even when some adapters are skipped; adapters.toml lists each
# binary in `requires`, so a skipped one is then reported by whoever runs it.
set -u

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
A="$ROOT/adapters"

INSTALL=0
NAMES=()
for arg in "$@"; do
    case "$arg" in
        --install) INSTALL=1 ;;
        -h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) NAMES+=("$arg") ;;
    esac
done
ALL=(iconv icu glib unistring utf8proc java go ruby php)
# Also: lua, tcl and perl (nothing to build: their runtime and JSON
# library) and readutf (the java-readutf adapter, its own class folder).
ALL+=(lua tcl perl readutf)
[ ${#NAMES[@]} -eq 0 ] && NAMES=("${ALL[@]}")

# ---- what each adapter needs ----------------------------------------------

have() { command -v "$1" >/dev/null 2>&1; }
have_pc() { have pkg-config && pkg-config --exists "$1"; }
have_header() { have gcc && echo "#include <$1>" | gcc -E -x c - >/dev/null 2>&1; }

# missing NAME: prints "why|debian packages" when something is missing.
missing() {
    case "$1" in
        iconv)     have gcc || echo "gcc not installed|gcc libc6-dev" ;;
        icu)       { have gcc && have_pc icu-uc; } || echo "libicu-dev (or gcc/pkg-config) not installed|gcc pkg-config libicu-dev" ;;
        glib)      { have gcc && have_pc glib-2.0; } || echo "libglib2.0-dev (or gcc/pkg-config) not installed|gcc pkg-config libglib2.0-dev" ;;
        unistring) have_header unistr.h || echo "libunistring-dev (or gcc) not installed|gcc libunistring-dev" ;;
        utf8proc)  { have gcc && have_pc libutf8proc; } || echo "libutf8proc-dev (or gcc/pkg-config) not installed|gcc pkg-config libutf8proc-dev" ;;
        java)      { have javac && have java; } || echo "javac not installed|default-jdk-headless" ;;
        go)        have gccgo || echo "gccgo not installed|gccgo" ;;
        ruby)      have ruby || echo "ruby not installed|ruby" ;;
        php)       { have php && php -r 'exit(function_exists("mb_check_encoding") ? 0 : 1);' 2>/dev/null; } \
                       || echo "php-cli with mbstring not installed|php-cli php-mbstring" ;;
        lua)       { have lua5.4 && lua5.4 -e 'require "cjson"' 2>/dev/null; } \
                       || echo "lua5.4 with lua-cjson not installed|lua5.4 lua-cjson" ;;
        tcl)       { have tclsh8.6 && echo 'package require yajltcl' | tclsh8.6 /dev/stdin >/dev/null 2>&1; } \
                       || echo "tclsh8.6 with tcl-yajltcl not installed|tcl8.6 tcl-yajltcl" ;;
        readutf)   { have javac && have java; } || echo "javac not installed|default-jdk-headless" ;;
        # JSON::XS is optional (JSON::PP, in perl's core, also works) but
        # makes the adapter several times faster.
        perl)      { have perl && perl -MJSON::XS -e1 2>/dev/null; } \
                       || echo "perl with JSON::XS not installed|perl libjson-xs-perl" ;;
        *)         echo "unknown|" ;;
    esac
}

# ---- installing -----------------------------------------------------------

if [ "$INSTALL" -eq 1 ]; then
    PKGS=()
    for n in "${NAMES[@]}"; do
        m="$(missing "$n")"
        for pkg in ${m#*|}; do
            dpkg -s "$pkg" >/dev/null 2>&1 || PKGS+=("$pkg")
        done
    done
    if [ ${#PKGS[@]} -gt 0 ]; then
        SUDO=""
        [ "$(id -u)" -ne 0 ] && have sudo && SUDO="sudo"
        # shellcheck disable=SC2207
        PKGS=($(printf '%s\n' "${PKGS[@]}" | sort -u))
        echo "installing: ${PKGS[*]}"
        export DEBIAN_FRONTEND=noninteractive
        LOG="$(mktemp)"
        if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${PKGS[@]}"; } >"$LOG" 2>&1; then
            echo "warning: apt-get install ${PKGS[*]} failed:"
            tail -n 5 "$LOG" | sed 's/^/    /'
        fi
        rm -f "$LOG"
    fi
fi

# ---- building -------------------------------------------------------------

# up_to_date OUT SRC...: OUT exists and is newer than every SRC (and than
# this script).
up_to_date() {
    local out="$1"; shift
    [ -e "$out" ] || return 1
    for src in "$@" "${BASH_SOURCE[0]}"; do [ "$src" -nt "$out" ] && return 1; done
    return 0
}

# compile NAME OUT SRC... -- COMMAND...: runs COMMAND under the build lock
# unless OUT is up to date. COMMAND writes OUT itself, atomically.
compile() {
    local name="$1" out="$2"; shift 2
    local srcs=()
    while [ "$1" != "--" ]; do srcs+=("$1"); shift; done
    shift
    (
        flock 9
        if up_to_date "$out" "${srcs[@]}"; then
            echo "up to date $name"
        elif "$@"; then
            echo "built $name"
        else
            echo "FAILED $name (compiler output above)"
        fi
    ) 9>"$A/.build.lock"
}

CFLAGS=(-O2 -Wall -Wextra -std=gnu11)
C="$A/c"

# build_c OUT SRC [LIBS...]
build_c() {
    local out="$1" src="$2"; shift 2
    mkdir -p "$(dirname "$out")"
    gcc "${CFLAGS[@]}" -o "$out.tmp.$$" "$src" "$@" && mv -f "$out.tmp.$$" "$out"
}

# javac writes one .class per class: build a fresh folder and swap it in.
build_java() {
    local tmp
    tmp="$(mktemp -d "$A/java/.build.XXXXXX")" || return 1
    if javac -d "$tmp" "$A/java/Utf8Adapter.java"; then
        rm -rf "$A/java/build" && mv "$tmp" "$A/java/build"
    else
        rm -rf "$tmp"
        return 1
    fi
}

# gccgo's runtime.Version() says "unknown": compile in the compiler's version
# (gccgo ships its own standard library, so that is the library's version).
build_go() {
    local out="$A/go/build/utf8" ver
    ver="$(gccgo -dumpfullversion 2>/dev/null || gccgo -dumpversion)"
    mkdir -p "$A/go/build"
    printf 'package main\n\nfunc init() { libVersion = "gccgo-%s" }\n' "$ver" > "$A/go/build/version.go"
    gccgo -O2 -o "$out.tmp.$$" "$A/go/utf8.go" "$A/go/build/version.go" && mv -f "$out.tmp.$$" "$out"
}

# java-readutf gets its own class folder, so that build_java's swap of
# adapters/java/build never removes it.
build_readutf() {
    local tmp
    mkdir -p "$A/java/readutf" || return 1
    tmp="$(mktemp -d "$A/java/.build.XXXXXX")" || return 1
    if javac -d "$tmp" "$A/java/ReadUtfAdapter.java"; then
        rm -rf "$A/java/readutf/build" && mv "$tmp" "$A/java/readutf/build"
    else
        rm -rf "$tmp"
        return 1
    fi
}

build_one() {
    local n="$1" m
    m="$(missing "$n")"
    if [ "$m" = "unknown|" ]; then
        echo "skip $n: unknown adapter (known: ${ALL[*]})"
        return 0
    elif [ -n "$m" ]; then
        if [ "$INSTALL" -eq 1 ]; then
            echo "skip $n: ${m%%|*} (and installing ${m#*|} did not help)"
        else
            echo "skip $n: ${m%%|*} (run adapters/build.sh --install)"
        fi
        return 0
    fi
    case "$n" in
        iconv)     compile iconv "$C/build/iconv" "$C/iconv.c" "$C/proto.h" -- \
                       build_c "$C/build/iconv" "$C/iconv.c" ;;
        icu)       # shellcheck disable=SC2046
                   compile icu "$C/build/icu" "$C/icu.c" "$C/proto.h" -- \
                       build_c "$C/build/icu" "$C/icu.c" $(pkg-config --cflags --libs icu-uc) ;;
        glib)      # shellcheck disable=SC2046
                   compile glib "$C/build/glib" "$C/glib.c" "$C/proto.h" -- \
                       build_c "$C/build/glib" "$C/glib.c" $(pkg-config --cflags --libs glib-2.0) ;;
        unistring) compile unistring "$C/build/unistring" "$C/unistring.c" "$C/proto.h" -- \
                       build_c "$C/build/unistring" "$C/unistring.c" -lunistring ;;
        utf8proc)  # shellcheck disable=SC2046
                   compile utf8proc "$C/build/utf8proc" "$C/utf8proc.c" "$C/proto.h" -- \
                       build_c "$C/build/utf8proc" "$C/utf8proc.c" $(pkg-config --cflags --libs libutf8proc) ;;
        java)      compile java "$A/java/build/Utf8Adapter.class" "$A/java/Utf8Adapter.java" -- build_java ;;
        go)        compile go "$A/go/build/utf8" "$A/go/utf8.go" -- build_go ;;
        readutf)   compile readutf "$A/java/readutf/build/ReadUtfAdapter.class" "$A/java/ReadUtfAdapter.java" -- build_readutf ;;
        lua | tcl | perl) echo "ready $n (nothing to build)" ;;
        ruby | php) echo "ready $n (nothing to build)" ;;
    esac
}

for n in "${NAMES[@]}"; do
    build_one "$n"
done
exit 0
