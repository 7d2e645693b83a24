#!/usr/bin/env python3
"""Writes reports/coverage/summary.md from fuzz/coverage.sh's llvm-cov output.

Reads, in --json-dir, `<target>.json` and `all.json` (llvm-cov export
-summary-only) and `all.txt` (llvm-cov show -format=text, every target
together). Writes one table of lines and regions covered per file and per
target, and, for the files the corpora must cover (the reference, the
scalar codec, and the SIMD kernel this CPU runs), every line no target
reaches, so that each can be given its reason in reports/coverage/README.md.
"""

import argparse
import datetime
import json
import os
import re
import subprocess


# The CPU flags each x86 kernel's `available()` asks for (codec/src/x86).
NEEDS = {
    "avx512vbmi2": {"avx512f", "avx512bw", "popcnt", "avx512vl", "avx512vbmi", "avx512_vbmi2"},
    "avx512": {"avx512f", "avx512bw", "popcnt"},
    "avx2": {"avx2", "popcnt", "bmi1", "bmi2"},
    "sse4.1": {"ssse3", "sse4_1", "popcnt"},
    "scalar": set(),
}


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def kernel_of_this_cpu():
    """The kernel the codec's dispatcher picks here: the first of its table
    (codec/src/lib.rs) whose instructions this CPU has."""
    flags = cpu_flags()
    return next(k for k in NEEDS if NEEDS[k] <= flags)


# The x86 files each kernel's code lives in, under codec/src/x86/
# (codec/src/x86/mod.rs: the AVX-512BW and AVX2 kernels pack with pack.rs
# and decode lossily with lossy.rs; AVX2 and SSE4.1 decode with
# shuffle.rs; the VBMI2 kernel converts UTF-16 in avx512/utf16/, the AVX2
# kernel and the AVX-512 one without VBMI2 in avx2/utf16/).
AVX2_UTF16 = ["avx2.rs", "avx2/utf16/mod.rs", "avx2/utf16/decode.rs", "avx2/utf16/encode.rs"]
KERNEL_FILES = {
    "avx512vbmi2": ["avx512.rs", "pack.rs", "lossy.rs", "avx512/utf16/mod.rs",
                    "avx512/utf16/decode.rs", "avx512/utf16/encode.rs"],
    "avx512": ["avx512.rs", "pack.rs", "lossy.rs"] + AVX2_UTF16,
    "avx2": ["pack.rs", "lossy.rs", "shuffle.rs"] + AVX2_UTF16,
    "sse4.1": ["sse41.rs", "shuffle.rs"],
    "scalar": [],
}


def must_cover(path, kernels):
    """The reference, the scalar codec, and the files of the kernels that
    ran (the dispatcher's and those pinned that this CPU has)."""
    if path.startswith("src/reference/"):
        return True
    if path.startswith("codec/src/x86/"):
        files = {"mod.rs"}
        for k in kernels:
            files.update(KERNEL_FILES.get(k, []))
        return os.path.relpath(path, "codec/src/x86") in files
    return path.startswith("codec/src/")


def files_of(export, root):
    out = {}
    for data in export["data"]:
        for f in data["files"]:
            name = os.path.relpath(f["filename"], root)
            s = f["summary"]
            out[name] = (s["lines"], s["regions"])
    return out


def cell(summary):
    if summary is None:
        return "—"
    lines, regions = summary
    if lines["count"] == 0:
        return "—"
    return "%d/%d · %d/%d" % (
        lines["covered"],
        lines["count"],
        regions["covered"],
        regions["count"],
    )


def percent(summary):
    lines, _ = summary
    return 100.0 * lines["covered"] / lines["count"] if lines["count"] else 100.0


def uncovered_lines(show_text, root):
    """{file: [(line, source)]} for lines with an execution count of 0."""
    result, current = {}, None
    for line in show_text.splitlines():
        if line.startswith("/") and line.endswith(":"):
            current = os.path.relpath(line[:-1], root)
            continue
        m = re.match(r"\s*(\d+)\|\s*([0-9.kMG]*)\|(.*)$", line)
        if current and m and m.group(2) == "0":
            result.setdefault(current, []).append((int(m.group(1)), m.group(3).rstrip()))
    return result


