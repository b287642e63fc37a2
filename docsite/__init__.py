"""The documentation site: the bundle's executed Markdown, with outputs from the test run's records.

`python dev/build_site.py` stages the pages under build/site-src (records.py checks the records,
render.py puts each block's recorded output under it, generate.py writes the example and script
pages, tasks.py turns the skills' routing tables into the navigation) and runs `mkdocs build
--strict`; hooks.py rewrites links and URLs while MkDocs builds.
"""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "build"
RECORDS = BUILD / "records"
STAGE = BUILD / "site-src"
SITE = BUILD / "site"
# The README's test command, which .ci/run runs as its last line.
TEST_COMMAND = (REPO / ".ci/run").read_text(encoding="utf-8").strip().splitlines()[-1]


def load_dev_module(name: str) -> ModuleType:
    """dev/<name>.py imported once as module `name`, for the site and the tests that use a runner's functions."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "dev" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses resolve their module by name
        spec.loader.exec_module(module)
    return sys.modules[name]
