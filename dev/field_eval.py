"""Held-out precision and recall of scripts/jax_currency_check.py on the field corpus (issue 26).

The corpus and its split are dev/field_corpus.py's (fetch it first). This tool

  run        runs the checker (`--json`) on every release of the corpus, one release at a time, and
             keeps each output under the cache (keyed by the checker's source, api_changes.toml and
             the installed versions), so a re-run after a checker change re-checks everything once and
             a report re-checks nothing;
  todo       lists the sampled findings that have no label yet (what to label after a checker change),
             as TOML stubs for evals/field/labels.toml;
  report     prints per half and per kind: findings, labelled, real, precision, the recall on the
             upgrade pairs, the replacement rate and the aborted runs; --write also writes
             evals/field/results.json (the TEST half only) for the hook that reads it;
  check      (no network, no checker run, well under a second) the labels parse, name pinned
             packages and known evidence, and results.json agrees with the labels it says it used;
  evidence   runs every evidence entry of the labels against the installed pins;
  changed    prints the old release's changed lines of a package's upgrade pairs, marking the ones
             evals/field/recall.toml already holds (what to read when labelling recall).

What is counted. A finding's key is (package, path, kind, old, sha1 of the stripped source line)[:12]:
the same line in two releases of one package is one finding, and a label holds across re-runs as long
as the line and the claim are the same. `unparsable` findings are robustness, not claims. Per half and
kind, findings are ordered by their key's hash and the first SAMPLE of each kind form the labelled
sample (all of them when there are fewer); precision = real / labelled over that sample. A label is
`real` when the claim the checker prints is true against the installed pins: the named form is there
and is removed, deprecated, renamed, rejected by the installed signature, a version probe (hedge), or
a call whose default or behaviour changed (review). Recall: evals/field/recall.toml lists, for each
upgrade pair, the lines of the OLD release that the maintainers changed to replace a form that is
removed or deprecated at the pins; recall = those lines with a finding (not `unparsable`) on the same
line / all of them. Replacement rate = findings whose `new` is non-empty, or whose message says
`no replacement: <why>`, / findings (not `unparsable`).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import math
import re
import subprocess
import sys
import time
import tomllib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable, Sequence

import field_corpus as fc

REPO = fc.REPO
FIELD = REPO / "evals" / "field"
LABELS = FIELD / "labels.toml"
RECALL = FIELD / "recall.toml"
RESULTS = FIELD / "results.json"
PYTHON = REPO / ".venv" / "bin" / "python"
LABEL_KEYS = ("package", "version", "path", "line", "text", "kind", "old", "real", "why", "evidence")
SAMPLE = 30  # labelled findings per (half, kind); all of them when a kind has fewer
LIBRARIES = ("jax", "jaxlib", "flax", "optax", "orbax-checkpoint", "numpyro")
WHY_NONE = re.compile(r"\bno (?:direct )?replacement\b\s*[:(—–-]\s*\w", re.IGNORECASE)
RUN_TIMEOUT_S = 1800

EPILOG = """\
examples:
  .venv/bin/python dev/field_corpus.py fetch              # once: the pinned wheels into the cache
  .venv/bin/python dev/field_eval.py run                  # the checker on every release (cached)
  .venv/bin/python dev/field_eval.py todo --half tuning   # sampled findings still to label (TOML stubs)
  .venv/bin/python dev/field_eval.py report --write       # both halves; results.json = the test half
  .venv/bin/python dev/field_eval.py --checker-rev HEAD report --write   # a committed checker, not the tree's
  .venv/bin/python dev/field_eval.py check                # the CI check (no network, no checker run)
  .venv/bin/python dev/field_eval.py evidence             # re-run every label's evidence on the pins
  .venv/bin/python dev/field_eval.py changed chex         # chex's pair diff, for labelling recall

Never read test-half findings to change the checker: `todo --half test` is for labelling only. A
test-half package looked at to explain a failure moves to the tuning half (evals/field/moves.toml).

