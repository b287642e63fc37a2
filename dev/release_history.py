"""Fetch every release between the old and the pinned versions and read them statically (issues 26, 29).

The reader and the data file's format are in jaxpro/release_history.py; this is its command line:

    .venv/bin/python dev/release_history.py --write evals/release_history.json
    .venv/bin/python dev/release_history.py --check evals/release_history.json  # exit 1 if stale
"""

import sys

from jaxpro.release_history import run

if __name__ == "__main__":
    sys.exit(run())
