"""Write each skill as a self-contained Agent Skills folder, for clients other than Claude Code.

In this repository a skill is `skills/<name>/SKILL.md` whose links point to `../../references/` and
whose commands name `${CLAUDE_PLUGIN_ROOT}/scripts/...`, which only Claude Code fills in. The export
writes `OUT/<name>/` with SKILL.md and, one level down, what it routes to:

  references/  the references SKILL.md links to or names
  scripts/     the scripts SKILL.md or those references tell you to run, and what they import
  examples/    the same for examples
  api_changes.toml  beside SKILL.md, when scripts/jax_currency_check.py is exported (it reads it),
               without the `added` entries, which the checker does not use

Links are rewritten to stay inside the folder, and `${CLAUDE_PLUGIN_ROOT}/` and `${CLAUDE_SKILL_DIR}/`
become paths relative to the skill folder, as the Agent Skills spec asks. A link from a copied
reference to a file that is not in the folder becomes plain text (its link text, and the file's name),
and so does an inline-code path naming such a file, so no link in the export is broken.

Uses only the standard library. The export is generated, never committed: run this again after
changing a skill (tests/test_export_skills.py builds and validates it in CI).

examples:
  python dev/export_skills.py --out dist/skills                 # all four skills
  python dev/export_skills.py --out dist/skills --skill python-jax
  python dev/export_skills.py --out dist/skills --force         # replace folders written before
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXPORTED_DIRS = ("references", "scripts", "examples")
# Data files a script reads from the bundle root; exported beside SKILL.md when the script is.
SCRIPT_DATA = {"scripts/jax_currency_check.py": ("api_changes.toml",)}
ROOT_VARIABLES = re.compile(r"\$\{CLAUDE_(?:PLUGIN_ROOT|SKILL_DIR)\}/?")
FENCE = re.compile(r"(?ms)^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$")
LINK = re.compile(r"(?<!!)\[((?:\\.|[^\]\\])*)\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`([^`]+)`")
REPO_PATH = re.compile(r"^(?:\.{0,2}/)?(?:skills|references|examples|scripts|agents|tests|dev|mdexec|results)/[\w./-]*\w$")


class ExportError(Exception):
    """A problem the user can fix; printed as one `error:` line."""


def skill_names() -> list[str]:
    return sorted(p.parent.name for p in (REPO / "skills").glob("*/SKILL.md"))


def prose(text: str) -> list[tuple[bool, str]]:
    """Split Markdown into (is_prose, segment) pairs; fenced code blocks are left alone."""
    parts, last = [], 0
    for fence in FENCE.finditer(text):
        parts += [(True, text[last:fence.start()]), (False, fence.group(0))]
        last = fence.end()
    return parts + [(True, text[last:])]


def _exportable(path: Path) -> bool:
    return path.is_file() and path.relative_to(REPO).parts[0] in EXPORTED_DIRS if path.is_relative_to(REPO) else False


def named_files(markdown: Path) -> set[Path]:
    """Bundled files a Markdown file links to, or names in inline code (paths from the bundle root)."""
    text = ROOT_VARIABLES.sub("", markdown.read_text(encoding="utf-8"))
    found = set()
    for is_prose, segment in prose(text):
        if not is_prose:
            continue
        for _, href in LINK.findall(segment):
            target = href.partition("#")[0]
            if target and not re.match(r"^[a-z][a-z0-9+.-]*:", target):
                found.add((markdown.parent / target).resolve())
        for span in CODE_SPAN.findall(segment):
            found |= {(REPO / word).resolve() for word in span.split() if REPO_PATH.match(word)}
    return {path for path in found if _exportable(path)}


def local_imports(script: Path) -> set[Path]:
    """Bundled modules a bundled Python file imports (at any depth): from its own folder, else scripts/."""
    names = set()
    for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    found = set()
    for name in names:  # examples/_report.py imports scripts/_cli.py (the PEP 723 reader)
        candidates = (script.parent / f"{name}.py", REPO / "scripts" / f"{name}.py")
        module = next((path for path in candidates if path.is_file()), None)
        if module is not None:
            found.add(module)
    return found


def files_for(skill: str) -> set[Path]:
    """SKILL.md's references, scripts and examples; those the references name; what the code imports."""
    files = named_files(REPO / "skills" / skill / "SKILL.md")
    for reference in [f for f in files if f.suffix == ".md"]:
        files |= {f for f in named_files(reference) if f.suffix == ".py"}
    pending = [f for f in files if f.suffix == ".py"]
    while pending:
        for module in local_imports(pending.pop()) - files:
            files.add(module)
            pending.append(module)
    for script, data in SCRIPT_DATA.items():
        if (REPO / script).resolve() in files:
            files |= {(REPO / name).resolve() for name in data}
    return files


