"""Build the documentation site into build/site from the Markdown and the test run's records.

    .venv/bin/python dev/build_site.py

It stages the pages under build/site-src (each executed block followed by the output, error or skip
reason that the last test run recorded under build/records, and a "verified with" line per page;
a page per example and per script from its docstring, `--help` and source; the answer-eval tasks
page from evals/answers and the gradings the same run wrote under build/answer_evals), then runs
`mkdocs build --strict`, so a broken link or anchor or any warning fails the build. Run the test
command first; a page whose record is missing, stale or failed is named, and the build stops.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from docsite import RECORDS, SITE
from docsite.generate import HelpFailed
from docsite.stage import StageFailed, stage
from jaxpro.repo import REPO


def site_size(folder: Path) -> tuple[int, int]:
    """(files, bytes) of the built site."""
    files = [path for path in folder.rglob("*") if path.is_file()]
    return len(files), sum(path.stat().st_size for path in files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--records", type=Path, default=RECORDS, help="the mdexec records of the test run (default: build/records)"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        pages = stage(records=args.records.resolve())
    except (StageFailed, HelpFailed) as error:
        for line in str(error).splitlines():
            print(f"build_site: error: {line}", file=sys.stderr)
        return 1
    staged = time.perf_counter()
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean"]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        print(f"build_site: error: `mkdocs build --strict` exited {result.returncode} (see above)", file=sys.stderr)
        return 1
    done = time.perf_counter()
    files, size = site_size(SITE)
    print(
        f"build_site: {len(pages)} pages staged in {staged - start:.1f} s, mkdocs build --strict in "
        f"{done - staged:.1f} s; site: {SITE.relative_to(REPO)}/, {files} files, {size / 1e6:.1f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