exit codes:
  0  done (check: everything agrees)
  1  a run aborted, evidence failed, or (check) a disagreement, each on one line
  2  usage error (unknown half, missing corpus in the cache, malformed labels file)"""


class EvalError(Exception):
    """A problem the user can fix; one `error:` line."""


@dataclass(frozen=True)
class Finding:
    """One checker finding on one release, with the source line it points at."""

    package: str
    version: str
    half: str
    path: str
    line: int
    kind: str
    old: str
    new: str
    message: str
    text: str

    @property
    def key(self) -> str:
        return label_key(self.package, self.path, self.kind, self.old, text_hash(self.text))


@dataclass
class Run:
    """The checker's output on one release."""

    package: str
    version: str
    returncode: int
    seconds: float
    findings: list[dict[str, Any]]
    stderr: str

    @property
    def aborted(self) -> bool:
        return self.returncode not in (0, 1) or "Traceback" in self.stderr or self.stderr.startswith("error:")


@dataclass
class Tally:
    """Counts of one (half, kind)."""

    findings: int = 0
    unique: int = 0
    sampled: int = 0
    labelled: int = 0
    real: int = 0
    named: int = 0
    why_none: int = 0
    used: list[str] = field(default_factory=list)


def text_hash(text: str) -> str:
    """The first 12 hex digits of sha1 of a stripped source line (no third-party code is stored)."""
    return hashlib.sha1(text.strip().encode()).hexdigest()[:12]


