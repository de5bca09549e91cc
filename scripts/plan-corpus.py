#!/usr/bin/env python3
"""Grade `git supervisor plan` against readings written down by a person.

    scripts/plan-corpus.py PLANS_DIR [--readings DIR] [--binary PATH] [--verbose]

PLANS_DIR holds real plans `NAME.md`, as their authors wrote them (kept
outside the repository: they are their authors' files). The readings
`NAME.reading.toml` (default: beside the plans; the project's own are in
docs/plan-corpus/readings) say how a person reads each plan: its repository,
path and commit, the units and their sprints in order, which the plan marks
done, and the order (sequential, layers, graph or parallel). They were
written before the parser ever saw the plan.

Each plan is graded:
  right   the units, each unit's sprint count and the done marks are as read,
          and nothing runs at once that the reading orders
  coarser one sequence, each reading sprint inside one parsed sprint in
          order (as it or one of its task lines), every open parsed sprint
          holding some, done exactly when all it holds are: the same work and marks
          read at a coarser level (phases holding their task items)
  serial  the same sprints and done marks, run one after another where the
          reading lets some run at once: safe, and slower than it could be
  partly  read, but the structure or the done marks differ (and order is safe)
  unsafe  work the reading orders (one after another) may run at once, or
          open work (by the reading) sits only in sprints read as done
  refused the parser refused the plan
A partly or unsafe reading that came with a guess `start` asks about or a
warning shows `asked(codes)`; the summary counts the ones that did not (the
reader misread and said nothing). Prints one line per plan and a summary;
exits 0.
"""

import json
import os
import subprocess
import sys
import tempfile
import tomllib


def reachable(deps):
    """Transitive closure: reach[i] = units i waits for, directly or not."""
    n = len(deps)
    reach = [set() for _ in range(n)]
    for i in range(n):
        stack = list(deps[i])
        while stack:
            j = stack.pop()
            if j not in reach[i]:
                reach[i].add(j)
                stack.extend(deps[j])
    return reach


def concurrent_pairs(deps):
    reach = reachable(deps)
    n = len(deps)
    return {(i, j) for i in range(n) for j in range(i + 1, n) if j not in reach[i] and i not in reach[j]}


def reading_deps(reading):
    units = reading.get("units", [])
    names = [u.get("name", "") for u in units]
    order = reading.get("order", "sequential")
    if order == "sequential":
        return [[i - 1] if i > 0 else [] for i in range(len(units))]
    out = []
    for u in units:
        ds = []
        for d in u.get("depends_on", []):
            for k, n in enumerate(names):
                if n.lower() == str(d).lower() or str(d).lower() in n.lower():
                    ds.append(k)
                    break
        out.append(ds)
    return out


def parsed_deps(plan):
    names = [u["name"] for u in plan["units"]]
    deps = []
    for u in plan["units"]:
        deps.append([names.index(d) for d in u.get("deps", []) if d in names])
    # Layers order units too: a unit waits for every unit of a lower layer.
    for i, u in enumerate(plan["units"]):
        if u.get("layer") is not None:
            for j, v in enumerate(plan["units"]):
                if v.get("layer") is not None and v["layer"] < u["layer"]:
                    deps[i].append(j)
    return deps


def sprint_graph(units, deps):
    """Every sprint, flattened: (name, done, the sprints it waits for). A
    sprint waits for the one before it in its unit; a unit's first sprint
    for the last sprint of each unit its unit waits for."""
    flat, first, last = [], [], []
    for u in units:
        first.append(len(flat))
        for k, s in enumerate(u["sprints"]):
            flat.append([s["name"], s["done"], [len(flat) - 1] if k > 0 else []])
        last.append(len(flat) - 1)
    for i, ds in enumerate(deps):
        if first[i] <= last[i]:
            flat[first[i]][2].extend(last[d] for d in ds if first[d] <= last[d])
    return flat


def same_sprint_order(plan, reading):
    """The same sprints (matched by name), the same done marks and the same
    sprints that may run at once, however they are cut into units."""
    want = sprint_graph(
        [{"sprints": [{"name": s.get("name", ""), "done": bool(s.get("done"))} for s in u.get("sprints", [])]} for u in reading.get("units", [])],
        reading_deps(reading),
    )
    got = sprint_graph(
        [{"sprints": [{"name": s["name"], "done": s.get("done") is not None} for s in u["sprints"]]} for u in plan["units"]],
        parsed_deps(plan),
    )
    if len(want) != len(got):
        return False
    perm = match_by_name([w[0] for w in want], [g[0] for g in got])
    if perm is None or any(got[k][1] != want[perm[k]][1] for k in range(len(got))):
        return False
    at_once = lambda flat: concurrent_pairs([f[2] for f in flat])
    mapped = {tuple(sorted((perm[i], perm[j]))) for i, j in at_once(got)}
    return mapped == at_once(want)


