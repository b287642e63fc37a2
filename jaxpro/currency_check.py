#!/usr/bin/env python3
"""`jax-currency-check`: runs scripts/jax_currency_check.py, unchanged, with the Python that runs this file.

Three ways in, one checker:

- the console entry point of `pip install` (`[project.scripts]` in pyproject.toml) imports this module
  and calls `main`;
- pre-commit runs this file by its path from its clone of the repository (`.pre-commit-hooks.yaml`,
  `language: unsupported_script`), so `python3` on the PATH, the project's own environment, runs it;
- in a checkout, `python scripts/jax_currency_check.py` is the same program.

The checker is found beside this package in a checkout or an editable install, and otherwise where a
wheel install put it: `share/jax-pro/scripts/` beside `share/jax-pro/api_changes.toml` (pyproject.toml's
`data-files`), the layout the checker reads its data file from.
"""

from __future__ import annotations

import importlib.metadata
import runpy
import sys
from pathlib import Path

CHECKER = "scripts/jax_currency_check.py"
DATA = "api_changes.toml"


def checker() -> Path | None:
    """The checker file: the checkout's, or the one a wheel install put under share/jax-pro/."""
    root = Path(__file__).resolve().parents[1]
    if (root / CHECKER).is_file() and (root / DATA).is_file():
        return root / CHECKER
    try:
        files = importlib.metadata.files("jax-pro") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    found = [Path(str(file.locate())) for file in files if file.as_posix().endswith(f"share/jax-pro/{CHECKER}")]
    return found[0] if found else None


def main() -> None:
    """Run the checker as `python scripts/jax_currency_check.py ARGS...` runs it; exits with its status."""
    path = checker()
    if path is None:
        sys.exit("error: jax-currency-check cannot find scripts/jax_currency_check.py; reinstall jax-pro")
    sys.argv[0] = str(path)
    sys.path.insert(0, str(path.parent))  # the checker imports its sibling _cli, as a script run does
    runpy.run_path(str(path), run_name="__main__")


if __name__ == "__main__":
    if sys.path and sys.path[0] and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        del sys.path[0]  # run by its path (pre-commit): jaxpro/'s own modules are no top-level modules
    main()
