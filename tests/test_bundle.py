"""The bundle as Claude Code and the Agent Skills spec see it: manifests, front matter, links, budgets."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from skills_ref import validate

from jaxpro.anchors import anchors

from bundle import AGENTS, REPO, SKILLS, front_matter, parse_tokens, pins, repo_files, run_claude

PLUGIN = json.loads((REPO / ".claude-plugin/plugin.json").read_text(encoding="utf-8"))
MARKETPLACE = json.loads((REPO / ".claude-plugin/marketplace.json").read_text(encoding="utf-8"))
EXPECTED_SKILLS = {"python-jax", "jax-core-programming", "jax-optimization-pro", "jax-optimization"}

# Budgets from the developers' guide, as Claude Code itself projects them.
ALWAYS_ON_BUDGET = 800
SKILL_INVOKE_BUDGET = 3000
AGENT_INVOKE_BUDGET = 2500


def test_plugin_manifest():
    assert PLUGIN["name"] == "jax-pro"
    assert re.fullmatch(r"\d+\.\d+\.\d+", PLUGIN["version"])
    assert isinstance(PLUGIN["author"], dict) and PLUGIN["author"]["name"]
    assert isinstance(PLUGIN["keywords"], list) and PLUGIN["keywords"]
    assert PLUGIN["description"] and PLUGIN["license"]
    # Default component folders are used; listing them would override discovery.
    assert not {"skills", "agents", "commands"} & PLUGIN.keys()


def test_marketplace_lists_this_plugin_at_its_version():
    (entry,) = MARKETPLACE["plugins"]
    assert entry["name"] == PLUGIN["name"]
    assert entry["version"] == PLUGIN["version"]
    assert (REPO / entry["source"] / ".claude-plugin/plugin.json").is_file()


def test_claude_code_validator_strict():
    result = run_claude("plugin", "validate", "--strict", ".")
    assert result.returncode == 0, result.stdout + result.stderr
    result = run_claude("plugin", "validate", "--profile", "directory", ".claude-plugin/plugin.json")
    assert result.returncode == 0, result.stdout + result.stderr


def _plugin_details() -> str:
    result = run_claude("--plugin-dir", ".", "plugin", "details", PLUGIN["name"])
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _inventory(details: str, kind: str) -> set[str]:
    """Names listed on the `Skills (N)  a, b` / `Agents (N)  a` lines of `plugin details`."""
    match = re.search(rf"^\s+{kind} \((\d+)\)(.*)$", details, flags=re.M)
    assert match, f"no {kind} line in:\n{details}"
    names = {name.strip() for name in match.group(2).split(",") if name.strip()}
    assert len(names) == int(match.group(1))
    return names


def test_claude_code_discovers_every_skill_and_agent():
    details = _plugin_details()
    assert _inventory(details, "Skills") == EXPECTED_SKILLS == {p.name for p in SKILLS}
    assert _inventory(details, "Agents") == {p.stem for p in AGENTS} == {"jax-pro"}


def test_context_budgets_as_claude_code_projects_them():
    details = _plugin_details()
    always_on = parse_tokens(re.search(r"Always-on:\s+(\S+) tok", details).group(1))
    assert always_on <= ALWAYS_ON_BUDGET, f"always-on {always_on} tokens > {ALWAYS_ON_BUDGET}"
    rows = re.findall(r"^\s+([\w-]+)\s+(~[\d.]+k?)\s+(~[\d.]+k?)\s*$", details, flags=re.M)
    costs = {name: parse_tokens(on_invoke) for name, _, on_invoke in rows}
    assert set(costs) == EXPECTED_SKILLS | {"jax-pro"}, details
    for name, tokens in costs.items():
        budget = AGENT_INVOKE_BUDGET if name == "jax-pro" else SKILL_INVOKE_BUDGET
        assert tokens <= budget, f"{name}: {tokens} tokens on invoke > {budget}"


@pytest.mark.parametrize("skill", SKILLS, ids=lambda p: p.name)
def test_skill_meets_agent_skills_spec(skill: Path):
    assert validate(skill) == [], "skills-ref (agentskills validate) rejects it"
    meta = front_matter(skill / "SKILL.md")
    assert re.search(r"\bwhen\b", meta["description"], re.I), "the description must say when to use the skill"
    lines = (skill / "SKILL.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 500, f"SKILL.md has {lines} lines (limit 500)"


@pytest.mark.parametrize("skill", SKILLS, ids=lambda p: p.name)
def test_skill_compatibility_matches_the_pins(skill: Path):
    compatibility = front_matter(skill / "SKILL.md").get("compatibility", "")
    stated = dict(re.findall(r"([a-z][\w-]*) (\d+\.\d+\.\d+(?:\.\d+)?)", compatibility))
    assert stated, "state the verified versions in `compatibility`"
    for name, version in stated.items():
        assert pins().get(name) == version, f"{name} {version} in compatibility, but pyproject.toml pins {pins().get(name)}"


@pytest.mark.parametrize("agent", AGENTS, ids=lambda p: p.stem)
def test_agent_front_matter(agent: Path):
    meta = front_matter(agent)
    assert meta.get("name") == agent.stem
    assert str(meta.get("description", "")).startswith("Use this agent when")
    assert "<example>" in meta["description"]
    assert meta.get("tools") and meta.get("model")
    assert len(agent.read_text(encoding="utf-8")) < 10_000, "an agent's system prompt stays under 10,000 characters"


MARKDOWN = repo_files(".md")
_PATH_IN_CODE = re.compile(r"^(?:\.{0,2}/)?(?:skills|references|examples|scripts|agents|tests|dev|mdexec|\.claude-plugin|\.ci)/[\w./-]*\w$")


def _links_and_paths(path: Path, root: Path = REPO) -> list[tuple[int, str, Path, str]]:
    """(line, text, resolved path, anchor) for each relative link and each path from `root` named in backticks."""
    found = []
    for token in MarkdownIt("commonmark").parse(path.read_text(encoding="utf-8")):
        line = token.map[0] + 1 if token.map else 0
        for child in token.children or []:
            if child.type == "link_open":
                href = str(child.attrs.get("href", ""))
                target, _, anchor = href.partition("#")
                if not re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    found.append((line, href, (path.parent / target).resolve() if target else path, anchor))
            elif child.type == "code_inline":
                for word in child.content.split():
                    word = word.removeprefix("${CLAUDE_PLUGIN_ROOT}/")  # the client substitutes the plugin root
                    if _PATH_IN_CODE.match(word) and "*" not in word and "<" not in word:
                        found.append((line, word, (root / word).resolve(), ""))
    return found


def _unresolved(path: Path, root: Path = REPO) -> list[str]:
    problems = []
    for line, text, target, anchor in _links_and_paths(path, root):
        if not target.exists():
            problems.append(f"line {line}: {text} (no such file)")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            problems.append(f"line {line}: {text} (no heading with anchor #{anchor})")
    return problems


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(REPO)))
def test_links_and_named_paths_resolve(path: Path):
    problems = _unresolved(path)
    assert not problems, "these do not resolve:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", repo_files(".md"), ids=lambda p: str(p.relative_to(REPO)))
def test_long_references_open_with_contents(path: Path):
    lines = path.read_text(encoding="utf-8").splitlines()
    if len(lines) > 300 and path.parent.name == "references":
        head = "\n".join(lines[:40]).lower()
        assert "contents" in head, f"{path.name} has {len(lines)} lines: open it with a table of contents"


def test_link_check_catches_missing_files_and_anchors(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text(
        "# A heading: with `code`\n\n[ok](#a-heading-with-code) [bad](#nope) [gone](missing.md)\n",
        encoding="utf-8",
    )
    problems = _unresolved(page)
    assert len(problems) == 2
    assert "#nope" in problems[0] and "missing.md" in problems[1]