def match_by_name(want, got):
    """perm[k] = the reading's index of parsed unit k, when every parsed unit
    matches exactly one reading unit by name (equal, or one contains the
    other); None otherwise."""
    norm = lambda n: " ".join(n.lower().split())
    perm = []
    for g in got:
        hits = [i for i, w in enumerate(want) if norm(w) == norm(g)]
        if not hits:
            hits = [i for i, w in enumerate(want) if norm(w) in norm(g) or norm(g) in norm(w)]
        if len(hits) != 1:
            return None
        perm.append(hits[0])
    return perm if len(set(perm)) == len(perm) else None


def tokens(text):
    """Words of three letters or more, lower-cased; in CJK and Hangul runs,
    each pair of characters."""
    out, word, run = set(), "", ""
    for ch in text.lower() + " ":
        if "\u3000" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af":
            run += ch
            continue
        if run:
            out.update(run[k : k + 2] for k in range(max(1, len(run) - 1)))
            run = ""
        if ch.isalnum():
            word += ch
            continue
        if len(word) >= 3 or word.isdigit():
            out.add(word)
        word = ""
    return out


def holds(sprint, want, by_id=True):
    """Whether parsed `sprint` (its name, id or one of its task lines) is
    where the reading's sprint `want` went."""
    if by_id and want.get("id") and str(want["id"]).lower() == str(sprint.get("id", "")).lower():
        return True
    name = want.get("name", "")
    need = tokens(name)
    if not need:
        return False
    texts = [sprint.get("name", "")] + list(sprint.get("tasks", []))
    if any("\u3000" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in name):
        # Words of these scripts share characters freely: the whole name.
        squash = lambda t: "".join(ch for ch in t.lower() if ch.isalnum())
        return any(squash(name) in squash(t) or squash(t) == squash(name) for t in texts)
    for text in texts:
        have = tokens(text)
        if len(need & have) >= max(1, 0.7 * len(need)):
            return True
    return False


def coarser(plan, reading):
    """Whether the parse reads the same work at a coarser level: every
    reading sprint, in order, sits in one parsed sprint (as it or as one of
    its task lines), every parsed sprint holds at least one, and a parsed
    sprint is done exactly when all it holds are."""
    got = [s for u in plan["units"] for s in u["sprints"]]
    want = [s for u in reading.get("units", []) for s in u.get("sprints", [])]
    if not got or not want:
        return False
    at, held = 0, [[] for _ in got]
    for w in want:
        k = next((k for k in range(at, len(got)) if holds(got[k], w)), None)
        if k is None:
            return False
        held[k].append(bool(w.get("done")))
        at = k
    # A parsed sprint holding none of the reading's is harmless only when
    # it is done (history the run never dispatches).
    return all(
        (got[k].get("done") is not None) == all(h) if h else got[k].get("done") is not None
        for k, h in enumerate(held)
    )


def hidden_open(plan, reading):
    """The reading's open sprints that land only in parsed sprints read as
    done: open work a run would never dispatch."""
    got = [s for u in plan["units"] for s in u["sprints"]]
    # Ids name the same step only where both read the plan at one level
    # (as many sprints): a reading's `2` is not the parse's second task.
    same_level = len(got) == sum(len(u.get("sprints", [])) for u in reading.get("units", []))
    out = []
    for u in reading.get("units", []):
        for w in u.get("sprints", []):
            if w.get("done"):
                continue
            homes = [g for g in got if holds(g, w, by_id=same_level)]
            if homes and all(g.get("done") is not None for g in homes):
                out.append(w.get("name", ""))
    return out


