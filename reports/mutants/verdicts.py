#!/usr/bin/env python3
"""Finds today's names of the mutants verdicts.tsv argues are equivalent.

A cargo-mutants name carries its line and column
(`codec/src/lib.rs:180:28: replace | with ^ in Verdict::pack`), so a line
added above a mutant renames it, and a verdict written under the old name
would no longer leave it out: CI's sample would then draw it, see it
missed, and fail on a mutant already judged. So each `equivalent` row of
verdicts.tsv carries a fourth column, its anchor: the mutated source
line(s) as cargo-mutants writes them (or, for a deletion, the lines it
deletes), trimmed and without its marker comment. A mutant matches a verdict when its file, its description (the
name after `line:column: `) and its anchor are the verdict's: moving the
code keeps the match, changing the mutated line loses it (and the
argument must be made again). Where the same change to the same text
occurs twice in a file, only the verdict's exact name matches.

Usage, with `cargo mutants --list --json --workspace` on stdin:

  verdicts.py excludes   one `--exclude-re=^NAME$` per equivalent mutant,
                         by its current name; on stderr, the verdicts that
                         match no current mutant (their line changed)
  verdicts.py fill       writes the anchor of every equivalent row that has
                         none and whose name is a current mutant's (how a
                         new verdict gets its anchor)
"""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "verdicts.tsv")
MARKER = re.compile(r"\s*/\* ~ changed by cargo-mutants ~ \*/")
LOCATION = re.compile(r"^([^:]+):\d+:\d+: (.*)$")


def anchor(mutant):
    """The lines a --list --json entry writes, as one line, or those it
    deletes when it writes nothing but its marker (a deleted match arm)."""
    diff = mutant["diff"].splitlines()
    for sign in "+-":
        lines = [
            MARKER.sub("", line[1:]).strip()
            for line in diff
            if line.startswith(sign) and not line.startswith(sign * 3)
        ]
        lines = [line for line in lines if line]
        if lines:
            return " ⏎ ".join(lines)
    return ""


def key(name, anchor_text):
    m = LOCATION.match(name)
    if not m:
        raise SystemExit(f"verdicts.tsv: not a cargo-mutants name: {name!r}")
    return (m.group(1), m.group(2), anchor_text)


def rows():
    """verdicts.tsv's lines: (kind, name, why, anchor) or the raw line."""
    out = []
    with open(PATH) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                out.append(line)
                continue
            parts = line.split("\t")
            if len(parts) not in (3, 4):
                raise SystemExit(
                    f"verdicts.tsv:{number}: {len(parts)} columns, "
                    "want kind, name, why and (for equivalent) anchor"
                )
            parts += [""] * (4 - len(parts))
            out.append(tuple(parts))
    return out


def excludes(mutants):
    current = {}
    for m in mutants:
        current.setdefault(key(m["name"], anchor(m)), []).append(m["name"])
    stale = []
    for row in rows():
        if isinstance(row, str) or row[0] != "equivalent":
            continue
        kind, name, why, anchor_text = row
        if not anchor_text:
            stale.append(f"{name} (no anchor: run `verdicts.py fill`)")
            continue
        names = current.get(key(name, anchor_text), [])
        if len(names) > 1:
            # The same change to the same text twice in a file: only the
            # verdict's own name says which one it judged.
            names = [n for n in names if n == name]
        if not names:
            stale.append(name)
            continue
        print("--exclude-re=^" + re.escape(names[0]) + "$")
    for name in stale:
        print(f"verdicts.tsv: no current mutant for: {name}", file=sys.stderr)


def fill(mutants):
    by_name = {m["name"]: anchor(m) for m in mutants}
    lines, filled = [], 0
    for row in rows():
        if isinstance(row, str):
            lines.append(row)
            continue
        kind, name, why, anchor_text = row
        if kind == "equivalent" and not anchor_text and name in by_name:
            anchor_text = by_name[name]
            filled += 1
        lines.append("\t".join([kind, name, why] + ([anchor_text] if anchor_text else [])))
    with open(PATH, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"verdicts.tsv: {filled} anchors written", file=sys.stderr)


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("excludes", "fill"):
        raise SystemExit(__doc__)
    mutants = json.load(sys.stdin)
    {"excludes": excludes, "fill": fill}[sys.argv[1]](mutants)


if __name__ == "__main__":
    main()
