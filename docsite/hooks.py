"""MkDocs hooks: the nav by task, skill URLs, and links that work both in the plugin and on the site.

The Markdown keeps its plain relative links (they work on GitHub and in an installed plugin); here,
while MkDocs builds, a link to `examples/x.py` or `scripts/x.py` goes to the generated page for that
program, and a path named in inline code (`python ${CLAUDE_PLUGIN_ROOT}/scripts/hlo_report.py
--help`) becomes a link to its page.
"""

from __future__ import annotations

import posixpath
import re

from docsite.tasks import nav

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_LINK = re.compile(r"(\[[^\]]*\])\(([^)\s]+)\)")
_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_PATH = re.compile(r"(?:\$\{CLAUDE_(?:PLUGIN_ROOT|SKILL_DIR)\}/)?(?:\.\./)*((?:scripts|examples|references)/[\w.-]+\.(?:py|md))\b")
_PLUGIN_ROOT_NOTE = "${CLAUDE_PLUGIN_ROOT} is the folder where the plugin is installed"


def on_config(config):  # noqa: ANN001, ANN201 - MkDocs hook signature
    config["nav"] = nav()
    return config


def on_files(files, config):  # noqa: ANN001, ANN201
    """skills/<name>/SKILL.md is served at skills/<name>/, like a README."""
    for file in files:
        if posixpath.basename(file.src_uri) == "SKILL.md":
            folder = posixpath.dirname(file.src_uri)
            file.dest_uri = f"{folder}/index.html"
            file.url = f"{folder}/"
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ANN001
    here = posixpath.dirname(page.file.src_uri)
    sources = {file.src_uri for file in files}
    return rewrite(markdown, here, sources)


def rewrite(markdown: str, here: str, sources: set[str]) -> str:
    """Point `.py` links at generated pages and link repo paths named in inline code, outside fences."""
    out, fence = [], None
    for line in markdown.split("\n"):
        opening = _FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)
        elif fence is not None and line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
            fence = None
        elif fence is None:
            line = _rewrite_line(line, here, sources)
        out.append(line)
    return "\n".join(out)


def _rewrite_line(line: str, here: str, sources: set[str]) -> str:
    def relink(match: re.Match) -> str:
        target, sep, anchor = match.group(2).partition("#")
        page = _page_for(posixpath.normpath(posixpath.join(here, target)), sources) if target.endswith(".py") else None
        if page is None:
            return match.group(0)
        return f"{match.group(1)}({posixpath.relpath(page, here or '.')}{sep}{anchor})"

    line = _LINK.sub(relink, line)
    pieces, position = [], 0
    for link in _LINK.finditer(line):  # code already inside a link stays as it is
        pieces.append(_link_code(line[position : link.start()], here, sources))
        pieces.append(link.group(0))
        position = link.end()
    pieces.append(_link_code(line[position:], here, sources))
    return "".join(pieces)


def _link_code(text: str, here: str, sources: set[str]) -> str:
    def wrap(match: re.Match) -> str:
        path = _PATH.search(match.group(1))
        page = _page_for(path.group(1), sources) if path else None
        if page is None:
            return match.group(0)
        title = f' "{_PLUGIN_ROOT_NOTE}"' if "${CLAUDE_PLUGIN_ROOT}" in match.group(1) else ""
        return f"[{match.group(0)}]({posixpath.relpath(page, here or '.')}{title})"

    return _CODE.sub(wrap, text)


def _page_for(path: str, sources: set[str]) -> str | None:
    """The site page for a repo path: the generated page of a program, or the Markdown page itself."""
    page = path[: -len(".py")] + ".md" if path.endswith(".py") else path
    return page if page in sources else None