def rewrite(markdown: Path, destination: Path, exported: dict[Path, Path]) -> str:
    """The text of `markdown` as it reads at `destination` inside an exported skill folder."""
    text = ROOT_VARIABLES.sub("", markdown.read_text(encoding="utf-8"))
    root = destination.parent if destination.name == "SKILL.md" else destination.parent.parent

    def link(match: re.Match[str]) -> str:
        label, href = match.groups()
        target, hash_, anchor = href.partition("#")
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target):
            return match.group(0)
        new = exported.get((markdown.parent / target).resolve())
        if new is None:  # not in this folder: keep the words and name the file, drop the link
            name = Path(target).name
            return label if label.strip("`") == name else f"{label} ({name}, in the full jax-pro bundle)"
        return f"[{label}]({os.path.relpath(new, destination.parent)}{hash_}{anchor})"

    def code(match: re.Match[str]) -> str:
        words = [w for w in match.group(1).split() if REPO_PATH.match(w) and (REPO / w).exists()]
        missing = [w for w in words if not (root / w).exists() and (REPO / w).resolve() not in exported]
        return match.group(1) if missing else match.group(0)  # a path this folder lacks is plain text

    out = []
    for is_prose, segment in prose(text):
        out.append(CODE_SPAN.sub(code, LINK.sub(link, segment)) if is_prose else segment)
    return "".join(out)


def without_additions(data: str) -> str:
    """api_changes.toml without its `added` entries, which the checker never reads (two thirds of the file)."""
    head, *entries = data.split("\n[[change]]\n")
    return "\n[[change]]\n".join([head, *(e for e in entries if '\nkind = "added"\n' not in f"\n{e}")])


def export_skill(skill: str, out: Path) -> list[Path]:
    """Write `out/<skill>/`; return the files written."""
    folder = out / skill
    sources = files_for(skill)
    exported = {src: folder / src.relative_to(REPO) for src in sources}
    exported[(REPO / "skills" / skill / "SKILL.md").resolve()] = folder / "SKILL.md"
    for src, dst in sorted(exported.items()):
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.suffix == ".md":
            dst.write_text(rewrite(src, dst, exported), encoding="utf-8")
        elif src.name == "api_changes.toml":
            dst.write_text(without_additions(src.read_text(encoding="utf-8")), encoding="utf-8")
        else:
            shutil.copy2(src, dst)
    return sorted(exported.values())


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="export_skills.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, type=Path, help="directory to write the skill folders into")
    parser.add_argument("--skill", action="append", choices=skill_names(), metavar="NAME",
                        help=f"export only this skill (repeat the flag); one of {', '.join(skill_names())}")
    parser.add_argument("--force", action="store_true", help="replace skill folders that already exist in OUT")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    skills = args.skill or skill_names()
    existing = [s for s in skills if (args.out / s).exists()]
    if existing and not args.force:
        raise ExportError(f"{args.out / existing[0]} already exists: pass --force to replace it, or choose another --out")
    rows = []
    for skill in skills:
        if (args.out / skill).exists():
            shutil.rmtree(args.out / skill)
        written = export_skill(skill, args.out)
        rows.append((skill, len(written), sum(f.stat().st_size for f in written)))
    _print_rows(args.out, rows)
    return 0


def _print_rows(out: Path, rows: Iterable[tuple[str, int, int]]) -> None:
    print(f"exported to {out}:")
    for skill, count, size in rows:
        print(f"  {skill:<24} {count:>3} files  {size / 1024:>7.1f} KiB")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (ExportError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
