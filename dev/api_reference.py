"""Render references/api_changes.md from api_changes.toml (the page is generated; edit the data file).

    python dev/api_reference.py            # write the page
    python dev/api_reference.py --check    # exit 1 if the page is not what the data file renders to
"""

from __future__ import annotations

import argparse
import sys

from jaxpro.api_changes import REFERENCE, load, render
from jaxpro.repo import shown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 if the page is stale")
    args = parser.parse_args(argv)
    text = render(*load())
    if args.check:
        current = REFERENCE.read_text(encoding="utf-8") if REFERENCE.is_file() else ""
        if current != text:
            print(f"{shown(REFERENCE)} is stale: run `python dev/api_reference.py`", file=sys.stderr)
            return 1
        return 0
    REFERENCE.write_text(text, encoding="utf-8")
    print(f"wrote {shown(REFERENCE)} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
