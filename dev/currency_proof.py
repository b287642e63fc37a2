"""Measure scripts/jax_currency_check.py on real upgrade commits that nobody here wrote (issue 21, part 4).

evals/currency_proof.toml lists public commits in which maintainers of projects using JAX, Flax or
Optax replaced removed or deprecated APIs by hand, and for each Python file the line numbers, in the
PARENT commit, that held an old form they replaced (the labelled ground truth); and, per file,
`real_elsewhere`: parent-commit lines holding an old form the commit did NOT change, each with a
one-line reason, verified against the installed pinned library (the name is gone, warns, or the
keyword is rejected). This tool

1. finds each project's snapshot under --mirrors (layout `owner+name/`, the git directory being
   `owner+name/repo` or `owner+name` itself, as the `fetch` tool of a developer session makes it);
2. writes `git show <commit>^:<file>` of every listed file into a temporary folder, keeping the paths;
3. runs `scripts/jax_currency_check.py --json` on that folder (the real api_changes.toml and the
   installed jax's deprecation tables, as a user would);
4. scores each commit and the total:
     recall         = labelled lines with a finding (of any kind, `review` included) / labelled lines
     strict prec.   = findings on labelled lines / all findings: how much of the output is what THIS
                      commit changed
     real prec.     = (findings on labelled lines + findings on `real_elsewhere` lines) / all findings:
                      how much of the output is a real old form (the issue's "findings that were real")
   Findings are counted without `review` notes (they point at changed defaults; they are not claims
   that a line is old).
   A finding is "on" a labelled line when its line number is that line.

Fetching the snapshots is a developer's step, not CI's: this tool reads only what is already on disk.
A commit whose snapshot is missing gets one line naming the repository and the fetch to do
(`fetch github:<owner>/<name>`), is skipped, and makes the exit status 1.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

REPO = Path(__file__).resolve().parents[1]
DEFAULT_LIST = REPO / "evals" / "currency_proof.toml"
CHECKER = REPO / "scripts" / "jax_currency_check.py"
DEFAULT_MIRRORS = Path("/work/.mirror")

EPILOG = """\
examples:
  .venv/bin/python dev/currency_proof.py                 # table of every commit and the totals
  .venv/bin/python dev/currency_proof.py --json          # the same as JSON
  .venv/bin/python dev/currency_proof.py --misses        # also list labelled lines without a finding,
                                                         # findings off the labelled lines (extra) and
                                                         # findings on real_elsewhere lines (real)

columns: recall = labelled lines flagged / labelled lines; strict = findings on labelled lines /
  findings (what this commit changed); real-prec = findings on labelled or real_elsewhere lines /
  findings (findings that were real old forms, verified against the installed pins)

before the first run (a developer's step, in a session that has the `fetch` tool):
  fetch github:<owner>/<name>  for every repo of evals/currency_proof.toml

exit codes:
  0  every commit was evaluated
  1  a snapshot, commit or file was missing (each named on one line), or the checker failed
  2  usage error"""


@dataclass
class Score:
    """The counts of one commit (or of the total)."""

    repo: str
    commit: str
    files: int = 0
    labelled: int = 0
    findings: int = 0  # without `review`
    hits: int = 0  # labelled lines with any finding
    on_labels: int = 0  # findings (without `review`) on labelled lines
    on_real: int = 0  # findings (without `review`) on `real_elsewhere` lines
    missed: list[str] = field(default_factory=list)  # path:line of labelled lines without a finding
    extra: list[str] = field(default_factory=list)  # path:line: kind old, findings off the labels
    real: list[str] = field(default_factory=list)  # path:line: kind old -- reason, on `real_elsewhere`

    @property
    def recall(self) -> float:
        return self.hits / self.labelled if self.labelled else 0.0

    @property
    def precision(self) -> float:
        """Strict: findings on the labelled lines only."""
        return self.on_labels / self.findings if self.findings else 1.0

    @property
    def real_precision(self) -> float:
        """Findings that were real: on labelled lines or on verified `real_elsewhere` lines."""
        return (self.on_labels + self.on_real) / self.findings if self.findings else 1.0

    def add(self, other: Score) -> None:
        for name in ("files", "labelled", "findings", "hits", "on_labels", "on_real"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="currency_proof.py", description=__doc__, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, metavar="DIR",
                        help=f"where the repository snapshots are, as owner+name/ (default: {DEFAULT_MIRRORS})")
    parser.add_argument("--list", type=Path, default=DEFAULT_LIST, metavar="FILE",
                        help=f"the commits and labelled lines (default: {DEFAULT_LIST.relative_to(REPO)})")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--misses", action="store_true",
                        help="after the table, list missed labelled lines, findings off the labels, and "
                             "findings on real_elsewhere lines")
    return parser


def load_list(path: Path) -> list[dict[str, Any]]:
    """The `[[commit]]` tables of the ground-truth file."""
    if not path.is_file():
        raise SystemExit(f"error: no such list {path}")
    return tomllib.loads(path.read_text(encoding="utf-8"))["commit"]


def git_dir(mirrors: Path, repo: str) -> Path | None:
    """The snapshot's git directory: `owner+name/repo` (the fetch tool's layout) or `owner+name`."""
    base = mirrors / repo.replace("/", "+")
    for candidate in (base / "repo", base):
        if (candidate / "HEAD").is_file():
            return candidate
    return None


def git(gitdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "--git-dir", str(gitdir), *args], capture_output=True, text=True, check=False)


def export_parents(gitdir: Path, entry: dict[str, Any], target: Path) -> list[str]:
    """Write the parent version of each listed file under `target`; the problems, one line each."""
    problems = []
    for item in entry["files"]:
        shown = git(gitdir, "show", f"{entry['commit']}^:{item['path']}")
        if shown.returncode != 0:
            problems.append(f"{entry['repo']}@{entry['commit'][:10]}: cannot read {item['path']} in the parent "
                            f"({shown.stderr.strip().splitlines()[-1] if shown.stderr.strip() else 'git failed'})")
            continue
        out = target / item["path"]
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(shown.stdout, encoding="utf-8")
    return problems


def run_checker(folder: Path) -> list[dict[str, Any]]:
    """The checker's JSON findings on a folder (exit 0 or 1 are both normal)."""
    result = subprocess.run([sys.executable, str(CHECKER), ".", "--json"], cwd=folder,
                            capture_output=True, text=True, check=False)
    if result.returncode not in (0, 1):
        raise RuntimeError(f"the checker failed on {folder}: {result.stderr.strip()[-400:]}")
    return json.loads(result.stdout)