def ranges(numbers):
    out, start, prev = [], None, None
    for n in numbers:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append((start, prev))
            start = prev = n
    if start is not None:
        out.append((start, prev))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json-dir", required=True)
    ap.add_argument("--targets", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--corpus-root", required=True)
    ap.add_argument("--pinned", default="")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    targets = args.targets.split(",")
    kernel = kernel_of_this_cpu()
    pinned = [k for k in args.pinned.split(",") if k]
    flags = cpu_flags()
    ran = [kernel] + [k for k in pinned if NEEDS.get(k, set()) <= flags]

    per_target = {}
    for t in targets:
        with open(os.path.join(args.json_dir, t + ".json")) as f:
            per_target[t] = files_of(json.load(f), args.root)
    with open(os.path.join(args.json_dir, "all.json")) as f:
        union = files_of(json.load(f), args.root)
    with open(os.path.join(args.json_dir, "all.txt")) as f:
        missed = uncovered_lines(f.read(), args.root)

    corpus_sizes = {}
    for t in targets:
        d = os.path.join(args.root, args.corpus_root, t)
        corpus_sizes[t] = len([n for n in os.listdir(d) if os.path.isfile(os.path.join(d, n))])
    rustc = subprocess.run(["rustc", "+nightly", "--version"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(
        ["git", "-C", args.root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()

    out = []
    w = out.append
    w("# Fuzz corpus coverage")
    w("")
    w("Written by `fuzz/coverage.sh` (do not edit): each cargo-fuzz target run once")
    w("over every input of `%s/<target>`, built with `-Cinstrument-coverage`" % args.corpus_root)
    w("(`cargo fuzz coverage -O -s none`), counted by llvm-cov. Commit %s, %s," % (commit, rustc))
    w("%s UTC, on a CPU whose codec kernel is `%s`%s." % (
        datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"), kernel,
        "; each corpus also ran once with the kernel pinned (`UTF8CONFORM_KERNEL`) to each of %s"
        % ", ".join("`%s`" % k for k in ran[1:]) if ran[1:] else ""))
    w("")
    w("Corpus sizes: " + ", ".join("`%s` %d" % (t, corpus_sizes[t]) for t in targets) + ".")
    w("")
    w("Each cell: lines covered/lines · regions covered/regions. **all**: every")
    w("target together. Files in bold are the ones the corpora must cover")
    w("(the reference, the scalar codec, and the SIMD kernels that ran); their")
    w("uncovered lines are listed below, and reports/coverage/README.md gives")
    w("the reason for each.")
    w("")
    w("| file | **all** | " + " | ".join("`%s`" % t for t in targets) + " |")
    w("|---|---|" + "---|" * len(targets))
    for name in sorted(union):
        shown = "**%s**" % name if must_cover(name, ran) else name
        row = [shown, cell(union[name])] + [cell(per_target[t].get(name)) for t in targets]
        w("| " + " | ".join(row) + " |")
    w("")
    w("## Lines no target reaches, in the files the corpora must cover")
    w("")
    goal = sorted(n for n in union if must_cover(n, ran))
    total = sum(union[n][0]["count"] for n in goal)
    covered = sum(union[n][0]["covered"] for n in goal)
    w("Those files together: %d of %d lines (%.2f %%)." % (covered, total, 100.0 * covered / max(total, 1)))
    w("")
    for name in goal:
        lines = missed.get(name, [])
        if not lines:
            continue
        w("### %s (%.1f %% of lines)" % (name, percent(union[name])))
        w("")
        w("```")
        by_number = dict(lines)
        for start, end in ranges([n for n, _ in lines]):
            for n in range(start, end + 1):
                w("%5d  %s" % (n, by_number[n]))
            w("  ...")
        w("```")
        w("")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True) if args.out != "-" else None
    text = "\n".join(out).rstrip() + "\n"
    if args.out == "-":
        print(text, end="")
    else:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
