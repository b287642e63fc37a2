"""api_changes.toml, the API delta from the mid-2025 releases to the pins: its entries, and the reference
page rendered from them (references/api_changes.md).

dev/api_delta.py computes the entries; this module reads them, says which bundle section teaches each,
and renders the page an assistant reads before writing code for the pinned versions.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections import defaultdict
from pathlib import Path

from jaxpro.repo import REPO

DATA = REPO / "api_changes.toml"
REFERENCE = REPO / "references" / "api_changes.md"
LIBRARIES = ("jax", "flax", "optax", "orbax-checkpoint", "numpyro")
KINDS = ("removed", "renamed-keyword", "moved", "behaviour-changed", "default-changed", "deprecated", "added")
BREAKING = ("removed", "renamed-keyword", "moved", "behaviour-changed", "default-changed")  # fail or change results
# Modules that user code calls directly: their untaught removals are listed by name; others by count.
EVERYDAY_MODULES = {"jax", "jax.numpy", "jax.lax", "jax.random", "jax.nn", "jax.tree", "jax.tree_util", "jax.sharding",
                    "jax.experimental", "jax.scipy.special", "jax.image", "flax.nnx", "flax.linen", "optax",
                    "optax.losses", "optax.schedules", "orbax.checkpoint", "numpyro", "numpyro.infer",
                    "numpyro.distributions"}
KIND_WORDS = {"removed": "removed", "renamed-keyword": "keyword renamed", "moved": "moved",
              "behaviour-changed": "behaves differently", "default-changed": "default changed",
              "deprecated": "deprecated (warns)", "added": "new"}


@dataclasses.dataclass(frozen=True)
class Change:
    """One [[change]] entry of api_changes.toml."""

    library: str
    old: str
    new: str
    kind: str
    version: str
    section: str = ""
    left_out: str = ""
    note: str = ""
    rename: bool = False

    @property
    def taught(self) -> bool:
        return bool(self.section) and self.section != "TODO"

    def probe(self) -> str:
        """The name a block teaching this change must mention: the renamed keyword, else the new
        form's last name, else (for a removal with no replacement) the old form's."""
        if self.kind == "renamed-keyword":
            match = re.search(r"\((\w+)=", self.new)
            if match:
                return match.group(1)
        return leaf(self.new or self.old)


def leaf(form: str) -> str:
    """`jax.numpy.trunc` -> `trunc`; `jax.make_mesh(axis_sizes=)` -> `make_mesh`; `x.y returns z` -> `y`."""
    head = re.split(r"[\s(#]", form.strip(), maxsplit=1)[0]  # `#2` tells apart entries of one old form
    return head.rstrip(".").rsplit(".", 1)[-1]


def module_of(form: str) -> str:
    """`jax.numpy.fix` -> `jax.numpy`; `jax.make_mesh(axis_shapes=)` -> `jax`; `jax.stages.Traced.x` -> `jax.stages`."""
    parts = re.split(r"[\s(]", form.strip(), maxsplit=1)[0].split(".")
    while len(parts) > 1 and parts[-2][:1].isupper():  # a class attribute: drop the attribute, then the class
        parts.pop()
    return ".".join(parts[:-1])


def load(path: Path = DATA) -> tuple[dict[str, dict[str, str]], list[Change]]:
    """The versions table and every change of the data file."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    fields = {f.name for f in dataclasses.fields(Change)}
    return data["versions"], [Change(**{k: v for k, v in entry.items() if k in fields}) for entry in data["change"]]


def _code(form: str) -> str:
    return f"`{form}`" if form else "–"


def _link(section: str) -> str:
    """A link from references/api_changes.md to a bundle section."""
    file, _, anchor = section.partition("#")
    target = Path(file).name if file.startswith("references/") else f"../{file}"
    return f"[{Path(file).stem}#{anchor}]({target}#{anchor})"


def render(versions: dict[str, dict[str, str]], changes: list[Change]) -> str:
    """references/api_changes.md: per library, what breaks or changes results first, then what warns,
    then what is new and taught; last, the other removals by name (the checker flags them too)."""
    old, new = versions["old"], versions["new"]
    span = ", ".join(f"{name} {old[name]} → {new[name]}" for name in LIBRARIES)
    out = [
        "# What changed since mid-2025, library by library",
        "",
        "<!-- Generated from api_changes.toml by `python dev/api_reference.py`; edit the data file, not this page. -->",
        "",
        f"The pinned versions against the last releases before July 2025: {span}. Each row names the old form, "
        "the form that replaces it, the version where it changed, and the section of this bundle that shows "
        "the new form running (and, where it fails silently, the difference). The delta is computed from the "
        "installed packages (public names, signatures, deprecation tables and warnings) plus the changelogs' "
        "behaviour changes.",
        "",
        "Write the new form directly. The versions are pinned, so there is nothing to hedge: no `try`/`except` "
        "that falls back to an old name, no `hasattr`/`getattr` probing of a library module, no filter that "
        "silences a `DeprecationWarning`. To find old forms and such hedges in existing code, run "
        "`python ${CLAUDE_PLUGIN_ROOT}/scripts/jax_currency_check.py PATH` (`--fix` rewrites pure renames).",
        "",
        "## Contents",
        "",
        *(f"- [{name}](#{_slug(name)})" for name in LIBRARIES),
    ]
    by_library: dict[str, list[Change]] = defaultdict(list)
    for change in changes:
        by_library[change.library].append(change)
    order = {kind: index for index, kind in enumerate(KINDS)}
    for library in LIBRARIES:
        entries = sorted(by_library[library], key=lambda c: (order[c.kind], c.old or c.new))
        out += ["", f"## {library}", ""]
        groups = (("Breaks or changes results", [c for c in entries if c.taught and c.kind in BREAKING]),
                  ("Deprecated: warns now, fails later", [c for c in entries if c.taught and c.kind == "deprecated"]),
                  ("New and taught", [c for c in entries if c.taught and c.kind == "added"]))
        for title, rows in groups:
            if not rows:
                continue
            out += [f"**{title}**", "", "| old | new | change | since | shown in |", "| --- | --- | --- | --- | --- |"]
            out += [f"| {_code(c.old)} | {_code(c.new)} | {KIND_WORDS[c.kind]} | {c.version} | {_link(c.section)} |"
                    for c in rows]
            out.append("")
        gone = sorted(c.old for c in entries if not c.taught and c.kind in ("removed", "moved", "renamed-keyword"))
        everyday = [form for form in gone if module_of(form) in EVERYDAY_MODULES]
        elsewhere: dict[str, int] = defaultdict(int)
        for form in gone:
            if module_of(form) not in EVERYDAY_MODULES:
                elsewhere[module_of(form)] += 1
        if everyday:
            out += ["**Also removed, moved or renamed** (not taught here; the checker reports them): "
                    + ", ".join(f"`{form}`" for form in everyday), ""]
        if elsewhere:
            out += ["In specialised modules: " + ", ".join(f"`{module}` {count}" for module, count in sorted(elsewhere.items()))
                    + " (listed in api_changes.toml).", ""]
        untaught = sum(1 for c in entries if not c.taught and c.kind not in ("removed", "moved", "renamed-keyword"))
        out.append(f"{untaught} more entries (new names, deprecations and default changes in APIs this bundle does "
                   "not teach) are in api_changes.toml, each with the reason it is left out.")
    return "\n".join(out).rstrip() + "\n"


def _slug(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
