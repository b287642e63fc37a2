"""Measure scripts/jax_currency_check.py on real upgrade commits that nobody here wrote (issue 21, part 4).

evals/currency_proof.toml lists public commits in which maintainers of projects using JAX, Flax or
Optax replaced removed or deprecated APIs by hand, and for each Python file the line numbers, in the
PARENT commit, that held an old form they replaced (the labelled ground truth). This tool

1. finds each project's snapshot under --mirrors (layout `owner+name/`, the git directory being
   `owner+name/repo` or `owner+name` itself, as the `fetch` tool of a developer session makes it);
2. writes `git show <commit>^:<file>` of every listed file into a temporary folder, keeping the paths;
3. runs `scripts/jax_currency_check.py --json` on that folder (the real api_changes.toml and the
   installed jax's deprecation tables, as a user would);
4. scores each commit and the total:
     recall    = labelled lines with a finding (of any kind, `review` included) / labelled lines
     precision = findings on labelled lines / all findings, both counted without `review` notes
                 (review notes point at changed defaults; they are not claims that a line is old)
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
  .venv/bin/python dev/currency_proof.py --misses        # also list labelled lines without a finding
                                                         # and findings off the labelled lines

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
    missed: list[str] = field(default_factory=list)  # path:line of labelled lines without a finding
    extra: list[str] = field(default_factory=list)  # path:line: kind old, findings off the labels

    @property
    def recall(self) -> float:
        return self.hits / self.labelled if self.labelled else 0.0

    @property
    def precision(self) -> float:
        return self.on_labels / self.findings if self.findings else 1.0

    def add(self, other: Score) -> None:
        for name in ("files", "labelled", "findings", "hits", "on_labels"):
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
                        help="after the table, list missed labelled lines and findings off the labels")
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
        findings = by_file.get(item["path"], [])
        flagged = {f["line"] for f in findings}
        counted = [f for f in findings if f["kind"] != "review"]
        result.labelled += len(labels)
        result.hits += len(labels & flagged)
        result.findings += len(counted)
        result.on_labels += sum(f["line"] in labels for f in counted)
        result.missed += [f"{item['path']}:{line}" for line in sorted(labels - flagged)]
        result.extra += [f"{item['path']}:{f['line']}: {f['kind']} {f['old']}" for f in counted
                         if f["line"] not in labels]
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
    head = f"{'repo':28} {'commit':10} {'files':>5} {'labelled':>8} {'findings':>8} {'hits':>5} {'recall':>7} {'precision':>9}"
    rows = [head, "-" * len(head)]
    for s in [*scores, total]:
        if s is total:
            rows.append("-" * len(head))
        rows.append(f"{s.repo:28} {s.commit:10} {s.files:5d} {s.labelled:8d} {s.findings:8d} {s.hits:5d} "
                    f"{percent(s.recall):>7} {percent(s.precision):>9}")
    return "\n".join(rows)


def misses(scores: Sequence[Score]) -> str:
    lines = []
    for s in scores:
        lines += [f"missed  {s.repo}@{s.commit} {m}" for m in s.missed]
        lines += [f"extra   {s.repo}@{s.commit} {e}" for e in s.extra]
    return "\n".join(lines)


def as_json(scores: Sequence[Score], total: Score, skipped: Sequence[str]) -> str:
    def row(s: Score) -> dict[str, Any]:
        return {**asdict(s), "recall": round(s.recall, 4), "precision": round(s.precision, 4)}
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
