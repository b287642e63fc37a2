"""The documentation site: the bundle's executed Markdown, with outputs from the test run's records.

`python dev/build_site.py` stages the pages under build/site-src (records.py checks the records,
render.py puts each block's recorded output under it, generate.py writes the example and script
pages, tasks.py turns the skills' routing tables into the navigation, answers.py the answer-eval
page from `jaxpro.evals`) and runs `mkdocs build --strict`; hooks.py rewrites links and URLs while
MkDocs builds.
"""

from jaxpro.repo import REPO

BUILD = REPO / "build"
RECORDS = BUILD / "records"
STAGE = BUILD / "site-src"
SITE = BUILD / "site"
# The README's test command, which .ci/run runs as its last line.
TEST_COMMAND = (REPO / ".ci/run").read_text(encoding="utf-8").strip().splitlines()[-1]