def grade(binary, md, reading):
    with tempfile.TemporaryDirectory() as tmp:
        plan_path = os.path.join(tmp, "EXECUTION_PLAN.md")
        with open(md, "rb") as f, open(plan_path, "wb") as g:
            g.write(f.read())
        env = dict(os.environ, NO_COLOR="1")
        out = subprocess.run(
            [binary, "plan", "--format", "json", plan_path],
            cwd=tmp,
            capture_output=True,
            text=True,
            env=env,
        )
    try:
        plan = json.loads(out.stdout)
    except json.JSONDecodeError:
        return "refused", "no JSON: " + out.stderr.strip()[:200]
    if plan.get("ok") is False:
        first = plan.get("problems", [{}])[0]
        return "refused", f"{first.get('code')}: {first.get('message', '')[:160]}"
    units = reading.get("units", [])
    want_counts = [len(u.get("sprints", [])) for u in units]
    got_counts = [len(u["sprints"]) for u in plan["units"]]
    want_done = [bool(s.get("done")) for u in units for s in u.get("sprints", [])]
    got_done = [s.get("done") is not None for u in plan["units"] for s in u["sprints"]]
    # Safety: any concurrency where the reading has none, or more pairs at
    # once than the reading has when the units line up.
    want_at_once = concurrent_pairs(reading_deps(reading))
    got_at_once = concurrent_pairs(parsed_deps(plan))
    if len(units) == len(plan["units"]):
        # Units listed in another order are matched by name first.
        perm = match_by_name([u.get("name", "") for u in units], [u["name"] for u in plan["units"]])
        if perm is None:
            # Units named otherwise (`Task 5` read as `Feed Implementation`)
            # are matched by the sprints they hold.
            held = lambda u: " / ".join(s.get("name", "") for s in u.get("sprints", []))
            perm = match_by_name([held(u) for u in units], [held(u) for u in plan["units"]])
        if perm is not None:
            got_at_once = {tuple(sorted((perm[i], perm[j]))) for i, j in got_at_once}
        unsafe = bool(got_at_once - want_at_once)
    else:
        unsafe = bool(got_at_once) and not want_at_once
    detail = f"units {len(plan['units'])}/{len(units)} sprints {got_counts}/{want_counts} done {sum(got_done)}/{sum(want_done)}"
    # Whether the reader said it was unsure: a guess `start` asks about, or
    # a warning (work outside every sprint, the same work twice).
    said = [g.get("code", "") for g in plan.get("guesses", []) + plan.get("warnings", [])]
    if said:
        detail += " asked(" + ",".join(sorted(set(said))) + ")"
    hidden = hidden_open(plan, reading)
    if hidden:
        detail += f" hides open work: {hidden[:3]}"
    if unsafe:
        return "unsafe", detail
    if hidden:
        return "unsafe", detail
    # One sequence read as one sequence: how it is cut into units does not
    # change what runs, so the sprints are compared end to end.
    one_sequence = not want_at_once and not got_at_once
    same_shape = got_counts == want_counts or (one_sequence and sum(got_counts) == sum(want_counts))
    if same_shape and got_done == want_done:
        return "right", detail
    # A graph cut into units otherwise: the same sprints may run at once.
    if not one_sequence and same_sprint_order(plan, reading):
        return "right", detail
    if one_sequence and coarser(plan, reading):
        return "coarser", detail
    # The same sprints and marks, run one after another where the reading
    # lets some run at once: safe, and slower than it could be.
    if not got_at_once and want_at_once and sum(got_counts) == sum(want_counts) and got_done == want_done:
        return "serial", detail
    # The same units in the same order: each read at its own level.
    if len(units) == len(plan["units"]) and got_at_once == want_at_once:
        if all(
            coarser({"units": [g]}, {"units": [w]}) or (len(g["sprints"]) == len(w.get("sprints", [])) and [s.get("done") is not None for s in g["sprints"]] == [bool(s.get("done")) for s in w.get("sprints", [])])
            for g, w in zip(plan["units"], units)
        ):
            return "coarser", detail
    return "partly", detail


def main():
    args = sys.argv[1:]
    verbose = "--verbose" in args
    args = [a for a in args if a != "--verbose"]
    binary = "git-supervisor"
    if "--binary" in args:
        k = args.index("--binary")
        binary = os.path.abspath(args[k + 1])
        del args[k : k + 2]
    readings = None
    if "--readings" in args:
        k = args.index("--readings")
        readings = args[k + 1]
        del args[k : k + 2]
    if not args:
        print(__doc__)
        return 2
    corpus = args[0]
    readings = readings or corpus
    tally = {}
    silent = []
    for name in sorted(os.listdir(readings)):
        if not name.endswith(".reading.toml"):
            continue
        stem = name[: -len(".reading.toml")]
        md = os.path.join(corpus, stem + ".md")
        if not os.path.exists(md):
            print(f"{stem:45} plan text missing in {corpus}")
            continue
        with open(os.path.join(readings, name), "rb") as f:
            try:
                reading = tomllib.load(f)
            except tomllib.TOMLDecodeError as e:
                print(f"{stem:45} bad reading: {e}")
                continue
        verdict, detail = grade(binary, md, reading)
        tally[verdict] = tally.get(verdict, 0) + 1
        if verdict in ("partly", "unsafe") and " asked(" not in detail:
            silent.append(stem)
        family = reading.get("family", "?")
        if verbose or verdict != "right":
            print(f"{stem:45} {family:18} {verdict:8} {detail}")
        else:
            print(f"{stem:45} {family:18} {verdict}")
    total = sum(tally.values())
    print()
    print(f"{total} plans: " + ", ".join(f"{tally.get(k, 0)} {k}" for k in ["right", "serial", "coarser", "partly", "unsafe", "refused"]))
    print(f"read otherwise without saying so (partly or unsafe, no guess or warning): {len(silent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
