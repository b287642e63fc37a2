# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1", "jedi==0.20.1"]
# ///
"""How often a real type-inference engine (jedi) and the currency checker's own intra-file inference
(`jax_currency_check.Types`) know that the receiver of a member read is an instance of an installed
library class, on the held-out ("test") half of the field corpus (dev/field_corpus.py; fetch it first).

A *site* is an `ast.Attribute` read (Load context) whose attribute is a member name of the data (the
last dotted component of a key of the checker's index, `#keyword` stripped, or of a change's
`new_name`) and whose receiver does NOT resolve through the imports (`jcc.resolve(...)` is None): a
member read on an object, such as `opt.update`, `x.value`, `mesh.axis_names`. For each site:

  checker   `Types(tree).of(receiver)` is ("lib", Symbol): an instance of an installed class;
  jedi      `Script(code, path).infer(line, col)` at the end of the receiver gives a definition whose
            module_name or full_name has jax, jaxlib, flax, optax, orbax or numpyro as its FIRST
            dotted component (so jax_md or jaxopt do not count). jedi's line is 1-based and its
            column a 0-based CURSOR position in characters (ast's end_col_offset is UTF-8 bytes and
            is converted): the cursor just after the receiver's last character. Not one before it:
            jedi takes a name that ENDS at the cursor, so at the `)` of `jnp.asarray(index).flatten`
            it would infer `index`; just after the `)` it infers the call. "jedi strict" counts a
            site only when EVERY definition jedi gives is a library one (a Union gives several).
            jedi runs in-process (InterpreterEnvironment, so its CPU time is this process's) with the
            release folder as its project and its parso cache under /tmp/jedi-cache.

It prints (and writes as Markdown to --out) the 2x2 agreement table, jedi errors and timeouts (each
infer is wrapped; a file whose jedi work passes --file-cap CPU seconds has its remaining sites counted
as timeouts), CPU seconds per 1,000 lines for each engine (jedi: Script + infer calls; checker: Types
construction + `.of` calls), and lists of "jedi only" and "checker only" sites to judge by hand.
Files over 3,000 lines are skipped (and counted).

Run with the project's interpreter and jedi on PYTHONPATH, e.g.

  pip install --target /tmp/jedi-lib jedi==0.20.1
  PYTHONPATH=/tmp/jedi-lib .venv/bin/python dev/inference_compare.py --limit-files 2 --out /tmp/ic.md

--limit-files N takes the first N .py files (sorted by path) of each release; 0 takes them all.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import hashlib
import json
import re
import shlex
import signal
import subprocess
import sys
import time
import warnings
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import jax_currency_check as jcc  # noqa: E402

JEDI_PIN = "0.20.1"
LIBS = ("jax", "jaxlib", "flax", "optax", "orbax", "numpyro")
CORPUS = Path.home() / ".cache" / "jax-pro" / "field-corpus" / "src"
MAX_LINES = 3000
NEWLINE = re.compile(r"\r\n|\r|\n")


class JediTimeout(BaseException):
    """Raised by SIGPROF when a file's jedi CPU budget is spent (BaseException: jedi's own
    `except Exception` must not swallow it)."""


@dataclass
class Site:
    package: str
    path: str
    line: int
    col: int
    attr: str
    receiver: str
    text: str
    checker: str = ""  # module.qualname when the checker says library
    jedi: str = ""  # "lib", "other", "error" or "timeout"
    jedi_names: list[str] = field(default_factory=list)  # full_name (type) of each inferred definition
    jedi_error: str = ""
    line_end: int = 0  # where jedi is asked: the receiver's end (1-based line)
    col_end: int = 0  # (0-based character column of the cursor just after the receiver)
    jedi_strict: bool = False  # every definition jedi gave is a library one


@dataclass
class Totals:
    files: int = 0
    lines: int = 0
    skipped_big: int = 0
    unparsable: int = 0
    capped_files: int = 0
    jedi_cpu: float = 0.0
    checker_cpu: float = 0.0
    per_package: Counter = field(default_factory=Counter)


def member_names(index: Any) -> set[str]:
    """The last dotted component of every changed name (keyword suffix stripped) and of every new_name."""
    found = set()
    for key, change in index.names.items():
        found.add(key.partition("#")[0].rpartition(".")[2])
        if change.new_name:
            found.add(change.new_name.rpartition(".")[2])
    return found


def test_releases() -> list[tuple[str, Path]]:
    """(name-version, source folder) of each test-half release, in the corpus's order."""
    out = subprocess.run([sys.executable, str(REPO / "dev" / "field_corpus.py"), "list", "--json"],
                         capture_output=True, text=True, check=True, cwd=REPO).stdout
    found = []
    for row in json.loads(out):
        if row["half"] == "test":
            normalized = re.sub(r"[-_.]+", "-", row["name"].lower())
            found.append((f"{normalized}-{row['version']}", CORPUS / f"{normalized}-{row['version']}"))
    return found


