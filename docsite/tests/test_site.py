"""The documentation site as a reader gets it: a strict build, then Debian's Chromium, headless.

Runs after the main test run (the README's test command), whose mdexec records the build needs.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from docsite import BUILD, REPO, SITE
from docsite.generate import programs

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = BUILD / "screenshots"


@pytest.fixture(scope="module")
def build_output() -> str:
    """Build the site once, exactly as the README says."""
    result = subprocess.run(
        [sys.executable, "dev/build_site.py"], cwd=REPO, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_build_is_strict_and_reports_time_and_size(build_output: str):
    assert re.search(r"mkdocs build --strict in [\d.]+ s; site: build/site/, \d+ files, [\d.]+ MB", build_output)
    assert (SITE / "index.html").is_file() and (SITE / "search/search_index.json").is_file()


def test_every_reference_example_and_script_has_a_page(build_output: str):
    for reference in (REPO / "references").glob("*.md"):
        html = (SITE / "references" / reference.stem / "index.html").read_text(encoding="utf-8")
        assert "mdexec-verified" in html, f"{reference.name}: no verified-with line"
    for example in programs("examples"):
        html = (SITE / "examples" / example.stem / "index.html").read_text(encoding="utf-8")
        assert "usage:" in html and "Source" in html, example.name
    for script in programs("scripts"):
        html = (SITE / "scripts" / script.stem / "index.html").read_text(encoding="utf-8")
        assert "usage:" in html and "--help" in html, script.name
    for skill in (REPO / "skills").iterdir():
        assert (SITE / "skills" / skill.name / "index.html").is_file()
        assert (SITE / "tasks" / skill.name / "index.html").is_file()


def test_the_home_page_shows_the_chart_and_links_the_contributors_guide(build_output: str):
    home = (SITE / "index.html").read_text(encoding="utf-8")
    assert (SITE / "lift.svg").read_bytes() == (REPO / "lift.svg").read_bytes()
    assert 'src="lift.svg"' in home and 'href="CONTRIBUTING/' in home
    assert "Measuring what the bundle changes" in (SITE / "CONTRIBUTING/index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def served_site(build_output: str) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1 only (search runs in a web worker, which needs HTTP)."""
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass


def _chromium() -> Path:
    if os.environ.get("JAXPRO_SKIP_BROWSER") == "1":
        pytest.skip("JAXPRO_SKIP_BROWSER=1: the headless-browser check of the site was not run")
    if not CHROMIUM.is_file():
        pytest.fail(
            f"{CHROMIUM} not found: run `bash dev/setup.sh` as root (it installs Debian's chromium) or "
            "`apt-get install -y chromium`; JAXPRO_SKIP_BROWSER=1 skips this test",
            pytrace=False,
        )
    return CHROMIUM


def test_search_finds_shard_map_and_the_page_shows_outputs_and_errors(served_site: str):
    from playwright.sync_api import expect, sync_playwright

    chromium = _chromium()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="jaxpro-chromium-")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile,
                executable_path=str(chromium),
                headless=True,
                args=CHROMIUM_FLAGS,
                viewport={"width": 1280, "height": 900},
            )
            page = context.new_page()
            page.goto(served_site + "/")
            expect(page.locator("h1").first).to_have_text(re.compile("jax-pro"))

            page.locator("label.md-search__icon, .md-search__input").first.click()
            search = page.locator("input.md-search__input")
            search.fill("shard_map")
            results = page.locator("a.md-search-result__link")
            expect(results.first).to_be_visible(timeout=30_000)
            page.screenshot(path=SCREENSHOTS / "search-shard_map.png")
            hrefs = [results.nth(i).get_attribute("href") or "" for i in range(results.count())]
            assert any("spmd_sharding" in href for href in hrefs), hrefs
            chosen = next(i for i, href in enumerate(hrefs) if "spmd_sharding" in href)
            results.nth(chosen).click()

            page.wait_for_url(re.compile(r"/references/spmd_sharding/"))
            expect(page.locator(".mdexec-verified").first).to_be_visible()
            output = page.locator(".mdexec-output").first
            output.scroll_into_view_if_needed()
            expect(output).to_be_visible()
            expect(output.locator("code")).not_to_be_empty()
            error = page.locator(".mdexec-error").first
            error.scroll_into_view_if_needed()
            expect(error).to_be_visible()
            expect(error.locator("code")).to_contain_text(re.compile(r"\w+Error: "))
            page.screenshot(path=SCREENSHOTS / "spmd_sharding-error-block.png")
            context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