def label_key(package: str, path: str, kind: str, old: str, text: str) -> str:
    """The id of a finding and of its label: stable across re-runs while the line and claim stay."""
    return hashlib.sha256("|".join((fc.normalize(package), path, kind, old, text)).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Checker:
    """The checker to measure: the working tree's (rev None) or a commit's, extracted under the cache."""

    root: Path
    rev: str | None

    @property
    def script(self) -> Path:
        return self.root / "scripts" / "jax_currency_check.py"

    @property
    def commit(self) -> str:
        """The commit measured: the rev given, else the last commit of scripts/ and api_changes.toml, or
        'uncommitted' when the working tree differs from it."""
        paths = ["scripts", "api_changes.toml"]
        if self.rev:
            return self.rev
        dirty = subprocess.run(["git", "status", "--porcelain", "--", *paths], capture_output=True, text=True, cwd=REPO)
        last = subprocess.run(["git", "log", "-1", "--format=%h", "--", *paths], capture_output=True, text=True, cwd=REPO)
        return "uncommitted" if dirty.stdout.strip() else last.stdout.strip() or "unknown"


def checker_at(rev: str | None, cache: Path) -> Checker:
    """The working tree's checker, or `git archive REV scripts api_changes.toml` extracted once under the cache."""
    if not rev:
        return Checker(REPO, None)
    resolved = subprocess.run(["git", "rev-parse", "--short", rev], capture_output=True, text=True, cwd=REPO)
    if resolved.returncode != 0:
        raise EvalError(f"--checker-rev {rev}: not a commit of this repository")
    short = resolved.stdout.strip()
    root = cache / "checkers" / short
    if not (root / "scripts" / "jax_currency_check.py").exists():
        root.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", short, "scripts", "api_changes.toml"], capture_output=True, cwd=REPO)
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
    return Checker(root, short)


def checker_key(checker: Checker) -> str:
    """What a cached run depends on: the checker's sources, api_changes.toml and the installed pins."""
    digest = hashlib.sha256()
    for path in sorted((checker.root / "scripts").glob("*.py")) + [checker.root / "api_changes.toml"]:
        digest.update(path.name.encode() + path.read_bytes())
    for name in LIBRARIES:
        digest.update(f"{name}=={installed(name)}".encode())
    return digest.hexdigest()[:16]


def installed(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def run_one(pin: fc.Pin, cache: Path, key: str, checker: Checker) -> Run:
    """The checker on one release (from the run cache when this checker already ran on it)."""
    out = cache / "runs" / key / f"{fc.normalize(pin.name)}-{pin.version}.json"
    if out.exists():
        return Run(**json.loads(out.read_text(encoding="utf-8")))
    src = fc.source_dir(cache, pin.name, pin.version)
    if not (src / ".complete").exists():
        raise EvalError(f"{pin.spec} is not in {cache}: run dev/field_corpus.py fetch")
    start = time.monotonic()
    try:
        result = subprocess.run([str(PYTHON), str(checker.script), str(src), "--json"], capture_output=True, text=True,
                                cwd=src, timeout=RUN_TIMEOUT_S)
        code, stdout, stderr = result.returncode, result.stdout, result.stderr
    except subprocess.TimeoutExpired:
        code, stdout, stderr = 124, "[]", f"timed out after {RUN_TIMEOUT_S} s"
    try:
        found = json.loads(stdout) if stdout.strip() else []
    except json.JSONDecodeError:
        found, stderr = [], stderr + "\nstdout is not JSON"
    for item in found:
        item["path"] = str(Path(item["path"]).resolve().relative_to(src.resolve())) if Path(item["path"]).is_absolute() \
            else item["path"]
    run = Run(pin.name, pin.version, code, round(time.monotonic() - start, 2), found, stderr[-4000:])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(run.__dict__), encoding="utf-8")
    return run


def source_line(cache: Path, pin: fc.Pin, path: str, line: int) -> str:
    """The text of one line of a release's file ('' when out of range)."""
    lines = (fc.source_dir(cache, pin.name, pin.version) / path).read_text(encoding="utf-8", errors="replace").splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else ""


def findings_of(run: Run, pin: fc.Pin, cache: Path, half: str) -> list[Finding]:
    return [Finding(pin.name, pin.version, half, item["path"], int(item.get("line", 0)), item["kind"], item["old"],
                    item.get("new", ""), item.get("message", ""), source_line(cache, pin, item["path"], int(item.get("line", 0))))
            for item in run.findings]


def load_toml(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise EvalError(f"{path.relative_to(REPO)}: not valid TOML ({exc})") from exc


def load_labels(path: Path = LABELS) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """(labels by key, evidence by id) of the labels file."""
    data = load_toml(path)
    labels: dict[str, dict[str, Any]] = {}
    for number, entry in enumerate(data.get("label", []), 1):
        missing = [name for name in LABEL_KEYS if name not in entry]
        if missing:
            raise EvalError(f"{path.name}: label {number} lacks {', '.join(missing)}")
        key = label_key(entry["package"], entry["path"], entry["kind"], entry["old"], entry["text"])
        if key in labels:
            raise EvalError(f"{path.name}: two labels for {entry['package']} {entry['path']}:{entry['line']} {entry['kind']}")
        labels[key] = entry
    return labels, data.get("evidence", {})


def sample(found: Iterable[Finding]) -> dict[tuple[str, str], list[Finding]]:
    """Unique findings per (half, kind), in the order of their key's hash (the labelling order)."""
    unique: dict[str, Finding] = {}
    for item in found:
        if item.kind != "unparsable":
            unique.setdefault(item.key, item)
    groups: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for key in sorted(unique, key=lambda k: hashlib.sha256(k.encode()).hexdigest()):
        groups[(unique[key].half, unique[key].kind)].append(unique[key])
    return groups


def names_replacement(item: Finding) -> tuple[bool, bool]:
    """(names a replacement, says why there is none)."""
    return bool(item.new), not item.new and bool(WHY_NONE.search(item.message))


def tally(found: list[Finding], labels: dict[str, dict[str, Any]]) -> dict[tuple[str, str], Tally]:
    """Per (half, kind): counts of findings, of the sample's labels, and of replacements."""
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    for item in found:
        if item.kind == "unparsable":
            continue
        entry = tallies[(item.half, item.kind)]
        entry.findings += 1
        named, why = names_replacement(item)
        entry.named += named
        entry.why_none += why
    for (half, kind), items in sample(found).items():
        entry = tallies[(half, kind)]
        entry.unique = len(items)
        entry.sampled = min(len(items), SAMPLE)
        for item in items[:SAMPLE]:
            if item.key in labels:
                entry.labelled += 1
                entry.real += bool(labels[item.key]["real"])
                entry.used.append(item.key)
    return tallies


def wilson_low(real: int, n: int, z: float = 1.96) -> float:
    """The lower end of the 95% Wilson interval of a proportion."""
    if n == 0:
        return 0.0
    p = real / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n)


def recall_lines(path: Path = RECALL) -> list[dict[str, Any]]:
    """The labelled lines of the upgrade pairs (old release), each with its package and versions."""
    rows = []
    for pair in load_toml(path).get("pair", []):
        for line in pair.get("line", []):
            row = {"package": pair.get("package"), "old": pair.get("old"), "new": pair.get("new"), **line}
            missing = [name for name in ("package", "old", "new", "path", "line", "text", "form", "evidence")
                       if row.get(name) is None]
            if missing:
                raise EvalError(f"{path.name}: a line of pair {row['package']} lacks {', '.join(missing)}")
            rows.append(row)
    return rows


def recall(rows: list[dict[str, Any]], runs: dict[tuple[str, str], Run], halves: dict[str, str]
           ) -> dict[str, dict[str, Any]]:
    """Per half: labelled lines, lines flagged on the old release, and the missed ones."""
    out: dict[str, dict[str, Any]] = {h: {"labelled": 0, "flagged": 0, "missed": [], "pairs": {}} for h in fc.HALVES}
    for row in rows:
        run = runs.get((row["package"], row["old"]))
        if run is None:
            continue
        flagged = any(f["path"] == row["path"] and int(f.get("line", 0)) == row["line"] and f["kind"] != "unparsable"
                      for f in run.findings)
        part = out[halves[fc.normalize(row["package"])]]
        pair = part["pairs"].setdefault(f"{row['package']} {row['old']}->{row['new']}", {"labelled": 0, "flagged": 0})
        for bucket in (part, pair):
            bucket["labelled"] += 1
            bucket["flagged"] += flagged
        if not flagged:
            part["missed"].append(f"{row['package']}=={row['old']} {row['path']}:{row['line']} {row['form']}")
    return out


def collect(cache: Path, only_half: str | None, checker: Checker, quiet: bool = False
            ) -> tuple[list[Finding], dict[tuple[str, str], Run]]:
    """Run (or read from the cache) the checker on every release of the corpus (of one half)."""
    moves = fc.load_moves()
    key = checker_key(checker)
    found: list[Finding] = []
    runs: dict[tuple[str, str], Run] = {}
    for pin in fc.corpus(moves):
        half = fc.half(pin.name, moves)
        if only_half and half != only_half:
            continue
        run = run_one(pin, cache, key, checker)
        runs[(pin.name, pin.version)] = run
        if not quiet:
            print(f"{pin.spec:<28}{half:<8}{len(run.findings):>6} findings  {run.seconds:>7.1f} s"
                  f"{'  ABORTED: ' + first_line(run.stderr) if run.aborted else ''}", file=sys.stderr)
        found.extend(findings_of(run, pin, cache, half))
    return found, runs


def first_line(text: str) -> str:
    """The line of some output that says what happened: the first naming an error or warning, else the last."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    telling = [line for line in lines if re.search(r"Error|Warning|^error:", line)]
    return (telling or lines or [""])[0 if telling else -1][:160]


def stub(item: Finding) -> str:
    """A TOML label stub for one finding (real and why to be filled in)."""
    return "\n".join((
        "[[label]]",
        f'package = "{item.package}"',
        f'version = "{item.version}"',
        f'path = "{item.path}"',
        f"line = {item.line}",
        f'text = "{text_hash(item.text)}"',
        f'kind = "{item.kind}"',
        f'old = "{item.old}"',
        f"# new = {item.new!r}  message = {item.message[:120]!r}",
        f"# source: {item.text.strip()[:150]}",
        "real = ",
        'why = ""',
        'evidence = ""',
        "",
    ))


def todo(found: list[Finding], labels: dict[str, dict[str, Any]], half: str) -> list[Finding]:
    """Sampled findings of a half that have no label yet."""
    return [item for (h, _), items in sorted(sample(found).items()) if h == half
            for item in items[:SAMPLE] if item.key not in labels]


def report(found: list[Finding], runs: dict[tuple[str, str], Run], labels: dict[str, dict[str, Any]],
           halves_shown: Sequence[str], command: str, checker: Checker) -> dict[str, Any]:
    """Print the figures per half and kind; return the test half's results (results.json)."""
    moves = fc.load_moves()
    halves = {fc.normalize(pin.name): fc.half(pin.name, moves) for pin in fc.corpus(moves)}
    tallies = tally(found, labels)
    recalls = recall(recall_lines(), runs, halves)
    print(f"command: {command}")
    print(f"checker: {checker_key(checker)} (commit {checker.commit})  pins: "
          + ", ".join(f"{n} {installed(n)}" for n in LIBRARIES))
    results: dict[str, Any] = {}
    for half in halves_shown:
        part = {kind: t for (h, kind), t in sorted(tallies.items()) if h == half}
        releases = [r for (name, _), r in runs.items() if halves[fc.normalize(name)] == half]
        aborted = [f"{r.package}=={r.version}: {first_line(r.stderr)}" for r in releases if r.aborted]
        unparsable = sum(1 for r in releases for f in r.findings if f["kind"] == "unparsable")
        print(f"\n== {half} half: {len(releases)} releases, {sum(len(r.findings) for r in releases)} findings")
        print(f"{'kind':<18}{'findings':>9}{'unique':>8}{'sampled':>8}{'labelled':>9}{'real':>6}{'precision':>10}"
              f"{'95% low':>9}{'replacement':>12}")
        total = Tally()
        for kind, t in part.items():
            for name in ("findings", "unique", "sampled", "labelled", "real", "named", "why_none"):
                setattr(total, name, getattr(total, name) + getattr(t, name))
            total.used += t.used
            print(row(kind, t))
        print(row("all", total))
        print(f"all, weighted by each kind's unique findings: precision {weighted(part.values()):.3f}")
        r = recalls[half]
        print(f"recall on the upgrade pairs: {r['flagged']}/{r['labelled']}"
              f" = {ratio(r['flagged'], r['labelled'])}")
        for name, p in sorted(r["pairs"].items()):
            print(f"  {name}: {p['flagged']}/{p['labelled']}")
        if half == "tuning":  # the test half's misses are never listed: they must not steer a change
            print("".join(f"  missed: {line}\n" for line in r["missed"]), end="")
        print(f"aborted runs: {len(aborted)}" + "".join(f"\n  {line}" for line in aborted))
        print(f"unparsable files: {unparsable}")
        noisy = [f"{r.package}=={r.version}: {first_line(r.stderr)}" for r in releases if r.stderr.strip() and not r.aborted]
        shown = noisy if half == "tuning" else []  # test-half details stay unread, like its misses
        print(f"runs that wrote to stderr (not aborted): {len(noisy)}" + "".join(f"\n  {line}" for line in shown))
        if half == "test":
            results = results_json(part, total, r, aborted, unparsable, command, checker)
            results["stderr_runs"] = len(noisy)
    return results


def row(kind: str, t: Tally) -> str:
    rate = (t.named + t.why_none) / t.findings if t.findings else 0.0
    return (f"{kind:<18}{t.findings:>9}{t.unique:>8}{t.sampled:>8}{t.labelled:>9}{t.real:>6}{ratio(t.real, t.labelled):>10}"
            f"{wilson_low(t.real, t.labelled):>9.3f}{rate:>12.3f}")


def weighted(tallies: Iterable[Tally]) -> float:
    """Precision over all findings: each labelled kind's sample precision weighted by its unique findings."""
    kinds = [t for t in tallies if t.labelled]
    total = sum(t.unique for t in kinds)
    return sum(t.unique * t.real / t.labelled for t in kinds) / total if total else 0.0


def ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "-"


def results_json(part: dict[str, Tally], total: Tally, rec: dict[str, Any], aborted: list[str], unparsable: int,
                 command: str, checker: Checker) -> dict[str, Any]:
    """The test half's figures in the shape the hook reads: kinds -> {labelled, real, precision, ...}."""
    def kind_entry(t: Tally) -> dict[str, Any]:
        return {"findings": t.findings, "unique": t.unique, "sampled": t.sampled, "labelled": t.labelled, "real": t.real,
                "precision": round(t.real / t.labelled, 4) if t.labelled else None,
                "precision_low95": round(wilson_low(t.real, t.labelled), 4),
                "replacement_rate": round((t.named + t.why_none) / t.findings, 4) if t.findings else None}
    return {
        "half": "test",
        "command": command,
        "checker": checker_key(checker),
        "checker_commit": checker.commit,
        "pins": {name: installed(name) for name in LIBRARIES},
        "kinds": {kind: kind_entry(t) for kind, t in part.items()},
        "all": {**kind_entry(total), "precision_weighted": round(weighted(part.values()), 4)},
        "recall": {"labelled": rec["labelled"], "flagged": rec["flagged"],
                   "recall": round(rec["flagged"] / rec["labelled"], 4) if rec["labelled"] else None,
                   "pairs": rec["pairs"]},
        "aborted_runs": aborted,
        "unparsable": unparsable,
        "labels_used": sorted(total.used),
    }


def check(labels_path: Path, results_path: Path, recall_path: Path) -> list[str]:
    """Problems with the committed data, without network or checker: one line each."""
    problems = []
    labels, evidence = load_labels(labels_path)
    moves = fc.load_moves()
    pinned = {(fc.normalize(pin.name), pin.version) for pin in (*fc.PINNED, *fc.RESERVE)}
    names = {name for name, _ in pinned}
    for key, entry in labels.items():
        where = f"{labels_path.name}: {entry['package']} {entry['path']}:{entry['line']}"
        if (fc.normalize(entry["package"]), entry["version"]) not in pinned:
            problems.append(f"{where}: {entry['package']}=={entry['version']} is not pinned")
        if not isinstance(entry.get("real"), bool) or not entry.get("why"):
            problems.append(f"{where}: needs real = true/false and a why")
        if entry.get("evidence") == "line" and not entry.get("expect"):
            problems.append(f"{where}: evidence 'line' needs an expect (text the labelled line holds)")
        elif entry.get("evidence") not in evidence and entry.get("evidence") != "line":
            problems.append(f"{where}: evidence {entry.get('evidence')!r} is not an [evidence] entry")
    for name, item in evidence.items():
        if not (item.get("command") or item.get("source")) or not item.get("expect"):
            problems.append(f"{labels_path.name}: evidence {name}: needs a command or source, and expect")
    for row_ in recall_lines(recall_path):
        if (fc.normalize(row_["package"]), row_["old"]) not in pinned:
            problems.append(f"{recall_path.name}: {row_['package']}=={row_['old']} is not pinned")
        if row_.get("evidence") not in evidence:
            problems.append(f"{recall_path.name}: {row_['package']} {row_['path']}:{row_['line']}: "
                            f"evidence {row_.get('evidence')!r} unknown")
    for pair in fc.PAIRS:
        if fc.half(pair[0], moves) not in fc.HALVES or (fc.normalize(pair[0]), pair[1]) not in pinned:
            problems.append(f"pair {pair}: not pinned")
    if results_path.exists():
        problems += check_results(json.loads(results_path.read_text(encoding="utf-8")), labels, moves)
    return problems + [f"{n}: in no half" for n in names if fc.half(n, moves) not in fc.HALVES]


def check_results(results: dict[str, Any], labels: dict[str, dict[str, Any]], moves: dict[str, str]) -> list[str]:
    """results.json against the labels it says it used: same counts per kind, test half only."""
    problems = []
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for key in results.get("labels_used", []):
        entry = labels.get(key)
        if entry is None:
            problems.append(f"results.json: label {key} is not in labels.toml")
            continue
        if fc.half(entry["package"], moves) != "test":
            problems.append(f"results.json: label {key} ({entry['package']}) is not in the test half")
        counts[entry["kind"]]["labelled"] += 1
        counts[entry["kind"]]["real"] += bool(entry["real"])
    for kind, entry in results.get("kinds", {}).items():
        got = (entry["labelled"], entry["real"])
        want = (counts[kind]["labelled"], counts[kind]["real"])
        if got != want:
            problems.append(f"results.json: kind {kind}: labelled/real {got} but the labels give {want}")
        expected = round(want[1] / want[0], 4) if want[0] else None
        if entry["precision"] != expected:
            problems.append(f"results.json: kind {kind}: precision {entry['precision']} but the labels give {expected}")
    missing = set(counts) - set(results.get("kinds", {}))
    problems += [f"results.json: kind {kind} has labels but no entry" for kind in sorted(missing)]
    return problems


def run_evidence(evidence: dict[str, dict[str, Any]], labels: dict[str, dict[str, Any]], cache: Path) -> list[str]:
    """Run every evidence command (or read its source line) on the installed pins, and check that each
    label whose evidence is its own `line` holds its `expect` in the cached release; the failures."""
    failures = []
    pins = {(fc.normalize(pin.name), pin.version): pin for pin in (*fc.PINNED, *fc.RESERVE)}
    for entry in labels.values():
        if entry.get("evidence") == "line":
            pin = pins[(fc.normalize(entry["package"]), entry["version"])]
            text = source_line(cache, pin, entry["path"], entry["line"])
            window = "\n".join(source_line(cache, pin, entry["path"], entry["line"] + k) for k in range(3))
            if entry["expect"] not in window or text_hash(text) != entry["text"]:
                failures.append(f"label {entry['package']} {entry['path']}:{entry['line']}: {entry['expect']!r} "
                                f"not on that line (or the two after it) of the cached release")
    for name, item in sorted(evidence.items()):
        if item.get("command"):
            result = subprocess.run([str(PYTHON), "-c", item["command"]], capture_output=True, text=True, timeout=300)
            output = result.stdout + result.stderr
        else:
            output = source_text(item["source"])
        status = "ok" if item["expect"] in output else "FAILED"
        print(f"{status:<7}{name}: {item['expect']!r}", file=sys.stderr)
        if status != "ok":
            failures.append(f"evidence {name}: {item['expect']!r} not in the output: {first_line(output)}")
    return failures


def source_text(source: str) -> str:
    """The line named by `pkg/path.py:LINE` inside the installed site-packages."""
    path, _, line = source.rpartition(":")
    site = next(p for p in sys.path if p.endswith("site-packages"))
    lines = (Path(site) / path).read_text(encoding="utf-8").splitlines()
    return lines[int(line) - 1] if line.isdigit() and 0 < int(line) <= len(lines) else ""


def changed_lines(cache: Path, package: str) -> list[str]:
    """For each upgrade pair of `package`: the OLD release's lines that differ in the new one, as
    `old-version path:line: text`, marked `[labelled]` when recall.toml has them (for labelling recall)."""
    labelled = {(r["old"], r["path"], r["line"]) for r in recall_lines() if fc.normalize(r["package"]) == fc.normalize(package)}
    out = []
    for name, old, new in fc.PAIRS:
        if fc.normalize(name) != fc.normalize(package):
            continue
        a, b = fc.source_dir(cache, name, old), fc.source_dir(cache, name, new)
        if not (a / ".complete").exists() or not (b / ".complete").exists():
            raise EvalError(f"{name} {old} or {new} is not in {cache}: run dev/field_corpus.py fetch")
        for path in sorted(a.rglob("*.py")):
            rel = str(path.relative_to(a))
            before = path.read_text(encoding="utf-8", errors="replace").splitlines()
            after = (b / rel).read_text(encoding="utf-8", errors="replace").splitlines() if (b / rel).exists() else []
            for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
                for i in range(i1, i2) if tag != "equal" else ():
                    mark = " [labelled]" if (old, rel, i + 1) in labelled else ""
                    out.append(f"{old} {rel}:{i + 1}:{mark} {before[i].strip()}")
    if not out:
        raise EvalError(f"{package}: no upgrade pair in dev/field_corpus.py PAIRS")
    return out


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=fc.DEFAULT_CACHE, help="the corpus cache (dev/field_corpus.py's)")
    parser.add_argument("--checker-rev", metavar="REV", help="measure the checker of this commit (scripts/ and "
                        "api_changes.toml, extracted under the cache) instead of the working tree's")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("run", "run the checker on every release (cached per checker)"),
                       ("todo", "sampled findings without a label, as TOML stubs"),
                       ("report", "precision, recall, replacement rate and aborted runs per half and kind")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--half", choices=fc.HALVES, default=None if name != "todo" else "tuning")
        if name == "report":
            p.add_argument("--write", action="store_true", help="also write evals/field/results.json (test half)")
    c = sub.add_parser("check", help="the committed data agree (no network, no checker run)")
    c.add_argument("--labels", type=Path, default=LABELS)
    c.add_argument("--results", type=Path, default=RESULTS)
    c.add_argument("--recall", type=Path, default=RECALL)
    sub.add_parser("evidence", help="run every evidence entry against the installed pins")
    ch = sub.add_parser("changed", help="the old release's changed lines of a package's upgrade pairs (to label recall)")
    ch.add_argument("package")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    command = ".venv/bin/python dev/field_eval.py " + " ".join(sys.argv[1:] if argv is None else argv)
    try:
        if args.command == "check":
            problems = check(args.labels, args.results, args.recall)
            for line in problems:
                print(line)
            return 1 if problems else 0
        if args.command == "changed":
            print("\n".join(changed_lines(args.cache, args.package)))
            return 0
        labels, evidence = load_labels()
        if args.command == "evidence":
            failures = run_evidence(evidence, labels, args.cache)
            for line in failures:
                print(line)
            return 1 if failures else 0
        if args.command == "report" and args.write:
            args.half = None  # results.json needs the test half; the tuning half is printed beside it
        checker = checker_at(args.checker_rev, args.cache)
        found, runs = collect(args.cache, args.half, checker, quiet=args.command != "run")
        if args.command == "run":
            return 1 if any(r.aborted for r in runs.values()) else 0
        if args.command == "todo":
            if args.half == "test":
                print("# test half: for labelling only; never change the checker from what you read here")
            for item in todo(found, labels, args.half):
                print(stub(item))
            return 0
        results = report(found, runs, labels, [args.half] if args.half else list(fc.HALVES), command, checker)
        if args.write:
            RESULTS.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
            print(f"wrote {RESULTS.relative_to(REPO)}")
        return 0
    except EvalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