def score(entry: dict[str, Any], found: list[dict[str, Any]]) -> Score:
    """Recall and precision counts of one commit from its labels and the checker's findings."""
    result = Score(entry["repo"], entry["commit"][:10], files=len(entry["files"]))
    by_file: dict[str, list[dict[str, Any]]] = {}
    for finding in found:
        by_file.setdefault(Path(finding["path"]).as_posix().removeprefix("./"), []).append(finding)
    for item in entry["files"]:
        labels = set(item["lines"])
        real = {r["line"]: r["reason"] for r in item.get("real_elsewhere", [])}
        if overlap := labels & set(real):
            raise SystemExit(f"error: {item['path']}: lines {sorted(overlap)} are both labelled and real_elsewhere")
        findings = by_file.get(item["path"], [])
        flagged = {f["line"] for f in findings}
        counted = [f for f in findings if f["kind"] != "review"]
        result.labelled += len(labels)
        result.hits += len(labels & flagged)
        result.findings += len(counted)
        result.on_labels += sum(f["line"] in labels for f in counted)
        result.on_real += sum(f["line"] in real for f in counted)
        result.missed += [f"{item['path']}:{line}" for line in sorted(labels - flagged)]
        result.extra += [f"{item['path']}:{f['line']}: {f['kind']} {f['old']}" for f in counted
                         if f["line"] not in labels and f["line"] not in real]
        result.real += [f"{item['path']}:{f['line']}: {f['kind']} {f['old']} -- {real[f['line']]}"
                        for f in counted if f["line"] in real]
    return result


def evaluate(entry: dict[str, Any], mirrors: Path) -> tuple[Score | None, list[str]]:
    """The score of one commit, or None and the reasons it could not be evaluated."""
    gitdir = git_dir(mirrors, entry["repo"])
    if gitdir is None:
        return None, [f"{entry['repo']}: no snapshot under {mirrors}; a developer fetches it with: "
                      f"fetch github:{entry['repo']}"]
    if git(gitdir, "cat-file", "-e", f"{entry['commit']}^{{commit}}").returncode != 0:
        return None, [f"{entry['repo']}: the snapshot lacks commit {entry['commit'][:10]}; fetch github:{entry['repo']} again"]
    with tempfile.TemporaryDirectory(prefix="currency_proof_") as tmp:
        problems = export_parents(gitdir, entry, Path(tmp))
        if problems:
            return None, problems
        return score(entry, run_checker(Path(tmp))), []


def percent(value: float) -> str:
    return f"{100 * value:5.1f}%"


def table(scores: Sequence[Score], total: Score) -> str:
    """A fixed-width table, one row per commit and a total row."""
    head = (f"{'repo':28} {'commit':10} {'files':>5} {'labelled':>8} {'findings':>8} {'hits':>5} {'real':>4} "
            f"{'recall':>7} {'strict':>7} {'real-prec':>9}")
    rows = [head, "-" * len(head)]
    for s in [*scores, total]:
        if s is total:
            rows.append("-" * len(head))
        rows.append(f"{s.repo:28} {s.commit:10} {s.files:5d} {s.labelled:8d} {s.findings:8d} {s.hits:5d} "
                    f"{s.on_real:4d} {percent(s.recall):>7} {percent(s.precision):>7} {percent(s.real_precision):>9}")
    rows.append("strict = findings on labelled lines / findings; real-prec = (findings on labelled + on "
                "real_elsewhere lines) / findings; real = findings on real_elsewhere lines")
    return "\n".join(rows)


def misses(scores: Sequence[Score]) -> str:
    lines = []
    for s in scores:
        lines += [f"missed  {s.repo}@{s.commit} {m}" for m in s.missed]
        lines += [f"extra   {s.repo}@{s.commit} {e}" for e in s.extra]
        lines += [f"real    {s.repo}@{s.commit} {r}" for r in s.real]
    return "\n".join(lines)


def as_json(scores: Sequence[Score], total: Score, skipped: Sequence[str]) -> str:
    def row(s: Score) -> dict[str, Any]:
        return {**asdict(s), "recall": round(s.recall, 4), "precision": round(s.precision, 4),
                "real_precision": round(s.real_precision, 4)}
    return json.dumps({"commits": [row(s) for s in scores], "total": row(total), "skipped": list(skipped)}, indent=2)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    scores, skipped = [], []
    for entry in load_list(args.list):
        result, problems = evaluate(entry, args.mirrors)
        skipped += problems
        if result:
            scores.append(result)
    total = Score("total", "")
    for s in scores:
        total.add(s)
    for line in skipped:
        print(line, file=sys.stderr)
    if args.json:
        print(as_json(scores, total, skipped))
    else:
        print(table(scores, total))
        if args.misses:
            print(misses(scores))
    return 1 if skipped else 0


if __name__ == "__main__":
    sys.exit(main())
