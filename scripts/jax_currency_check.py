# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1", "libcst==1.9.0"]  # libcst only for --fix
# ///
"""Find old JAX-ecosystem APIs and version-probing hedges in Python code; --fix rewrites mechanical renames.

Reads the files with `ast` (they are never imported or run; the installed libraries are imported to
read their deprecation tables, names and signatures) and reports, one line per finding:

  removed / moved / deprecated   a use of an old form listed in api_changes.toml; a deprecation that
                                 warns only under a condition (`if slice_index is not None:` in the
                                 installed source, found at the file:line its note names, or the data's
                                 `warns_if_keyword`) only on calls that meet it
  renamed-keyword                a call passing a keyword that was renamed (or removed)
  review                         a use of something whose default or behaviour changed (not an error;
                                 only for changes the bundle teaches, i.e. without `left_out`), unless
                                 the library says the old default is what the call still gets
  removed / deprecated           a name the INSTALLED jax still lists in a `_deprecations` table
                                 (removed when accessing it raises AttributeError)
  removed                        a name under a module of jax, flax, optax, orbax or numpyro that the
                                 INSTALLED library does not have (`jax.ops.index_update`, an import
                                 of `jax.experimental.optimizers`): found by importing the module
  signature                      a call the INSTALLED library's signature rejects: a keyword it does
                                 not take (for an old form with a new home: the new one's signature,
                                 so `shard_map(check_rep=)` is caught), a missing required argument
                                 (an nnx.Optimizer built without its required `wrt=`), too many positional
                                 arguments; `functools.partial(f, kw=...)` counts as a call of f; and
                                 `obj.method(...)` where obj is known (local type knowledge, below) to be
                                 an instance of an installed class (`optimizer.update(grads)` where
                                 `optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)`: flax 0.12 takes (model, grads))
  raises                         an attribute of an nnx.Module subclass given, in __init__ (or a method
                                 it calls on self), a plain list/tuple/dict (or comprehension) of Modules
                                 or Variables, or an empty list then appended with them: flax 0.12 keeps
                                 such containers static and raises ValueError; use nnx.List / nnx.data
  hedge                          version probing around jax, jaxlib, flax, optax, orbax, numpyro:
                                 try/except ImportError|ModuleNotFoundError|AttributeError that only
                                 another release can take (not a guard of an optional dependency, not
                                 duck typing of your own objects) or that falls back to an older name;
                                 hasattr/getattr(<library module or object>, "...") and
                                 inspect.signature(<library function>); a comparison matching both the
                                 old and the new name of one API (`name in ("pjit", "jit")`); warnings
                                 filters ignoring DeprecationWarning or the libraries' warnings, or
                                 catch_warnings() ignoring everything around their calls; comparisons
                                 of jax.__version__, flax.__version__, importlib.metadata.version(...)

Local type knowledge (a small intra-file inference): calls of installed classes (`nnx.Param(...)`),
of installed functions by their return annotation (`jax.make_mesh` -> Mesh) or when they return their
first argument (`nnx.data`), of the file's own classes and of its module-level functions that return
their first parameter (a `shard(x, spec)` wrapper) have a type; so do `self` in methods, annotated
parameters (`cache: Cache | None`), names whose every plain assignment agrees, and `obj.attr` when
every non-None `self.attr = ...` of obj's class (its local bases, or an installed class's own source)
agrees. Tuple unpacking, loops and disagreements leave a name unknown, so `.value` on enum members or
unknown objects is never reported. A member of a known instance is then looked up in the data by the
installed class's path (attribute reads/writes and `with` only; method calls meet the signature
check, since method entries are often conditional): `self.scale.value` (scale = nnx.Param(...)) is the entry
`flax.nnx.variablelib.Variable.value` (a store uses `...value#2`, the setter, when listed), and
`with mesh:` (mesh = jax.make_mesh(...)) is `jax._src.mesh.Mesh.__enter__`.

A public name whose implementation the data keys by its private origin (entry
`optax._src.linear_algebra.global_norm`, code `optax.global_norm`) is matched by importing the library
and comparing the object's __module__ + __qualname__ (and that it is the same object).

Names are resolved through the file's own imports (`import jax.numpy as jnp`, `from jax import
tree_util as tu`, `from flax import nnx`), so `jnp.round_` is `jax.numpy.round_`. The data file's
`old`/`new` are dotted names; `pkg.fn(kw=)` names a keyword of a call (the form dev/api_delta.py
writes), or give `keyword_old`/`keyword_new` fields. An entry whose `old` is prose may add the
structured fields `call = "jax.make_mesh"` and `without_keyword = "axis_types"`: every call of `call`
that does not pass `without_keyword` (by name or by position) gets a `review` note (for a
default-changed or behaviour-changed entry) or the entry's kind.

Limits: imports are read per file, not per scope; names inside strings and star-imported names are
not resolved; the local inference does not follow values across files, function calls or tuple
unpacking (`model, optimizer = state`), so such `.value` reads and method calls go unreported; an old
form reached through a from-import is reported at the import line, not at each use.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import importlib
import functools
import importlib.util
import inspect
import re
import sys
import tomllib
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import _cli
from _cli import CliError, CliParser, UsageError, first_line, print_json, run_cli, script_metadata
from _installed import (LIBRARIES, MISSING, Symbol, deprecated_module, installed, is_library, load_pickled,
                        method_signature, mro, open_cache, origin, passes_through, remember, returned_class, signature_of, source_file,
                        store_pickled, version_of)
from _installed import live, parameters_of, quiet, signature_from
from _currency_conditions import effective_default, meets, warning_condition
from _currency_hedges import VERSION_ATTRIBUTES, HedgeChecks

DEFAULT_DATA = Path(__file__).resolve().parents[1] / "api_changes.toml"
SKIP_DIRS = frozenset({"site-packages", "venv", "__pycache__", "node_modules"})
ERROR_KINDS = ("removed", "moved", "deprecated", "renamed-keyword")
REVIEW_KINDS = ("default-changed", "behaviour-changed")
FAILING = frozenset({*ERROR_KINDS, "hedge", "signature", "raises"})
CALL_FORM = re.compile(r"^([\w.]+)\((\w+)=(.*)\)$")
# A library's own statement that an old keyword value is another parameter's value now.
EQUIVALENT = re.compile(r"`?(\w+)=([\w.'\"-]+)`? corresponds to `?(\w+)=([\w.'\"-]+)`?")
# What a deprecation message says to write instead: `use X`, `Use: X`, `in favor of X`, `moved to X`,
# `replaced by X`, `is now X`, `switch to X`, `X is the drop-in replacement`; X is a dotted name, a call,
# `keyword=` or a quoted/backticked form.
TOKEN = r"(?P<token>`[^`]+`|'[^']+'|\"[^\"]+\"|[A-Za-z_][\w.]*(?:\[[^\]]*\])?(?:\([^()]*\))?(?:=[\w.\[\]]*)?)"
REPLACEMENTS = (
    re.compile(r"(?:\b[Uu]sed?:?|\b[Ii]n favou?r of|\bmoved to|\b[Rr]eplaced (?:by|with)|\bis now|\b[Ss]witch to|"
               r"\b[Mm]igrate to)\s+(?:the\s+|using\s+)?" + TOKEN),
    re.compile(TOKEN + r" is the (?:drop-in )?replacement"),
)
NOT_A_REPLACEMENT = frozenset({"deprecated", "removed", "gone", "it", "this", "that", "a", "an", "the", "of", "in",
                               "instead", "and", "or", "to", "be", "with"})
SHORT_MODULES = {"pl": "jax.experimental.pallas", "pltpu": "jax.experimental.pallas.tpu",
                 "plgpu": "jax.experimental.pallas.mosaic_gpu", "jnp": "jax.numpy", "lax": "jax.lax",
                 "mlir": "jax.interpreters.mlir", "nnx": "flax.nnx", "ocp": "orbax.checkpoint"}
VERBS = {"removed": "removed", "moved": "moved", "deprecated": "deprecated", "renamed-keyword": "keyword renamed",
         "default-changed": "default changed", "behaviour-changed": "behaviour changed"}
LIBRARY_MESSAGE = re.compile(r"^[\w/.-]+\.py:\d+: ")  # a note that quotes the library's warning, with its place
# Words of this project's own bookkeeping in a note (its pages, sections, tests): never shown to a user.
INTERNAL = re.compile(r"\.md\b|\bsection\b|\bshown\b|\bleft_out\b|\bbundle\b|\btaught\b|\bguide\b|raises=|"
                      r"\bfilled in\b|\bmeasured\b|\bthe pins\b|\bentry\b", re.IGNORECASE)

EPILOG = """\
examples:
  python scripts/jax_currency_check.py src/ train.py
  python scripts/jax_currency_check.py src/ --json
  python scripts/jax_currency_check.py src/ --fix      # rewrite pure renames in place, then re-check

