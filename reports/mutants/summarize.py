#!/usr/bin/env python3
"""Writes reports/mutants/summary.md from the campaign's outcomes.

Reads reports/mutants/<group>/outcomes.json (cargo-mutants' own
mutants.out/outcomes.json, copied there by run.sh) for every group that
has run, and reports/mutants/verdicts.tsv: for each mutant the campaign
missed, the test that kills it now (`killed<TAB>name<TAB>test`) or why it
is equivalent (`equivalent<TAB>name<TAB>argument<TAB>anchor`). Writes, per
file: the mutants tried, caught, missed, timed out and unviable, and the
score; then every missed mutant with its verdict (or "no verdict yet").
"""

import collections
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
GROUPS = ["codec", "reference", "kit"]
KINDS = {
    "CaughtMutant": "caught",
    "MissedMutant": "missed",
    "Timeout": "timeout",
    "Unviable": "unviable",
}


def verdicts():
    path = os.path.join(HERE, "verdicts.tsv")
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                # kind, name, why, and for an equivalent one its anchor
                # (verdicts.py), which the summary does not show.
                kind, name, why = line.split("\t")[:3]
                out[name] = (kind, why)
    return out


def main():
    rows = collections.OrderedDict()
    missed = []
    runs = []
    planned = collections.Counter()
    # Per file, the mutants of its latest whole plan: a mutant an earlier
    # part ran under a name the file no longer has (its line moved) is
    # not counted again.
    current = {}
    outcome = collections.OrderedDict()
    ever_missed = collections.OrderedDict()
    # A group may have run in parts (codec, codec-b, …: other files, the
    # files a stopped run did not reach, or mutants run again), each in a
    # directory of its own, read in name order.
    parts = sorted(
        d for d in os.listdir(HERE) if os.path.exists(os.path.join(HERE, d, "outcomes.json"))
    )
    for g in parts:
        path = os.path.join(HERE, g, "outcomes.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            data = json.load(f)
        runs.append((g, data))
        plan = os.path.join(HERE, g, "planned.txt")
        if os.path.exists(plan):
            mine = collections.defaultdict(set)
            with open(plan) as f:
                for line in f:
                    if line.strip():
                        mine[line.split(":", 1)[0]].add(line.strip())
            # Files this part planned whole after they changed (fewer
            # mutants than before, say): its list is theirs from now on.
            replanned = set()
            replans = os.path.join(HERE, g, "replans.txt")
            if os.path.exists(replans):
                with open(replans) as f:
                    replanned = {line.strip() for line in f if line.strip()}
            for name, names in mine.items():
                # The file's whole list is the largest a part planned (a
                # part that reran a few mutants planned only those); of two
                # as large, the later, which named the file as it is now.
                if len(names) >= planned[name] or name in replanned:
                    planned[name] = len(names)
                    current[name] = names
        for o in data["outcomes"]:
            scenario = o["scenario"]
            if not isinstance(scenario, dict) or "Mutant" not in scenario:
                continue
            mutant = scenario["Mutant"]
            kind = KINDS.get(o["summary"])
            if kind is None:
                continue
            # A later part that ran the same mutant again (a longer
            # timeout, say, or after a new test) has the last word.
            outcome[mutant["name"]] = (mutant["file"], kind, g)
            if kind == "missed":
                ever_missed[mutant["name"]] = g
    for name in [n for n, (file, _, _) in outcome.items() if file in current and n not in current[file]]:
        del outcome[name]
        ever_missed.pop(name, None)
    for name, (file, kind, g) in outcome.items():
        counts = rows.setdefault(file, collections.Counter())
        counts["tried"] += 1
        counts[kind] += 1
        if kind == "missed":
            missed.append((g, name))
    known = verdicts()
    for _, name in missed:
        if known.get(name, ("open",))[0] == "equivalent":
            rows[name.split(":", 1)[0]]["equivalent"] += 1

    out = []
    w = out.append
    w("# Mutation testing")
    w("")
    w("Written by `reports/mutants/summarize.py` from the outcomes of")
    w("`reports/mutants/run.sh` (cargo-mutants); do not edit. How to rerun it,")
    w("and what each group's mutants are tested with: `reports/mutants/README.md`.")
    w("")
    for g, data in runs:
        mutants = [o for o in data["outcomes"] if isinstance(o["scenario"], dict) and "Mutant" in o["scenario"]]
        seconds = sum(p["duration"] for o in mutants for p in o["phase_results"])
        command = os.path.join(HERE, g, "command.txt")
        w(
            "- `%s`: cargo-mutants %s, %s to %s; %d mutants, %.0f s of build and test (%.1f s each)"
            % (
                g,
                data.get("cargo_mutants_version", "?"),
                data.get("start_time"),
                data.get("end_time") or "(unfinished)",
                len(mutants),
                seconds,
                seconds / max(len(mutants), 1),
            )
        )
        if os.path.exists(command):
            w("  `%s`" % open(command).read().strip())
    missing = [g for g in GROUPS if not any(r[0].split("-")[0] == g for r in runs)]
    if missing:
        w("- not run yet: " + ", ".join("`%s`" % g for g in missing))
    w("")
    w("Score: caught ÷ viable (tried − unviable). A timeout is a mutant that")
    w("made the tests hang (an endless loop) and was stopped: not caught by an")
    w("assertion, but not survived either; *killed* counts it with the caught")
    w("(as Stryker and PIT count timeouts as detected) and leaves out of the")
    w("viable the missed mutants `verdicts.tsv` argues are equivalent.")
    w("")
    w("*planned*: the mutants of the file the run was to test; a run stopped")
    w("early (its end time above is unfinished) tried fewer, in file order.")
    w("")
    w("| file | planned | tried | caught | missed (equivalent) | timeout | unviable | score | killed |")
    w("|---|---|---|---|---|---|---|---|---|")
    total = collections.Counter()
    for name in sorted(set(rows) | set(planned)):
        rows.setdefault(name, collections.Counter())
        c = rows[name]
        total.update(c)
        viable = c["tried"] - c["unviable"]
        score = "%.1f %%" % (100.0 * c["caught"] / viable) if viable else "—"
        real = viable - c["equivalent"]
        killed = "%.1f %%" % (100.0 * (c["caught"] + c["timeout"]) / real) if real else "—"
        w(
            "| %s | %s | %d | %d | %d (%d) | %d | %d | %s | %s |"
            % (name, planned.get(name, "?"), c["tried"], c["caught"], c["missed"], c["equivalent"], c["timeout"], c["unviable"], score, killed)
        )
    viable = total["tried"] - total["unviable"]
    score = "%.1f %%" % (100.0 * total["caught"] / viable) if viable else "—"
    real = viable - total["equivalent"]
    killed = "%.1f %%" % (100.0 * (total["caught"] + total["timeout"]) / real) if real else "—"
    w(
        "| **all** | %s | %d | %d | %d (%d) | %d | %d | **%s** | **%s** |"
        % (sum(planned.values()) or "?", total["tried"], total["caught"], total["missed"], total["equivalent"], total["timeout"], total["unviable"], score, killed)
    )
    w("")
    w("## Missed mutants")
    w("")
    if not missed:
        w("None.")
    for g, name in missed:
        kind, why = known.get(name, ("open", "no verdict yet"))
        w("- `%s`  \n  **%s**: %s" % (name, kind, why))
    w("")
    w("## Missed, then killed by a new test")
    w("")
    w("Missed in one part, caught when a later part ran them again.")
    w("")
    later = [(g, n) for n, g in ever_missed.items() if outcome[n][1] != "missed"]
    if not later:
        w("None.")
    for g, name in later:
        kind, why = known.get(name, ("open", "no verdict yet"))
        w("- `%s` (missed in `%s`, %s in `%s`)  \n  **%s**: %s" % (name, g, outcome[name][1], outcome[name][2], kind, why))
    text = "\n".join(out) + "\n"
    with open(os.path.join(HERE, "summary.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
