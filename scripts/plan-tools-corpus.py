#!/usr/bin/env python3
"""Run `evaluate` and `prioritize` on every plan of a folder, each in a scratch
git repository, and count what each run did to the author's text: lines
removed or changed (the diff's `-` lines), ticked boxes before and after,
and sprint ids before and after (`plan --format json`).

With --build CMD, each scratch repository configures `[build] command`, so
`evaluate` may replace vague criteria; a removed line is then counted as
unannounced unless the report names it ("replaced vague criterion").

Usage: scripts/plan-tools-corpus.py PLANS_DIR [--binary PATH] [--build CMD]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ENV = dict(
    os.environ,
    NO_COLOR="1",
    GIT_AUTHOR_NAME="a",
    GIT_AUTHOR_EMAIL="a@example.com",
    GIT_COMMITTER_NAME="a",
    GIT_COMMITTER_EMAIL="a@example.com",
)


def ids(binary, cwd):
    out = subprocess.run([binary, "plan", "--format", "json"], cwd=cwd, capture_output=True, text=True, env=ENV)
    try:
        plan = json.loads(out.stdout)
    except json.JSONDecodeError:
        return None
    if plan.get("ok") is False:
        return None
    return [(u["name"], s["id"], s.get("done") is not None) for u in plan["units"] for s in u["sprints"]]


def announced(removed, report):
    """A removed criterion line the report names as replaced."""
    text = re.sub(r"^-\s*[-*] \[[ xX]\] ", "", removed).strip()
    return f'replaced vague criterion "{text}"' in report


def main():
    args = sys.argv[1:]
    binary = "git-supervisor"
    if "--binary" in args:
        k = args.index("--binary")
        binary = os.path.abspath(args[k + 1])
        del args[k : k + 2]
    build = None
    if "--build" in args:
        k = args.index("--build")
        build = args[k + 1]
        del args[k : k + 2]
    if not args:
        print(__doc__)
        return 2
    corpus = args[0]
    runs = removing = removed = tick_losing = id_changing = refused = unannounced = 0
    for name in sorted(os.listdir(corpus)):
        if not name.endswith(".md"):
            continue
        src = open(os.path.join(corpus, name), encoding="utf-8").read()
        for tool in ["evaluate", "prioritize"]:
            d = tempfile.mkdtemp()
            try:
                plan = os.path.join(d, "EXECUTION_PLAN.md")
                open(plan, "w", encoding="utf-8").write(src)
                if build:
                    os.makedirs(os.path.join(d, ".workflow"))
                    with open(os.path.join(d, ".workflow", "config.toml"), "w") as f:
                        f.write(f"[build]\ncommand = {json.dumps(build)}\n")
                for cmd in (["init", "-q"], ["add", "."], ["commit", "-qm", "plan"]):
                    subprocess.run(["git", *cmd], cwd=d, env=ENV, check=True)
                before_ids = ids(binary, d)
                r = subprocess.run([binary, tool], cwd=d, capture_output=True, text=True, env=ENV, timeout=120)
                after = open(plan, encoding="utf-8").read()
                diff = subprocess.run(["git", "diff", "-U0", "--", "EXECUTION_PLAN.md"], cwd=d, capture_output=True, text=True).stdout
                plus = [l for l in diff.splitlines() if l.startswith("+") and not l.startswith("+++")]
                # A last line given its missing newline shows as `-` and `+`
                # of the same text: kept, not removed.
                kept = {l[1:] for l in plus}
                minus = [l for l in diff.splitlines() if l.startswith("-") and not l.startswith("---") and l[1:] not in kept]
                ticks = (len(re.findall(r"\[[xX]\]", src)), len(re.findall(r"\[[xX]\]", after)))
                after_ids = ids(binary, d)
                status = "refused" if r.returncode == 1 else ("unchanged" if not diff else "changed")
                runs += 1
                refused += status == "refused"
                removing += bool(minus)
                removed += len(minus)
                tick_losing += ticks[1] < ticks[0]
                ids_kept = before_ids == after_ids
                named = [l for l in minus if not announced(l, r.stdout)]
                unannounced += len(named)
                id_changing += not ids_kept
                print(f"{name[:44]:44} {tool:10} {status:9} -{len(minus):<5} +{len(plus):<5} ticks {ticks[0]}->{ticks[1]} ids {'kept' if ids_kept else 'CHANGED'}")
            finally:
                shutil.rmtree(d)
    print()
    print(f"{runs} runs: {removing} removing {removed} lines ({unannounced} not named in the report), {tick_losing} losing ticks, {id_changing} changing ids or done marks, {refused} refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