output:
  path:line:col: KIND old -> new (what changed, in which version; see "Section" in /path/reference.md)
                                        sorted; col is 1-based; the reference is the plugin's own copy
  With --json: a list of {path, line, col, kind, old, new, section, message}.
  A file that does not parse gives `path: cannot parse (SyntaxError: ... line N)` (kind "unparsable"
  in JSON; also for a file nested too deeply to check: RecursionError) and the run goes on. It does not
  by itself make the exit status 1.

--fix rewrites, in place and only in the files given or found, the mechanical renames of the data file:
a name whose replacement is the same installed object, a move (unless marked `rename = false`), a
replacement its note calls drop-in, a keyword rename of one callee whose names share a word
(`check_rep=` -> `check_vma=`) and whatever is marked `rename = true`: the tree_map alias becomes
`jax.tree.map`, an import of shard_map from jax.experimental becomes `from jax import shard_map`
(local names are kept: `from M import old as name`). Each rewrite must fit the installed signature of
the new name (a call it rejects, or a keyword passed twice, is left alone and printed as `not fixed
... : why`), and the rewritten file must compile and hold nothing new for the check. It keeps
formatting and comments, adds or drops import lines as needed, prints each change, then checks again
(with --json the changes go to stderr). It needs {libcst}: pip install '{libcst}'.

exit codes:
  0    nothing found (review notes and unparsable files alone do not fail)
  1    an old form or a hedge was found (also: an unexpected internal error, one "error:" line)
  2    usage error (unknown flag, no such path, no Python file in the paths given, missing or malformed
       data file, no LibCST for --fix)
Folders are searched for *.py, skipping hidden folders, site-packages, venv and __pycache__.

cache:
  What the installed libraries answered (names, signatures, classes) and the parsed data file are kept
  in ${XDG_CACHE_HOME:-~/.cache}/jax-pro/checker/, one file per interpreter, set of installed versions and
  checker source, so a later run imports none of the libraries. JAX_PRO_CACHE=DIR puts it under DIR;
  JAX_PRO_CACHE=off keeps it in memory. Nothing is written in the folders checked."""


@dataclass(frozen=True)
class Change:
    """One old form to look for: an `[[change]]` of the data file or an entry of a jax deprecation table."""

    kind: str
    old: str  # as written: `jax.tree_map` or `jax.shard_map(check_rep=)`
    new: str
    name: str  # the dotted name the old form uses
    keyword: str = ""  # the keyword a call form is about
    new_name: str = ""
    new_keyword: str = ""
    rename: bool = False
    section: str = ""
    message: str = ""  # what changed, in which version, and the library's own words
    absent: bool = False  # report calls that do NOT pass `keyword` (a changed default relied on)
    hint: str = ""  # what the library's message says to write instead, when `new` could not be made of it
    note: str = ""  # the data entry's note as written (the library's warning with its file and line)
    warns_if: str = ""  # `warns_if_keyword`: the deprecation warns only on calls passing this keyword
    warns_if_test: str = ""  # `warns_if`: the other `if` tests around the warning, as the library writes them


@dataclass(frozen=True, order=True)
class Finding:
    """One reported place; `kind` is an entry kind, `review`, `hedge` or `unparsable`."""

    path: str
    line: int
    col: int
    kind: str
    old: str
    new: str = ""
    section: str = ""
    message: str = ""

    def text(self) -> str:
        """`path:line:col: kind old -> new (what changed, in which version; see "Section" in /abs/file.md)`."""
        if self.kind == "unparsable":
            return f"{self.path}: cannot parse ({self.message})"
        detail = "; ".join(part for part in (self.message, read_more(self.section)) if part)
        tail = f" ({detail})" if detail else ""
        return f"{self.path}:{self.line}:{self.col}: {self.kind} {self.old} -> {self.new or '(no replacement)'}{tail}"


@dataclass
class Index:
    """Old forms by dotted name, and keyword forms by callee."""

    names: dict[str, Change] = field(default_factory=dict)
    calls: dict[str, list[Change]] = field(default_factory=dict)
    added: set[str] = field(default_factory=set)  # last names the data lists as added (never reported)

    @functools.cached_property
    def members(self) -> frozenset[str]:
        """The last names of the old forms (`value` of `...Variable.value`): what a member read may be."""
        return frozenset(name.rpartition(".")[2].partition("#")[0] for name in self.names)

    def add(self, change: Change) -> None:
        if change.kind == "added":  # only to tell a probe for a new member (`hasattr(mesh, "axis_types")`)
            self.added.add(change.new_name.rpartition(".")[2])
        elif change.keyword:
            self.calls.setdefault(change.name, []).append(change)
        else:
            self.names.setdefault(change.name, change)  # the data file, loaded first, wins


# --- the data ------------------------------------------------------------------------------------

def split_call_form(text: str) -> tuple[str, str]:
    """`jax.shard_map(check_rep=)` -> (`jax.shard_map`, `check_rep`); a plain name has no keyword."""
    match = CALL_FORM.match(text.strip())
    return (match.group(1), match.group(2)) if match else (text.strip(), "")


def change_from_entry(entry: dict[str, Any]) -> Change | None:
    """The `Change` of one `[[change]]` table; None when there is nothing to look for."""
    kind, old, new = entry.get("kind", ""), entry.get("old", ""), entry.get("new", "")
    if kind == "added" and re.fullmatch(r"[\w.]+", new):  # kept only to tell probes for new members
        return Change("added", "", new, "", new_name=new)
    if kind not in ERROR_KINDS + REVIEW_KINDS or not old or (kind in REVIEW_KINDS and entry.get("left_out")):
        return None  # review notes on changes judged not to matter (`left_out`)
    name, keyword = split_call_form(old)
    note = entry.get("note", "")
    hint = "" if new else expand_short(entry.get("message_replacement", "")) or replacement_in(LIBRARY_MESSAGE.sub("", note))
    if hint and not new:  # the data names no replacement: the one the library's own message names
        new = replacement_for(name, keyword, hint)
    new_name, new_keyword = split_call_form(new)
    absent = bool(entry.get("call") and entry.get("without_keyword"))
    if absent:  # structured form of a prose `old`: calls of `call` that leave `without_keyword` out
        name, keyword = entry["call"], entry["without_keyword"]
    library = entry.get("library") or old.partition(".")[0]
    return Change(kind, old, new, name, entry.get("keyword_old", keyword), new_name,
                  entry.get("keyword_new", new_keyword), bool(entry.get("rename", kind == "moved")),
                  entry.get("section", ""),
                  change_message(kind, library, entry.get("version", ""), note, new or hint, name,
                                 entry.get("deprecated_in", "")),
                  absent, "" if new else hint, note, entry.get("warns_if_keyword", ""), entry.get("warns_if", ""))


def change_message(kind: str, library: str, version: str, note: str, new: str, name: str = "",
                   deprecated_in: str = "") -> str:  # new: or the hint
    """What a user reads about an entry: what changed and in which version, the library's own words or the
    data's note (without this project's bookkeeping), and why there is no replacement when there is none."""
    what = f"{VERBS.get(kind, kind)} in {library} {version}" if version else VERBS.get(kind, kind)
    said = user_note(note)
    parts = [f"{what}: {said}" if said else what]
    if not new and kind in ERROR_KINDS:
        parts.append(why_no_replacement(name, said, library, deprecated_in))
    return "; ".join(p for p in parts if p)


def user_note(note: str) -> str:
    """The part of a data entry's note a user can act on: the library's warning without its file and line,
    hand-written clauses without words about this project (its pages, sections and tests)."""
    text = " ".join(LIBRARY_MESSAGE.sub("", note).split())
    if re.search(r"\{[\w.]+\}", text):
        return ""  # a message template (`{msg}`), not a message
    text = re.sub(r"\s*\([^()]*\)", lambda m: "" if INTERNAL.search(m.group()) else m.group(), text)
    return "; ".join(c for c in text.split("; ") if c and not INTERNAL.search(c)).strip().rstrip(".")


def why_no_replacement(name: str, said: str, library: str, deprecated_in: str = "") -> str:
    """`no replacement: <why>` for a finding that names nothing to write instead."""
    if any(part.startswith("_") for part in name.split(".")):
        return "no replacement: a private name; use the public API"
    if said:
        return f"no replacement: {library}'s own message names none"
    if deprecated_in:
        return f"no replacement: the {library} {deprecated_in} deprecation warnings named none"
    return f"no replacement: {library} removed it without naming one"


def expand_short(token: str) -> str:
    """`pl.HOST` -> `jax.experimental.pallas.HOST`: a short module name of the libraries' own messages."""
    head, dot, rest = token.partition(".")
    return f"{SHORT_MODULES[head]}.{rest}" if dot and head in SHORT_MODULES else token


