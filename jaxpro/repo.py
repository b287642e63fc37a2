"""The checkout's root, the versions pyproject.toml pins (the one place where they are pinned), its examples."""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@functools.cache
def pins() -> dict[str, str]:
    """`name==version` pins from pyproject.toml's dependencies, names lower-cased."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pairs = (requirement.partition("==") for requirement in project["dependencies"])
    return {name.strip().lower(): version.strip() for name, _, version in pairs}


def shown(path: Path) -> str:
    """A path as a user should see it: relative to the checkout when it is inside it."""
    return str(path.relative_to(REPO)) if path.resolve().is_relative_to(REPO) else str(path)


def examples(filters: list[str] | None = None) -> list[Path]:
    """The runnable examples (files in examples/ starting with `_` are shared helpers), optionally only
    those whose name contains one of `filters`."""
    paths = sorted(p for p in (REPO / "examples").glob("*.py") if not p.name.startswith("_"))
    if filters:
        paths = [p for p in paths if any(word in p.stem for word in filters)]
    return paths