def is_library_name(name: str | None) -> bool:
    return bool(name) and name.partition(".")[0] in LIBS  # type: ignore[union-attr]


def jedi_column(lines: list[str], lineno: int, byte_col: int) -> int:
    """ast's UTF-8 byte offset -> jedi's character column."""
    text = lines[lineno - 1] if 0 < lineno <= len(lines) else ""
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def on_prof(signum: int, frame: Any) -> None:
    raise JediTimeout()


def run_jedi(jedi: Any, env: Any, project: Any, source: str, path: Path, sites: list[Site],
             lines: list[str], cap: float) -> bool:
    """Fill each site's jedi answer; False when the file's CPU cap was hit."""
    signal.signal(signal.SIGPROF, on_prof)
    done = 0
    try:
        signal.setitimer(signal.ITIMER_PROF, cap)
        try:
            script = jedi.Script(code=source, path=str(path), environment=env, project=project)
        except Exception as exc:  # noqa: BLE001
            for site in sites:
                site.jedi, site.jedi_error = "error", f"Script: {type(exc).__name__}: {exc}"[:200]
            return True
        for site in sites:
            try:
                names = script.infer(site.line_end, site.col_end)
            except Exception as exc:  # noqa: BLE001
                site.jedi, site.jedi_error = "error", f"{type(exc).__name__}: {exc}"[:200]
            else:
                site.jedi_names = [f"{n.full_name or n.name} ({n.type})" for n in names]
                lib = any(is_library_name(n.module_name) or is_library_name(n.full_name) for n in names)
                site.jedi = "lib" if lib else "other"
                site.jedi_strict = lib and all(is_library_name(n.module_name) or is_library_name(n.full_name)
                                               for n in names)
            done += 1
        return True
    except JediTimeout:
        for site in sites[done:]:
            site.jedi = "timeout"
        return False
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