def replacement_for(name: str, keyword: str, token: str) -> str:
    """A replacement named in a message, written in full for the old form `name` (`name(keyword=)`): a
    keyword (`method=`) of the same callee, a method or attribute (`split()`, `to_nnx__module`) of the
    same class, or the token itself (a dotted name, a call)."""
    last = name.rpartition(".")[2]
    callable_name = bool(keyword) or last[:1].islower() and not last.startswith("__")
    if re.fullmatch(r"\w+=", token) or keyword and re.fullmatch(r"\w+", token):
        return f"{name}({token.rstrip('=')}=)"
    if re.fullmatch(r"\w+=\S+", token) and callable_name:
        return f"{name}({token})"
    owner = name.rpartition(".")[0]
    if re.fullmatch(r"\w+(\(\))?", token) and owner.rpartition(".")[2][:1].isupper():
        return f"{owner}.{token.removesuffix('()')}"
    return token if "." in token else ""


@functools.cache
def read_more(section: str) -> str:
    """Where to read about a change, in a form that works from any folder: the section's heading and the
    absolute path of the reference beside this checker (the plugin root, or an exported skill folder).
    There is no published site to link to; the references are on the user's disk wherever this file is."""
    if not section:
        return ""
    page, _, anchor = section.partition("#")
    path = DEFAULT_DATA.parent / page
    title = heading_titles(path).get(anchor, "") if path.is_file() else ""
    if not title:
        return f"see {page} of the jax-pro references" + (f", section {anchor}" if anchor else "")
    return f'see "{title}" in {path}'


def heading_titles(path: Path) -> dict[str, str]:
    """Anchor -> heading text of a Markdown file's headings (GitHub's slugs, `-1` for a repeat), outside fences."""
    titles: dict[str, str] = {}
    fence = ""
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fence = "" if fence and stripped.startswith(fence) else fence or stripped[:3]
            continue
        if fence or not (match := re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)):
            continue
        base = re.sub(r"[^\w\- ]", "", match.group(1).strip().lower()).replace(" ", "-")
        anchor, n = base, 0
        while anchor in titles:
            n += 1
            anchor = f"{base}-{n}"
        titles[anchor] = match.group(1).replace("`", "")
    return titles


