"""`--fix` of scripts/jax_currency_check.py on the whole field corpus: what it rewrites, and whether the
rewritten code parses and passes the checker (issue 26).

For every release of dev/field_corpus.py's corpus (both halves), on a scratch copy of its .py files:
run the checker with `--fix`, then for every file it changed:
  - compile it (a rewrite that Python rejects is a failure);
  - check the original and the rewritten file: a finding the rewritten file has and the original had
    not, by (path, kind, old form), is a failure (the rewrite produced code the checker rejects);
  - run `--fix` again: a second pass that still rewrites something is a failure (not a fixpoint).
Nothing under the corpus cache is changed; the copies are removed. One line per release and a total.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import field_corpus as fc

CHECKER = fc.REPO / "scripts" / "jax_currency_check.py"
PYTHON = fc.REPO / ".venv" / "bin" / "python"
TIMEOUT_S = 900

EPILOG = """\
examples:
  .venv/bin/python dev/field_corpus.py fetch     # once: the corpus into the cache
  .venv/bin/python dev/field_fix.py              # every release
  .venv/bin/python dev/field_fix.py chex fedjax  # some packages

exit codes:
  0  every rewrite parses, adds no finding and is a fixpoint
  1  some rewrite does not (each on one line), or a checker run failed
  2  usage error (a package not in the corpus, no corpus in the cache)"""


@dataclass
class Outcome:
    """What `--fix` did to one release."""

    spec: str
    rewrites: int = 0
    files: int = 0
    unparsable: int = 0
    new_findings: int = 0
    second_pass: int = 0
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not (self.unparsable or self.new_findings or self.second_pass or self.problems)


def checker(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PYTHON), str(CHECKER), *args], capture_output=True, text=True, cwd=cwd,
                          timeout=TIMEOUT_S)


def findings(paths: list[Path], root: Path) -> Counter[tuple[str, str, str]]:
    """(path under root, kind, old) of the checker's findings on `paths`, counted."""
    if not paths:
        return Counter()
    result = checker([*map(str, paths), "--json"], root)
    if result.returncode not in (0, 1):
        raise RuntimeError(f"checker exit {result.returncode}: {result.stderr.strip()[-300:]}")
    return Counter((str(Path(f["path"]).resolve().relative_to(root.resolve())), f["kind"], f["old"])
                   for f in json.loads(result.stdout or "[]"))


def fix_release(pin: fc.Pin, cache: Path) -> Outcome:
    src = fc.source_dir(cache, pin.name, pin.version)
    if not (src / ".complete").exists():
        raise fc.CorpusError(f"{pin.spec} is not in {cache}: run dev/field_corpus.py fetch")
    outcome = Outcome(pin.spec)
    with tempfile.TemporaryDirectory(prefix="field-fix-") as scratch:
        copy = Path(scratch) / "fixed"
        shutil.copytree(src, copy, ignore=shutil.ignore_patterns(".complete"))
        first = checker([str(copy), "--fix", "--format", "json"], copy)
        if first.returncode not in (0, 1):
            return Outcome(pin.spec, problems=(f"--fix exit {first.returncode}: {first.stderr.strip()[-300:]}",))
        outcome.rewrites = sum(": fixed " in line for line in first.stderr.splitlines())
        changed = [path for path in sorted(copy.rglob("*.py"))
                   if path.read_bytes() != (src / path.relative_to(copy)).read_bytes()]
        outcome.files = len(changed)
        for path in changed:
            try:
                compile(path.read_bytes(), str(path), "exec")
            except (SyntaxError, ValueError) as error:
                outcome.unparsable += 1
                outcome.problems += (f"{path.relative_to(copy)}: rewritten file does not parse: {error}",)
        before = findings([src / path.relative_to(copy) for path in changed], src)
        after = findings(changed, copy)
        for (path, kind, old), count in (after - before).items():
            outcome.new_findings += count
            outcome.problems += (f"{path}: the rewrite adds {kind} {old}",)
        again = checker([*map(str, changed), "--fix", "--format", "json"], copy) if changed else None
        if again is not None:
            lines = [line for line in again.stderr.splitlines() if ": fixed " in line]
            outcome.second_pass = len(lines)
            outcome.problems += tuple(f"second pass still rewrites: {line}" for line in lines)
    return outcome


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("packages", nargs="*", help="only these packages of the corpus (default: all)")
    parser.add_argument("--cache", type=Path, default=fc.DEFAULT_CACHE, help="the corpus cache")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        pins = fc.corpus(fc.load_moves())
        wanted = {fc.normalize(name) for name in args.packages}
        if unknown := wanted - {fc.normalize(pin.name) for pin in pins}:
            raise fc.CorpusError(f"not in the corpus: {', '.join(sorted(unknown))}")
        pins = [pin for pin in pins if not wanted or fc.normalize(pin.name) in wanted]
        outcomes = []
        print(f"{'release':<28}{'rewrites':>9}{'files':>7}{'unparsable':>11}{'new findings':>13}{'2nd pass':>9}")
        for pin in pins:
            try:
                outcome = fix_release(pin, args.cache)
            except (RuntimeError, subprocess.TimeoutExpired) as error:
                outcome = Outcome(pin.spec, problems=(f"checker run failed: {error}",))
            outcomes.append(outcome)
            print(f"{outcome.spec:<28}{outcome.rewrites:>9}{outcome.files:>7}{outcome.unparsable:>11}"
                  f"{outcome.new_findings:>13}{outcome.second_pass:>9}", flush=True)
            for problem in outcome.problems:
                print(f"  {problem}")
    except fc.CorpusError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    total = Outcome("total", *(sum(getattr(o, f) for o in outcomes)
                               for f in ("rewrites", "files", "unparsable", "new_findings", "second_pass")))
    print(f"{total.spec:<28}{total.rewrites:>9}{total.files:>7}{total.unparsable:>11}{total.new_findings:>13}"
          f"{total.second_pass:>9}")
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