def check_file(jedi: Any, env: Any, project: Any, package: str, root: Path, path: Path, members: set[str],
               totals: Totals, cap: float) -> list[Site]:
    raw = path.read_bytes()
    source = raw.decode("utf-8", errors="replace")
    lines = NEWLINE.split(source)
    if len(raw.splitlines()) > MAX_LINES:
        totals.skipped_big += 1
        return []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        totals.unparsable += 1
        return []
    totals.files += 1
    totals.lines += len(raw.splitlines())
    start = time.process_time()
    types = jcc.Types(tree)
    totals.checker_cpu += time.process_time() - start
    found: list[tuple[Site, ast.Attribute]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and node.attr in members \
                and jcc.resolve(node.value, types.bindings) is None:
            value = node.value
            site = Site(package, str(path.relative_to(root)), node.lineno, node.col_offset, node.attr,
                        ast.unparse(value)[:80], lines[node.lineno - 1].strip()[:160])
            site.line_end = value.end_lineno or node.lineno
            site.col_end = jedi_column(lines, site.line_end, value.end_col_offset or 0)
            found.append((site, node))
    start = time.process_time()
    for site, node in found:
        t = types.of(node.value)
        if isinstance(t, tuple) and t[0] == "lib":
            site.checker = f"{t[1].module}.{t[1].qualname}"
    totals.checker_cpu += time.process_time() - start
    sites = sorted((site for site, _ in found), key=lambda s: (s.line, s.col))
    if sites:
        start = time.process_time()
        if not run_jedi(jedi, env, project, source, path, sites, lines, cap):
            totals.capped_files += 1
        totals.jedi_cpu += time.process_time() - start
    return sites


def checker_hash() -> str:
    return hashlib.sha256(Path(jcc.__file__).read_bytes()).hexdigest()[:12]


def per_kloc(cpu: float, lines: int) -> str:
    return f"{1000 * cpu / lines:.3f}" if lines else "-"


def report(sites: list[Site], totals: Totals, jedi_version: str, command: str, limit: int,
           releases: int, done: bool) -> str:
    answered = [s for s in sites if s.jedi in ("lib", "other")]
    both = sum(1 for s in answered if s.checker and s.jedi == "lib")
    checker_only = [s for s in answered if s.checker and s.jedi == "other"]
    jedi_only = [s for s in answered if not s.checker and s.jedi == "lib"]
    neither = sum(1 for s in answered if not s.checker and s.jedi == "other")
    errors = [s for s in sites if s.jedi == "error"]
    timeouts = [s for s in sites if s.jedi == "timeout"]
    jedi_lib = [s for s in sites if s.jedi == "lib"]
    kinds = Counter(n.rpartition("(")[2].rstrip(")") for s in jedi_only for n in s.jedi_names[:1])
    rows = [
        ("sites", len(sites)),
        ("  jedi answered", len(answered)),
        ("both say library", both),
        ("checker only", len(checker_only)),
        ("jedi only", len(jedi_only)),
        ("neither", neither),
        ("jedi errors", len(errors)),
        ("jedi timeouts (file CPU cap)", len(timeouts)),
        ("  of errors+timeouts, checker says library", sum(1 for s in errors + timeouts if s.checker)),
        ("checker says library (all sites)", sum(1 for s in sites if s.checker)),
        ("jedi says library (all sites)", len(jedi_lib)),
        ("jedi strict (every definition library), all sites", sum(1 for s in sites if s.jedi_strict)),
        ("jedi only and jedi strict", sum(1 for s in jedi_only if s.jedi_strict)),
    ]
    scope = "ALL files" if limit == 0 else f"the first {limit} .py files (sorted by path) of each release"
    out = [
        "# jedi vs the checker's intra-file inference: library receivers of member reads",
        "",
        f"- status: {'complete' if done else 'PARTIAL (run in progress)'}",
        f"- date: {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"- command: `{command}`",
        f"- checker: scripts/jax_currency_check.py as on disk at run time, sha256 {checker_hash()}",
        f"- jedi {jedi_version} (in-process InterpreterEnvironment, default settings); python "
        f"{sys.version.split()[0]}",
        f"- corpus: test half, {releases} releases, {scope}",
        f"- files analysed: {totals.files} ({totals.lines} lines); skipped > {MAX_LINES} lines: "
        f"{totals.skipped_big}; unparsable: {totals.unparsable}; files hitting the jedi CPU cap: "
        f"{totals.capped_files}",
        "",
        "| count | sites |",
        "|---|---:|",
        *[f"| {name} | {value} |" for name, value in rows],
        "",
        "| engine | CPU s | CPU s per 1,000 lines |",
        "|---|---:|---:|",
        f"| checker (Types + .of) | {totals.checker_cpu:.2f} | {per_kloc(totals.checker_cpu, totals.lines)} |",
        f"| jedi (Script + infer) | {totals.jedi_cpu:.2f} | {per_kloc(totals.jedi_cpu, totals.lines)} |",
        "",
        "jedi-only sites by the type of jedi's first definition: "
        + (", ".join(f"{k} {v}" for k, v in kinds.most_common()) or "-"),
        "",
        "Sites per release (sites / checker lib / jedi lib):",
        "",
    ]
    for package in dict.fromkeys(s.package for s in sites):
        mine = [s for s in sites if s.package == package]
        out.append(f"- {package}: {len(mine)} / {sum(1 for s in mine if s.checker)} / "
                   f"{sum(1 for s in mine if s.jedi == 'lib')}")
    out += ["", "## jedi only (up to 40)", "",
            "| # | package | path:line | attr | jedi full_name (type) | source line |", "|---|---|---|---|---|---|"]
    for i, s in enumerate(jedi_only[:40], 1):
        out.append(f"| {i} | {s.package} | {s.path}:{s.line} | {s.attr} | {'; '.join(s.jedi_names[:4])} | "
                   f"`{s.text.replace('|', '\\|')}` |")
    out += ["", "## checker only (up to 20)", "",
            "| # | package | path:line | attr | checker class | jedi said | source line |",
            "|---|---|---|---|---|---|---|"]
    for i, s in enumerate(checker_only[:20], 1):
        out.append(f"| {i} | {s.package} | {s.path}:{s.line} | {s.attr} | {s.checker} | "
                   f"{'; '.join(s.jedi_names[:3]) or '(nothing)'} | `{s.text.replace('|', '\\|')}` |")
    if errors:
        out += ["", "## jedi errors (first 10)", ""]
        out += [f"- {s.package} {s.path}:{s.line} {s.attr}: {s.jedi_error}" for s in errors[:10]]
    return "\n".join(out) + "\n"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--limit-files", type=int, default=2, metavar="N",
                        help="first N .py files (sorted by path) of each release; 0 = all (default 2)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/inference_compare.md"), help="Markdown report")
    parser.add_argument("--json", type=Path, default=None, help="also write every site as JSON here")
    parser.add_argument("--file-cap", type=float, default=20.0,
                        help="jedi CPU seconds per file before its remaining sites count as timeouts")
    parser.add_argument("--packages", default="", help="comma-separated release folder names to restrict to")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    warnings.filterwarnings("ignore", category=SyntaxWarning)  # invalid escapes in the corpus's sources
    try:
        import jedi
    except ImportError:
        print(f"error: jedi is not installed: pip install jedi=={JEDI_PIN}")
        return 2
    jedi.settings.cache_directory = "/tmp/jedi-cache"
    env = jedi.InterpreterEnvironment()
    index, _ = jcc.build_index(REPO / "api_changes.toml")
    members = member_names(index)
    releases = test_releases()
    if args.packages:
        wanted = set(args.packages.split(","))
        releases = [r for r in releases if r[0] in wanted]
    command = shlex.join([Path(sys.executable).name, *sys.argv])
    totals, sites = Totals(), []
    for package, root in releases:
        files = sorted(root.rglob("*.py"))
        if args.limit_files:
            files = files[:args.limit_files]
        project = jedi.Project(str(root))
        for path in files:
            sites += check_file(jedi, env, project, package, root, path, members, totals, args.file_cap)
        print(f"{package}: {len(files)} files, {len(sites)} sites so far, checker {totals.checker_cpu:.1f}s, "
              f"jedi {totals.jedi_cpu:.1f}s CPU", file=sys.stderr, flush=True)
        args.out.write_text(report(sites, totals, jedi.__version__, command, args.limit_files, len(releases),
                                   False), encoding="utf-8")
    text = report(sites, totals, jedi.__version__, command, args.limit_files, len(releases), True)
    args.out.write_text(text, encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps([asdict(s) for s in sites], indent=1), encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