def load_data(path: Path) -> list[Change]:
    """Every checkable change of an api_changes.toml; `UsageError` if it is missing or malformed."""
    if not path.is_file():
        raise UsageError(f"no data file {path}: pass --data FILE (an api_changes.toml)")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read data file {path}: {exc}") from exc
    entries = data.get("change", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise UsageError(f"cannot read data file {path}: `change` must be an array of tables ([[change]])")
    return [c for e in entries if (c := change_from_entry(e))]


def deprecation_modules(root: Path) -> list[str]:
    """Public modules of the package at `root` whose source installs a `_deprecations` table."""
    names = []
    for file in sorted(root.rglob("*.py")):
        parts = file.relative_to(root.parent).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        if any(p.startswith("_") for p in parts):
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        if "_deprecations" in text and "deprecation_getattr" in text:
            names.append(".".join(parts))
    return names


def replacement_in(message: str) -> str:
    """What a deprecation message says to write instead (`jax.tree_map is deprecated: use jax.tree.map`,
    `Please use `partition_index` instead`, `use method=`, `use the 'split' method`), short module names
    expanded (`pl.HOST` -> `jax.experimental.pallas.HOST`); "" when it names nothing."""
    text = " ".join(message.split())
    for pattern in REPLACEMENTS:
        for match in pattern.finditer(text):
            token = match.group("token").strip("`'\"").rstrip(".,;:")
            if not token or token.lower() in NOT_A_REPLACEMENT:
                continue
            if text[match.end():].lstrip(" '\"`").startswith("method") and re.fullmatch(r"\w+", token):
                token += "()"  # `use the 'split' method`
            return expand_short(token)
    return ""


def first_sentence(message: str) -> str:
    """`jax.x is deprecated; use jax.y instead. See https://...` -> its part before the first `. `."""
    return first_line(message).split(". ")[0].rstrip(".")


def installed_jax_changes() -> tuple[list[Change], str]:
    """Entries of the `_deprecations` tables of the installed jax, read at run time; and a note if skipped."""
    if importlib.util.find_spec("jax") is None:
        return [], "note: jax is not importable: skipped the deprecation tables of the installed jax"
    try:
        with quiet():  # absl and TensorFlow notices, import-time warnings
            jax = importlib.import_module("jax")
    except Exception as exc:
        return [], f"note: importing jax failed ({type(exc).__name__}): skipped its deprecation tables"
    changes = []
    for module_name in deprecation_modules(Path(jax.__file__).parent):
        try:
            with quiet():
                table = getattr(importlib.import_module(module_name), "_deprecations", {})
        except Exception:  # a backend-specific module that does not import here
            continue
        for name, (message, replacement) in table.items():
            kind = "removed" if replacement is None else "deprecated"
            new = replacement_in(message)
            said = f"jax {jax.__version__} says: {first_sentence(message)}"
            changes.append(Change(kind, f"{module_name}.{name}", new, f"{module_name}.{name}",
                                  message=said if new else f"{said}; no replacement: its message names none"))
    return changes, ""


def keyword_successor(callee: str, keyword: str) -> tuple[str, bool]:
    """The installed parameter of `callee` that a removed keyword most likely became: the one whose name is
    the keyword without a prefix (`a_min` -> `min`), or for a keyword of one to three letters the one it
    abbreviates (`a` -> `arr`); only when exactly one fits. Returns (name, positional only) or ("", False)."""
    signature = signature_of(callee) or wrapped_signature(callee)
    if signature is None or not keyword:
        return "", False
    fits = [p for p in signature.parameters.values() if p.name != keyword and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            and (keyword.endswith("_" + p.name) or len(keyword) <= 3 and p.name.startswith(keyword))]
    return (fits[0].name, fits[0].kind is fits[0].POSITIONAL_ONLY) if len(fits) == 1 else ("", False)


def wrapped_signature(name: str) -> inspect.Signature | None:
    """The signature of the function a jitted or decorated library callable wraps (`jax.numpy.clip` is a
    jit object; `signature_of` answers None for such objects)."""
    def read() -> list[list[Any]] | None:
        with quiet():
            obj = live(name)
        inner = inspect.unwrap(obj) if callable(obj) and hasattr(obj, "__wrapped__") else None
        try:
            return parameters_of(inspect.signature(inner)) if inspect.isfunction(inner) else None
        except (TypeError, ValueError):
            return None
    return signature_from(remember(f"wrapped-signature|{name}", read)) if is_library(name) else None


def builtin_method(name: str) -> bool:
    """`get`, `items`, `append`: a method of Python's own containers, not the name of a library API."""
    return any(hasattr(kind, name) for kind in (dict, list, str, set, object))


def split_successor(name: str) -> str:
    """`jax.tree_map` -> `jax.tree.map`: the installed name an underscore became a module in; "" if none."""
    parent, _, last = name.rpartition(".")
    for i in (m.start() for m in re.finditer("_", last)):
        candidate = f"{parent}.{last[:i]}.{last[i + 1:]}"
        if last[:i] and last[i + 1:] and isinstance(installed(candidate), Symbol):
            return candidate
    return ""


def successor(name: str) -> str:
    """The installed name that took the place of a name the installed library lacks: `jax.tree_map` ->
    `jax.tree.map` (an underscore become a module), else the one public module or public module member of
    the same library with the same last name (`jax.experimental.optimizers` -> `jax.example_libraries.
    optimizers`, `jax.experimental.PartitionSpec` -> `jax.sharding.PartitionSpec`); "" when none or several."""
    if split := split_successor(name):
        return split
    last = name.rpartition(".")[2]
    found = remember(f"same-name|{name.partition('.')[0]}|{last}", lambda: same_name(name.partition(".")[0], last))
    return found[0] if len(found) == 1 else ""


def same_name(top: str, last: str) -> list[str]:
    """Public modules of the installed library `top` named `last`, or else the public modules it imports
    that define a public `last` (each object once, by its shortest path)."""
    file = source_file(top)
    if not file or last.startswith("_"):
        return []
    root = Path(file).parent
    modules = sorted({".".join((top, *f.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
                      for f in (*root.rglob(f"{last}.py"), *root.rglob(f"{last}/__init__.py"))})
    public = [m for m in modules if not any(part.startswith("_") for part in m.split("."))]
    if public:
        return public
    with quiet():
        importlib.import_module(top)
        owners: dict[int, str] = {}
        for module_name, module in sorted(sys.modules.items(), key=lambda item: (item[0].count("."), item[0])):
            if module_name.startswith(top + ".") and not any(p.startswith("_") for p in module_name.split(".")) \
                    and (obj := vars(module).get(last)) is not None and not inspect.ismodule(obj):
                owners.setdefault(id(obj), f"{module_name}.{last}")
    return sorted(owners.values())


def same_home(shown: str, new: str) -> str:
    """`new` spelled in the module the code used (`orbax.checkpoint.v1.metadata` for the replacement
    `orbax.checkpoint.experimental.v1.metadata` of `orbax.checkpoint.v1.pytree_metadata`) when that is the
    very same installed object; else `new`."""
    parent, last = shown.rpartition(".")[0], new.rpartition(".")[2]
    if not parent or not re.fullmatch(r"[\w.]+", new) or new.rpartition(".")[0] == parent or not is_library(new):
        return new
    there = installed(f"{parent}.{last}")
    return f"{parent}.{last}" if isinstance(there, Symbol) and there == installed(new) else new


@functools.cache
def namespace_package(top: str) -> bool:
    """Whether the installed `top` is a namespace package (orbax: orbax-checkpoint, orbax-export, ...)."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    return spec is not None and spec.origin in (None, "namespace")


# --- the installed libraries --------------------------------------------------------------------
# Every question to the installed libraries goes through `_installed`, which keeps the answers on disk
# per set of versions (see its docstring): a warm run imports none of them.

# --- resolving names -----------------------------------------------------------------------------

def import_bindings(nodes: Iterable[ast.AST]) -> dict[str, str]:
    """Local name -> the dotted name it stands for, from every absolute import among a file's nodes. An
    import in an `except` handler does not rebind a name its `try` body imports from an installed library
    name: at the pins the handler never runs (`try: from jax.example_libraries import optimizers` /
    `except ImportError: from jax.experimental import optimizers`)."""
    nodes = list(nodes)
    dead = dead_fallbacks(nodes)
    bindings = {}
    for node in nodes:
        for local, name in imported(node):
            if (id(node), local) not in dead:
                bindings[local] = name
    return bindings


def imported(node: ast.AST) -> list[tuple[str, str]]:
    """(local name, dotted name) of what one absolute import statement binds."""
    if isinstance(node, ast.Import):
        return [(alias.asname or alias.name.partition(".")[0], alias.name if alias.asname else alias.name.partition(".")[0])
                for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [(alias.asname or alias.name, f"{node.module}.{alias.name}") for alias in node.names if alias.name != "*"]
    return []


def dead_fallbacks(nodes: list[ast.AST]) -> set[tuple[int, str]]:
    """(id of an import in an `except` handler, local name) for names that the handler's `try` body
    already imports from a library name the installed library has."""
    dead = set()
    for node in nodes:
        if isinstance(node, ast.Try) and node.handlers:
            tried = {local: name for stmt in node.body for sub in ast.walk(stmt) for local, name in imported(sub)}
            for handler in node.handlers:
                for sub in ast.walk(handler):
                    for local, _ in imported(sub):
                        name = tried.get(local)
                        if name and is_library(name) and installed(name) not in (None, MISSING):
                            dead.add((id(sub), local))
    return dead


def resolve(node: ast.AST, bindings: dict[str, str]) -> str | None:
    """The dotted name an attribute chain or name stands for, through the imports; None otherwise."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in bindings:
        return ".".join([bindings[node.id], *reversed(parts)])
    return None


def prefixes(name: str) -> Iterator[str]:
    """`a.b.c`, `a.b`, `a`: longest first."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        yield ".".join(parts[:end])


# --- local type knowledge ------------------------------------------------------------------------
#
# A small intra-file inference, enough to know that `self.scale.value` reads a flax Variable. A type
# is ("lib", cls) for a class of the installed libraries, ("local", name) for a class of this file,
# NONE for the literal None, or None (unknown). What has a type:
#   - a call of an installed library class (`nnx.Param(...)`, `nnx.Optimizer(model, tx, wrt=...)`); a call of an
#     installed function whose return annotation is a class (`jax.make_mesh(...)` -> Mesh) or that
#     returns its first argument (a TypeVar in and out, as flax's `nnx.data`); a call of a class of
#     this file; a call of a module-level function of this file whose every `return` gives back its
#     first parameter or a call on it (a sharding wrapper `shard(x, spec)`);
#   - `self` in a method of a class of this file; a parameter annotated with a class (`X | None`,
#     `Optional[X]`, strings); a name whose every plain assignment in its function (or, failing
#     that, in the enclosing functions or the module) has the same type;
#   - `obj.attr` when obj has a class and every non-None `self.attr = ...` of that class (its bases
#     of this file, and for installed classes their own source, read with the same rules) agrees.
# Any other binding (tuple unpacking, loops, augmented assignment, a disagreement) leaves it unknown.

NONE = ("none",)
SCOPE_ROOTS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.Module)
SCOPE_CLASSES = frozenset(SCOPE_ROOTS)  # no subclasses in an ast.parse tree: a set lookup instead of isinstance
# The node classes each check visits (`Types.groups`); "checked" are those of `FileChecker.run`'s loop.
NODE_GROUPS: dict[type, str] = {
    ast.Import: "imports", ast.ImportFrom: "imports", ast.Attribute: "attributes", ast.ClassDef: "classes",
    ast.With: "with", ast.AsyncWith: "with",
    **dict.fromkeys((ast.Call, ast.Try, ast.Compare, ast.If, ast.IfExp, ast.While, ast.Assert, ast.BoolOp),
                    "checked")}


def library_class(value: Any) -> bool:
    return isinstance(value, Symbol) and value.library_class


@functools.cache
def library_types(module: str) -> Types | None:
    """The `Types` of an installed library module's own source (to read its classes' attributes)."""
    file = source_file(module)
    try:
        tree = ast.parse(Path(file).read_bytes()) if file else None
    except (OSError, SyntaxError, ValueError):
        return None
    return Types(tree, module=module) if tree else None


def library_attr_type(cls: Symbol, attr: str) -> list[str] | None:
    """What an installed class's own source assigns to `self.attr`: None when it assigns nothing (look
    at its bases), [] when the values disagree or are unknown, else the class as [module, qualname]."""
    def read() -> list[str] | None:
        types = library_types(cls.module)
        if types is None or cls.qualname not in types.classes:
            return None
        values = types.self_assignments(types.classes[cls.qualname]).get(attr)
        if not values:
            return None
        if any(v is None for v in values):
            return []
        found = {tuple(types.as_library_type(types.of(v, s))) for v, s in values if types.of(v, s) != NONE}
        return list(found.pop()) if len(found) == 1 else []
    return remember(f"attr-type|{cls.path}|{attr}", read)


class Types:
    """The inference described above, for one parsed file (or one installed module)."""

    def __init__(self, tree: ast.Module, module: str = "") -> None:
        self.tree, self.module = tree, module
        self.parent: dict[int, ast.AST] = {}
        # scope root (function, class, lambda, module) -> the nodes it holds outside any root nested in it
        self.held: dict[int, list[ast.AST]] = {id(tree): []}
        # what the checks visit, breadth first, by `NODE_GROUPS`: one walk for all of them
        self.groups: dict[str, list[ast.AST]] = {group: [] for group in set(NODE_GROUPS.values())}
        self.walk(tree)
        self.bindings = import_bindings(self.groups["imports"] + self.groups["checked"])
        names: dict[str, list[ast.ClassDef]] = {}
        for node in self.groups["classes"]:
            names.setdefault(node.name, []).append(node)  # type: ignore[attr-defined]
        self.classes = {name: nodes[0] for name, nodes in names.items() if len(nodes) == 1}
        self.functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        self.busy: set[tuple[int, str]] = set()

    def walk(self, tree: ast.Module) -> None:
        """Fill `parent`, `held` and `groups`, breadth first. The fields are read here rather than through
        ast.iter_child_nodes, whose generators cost more than the rest of the walk."""
        nodes, roots, groups, parent, AST = [tree], [tree], self.groups, self.parent, ast.AST
        for node, root in zip(nodes, roots):  # both lists grow while they are read
            if node.__class__ in SCOPE_CLASSES:
                root = node
            held = self.held.get(id(root))
            if held is None:
                held = self.held[id(root)] = []
            if (group := NODE_GROUPS.get(node.__class__)) is not None:
                groups[group].append(node)
            for field in node._fields:
                value = getattr(node, field, None)
                for child in value if value.__class__ is list else (value,):
                    if isinstance(child, AST):
                        parent[id(child)] = node
                        held.append(child)
                        nodes.append(child)
                        roots.append(root)

    # scopes
    def scope(self, node: ast.AST) -> ast.AST:
        """The innermost function (or the module) holding `node`."""
        node = self.parent.get(id(node), self.tree)
        while not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            node = self.parent.get(id(node), self.tree)
        return node

    def method_class(self, fn: ast.AST) -> ast.ClassDef | None:
        owner = self.parent.get(id(fn))
        if isinstance(owner, ast.ClassDef) and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and fn.args.args and not any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                                             for d in fn.decorator_list):
            return owner
        return None

    @functools.cache
    def assignments(self, scope: ast.AST) -> dict[str, list[ast.expr] | None]:
        """Name -> the values of its plain assignments in `scope`; None if also bound another way."""
        nodes = self.held.get(id(scope), [])
        found: dict[str, list[ast.expr] | None] = {}
        plain: set[int] = set()
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if len(targets) == 1 and isinstance(targets[0], ast.Name):
                    plain.add(id(targets[0]))
                    found.setdefault(targets[0].id, []).append(node.value)
        for node in nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in plain:
                found[node.id] = None
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found[node.name] = None
        return {name: (None if name in found and found[name] is None else values)
                for name, values in found.items()}

    # types
    def agree(self, values: Iterable[ast.expr], scope: ast.AST) -> Any:
        types = {self.of(v, scope) for v in values} - {NONE}
        return types.pop() if len(types) == 1 else None

    def of(self, node: ast.AST, scope: ast.AST | None = None) -> Any:
        """The type of an expression (see above), or None."""
        scope = scope if scope is not None else self.scope(node)
        key = (id(node), "of")
        if key in self.busy:
            return None
        self.busy.add(key)
        try:
            return self._of(node, scope)
        finally:
            self.busy.discard(key)

    def _of(self, node: ast.AST, scope: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and node.value is None:
            return NONE
        if isinstance(node, ast.Name):
            return self.name_type(node.id, scope)
        if isinstance(node, ast.Attribute):
            return self.attr_type(self.of(node.value, scope), node.attr)
        if isinstance(node, ast.IfExp):
            return self.agree([node.body, node.orelse], scope)
        if isinstance(node, ast.Call):
            return self.call_type(node, scope)
        return None

    def call_type(self, call: ast.Call, scope: ast.AST) -> Any:
        first = call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else None
        if isinstance(call.func, ast.Name) and call.func.id not in self.bindings:
            if call.func.id in self.classes:
                return ("local", call.func.id)
            fn = self.functions.get(call.func.id)
            if fn is not None and first is not None and self.returns_first(fn):
                return self.of(first, scope)
            return None
        name = resolve(call.func, self.bindings)
        obj = installed(name) if is_library(name) else None
        if library_class(obj):
            return ("lib", obj)
        if isinstance(obj, Symbol) and obj.kind == "callable":
            if first is not None and passes_through(name):
                return self.of(first, scope)
            if cls := returned_class(name):
                return ("lib", cls)
        return None

    @functools.cache
    def returns_first(self, fn: ast.FunctionDef) -> bool:
        """A module-level function whose every return gives back its first parameter or a call on it."""
        if not fn.args.args:
            return False
        first = fn.args.args[0].arg
        returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]

        def gives_first(value: ast.AST | None) -> bool:
            if isinstance(value, ast.Name):
                return value.id == first
            return isinstance(value, ast.Call) and bool(value.args) and gives_first(value.args[0])
        return bool(returns) and all(gives_first(r.value) for r in returns)

    def name_type(self, name: str, scope: ast.AST) -> Any:
        while True:
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
                params = [*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs]
                owner = self.method_class(scope)
                if owner is not None and params and params[0].arg == name:
                    return ("local", owner.name) if self.classes.get(owner.name) is owner else None
                for param in params:
                    if param.arg == name:
                        return self.annotation_type(param.annotation) if param.annotation else None
            values = self.assignments(scope).get(name, [])
            if values is None:
                return None
            if values:
                return self.agree(values, scope)
            if isinstance(scope, ast.Module):
                return None
            scope = self.scope(scope)

    def annotation_type(self, node: ast.AST | None) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            types = {self.annotation_type(node.left), self.annotation_type(node.right)} - {NONE}
            return types.pop() if len(types) == 1 else None
        if isinstance(node, ast.Constant) and node.value is None:
            return NONE
        if isinstance(node, ast.Subscript):
            name = resolve(node.value, self.bindings) or ""
            if name.endswith("Optional"):
                return self.annotation_type(node.slice)
            node = node.value  # nnx.Param[jax.Array] -> nnx.Param
        if isinstance(node, ast.Name) and node.id in self.classes and node.id not in self.bindings:
            return ("local", node.id)
        name = resolve(node, self.bindings) if node is not None else None
        obj = installed(name) if is_library(name) else None
        return ("lib", obj) if library_class(obj) else None

    # classes
    def local_bases(self, name: str) -> tuple[list[str], list[Symbol]]:
        """The classes of this file and the installed classes that `name` derives from (itself first)."""
        local, lib, todo = [], [], [name]
        while todo:
            current = todo.pop(0)
            if current in local or current not in self.classes:
                continue
            local.append(current)
            for base in self.classes[current].bases:
                if isinstance(base, ast.Name) and base.id in self.classes and base.id not in self.bindings:
                    todo.append(base.id)
                elif library_class(obj := installed(resolve(base, self.bindings) or "")):
                    lib.append(obj)
        return local, lib

    def mro(self, t: Any) -> list[Symbol]:
        """The installed classes a type is an instance of."""
        if isinstance(t, tuple) and t[0] == "lib":
            return mro(t[1])
        if isinstance(t, tuple) and t[0] == "local":
            return [c for base in self.local_bases(t[1])[1] for c in mro(base)]
        return []

    def is_a(self, t: Any, dotted: str) -> bool:
        target = installed(dotted)
        return library_class(target) and target in self.mro(t)

    def attr_type(self, t: Any, attr: str) -> Any:
        if not isinstance(t, tuple) or t[0] not in ("lib", "local"):
            return None
        if t[0] == "local":
            local, lib = self.local_bases(t[1])
            values = [v for name in local for v in self.self_assignments(self.classes[name]).get(attr, [])]
            if any(v is None for v in values):
                return None
            if values:
                types = {self.of(v, s) for v, s in values} - {NONE}
                return types.pop() if len(types) == 1 else None
            classes = [c for base in lib for c in mro(base)]
        else:
            classes = mro(t[1])
        for cls in classes:  # the first installed class whose own source assigns `self.attr`
            if is_library(cls.module) and (found := library_attr_type(cls, attr)) is not None:
                return ("lib", Symbol("class", *found)) if found else None
        return None

    def as_library_type(self, t: Any) -> list[str]:
        """A type read in an installed module's own source, as [module, qualname] ([] when not a class)."""
        if isinstance(t, tuple) and t[0] == "local":
            return [self.module, t[1]]
        return [t[1].module, t[1].qualname] if isinstance(t, tuple) and t[0] == "lib" else []

    @functools.cache
    def self_assignments(self, cls: ast.ClassDef) -> dict[str, list[Any]]:
        """attr -> [(value, method scope)] of `self.attr = value` in the methods of `cls`; a None item when
        the attribute is also bound another way (tuple unpacking, augmented assignment, ...)."""
        found: dict[str, list[Any]] = {}
        for fn in cls.body:
            if self.method_class(fn) is not cls:
                continue
            me = fn.args.args[0].arg
            for node in ast.walk(fn):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == me \
                        and isinstance(node.ctx, ast.Store):
                    holder = self.parent.get(id(node))
                    if isinstance(holder, ast.Assign) and holder.targets == [node] or \
                            isinstance(holder, ast.AnnAssign) and holder.value is not None:
                        found.setdefault(node.attr, []).append((holder.value, fn))
                    else:
                        found.setdefault(node.attr, []).append(None)
        return found


# --- checking one file ---------------------------------------------------------------------------

class FileChecker(HedgeChecks):
    """The findings of one parsed file (the hedge checks are `HedgeChecks`'s)."""

    def __init__(self, path: str, tree: ast.Module, index: Index) -> None:
        self.path, self.tree, self.index = path, tree, index
        self.findings: set[Finding] = set()
        self.types = Types(tree)
        self.bindings = self.types.bindings
        self.members = index.members

    def run(self) -> set[Finding]:
        self.check_imports()
        self.check_chains()
        self.check_members()
        self.check_static_data()
        versions_read = any(node.attr in VERSION_ATTRIBUTES or node.attr == "version"  # `metadata.version(...)`
                            for node in self.types.groups["attributes"]) \
            or any(name.endswith("metadata.version") for name in self.bindings.values())  # check_version's cases
        for node in self.types.groups["checked"] + self.types.groups["with"]:
            if isinstance(node, ast.Call):
                self.check_call(node)
                self.check_probe(node)
                self.check_filter(node)
            elif isinstance(node, ast.Try):
                self.check_try(node)
            elif isinstance(node, ast.With):
                self.check_catch_warnings(node)
            elif isinstance(node, (ast.Compare, ast.If, ast.IfExp, ast.While, ast.Assert)) and versions_read:
                self.check_version(node)
            if isinstance(node, (ast.Compare, ast.BoolOp)):
                self.check_name_pairs(node)
        return self.findings

    def name_of(self, node: ast.AST) -> str | None:
        """The dotted name an attribute chain or name stands for, through this file's imports."""
        return resolve(node, self.bindings)

    def add(self, node: ast.AST, kind: str, old: str, new: str = "", section: str = "", message: str = "") -> None:
        line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1
        self.findings.add(Finding(self.path, line, col, kind, old, new, section, message))

    def add_change(self, node: ast.AST, change: Change, shown: str = "") -> None:
        """Report `change` at `node`; `shown` is the public name the code used when the entry is keyed by a
        private implementation path (`jax.distributed.initialize` for `jax._src.distributed.initialize`)."""
        kind = "review" if change.kind in REVIEW_KINDS else change.kind
        old, new = change.old, change.new
        if shown and shown != change.name and not shown.startswith(change.name + "."):
            old = shown + change.old[len(change.name):] if change.old.startswith(change.name) else shown
            new = shown + new[len(change.name):] if new.startswith(change.name) else same_home(shown, new)
        self.add(node, kind, old, new, change.section, change.message)

    def condition(self, change: Change | None) -> dict[str, Any] | None:
        """When a deprecated function or method warns (see `_currency_conditions`); None: on every use."""
        if change is None or change.kind != "deprecated" or change.keyword:
            return None
        return warning_condition(change.name, change.note, change.warns_if, change.warns_if_test)

    def conditional(self, change: Change | None) -> bool:
        """Whether `change` warns only on some calls: reported at those calls, never at a name or an import."""
        found = self.condition(change)
        return bool(found) and not found.get("always")

    def check_condition(self, call: ast.Call, change: Change, public: str) -> None:
        """Report a call of `public` that meets the condition of a conditional deprecation, at the keyword
        that meets it: `jax.distributed.initialize(slice_index=)` -> `...(partition_index=)`."""
        found = self.condition(change)
        if not found:
            return
        if not found.get("always"):
            if not found["params"] and (signature := signature_of(public) or wrapped_signature(public)):  # by position
                found = dict(found, params=[p.name for p in signature.parameters.values()
                                            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
            if meets(found, call) is not True:
                return
        params = found.get("params", [])
        read = [n.id for src, _ in found.get("tests", []) for n in ast.walk(ast.parse(src, mode="eval"))
                if isinstance(n, ast.Name)]
        passed = {k.arg: k for k in call.keywords if k.arg}
        keyword = next((n for n in read if n in passed or n in params and params.index(n) < len(call.args)), "")
        new, owner, shown_owner = change.new, change.name.rpartition(".")[0], public.rpartition(".")[0]
        if change.hint and not new:
            known = keyword and (change.hint in params or change.hint in found.get("defaults", {}))
            new = f"{public}({change.hint}=)" if known else \
                f"{public}({change.hint})" if re.fullmatch(r"\w+=\S+", change.hint) else change.hint
        elif new.startswith(change.name):  # written for the private path: `...linalg.eig(implementation=...)`
            new = public + new[len(change.name):]
        elif owner and shown_owner and new.startswith(owner + "."):  # a method of the same class
            new = shown_owner + new[len(owner):]
        old = f"{public}({keyword}=)" if keyword else public
        self.add(passed.get(keyword, call), change.kind, old, new, change.section, change.message)

    def conditional_changes(self, callee: str) -> list[Change]:
        """The conditional deprecations of a called library function or class (its `__init__`)."""
        if not is_library(callee):
            return []
        key = origin(callee) or callee
        found = [self.lookup(callee), self.index.names.get(f"{key}.__init__")]
        return [c for c in found if c is not None and self.conditional(c)]

    def lookup(self, name: str) -> Change | None:
        """The change of the longest listed prefix of `name` (a removed module covers its members), or of
        the implementation path the installed public name stands for (see `origin`)."""
        found = next((self.index.names[p] for p in prefixes(name) if p in self.index.names), None)
        if found is None and is_library(name) and (key := origin(name)):
            found = self.index.names.get(key)
        return found

    def check_imports(self) -> None:
        for node in self.types.groups["imports"]:
            if isinstance(node, ast.Import):
                targets = [(alias, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [(alias, f"{node.module}.{alias.name}" if alias.name != "*" else node.module)
                           for alias in node.names]
            else:
                continue
            for alias, name in targets:
                if change := self.lookup(name):
                    if not self.conditional(change):
                        self.add_change(alias, change, name)
                elif not self.check_missing(alias, name):
                    self.check_deprecated_module(alias, name)

    def check_missing(self, node: ast.AST, name: str) -> bool:
        """Report the shortest prefix of `name` that the installed library's modules lack, with the installed
        name that took its place when one is found (see `successor`); whether one was reported."""
        if not is_library(name) or installed(name) is not MISSING:
            return False
        gone = next(p for p in reversed(list(prefixes(name))) if installed(p) is MISSING)
        top = name.partition(".")[0]
        if gone.count(".") == 1 and namespace_package(top):
            return False  # `orbax.export`: another distribution of the namespace, not a removed module
        where = f"the installed {top} {version_of(name)}".rstrip()
        if any(part.startswith("_") for part in gone.split(".")):
            self.add(node, "removed", gone, message=f"not in {where}; no replacement: a private name; use the public API")
            return True
        member = name[len(gone) + 1:]  # `Mesh` of a gone module `jax.experimental.maps`: look for it instead
        new = successor(gone) or (successor(name) if member and "." not in member and not builtin_method(member) else "")
        message = f"not in {where}" if new else f"not in {where}; no replacement: nothing else there has its name"
        self.add(node, "removed", gone, new, message=message)
        return True

    def check_deprecated_module(self, node: ast.AST, name: str) -> None:
        """An import of a module whose every public name (other than modules) the installed library
        lists in the module's own `_deprecations` table: the module itself is on its way out."""
        messages = deprecated_module(name) if is_library(name) else None
        if not messages:
            return
        news = {replacement_in(message) for message in messages} - {""}
        new = news.pop() if len(news) == 1 else ""
        why = "" if new else f"; no replacement: {'its names point to several' if news else 'its messages name none'}"
        self.add(node, "deprecated", name, new,
                 message=f"every public name of {name} is deprecated in the installed jax {version_of(name)}{why}")

    def check_chains(self) -> None:
        """Attribute chains naming an old form; the longest match per position (bare names are the imports')."""
        best: dict[tuple[int, int], tuple[ast.AST, Change, str]] = {}
        for node in self.types.groups["attributes"]:
            if name := resolve(node, self.bindings):
                change = self.index.names.get(name)
                if change is None and (key_name := origin(name)):
                    change = self.index.names.get(key_name)
                if self.conditional(change):
                    continue  # reported at the calls that meet its condition
                key = (node.lineno, node.col_offset)
                if change and (key not in best or len(change.name) > len(best[key][1].name)):
                    best[key] = (node, change, name)
                elif not change and not self.lookup(name) and is_library(name):
                    self.check_missing(node, name)
        for node, change, name in best.values():
            self.add_change(node, change, name)

    def check_call(self, call: ast.Call) -> None:
        """Keyword forms: an old keyword passed (renamed or removed), or a changed default relied on;
        then the call against the installed signature."""
        callee = resolve(call.func, self.bindings) or ""
        moved = self.index.names.get(callee)  # `shard_map` from its old home takes the new one's keywords
        reported = set()
        private = self.index.calls.get(origin(callee) or "", []) if is_library(callee) else []
        for change in self.index.calls.get(callee, []) + self.index.calls.get(moved.new_name if moved else "", []) \
                + private:
            passed = {k.arg: k for k in call.keywords}
            if change.kind == "default-changed" or change.absent:  # the new default applies where not passed
                if change.keyword not in passed and None not in passed and not self.positional(call, callee, change) \
                        and not self.same_behaviour(call, callee, change):
                    self.add_change(call, change)
            elif change.keyword in passed:
                if change.kind == "removed" and not change.new:
                    change = self.with_keyword_successor(change, callee)
                self.add_change(passed[change.keyword], change)
                reported.add(change.keyword)
        for conditional in self.conditional_changes(callee):
            self.check_condition(call, conditional, callee)
        if callee == "functools.partial" and call.args:  # partial(f, kw=...): the keywords f is given
            inner = resolve(call.args[0], self.bindings) or ""
            self.check_signature(call, inner, call.keywords, positional=None)
        elif is_library(callee):
            self.check_signature(call, callee, [k for k in call.keywords if k.arg not in reported],
                                 positional=len(call.args))

    def same_behaviour(self, call: ast.Call, callee: str, change: Change) -> bool:
        """Whether a call leaving a changed default out behaves as it did with the old default: the library's
        own message says what the old value is now (`exclude_deterministic=True` corresponds to
        `condition_deterministic=False`), and the call leaves that parameter to a default that is the same."""
        match = CALL_FORM.match(change.old)
        passed = {k.arg for k in call.keywords}
        key = origin(callee) or callee if is_library(callee) else callee
        for entry in (self.lookup(callee), self.index.names.get(f"{key}.__init__")) if match else ():
            for keyword, value, other, other_value in EQUIVALENT.findall(entry.note if entry else ""):
                if (keyword, value) != (change.keyword, match.group(3)) or other in passed:
                    continue
                try:
                    wanted = ast.literal_eval(other_value)
                except (ValueError, SyntaxError):
                    wanted = other_value
                function = entry.name.partition("#")[0].rpartition(".")[2]
                if effective_default(entry.note, function, other) == wanted:
                    return True
        return False

    def with_keyword_successor(self, change: Change, callee: str) -> Change:
        """A removed keyword without a recorded replacement, given the installed parameter it most likely
        became (`jnp.clip(a_min=)` -> `jnp.clip(min=)`; see `keyword_successor`)."""
        name = callee if signature_of(callee) or wrapped_signature(callee) else change.name
        new, positional_only = keyword_successor(name, change.keyword)
        if not new:
            return change
        message = re.sub(r"; no replacement: [^;]*", "", change.message)
        if positional_only:
            return dataclasses.replace(change, new=f"{change.name}({new})",
                                       message=f"{message}; pass it by position: {new} is positional-only")
        return dataclasses.replace(change, new=f"{change.name}({new}=)", message=message)

    def positional(self, call: ast.Call, callee: str, change: Change) -> bool:
        """Whether the call passes `change.keyword` by position (per the installed signature)."""
        if any(isinstance(a, ast.Starred) for a in call.args):
            return True
        signature = signature_of(callee) or signature_of(change.name)
        if signature is None:
            return False
        order = [p.name for p in signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        return change.keyword in order and len(call.args) > order.index(change.keyword)

    def check_members(self) -> None:
        """Members of objects whose class the local inference knows (`Types`): a data-file entry keyed
        by the installed class's path and the member (`flax.nnx.variablelib.Variable.value` for
        `self.scale.value` where `self.scale = nnx.Param(...)`; `...Mesh.__enter__` for `with mesh:`
        where `mesh = jax.make_mesh(...)`), and method calls the installed method's signature rejects."""
        calls = [node for node in self.types.groups["checked"] if isinstance(node, ast.Call)]
        for node in self.types.groups["attributes"] + self.types.groups["with"] + calls:
            if isinstance(node, ast.Attribute) and node.attr in self.members and not self.called(node):
                store = isinstance(node.ctx, ast.Store)
                change = self.member_change(self.types.of(node.value), node.attr, store)
                if change and not self.conditional(change):
                    self.add_change(node, change)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if change := self.member_change(self.types.of(item.context_expr), "__enter__", False):
                        self.add_change(item.context_expr, change)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                self.check_method(node)

    def called(self, node: ast.Attribute) -> bool:
        """Whether `node` is the callee of a call: method entries of the data are often conditional
        (Module.sow/perturb warn only outside nnx.capture), so method calls meet the signature check only."""
        holder = self.types.parent.get(id(node))
        return isinstance(holder, ast.Call) and holder.func is node

    def member_change(self, t: Any, member: str, store: bool) -> Change | None:
        for cls in self.types.mro(t):
            key = f"{cls.path}.{member}"
            change = (self.index.names.get(key + "#2") if store else None) or self.index.names.get(key)
            if change:
                return dataclasses.replace(change, old=change.old.partition("#")[0])
        return None

    def check_method(self, call: ast.Call) -> None:
        """`obj.method(...)` where obj is an instance of an installed class, against that method's signature."""
        t = self.types.of(call.func.value)  # type: ignore[attr-defined]
        if not (isinstance(t, tuple) and t[0] == "lib") or any(isinstance(a, ast.Starred) for a in call.args) \
                or any(k.arg is None for k in call.keywords):
            return
        cls, method = t[1], call.func.attr  # type: ignore[attr-defined]
        change = next((c for k in mro(cls) if (c := self.index.names.get(f"{k.path}.{method}"))), None)
        if change is not None and self.condition(change):  # a deprecation located in the method's body
            self.check_condition(call, change, f"{cls.qualname}.{method}")
        signature = method_signature(cls, method)  # static/class methods, properties, descriptors: None
        if signature is None:
            return
        try:
            signature.bind(*range(len(call.args)), **{k.arg: None for k in call.keywords})
        except TypeError as exc:
            name = f"{cls.path}.{method}"
            public = f"{cls.qualname}.{method}"
            version = f"{cls.module.partition('.')[0]} {version_of(cls.module)}".rstrip()
            self.add(call, "signature", f"{public}(...)", name,
                     message=f"the installed {version} rejects this call: {exc}")

    def check_static_data(self) -> None:
        """An attribute of an nnx.Module subclass given, during __init__ (or a method __init__ calls on
        self), a plain list, tuple or dict holding Modules or Variables, or an empty list then filled
        with them by append/extend/insert: flax 0.12 treats such containers as static and raises
        ValueError at construction; they must be nnx.List / nnx.Dict / nnx.data(...)."""
        for name, cls in self.types.classes.items():
            if not self.types.is_a(("local", name), "flax.nnx.Module") \
                    or any(k.arg == "pytree" for k in cls.keywords):
                continue
            declared = {t.id for n in cls.body if isinstance(n, (ast.AnnAssign, ast.Assign))
                        for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
            methods = self.init_methods(name)
            for attr, values in self.types.self_assignments(cls).items():
                if attr in declared:
                    continue
                for item in values:
                    if item is None or item[1].name not in methods:
                        continue
                    value, fn = item
                    container = not isinstance(value, ast.Call) and self.holds_data(value, fn)
                    filled = container or (self.is_empty(value) and self.filled(cls, methods, attr))
                    if filled:
                        self.add(value, "raises", f"plain {type(value).__name__.lower()} of nnx data in "
                                 f"{name}.{attr}", "flax.nnx.List",
                                 message=f"flax {version_of('flax')} raises ValueError (data in a static "
                                         f"attribute): wrap it in nnx.List(...) / nnx.Dict(...) / nnx.data(...)")

    def init_methods(self, name: str) -> set[str]:
        """The methods of a class of this file (with its local bases) that __init__ reaches through self.m()."""
        methods: dict[str, ast.FunctionDef] = {}
        for base in self.types.local_bases(name)[0]:
            for fn in self.types.classes[base].body:
                if isinstance(fn, ast.FunctionDef):
                    methods.setdefault(fn.name, fn)
        reached, todo = set(), ["__init__"]
        while todo:
            current = todo.pop()
            if current in reached or current not in methods:
                continue
            reached.add(current)
            fn = methods[current]
            me = fn.args.args[0].arg if fn.args.args else ""
            todo += [n.func.attr for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and isinstance(n.func.value, ast.Name) and n.func.value.id == me]
        return reached

    def holds_data(self, node: ast.AST, scope: ast.AST) -> bool:
        """A container display (or comprehension) whose items are Module or Variable constructions."""
        if isinstance(node, ast.Call):
            t = self.types.of(node, scope)
            return self.types.is_a(t, "flax.nnx.Module") or self.types.is_a(t, "flax.nnx.Variable")
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return any(self.holds_data(e, scope) for e in node.elts)
        if isinstance(node, ast.Dict):
            return any(self.holds_data(v, scope) for v in node.values)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.holds_data(node.elt, scope)
        if isinstance(node, ast.DictComp):
            return self.holds_data(node.value, scope)
        return False

    @staticmethod
    def is_empty(node: ast.AST) -> bool:
        return isinstance(node, (ast.List, ast.Dict)) and not getattr(node, "elts", getattr(node, "keys", None)) \
            or isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "dict") \
            and not node.args and not node.keywords

    def filled(self, cls: ast.ClassDef, methods: set[str], attr: str) -> bool:
        """Whether a method __init__ reaches appends/extends/inserts/stores Module or Variable data into self.attr."""
        for fn in (f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name in methods):
            me = fn.args.args[0].arg if fn.args.args else ""
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr in ("append", "extend", "insert") \
                        and isinstance(target := node.func.value, ast.Attribute) and target.attr == attr \
                        and isinstance(target.value, ast.Name) and target.value.id == me \
                        and any(self.holds_data(a, fn) for a in node.args):
                    return True
        return False

    def check_signature(self, call: ast.Call, callee: str, keywords: list[ast.keyword],
                        positional: int | None) -> None:
        """Bind the call's arguments to the installed signature of `callee` (of its new home when the data
        file moves or deprecates it); `positional=None` checks the keywords only (a functools.partial)."""
        change = self.lookup(callee) if callee else None
        new = (change.new_name or change.new) if change and not change.keyword else ""
        target = new if re.fullmatch(r"[\w.]+", new or "-") and is_library(new) else callee
        if not is_library(target) or any(isinstance(a, ast.Starred) for a in call.args) \
                or any(k.arg is None for k in call.keywords):
            return
        signature = signature_of(target)
        if signature is None:
            return
        params = signature.parameters.values()
        takes_any = any(p.kind is p.VAR_KEYWORD for p in params)
        names = {p.name for p in params if p.kind not in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        version = f"{target.partition('.')[0]} {version_of(target)}".rstrip()
        for keyword in keywords:
            if not takes_any and keyword.arg not in names:
                self.add(keyword, "signature", f"{callee}({keyword.arg}=)", target,
                         message=f"the installed {version}'s {target} takes no keyword {keyword.arg}")
        if positional is None or change and change.kind in ERROR_KINDS:  # reported already, or a partial
            return
        passed = [k.arg for k in keywords if k.arg in names or takes_any]
        try:
            signature.bind(*range(positional), **dict.fromkeys(passed))
        except TypeError as exc:
            if "unexpected keyword" not in str(exc):
                self.add(call, "signature", f"{callee}(...)", target,
                         message=f"the installed {version} rejects this call: {exc}")


def check_file(path: Path, index: Index) -> set[Finding]:
    """The findings of one file (one per line, kind and old form), or its one `unparsable` finding: a file
    that does not parse, cannot be read, or is nested too deeply for Python's parser or this checker."""
    def unparsable(line: int, message: str) -> set[Finding]:
        return {Finding(str(path), line, 0, "unparsable", "", message=message)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the file's own SyntaxWarnings (invalid escapes) are not ours to print
            tree = ast.parse(path.read_bytes(), filename=str(path))
        found = FileChecker(str(path), tree, index).run()
    except SyntaxError as exc:
        return unparsable(exc.lineno or 0, f"SyntaxError: {exc.msg} line {exc.lineno}")
    except (ValueError, OSError) as exc:  # null bytes, a file that cannot be read
        return unparsable(0, f"{type(exc).__name__}: {first_line(str(exc))}")
    except (RecursionError, MemoryError) as exc:
        return unparsable(0, f"{type(exc).__name__}: too deeply nested to check")
    first: dict[Finding, Finding] = {}
    for finding in sorted(found):  # `from M import a, b` of a removed M: one finding, not one per name
        first.setdefault(dataclasses.replace(finding, col=0), finding)
    return set(first.values())


def python_files(paths: Sequence[str]) -> list[Path]:
    """The files given and the *.py files under the folders given (skipping hidden folders, venvs). A folder
    without any gets a note on stderr; `UsageError` when there is nothing at all to check."""
    files: dict[Path, Path] = {}
    for text in paths:
        root = Path(text)
        if root.is_file():
            files.setdefault(root.resolve(), root)
        elif root.is_dir():
            found = [file for file in sorted(root.rglob("*.py")) if file.is_file() and not any(
                p.startswith(".") or p in SKIP_DIRS for p in file.relative_to(root).parts[:-1])]
            if not found and len(paths) > 1:
                print(f"note: no Python files in {text}", file=sys.stderr)
            for file in found:
                files.setdefault(file.resolve(), file)
        else:
            raise UsageError(f"no such file or folder: {text}")
    if not files:
        raise UsageError(f"no Python files in {', '.join(paths)} (folders are searched for *.py, skipping hidden "
                         f"folders, site-packages, venv and __pycache__)")
    return list(files.values())


def check(files: Iterable[Path], index: Index) -> list[Finding]:
    return sorted(f for file in files for f in check_file(file, index))


# --- fixing --------------------------------------------------------------------------------------

def libcst_requirement() -> str:
    """The pinned LibCST line of this file's header (`libcst==X`)."""
    return next(line for line in script_metadata(Path(__file__))["dependencies"] if line.startswith("libcst=="))


# Renames a rewrite may make without changing what the code does: the replacement is the same installed
# object, a move, or called a drop-in replacement or an alias by the note (and, for names the installed
# library lacks, an underscore become a module: `jax.tree_map` -> `jax.tree.map`); keyword renames of one callee
# whose names share a word (`check_rep` -> `check_vma`, `args` -> `model_args`) and whose note does not
# say the value changes; and whatever the data marks `rename = true` (never what it marks `rename = false`).
DROP_IN = re.compile(r"drop-in|\balias\b|\brenamed\b", re.IGNORECASE)
VALUE_CHANGE = re.compile(r"=\(|\bis now\b|\bvalues?\b|\bcorresponds\b", re.IGNORECASE)


def fixable(index: Index) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """The mechanical renames (old name -> new name) and keyword renames ((callee, old) -> new) of the data."""
    renames = {}
    for name, change in index.names.items():
        if change.keyword or not change.new_name or change.new != change.new_name or change.rename is False \
                and change.kind == "moved" or not re.fullmatch(r"[\w.]+", change.new_name):
            continue
        if change.rename or change.kind in ("removed", "deprecated") and is_library(change.new_name) and (
                same_object(name, change.new_name) or DROP_IN.search(change.note)) \
                and not (change.kind == "deprecated" and (warning_condition(name, change.note) or {}).get("tests")):
            renames[name] = change.new_name
    keywords = {}
    for name, changes in index.calls.items():
        for change in changes:
            if change.absent or not change.new_keyword or change.new_name != name:
                continue
            shared = set(change.keyword.split("_")) & set(change.new_keyword.split("_"))
            if change.rename or change.kind == "renamed-keyword" and shared and not VALUE_CHANGE.search(change.note):
                keywords[(name, change.keyword)] = change.new_keyword
    return renames, keywords


def same_object(old: str, new: str) -> bool:
    """Whether two library names stand for the very same installed object (a deprecated alias)."""
    a, b = installed(old), installed(new)
    return isinstance(a, Symbol) and a == b and a.kind != "module"


def fix_files(files: Sequence[Path], index: Index) -> list[str]:
    """Rewrite the mechanical renames in `files` in place (see `_currency_fix`); one line per change made or
    refused."""
    if importlib.util.find_spec("libcst") is None:
        raise UsageError(f"--fix needs LibCST (No module named 'libcst'); install it with: "
                         f"pip install '{libcst_requirement()}'")
    from _currency_fix import fix_file

    renames, keywords = fixable(index)

    def problems(path: str, tree: ast.Module) -> set[tuple[str, str]]:
        return {(f.kind, f.old) for f in FileChecker(path, tree, index).run() if f.kind in FAILING}

    def call_signature(name: str) -> inspect.Signature | None:
        return signature_of(name) or wrapped_signature(name)

    def missing_renames(tree: ast.Module, bindings: dict[str, str]) -> dict[str, str]:
        """Names of this file the installed library lacks whose underscore became a module (`jax.tree_map`)."""
        used = {name for node in ast.walk(tree) if isinstance(node, (ast.Attribute, ast.Name))
                and is_library(name := resolve(node, bindings))}
        used |= set(bindings.values())
        return {name: new for name in used if installed(name) is MISSING and installed(name.rpartition(".")[0])
                is not MISSING and (new := split_successor(name))}

    done = []
    for file in files:
        done += fix_file(file, renames, keywords, import_bindings, resolve, call_signature, problems, missing_renames)
    return done


# --- main ----------------------------------------------------------------------------------------

def build_parser() -> CliParser:
    epilog = EPILOG.replace("{libcst}", libcst_requirement())
    parser = CliParser(prog="jax_currency_check.py", description=__doc__, epilog=epilog)
    parser.add_argument("paths", nargs="+", metavar="PATH", help="Python files or folders to check")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, metavar="FILE",
                        help=f"the api_changes.toml to read (default: {DEFAULT_DATA})")
    parser.add_argument("--format", choices=("text", "json", "github"), default="text",
                        help="text: the lines below (default); json: a JSON list; github: GitHub Actions workflow "
                             "commands, `::error file=PATH,line=N,col=N,title=jax-currency-check KIND::LINE` "
                             "(`::warning` for review notes and unparsable files), shown as annotations")
    parser.add_argument("--json", dest="format", action="store_const", const="json", help="the same as --format json")
    parser.add_argument("--fix", action="store_true",
                        help="rewrite pure renames in place with LibCST, print them, then report what is left")
    return parser


def build_index(data: Path) -> tuple[Index, str]:
    """The data file's changes, then the installed jax's deprecation tables; and a note if those were skipped.
    Kept on disk (see `_installed`) per data file, installed versions and checker source."""
    try:
        contents = data.read_bytes()
    except OSError:
        contents = b""  # load_data says what is wrong
    key = open_cache(Path(__file__), Path(_cli.__file__))
    name = f"index-{hashlib.sha256(contents).hexdigest()[:16]}"
    if isinstance(kept := load_pickled(name, key), tuple):
        return kept
    built = read_index(data)
    store_pickled(name, key, built)
    return built


def read_index(data: Path) -> tuple[Index, str]:
    index = Index()
    for change in load_data(data):
        index.add(change)
    table, note = installed_jax_changes()
    for change in table:
        index.add(change)
    return index, note


def github_command(finding: Finding) -> str:
    """A finding as a GitHub Actions workflow command (`::error` for what fails the run, else `::warning`),
    escaped as actions/toolkit's command.ts does: `%`, CR and LF in the message, also `:` and `,` in fields."""
    message_chars, field_chars = "%\r\n", "%\r\n:,"

    def escape(text: str, chars: str) -> str:
        return "".join(f"%{ord(char):02X}" if char in chars else char for char in text)

    level = "error" if finding.kind in FAILING else "warning"
    where = {"file": finding.path, "line": finding.line, "col": finding.col, "title": f"jax-currency-check {finding.kind}"}
    fields = ",".join(f"{key}={escape(str(value), field_chars)}" for key, value in where.items() if value)
    message = finding.text().removeprefix(f"{finding.path}:{finding.line}:{finding.col}: ")
    return f"::{level} {fields}::{escape(message, message_chars)}"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    files = python_files(args.paths)
    index, note = build_index(args.data)
    if note:
        print(note, file=sys.stderr)
    if args.fix:
        changes = fix_files(files, index)
        print("\n".join(changes) or "fixed nothing", file=sys.stdout if args.format == "text" else sys.stderr)
    findings = check(files, index)
    if args.format == "json":
        print_json([asdict(f) for f in findings])
    else:
        for finding in findings:
            print(github_command(finding) if args.format == "github" else finding.text())
    return 1 if any(f.kind in FAILING for f in findings) else 0


if __name__ == "__main__":
    run_cli(main)
