# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1", "libcst==1.9.0"]  # libcst only for --fix
# ///
"""Find old JAX-ecosystem APIs and version-probing hedges in Python code; --fix rewrites pure renames.

Reads the files with `ast` (they are never imported or run; the installed libraries are imported to
read their deprecation tables, names and signatures) and reports, one line per finding:

  removed / moved / deprecated   a use of an old form listed in api_changes.toml
  renamed-keyword                a call passing a keyword that was renamed (or removed)
  review                         a use of something whose default or behaviour changed (not an error;
                                 only for changes the bundle teaches, i.e. without `left_out`)
  removed / deprecated           a name the INSTALLED jax still lists in a `_deprecations` table
                                 (removed when accessing it raises AttributeError)
  removed                        a name under a module of jax, flax, optax, orbax or numpyro that the
                                 INSTALLED library does not have (`jax.ops.index_update`, an import
                                 of `jax.experimental.optimizers`): found by importing the module
  signature                      a call the INSTALLED library's signature rejects: a keyword it does
                                 not take (for an old form with a new home: the new one's signature,
                                 so `shard_map(check_rep=)` is caught), a missing required argument
                                 (an nnx.Optimizer built without its required `wrt=`), too many positional
                                 arguments; `functools.partial(f, kw=...)` counts as a call of f
  hedge                          version probing around jax, jaxlib, flax, optax, orbax, numpyro:
                                 try/except ImportError|ModuleNotFoundError|AttributeError around
                                 their names (or a broader except around their imports);
                                 hasattr(<module>, "...") and getattr(<module>, "...", default);
                                 warnings filters ignoring DeprecationWarning, or catch_warnings()
                                 ignoring warnings around their calls; comparisons of
                                 jax.__version__, flax.__version__, importlib.metadata.version(...)

Names are resolved through the file's own imports (`import jax.numpy as jnp`, `from jax import
tree_util as tu`, `from flax import nnx`), so `jnp.round_` is `jax.numpy.round_`. The data file's
`old`/`new` are dotted names; `pkg.fn(kw=)` names a keyword of a call (the form dev/api_delta.py
writes), or give `keyword_old`/`keyword_new` fields.

Limits: imports are read per file, not per scope; names inside strings, methods called on objects
(`model.method(...)`, `variable.value`) and star-imported names are not resolved; an old form
reached through a from-import is reported at the import line, not at each use; an entry keyed by an
implementation path (`optax._src.linear_algebra.global_norm`) is not matched to its public name.
"""

from __future__ import annotations

import ast
import importlib
import functools
import importlib.util
import inspect
import re
import sys
import warnings
import tomllib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from _cli import CliError, CliParser, UsageError, first_line, print_json, run_cli, script_metadata

DEFAULT_DATA = Path(__file__).resolve().parents[1] / "api_changes.toml"
LIBRARIES = frozenset({"jax", "jaxlib", "flax", "optax", "orbax", "numpyro"})
SKIP_DIRS = frozenset({"site-packages", "venv", "__pycache__", "node_modules"})
ERROR_KINDS = ("removed", "moved", "deprecated", "renamed-keyword")
REVIEW_KINDS = ("default-changed", "behaviour-changed")
FAILING = frozenset({*ERROR_KINDS, "hedge", "signature"})
CALL_FORM = re.compile(r"^([\w.]+)\((\w+)=(.*)\)$")
CAUGHT = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"})
WARNING_CLASSES = frozenset({"DeprecationWarning", "PendingDeprecationWarning", "FutureWarning"})
REPLACEMENT = re.compile(r"(?:[Uu]sed?|moved to)\s+`?([A-Za-z_]\w*(?:\.\w+)+)")
SHORT_MODULES = {"pl": "jax.experimental.pallas", "pltpu": "jax.experimental.pallas.tpu",
                 "plgpu": "jax.experimental.pallas.mosaic_gpu", "jnp": "jax.numpy", "lax": "jax.lax"}
HEDGE_ADVICE = "use the pinned API directly"

EPILOG = """\
examples:
  python scripts/jax_currency_check.py src/ train.py
  python scripts/jax_currency_check.py src/ --json
  python scripts/jax_currency_check.py src/ --fix      # rewrite pure renames in place, then re-check

output:
  path:line:col: KIND old -> new (read: section)     sorted; col is 1-based
  With --json: a list of {path, line, col, kind, old, new, section, message}.
  A file that does not parse gives `path: cannot parse (SyntaxError: ... line N)` (kind "unparsable"
  in JSON) and the run goes on. It does not by itself make the exit status 1.

--fix rewrites, in place and only in the files given or found, the changes marked `rename = true` in
the data file (and `moved` ones unless marked `rename = false`): the tree_map alias becomes
`jax.tree.map`, an import of shard_map from jax.experimental becomes `from jax import shard_map`
(local names are kept: `from M import old as name`), `check_rep=` becomes `check_vma=`. It keeps
formatting and comments, adds or drops import lines as needed, prints each change, then checks again
(with --json the changes go to stderr). It needs {libcst}: pip install '{libcst}'.

exit codes:
  0    nothing found (review notes and unparsable files alone do not fail)
  1    an old form or a hedge was found (also: an unexpected internal error, one "error:" line)
  2    usage error (unknown flag, no such path, missing or malformed data file, no LibCST for --fix)
Folders are searched for *.py, skipping hidden folders, site-packages, venv and __pycache__."""


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
    message: str = ""


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
        if self.kind == "unparsable":
            return f"{self.path}: cannot parse ({self.message})"
        detail = f"read: {self.section}" if self.section else self.message
        if self.kind == "review" and self.section and self.message:
            detail += f"; {self.message}"
        tail = f" ({detail})" if detail else ""
        return f"{self.path}:{self.line}:{self.col}: {self.kind} {self.old} -> {self.new or '(no replacement)'}{tail}"


@dataclass
class Index:
    """Old forms by dotted name, and keyword forms by callee."""

    names: dict[str, Change] = field(default_factory=dict)
    calls: dict[str, list[Change]] = field(default_factory=dict)

    def add(self, change: Change) -> None:
        if change.keyword:
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
    if kind not in ERROR_KINDS + REVIEW_KINDS or not old or (kind in REVIEW_KINDS and entry.get("left_out")):
        return None  # additions, and review notes on changes judged not to matter (`left_out`)
    name, keyword = split_call_form(old)
    new_name, new_keyword = split_call_form(new)
    note = entry.get("note", "") or (f"not taught: {entry['left_out']}" if entry.get("left_out") else "")
    return Change(kind, old, new, name, entry.get("keyword_old", keyword), new_name,
                  entry.get("keyword_new", new_keyword), bool(entry.get("rename", kind == "moved")),
                  entry.get("section", ""), note)


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
    """The dotted name a deprecation message points to (`use jax.device_put instead`), or ""."""
    match = REPLACEMENT.search(message)
    if not match:
        return ""
    head, _, rest = match.group(1).partition(".")
    return f"{SHORT_MODULES[head]}.{rest}" if head in SHORT_MODULES else match.group(1)


def first_sentence(message: str) -> str:
    """`jax.x is deprecated; use jax.y instead. See https://...` -> its part before the first `. `."""
    return first_line(message).split(". ")[0].rstrip(".")


def installed_jax_changes() -> tuple[list[Change], str]:
    """Entries of the `_deprecations` tables of the installed jax, read at run time; and a note if skipped."""
    if importlib.util.find_spec("jax") is None:
        return [], "note: jax is not importable: skipped the deprecation tables of the installed jax"
    try:
        jax = importlib.import_module("jax")
    except Exception as exc:
        return [], f"note: importing jax failed ({type(exc).__name__}): skipped its deprecation tables"
    changes = []
    for module_name in deprecation_modules(Path(jax.__file__).parent):
        try:
            table = getattr(importlib.import_module(module_name), "_deprecations", {})
        except Exception:  # a backend-specific module that does not import here
            continue
        for name, (message, replacement) in table.items():
            kind = "removed" if replacement is None else "deprecated"
            changes.append(Change(kind, f"{module_name}.{name}", replacement_in(message), f"{module_name}.{name}",
                                  message=f"jax {jax.__version__} says: {first_sentence(message)}"))
    return changes, ""


# --- the installed libraries --------------------------------------------------------------------

MISSING = object()  # what `installed` returns for a name the installed library does not have


@functools.cache
def importable(module: str) -> Any:
    """The installed module `module`; MISSING if it is not there (its library is); None if unknown."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        # only "this module is gone" counts, not a missing optional dependency (tensorflow, ...)
        return MISSING if exc.name and module.startswith(exc.name) and is_library(exc.name) else None
    except Exception:  # a backend-specific module that does not import here
        return None


@functools.cache
def installed(name: str) -> Any:
    """The installed object a dotted library name stands for; MISSING when a module lacks it; None
    when it cannot be told (library not installed, or the name goes through a class or an object)."""
    top = name.partition(".")[0]
    if not is_library(name) or importable(top) in (None, MISSING):
        return None
    parts = name.split(".")
    obj = importable(top)
    for index in range(1, len(parts)):
        if not inspect.ismodule(obj):
            return None  # attributes of classes and objects may be made at run time
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                obj = getattr(obj, parts[index])
                continue
            except AttributeError:
                pass
            except Exception:
                return None
        sub = importable(".".join(parts[: index + 1]))  # a submodule not imported by its package
        if sub is None or sub is MISSING:
            return sub
        obj = sub
    return obj


def signature_of(name: str) -> inspect.Signature | None:
    """The installed signature of a library callable, or None (not found, not inspectable)."""
    obj = installed(name)
    if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.isbuiltin(obj)):
        return None  # instances (enum members, jitted or wrapped objects) may take anything
    try:
        signature = inspect.signature(obj)
        kinds = {p.kind for p in signature.parameters.values()}
        if inspect.isclass(obj) and kinds == {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD} \
                and "__init__" in vars(obj):  # a metaclass __call__ (flax's Object) hides __init__'s
            init = inspect.signature(obj.__init__)
            return init.replace(parameters=list(init.parameters.values())[1:])
        return signature
    except (TypeError, ValueError):
        return None


def version_of(name: str) -> str:
    module = importable(name.partition(".")[0])
    return getattr(module, "__version__", "") if module not in (None, MISSING) else ""


# --- resolving names -----------------------------------------------------------------------------

def import_bindings(tree: ast.AST) -> dict[str, str]:
    """Local name -> the dotted name it stands for, from every absolute import anywhere in the file."""
    bindings = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.partition(".")[0]
                bindings[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                if alias.name != "*":
                    bindings[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bindings


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


def is_library(name: str | None) -> bool:
    return bool(name) and name.partition(".")[0] in LIBRARIES


def short(node: ast.AST, limit: int = 70) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- checking one file ---------------------------------------------------------------------------

class FileChecker:
    """The findings of one parsed file."""

    def __init__(self, path: str, tree: ast.Module, index: Index) -> None:
        self.path, self.tree, self.index = path, tree, index
        self.bindings = import_bindings(tree)
        self.findings: set[Finding] = set()

    def run(self) -> set[Finding]:
        self.check_imports()
        self.check_chains()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                self.check_call(node)
                self.check_probe(node)
                self.check_filter(node)
            elif isinstance(node, ast.Try):
                self.check_try(node)
            elif isinstance(node, ast.With):
                self.check_catch_warnings(node)
            elif isinstance(node, (ast.Compare, ast.If, ast.IfExp, ast.While, ast.Assert)):
                self.check_version(node)
        return self.findings

    def add(self, node: ast.AST, kind: str, old: str, new: str = "", section: str = "", message: str = "") -> None:
        line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1
        self.findings.add(Finding(self.path, line, col, kind, old, new, section, message))

    def add_change(self, node: ast.AST, change: Change) -> None:
        kind = "review" if change.kind in REVIEW_KINDS else change.kind
        message = f"{change.kind}: {change.message}" if kind == "review" else change.message
        self.add(node, kind, change.old, change.new, change.section, message.rstrip(": "))

    def lookup(self, name: str) -> Change | None:
        """The change of the longest listed prefix of `name` (a removed module covers its members)."""
        return next((self.index.names[p] for p in prefixes(name) if p in self.index.names), None)

    def check_imports(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                targets = [(alias, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [(alias, f"{node.module}.{alias.name}" if alias.name != "*" else node.module)
                           for alias in node.names]
            else:
                continue
            for alias, name in targets:
                if change := self.lookup(name):
                    self.add_change(alias, change)
                elif not self.check_missing(alias, name):
                    self.check_deprecated_module(alias, name)

    def check_missing(self, node: ast.AST, name: str) -> bool:
        """Report the shortest prefix of `name` that the installed library's modules lack; whether one was."""
        if not is_library(name) or installed(name) is not MISSING:
            return False
        gone = next(p for p in reversed(list(prefixes(name))) if installed(p) is MISSING)
        top = name.partition(".")[0]
        self.add(node, "removed", gone, message=f"not in the installed {top} {version_of(name)}".rstrip())
        return True

    def check_deprecated_module(self, node: ast.AST, name: str) -> None:
        """An import of a module whose every public name (other than modules) the installed library
        lists in the module's own `_deprecations` table: the module itself is on its way out."""
        module = installed(name)
        table = getattr(module, "_deprecations", None) if inspect.ismodule(module) else None
        if not isinstance(table, dict) or not table:
            return
        public = {n for n in dir(module) if not n.startswith("_") and not inspect.ismodule(getattr(module, n, None))}
        if public - set(table):
            return
        news = {replacement_in(message) for message, _ in table.values()} - {""}
        self.add(node, "deprecated", name, news.pop() if len(news) == 1 else "",
                 message=f"every public name of {name} is deprecated in the installed jax {version_of(name)}")

    def check_chains(self) -> None:
        """Attribute chains naming an old form; the longest match per position (bare names are the imports')."""
        best: dict[tuple[int, int], tuple[ast.AST, Change]] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute) and (name := resolve(node, self.bindings)):
                change = self.index.names.get(name)
                key = (node.lineno, node.col_offset)
                if change and (key not in best or len(change.name) > len(best[key][1].name)):
                    best[key] = (node, change)
                elif not change and not self.lookup(name) and is_library(name):
                    self.check_missing(node, name)
        for node, change in best.values():
            self.add_change(node, change)

    def check_call(self, call: ast.Call) -> None:
        """Keyword forms: an old keyword passed (renamed or removed), or a changed default relied on;
        then the call against the installed signature."""
        callee = resolve(call.func, self.bindings) or ""
        moved = self.index.names.get(callee)  # `shard_map` from its old home takes the new one's keywords
        reported = set()
        for change in self.index.calls.get(callee, []) + self.index.calls.get(moved.new_name if moved else "", []):
            passed = {k.arg: k for k in call.keywords}
            if change.kind == "default-changed":  # the new default applies where the keyword is not passed
                if change.keyword not in passed and None not in passed:
                    self.add_change(call, change)
            elif change.keyword in passed:
                self.add_change(passed[change.keyword], change)
                reported.add(change.keyword)
        if callee == "functools.partial" and call.args:  # partial(f, kw=...): the keywords f is given
            inner = resolve(call.args[0], self.bindings) or ""
            self.check_signature(call, inner, call.keywords, positional=None)
        elif is_library(callee):
            self.check_signature(call, callee, [k for k in call.keywords if k.arg not in reported],
                                 positional=len(call.args))

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

    def check_probe(self, call: ast.Call) -> None:
        """hasattr(<library module>, "name") and getattr(<library module>, "name", default)."""
        if not isinstance(call.func, ast.Name) or call.func.id in self.bindings:
            return
        wanted = {"hasattr": 2, "getattr": 3}.get(call.func.id)
        if wanted and len(call.args) == wanted and isinstance(call.args[1], ast.Constant) \
                and is_library(resolve(call.args[0], self.bindings)):
            self.add(call, "hedge", short(call), HEDGE_ADVICE, message=f"{call.func.id} probes for an API version")

    def check_filter(self, call: ast.Call) -> None:
        """warnings.filterwarnings/simplefilter("ignore", ...) that hides deprecation warnings."""
        if resolve(call.func, self.bindings) not in ("warnings.filterwarnings", "warnings.simplefilter"):
            return
        if ignores(call) and self.hides_deprecations(call):
            self.add(call, "hedge", short(call), "let deprecation warnings show",
                     message="silenced deprecation warnings hide what the pinned versions removed")

    def hides_deprecations(self, call: ast.Call) -> bool:
        values = [*call.args, *(k.value for k in call.keywords)]
        for node in (n for v in values for n in ast.walk(v)):
            if isinstance(node, ast.Name) and node.id in WARNING_CLASSES:
                return True
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and any(re.match(rf"\W*{lib}\b", node.value) for lib in LIBRARIES):
                return True  # module="jax.*" or a message naming the library
        return False

    def check_catch_warnings(self, node: ast.With) -> None:
        """`with warnings.catch_warnings():` + simplefilter("ignore") around calls into the libraries."""
        if not any(isinstance(i.context_expr, ast.Call)
                   and resolve(i.context_expr.func, self.bindings) == "warnings.catch_warnings" for i in node.items):
            return
        inner = [n for stmt in node.body for n in ast.walk(stmt)]
        filters = [n for n in inner if isinstance(n, ast.Call) and ignores(n)
                   and resolve(n.func, self.bindings) in ("warnings.filterwarnings", "warnings.simplefilter")]
        touched = [n for n in inner if isinstance(n, ast.Call) and is_library(resolve(n.func, self.bindings))]
        if filters and touched and not any(self.hides_deprecations(f) for f in filters):
            self.add(node, "hedge", f"catch_warnings() + ignore around {short(touched[0].func)}",
                     "let deprecation warnings show", message="silenced warnings hide what the pinned versions removed")

    def check_try(self, node: ast.Try) -> None:
        """try/except ImportError|ModuleNotFoundError|AttributeError around the libraries' names, or a
        broader except (Exception, bare) around their imports (not around ordinary calls)."""
        caught = {n for h in node.handlers for n in handler_names(h)} & CAUGHT
        narrow = bool(caught & {"ImportError", "ModuleNotFoundError", "AttributeError"})
        for sub in (n for stmt in node.body for n in ast.walk(stmt)):
            name = None
            if isinstance(sub, ast.Import):
                name = next((a.name for a in sub.names if is_library(a.name)), None)
            elif isinstance(sub, ast.ImportFrom) and sub.level == 0:
                name = f"{sub.module}.{sub.names[0].name}" if is_library(sub.module) else None
            elif narrow and isinstance(sub, (ast.Attribute, ast.Name)):
                name = resolve(sub, self.bindings) if is_library(resolve(sub, self.bindings)) else None
            if name and caught:
                self.add(node, "hedge", f"try: {name} ... except {'/'.join(sorted(caught))}", HEDGE_ADVICE,
                         message="a try/except that probes for an API version")
                return

    def check_version(self, node: ast.AST) -> None:
        """A library's version read inside a comparison or a condition."""
        test = node if isinstance(node, ast.Compare) else node.test  # type: ignore[attr-defined]
        for sub in ast.walk(test):
            if self.is_version(sub):
                self.add(sub, "hedge", short(sub), HEDGE_ADVICE, message="a version comparison")

    def is_version(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute) and node.attr in ("__version__", "__version_info__"):
            return is_library(resolve(node.value, self.bindings))
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            callee = resolve(node.func, self.bindings) or ""
            return callee.endswith("metadata.version") and is_library(str(node.args[0].value).replace("-", "."))
        return False


def ignores(call: ast.Call) -> bool:
    """Whether a warnings filter call's action is "ignore"."""
    action = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "action"), None)
    return isinstance(action, ast.Constant) and action.value == "ignore"


def handler_names(handler: ast.ExceptHandler) -> set[str]:
    """Exception class names an except clause catches; a bare `except:` catches BaseException."""
    if handler.type is None:
        return {"BaseException"}
    nodes = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "") for n in nodes}


def check_file(path: Path, index: Index) -> set[Finding]:
    """The findings of one file, or its one `unparsable` finding."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except SyntaxError as exc:
        return {Finding(str(path), exc.lineno or 0, 0, "unparsable", "",
                        message=f"SyntaxError: {exc.msg} line {exc.lineno}")}
    except ValueError as exc:  # e.g. null bytes
        return {Finding(str(path), 0, 0, "unparsable", "", message=f"{type(exc).__name__}: {first_line(str(exc))}")}
    return FileChecker(str(path), tree, index).run()


def python_files(paths: Sequence[str]) -> list[Path]:
    """The files given and the *.py files under the folders given (skipping hidden folders, venvs)."""
    files: dict[Path, Path] = {}
    for text in paths:
        root = Path(text)
        if root.is_file():
            files.setdefault(root.resolve(), root)
        elif root.is_dir():
            for file in sorted(root.rglob("*.py")):
                parts = file.relative_to(root).parts[:-1]
                if file.is_file() and not any(p.startswith(".") or p in SKIP_DIRS for p in parts):
                    files.setdefault(file.resolve(), file)
        else:
            raise UsageError(f"no such file or folder: {text}")
    return list(files.values())


def check(files: Iterable[Path], index: Index) -> list[Finding]:
    return sorted(f for file in files for f in check_file(file, index))


# --- fixing --------------------------------------------------------------------------------------

def libcst_requirement() -> str:
    """The pinned LibCST line of this file's header (`libcst==X`)."""
    return next(line for line in script_metadata(Path(__file__))["dependencies"] if line.startswith("libcst=="))


def import_target(name: str) -> str:
    """The module to import so that dotted `name` can be spelled in full (its parent if that is a module)."""
    parent = name.rpartition(".")[0]
    try:
        return parent if parent and importlib.util.find_spec(parent) is not None else name.partition(".")[0]
    except (ImportError, ValueError):
        return name.partition(".")[0]


def make_fixer(cst: Any, codemod: Any) -> type:
    """The LibCST transformer of --fix (a factory, since LibCST is imported only when --fix is given)."""
    from libcst.codemod import visitors
    from libcst.metadata import PositionProvider as position

    def chain(node: Any) -> str | None:
        parts = []
        while isinstance(node, cst.Attribute):
            parts.append(node.attr.value)
            node = node.value
        return ".".join([node.value, *reversed(parts)]) if isinstance(node, cst.Name) else None

    class Fixer(codemod.VisitorBasedCodemodCommand):  # type: ignore[misc, name-defined]
        """Rewrites attribute chains, import lines and call keywords of pure renames; keeps the rest."""

        METADATA_DEPENDENCIES = (position,)

        def __init__(self, context: Any, bindings: dict[str, str], renames: dict[str, str],
                     keywords: dict[tuple[str, str], str]) -> None:
            super().__init__(context)
            self.bindings, self.renames, self.keywords = dict(bindings), renames, keywords
            self.changes: list[tuple[int, int, str, str]] = []

        def record(self, node: Any, old: str, new: str) -> None:
            start = self.get_metadata(position, node).start
            self.changes.append((start.line, start.column + 1, old, new))

        def expand(self, name: str | None) -> str | None:
            head, dot, rest = (name or "").partition(".")
            return self.bindings[head] + dot + rest if head in self.bindings else None

        def renamed(self, name: str) -> str | None:
            """The new name of `name` or of the longest renamed prefix of it (a moved module)."""
            return next((self.renames[p] + name[len(p):] for p in prefixes(name) if p in self.renames), None)

        def spell(self, text: str, new: str, node: Any) -> str:
            """How to write `new` here: through this chain's own prefix, another import, or a new import."""
            parts = text.split(".")
            for end in range(len(parts) - 1, 0, -1):
                target = self.expand(".".join(parts[:end])) or ""
                if new.startswith(target + "."):
                    return ".".join(parts[:end]) + new[len(target):]
            visitors.RemoveImportsVisitor.remove_unused_import_by_node(self.context, node)
            for local, target in sorted(self.bindings.items(), key=lambda item: -len(item[1])):
                if new.startswith(target + ".") and self.renamed(target) is None:
                    return local + new[len(target):]
            visitors.AddImportsVisitor.add_needed_import(self.context, import_target(new))
            self.bindings[new.partition(".")[0]] = new.partition(".")[0]
            return new

        def visit_Import(self, node: Any) -> bool:
            return False  # import lines are rewritten as a whole in leave_Import*

        def visit_ImportFrom(self, node: Any) -> bool:
            return False

        def leave_Attribute(self, original: Any, updated: Any) -> Any:
            text = chain(original)
            old = self.expand(text)
            if old not in self.renames:
                return updated
            self.record(original, old, self.renames[old])
            return cst.parse_expression(self.spell(text or "", self.renames[old], original))

        def leave_Call(self, original: Any, updated: Any) -> Any:
            callee = self.expand(chain(original.func)) or ""
            args = list(updated.args)
            for i, arg in enumerate(args):
                keyword = arg.keyword.value if arg.keyword else ""
                for name in (callee, self.renamed(callee)):
                    if new := self.keywords.get((name or "", keyword)):
                        self.record(original.args[i], f"{name}({keyword}=)", f"{name}({new}=)")
                        args[i] = arg.with_changes(keyword=cst.Name(new))
                        break
            return updated.with_changes(args=args)

        def leave_Import(self, original: Any, updated: Any) -> Any:
            names = list(updated.names)
            for i, alias in enumerate(names):
                if new := self.renamed(chain(alias.name) or ""):
                    self.record(original.names[i], chain(alias.name), new)
                    names[i] = alias.with_changes(name=cst.parse_expression(new))
            return updated.with_changes(names=names)

        def leave_ImportFrom(self, original: Any, updated: Any) -> Any:
            if updated.relative or updated.module is None or isinstance(updated.names, cst.ImportStar):
                return updated
            module, keep, moved = chain(updated.module), [], []
            for i, alias in enumerate(updated.names):
                full = f"{module}.{alias.name.value}"
                new = self.renamed(full)
                if not new or "." not in new:
                    keep.append(alias)
                    continue
                self.record(original.names[i], full, new)
                local = alias.asname.name.value if alias.asname else alias.name.value
                moved.append((alias, *new.rpartition(".")[::2], local))
            if not moved:
                return updated
            if not keep and len({m[1] for m in moved}) == 1:  # rewrite the line in place
                names = [alias.with_changes(name=cst.Name(name), asname=None if local == name else
                                            alias.asname or cst.AsName(name=cst.Name(local)))
                         for alias, _, name, local in moved]
                return updated.with_changes(module=cst.parse_expression(moved[0][1]), names=names)
            for _, new_module, name, local in moved:
                visitors.AddImportsVisitor.add_needed_import(self.context, new_module, name,
                                                             None if local == name else local)
            if not keep:
                return cst.RemoveFromParent()
            keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(names=keep)

    return Fixer


def fix_files(files: Sequence[Path], index: Index) -> list[str]:
    """Rewrite the pure renames in `files` in place with LibCST; one `path:line:col: fixed ...` per change."""
    try:  # imported here: only --fix needs LibCST
        import libcst as cst
        from libcst import codemod
    except ModuleNotFoundError as exc:
        raise UsageError(f"--fix needs LibCST ({exc}); install it with: pip install '{libcst_requirement()}'") from exc
    renames = {n: c.new_name for n, c in index.names.items() if c.rename and c.new_name and not c.keyword}
    keywords = {(n, c.keyword): c.new_keyword for n, cs in index.calls.items() for c in cs
                if c.rename and c.new_keyword and c.new_name == n}
    fixer_class = make_fixer(cst, codemod)
    done = []
    for file in files:
        try:
            source = file.read_text(encoding="utf-8")
            bindings = import_bindings(ast.parse(source))
            module = cst.parse_module(source)
        except (SyntaxError, ValueError, cst.ParserSyntaxError):
            continue  # reported as unparsable by the check
        fixer = fixer_class(codemod.CodemodContext(filename=str(file)), bindings, renames, keywords)
        code = fixer.transform_module(module).code
        if code != source:
            file.write_text(code, encoding="utf-8")
            done += [f"{file}:{line}:{col}: fixed {old} -> {new}" for line, col, old, new in sorted(fixer.changes)]
    return done


# --- main ----------------------------------------------------------------------------------------

def build_parser() -> CliParser:
    epilog = EPILOG.replace("{libcst}", libcst_requirement())
    parser = CliParser(prog="jax_currency_check.py", description=__doc__, epilog=epilog)
    parser.add_argument("paths", nargs="+", metavar="PATH", help="Python files or folders to check")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, metavar="FILE",
                        help=f"the api_changes.toml to read (default: {DEFAULT_DATA})")
    parser.add_argument("--json", action="store_true", help="print a JSON list of findings instead of lines")
    parser.add_argument("--fix", action="store_true",
                        help="rewrite pure renames in place with LibCST, print them, then report what is left")
    return parser


def build_index(data: Path) -> tuple[Index, str]:
    """The data file's changes, then the installed jax's deprecation tables; and a note if those were skipped."""
    index = Index()
    for change in load_data(data):
        index.add(change)
    table, note = installed_jax_changes()
    for change in table:
        index.add(change)
    return index, note


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    files = python_files(args.paths)
    index, note = build_index(args.data)
    if note:
        print(note, file=sys.stderr)
    if args.fix:
        changes = fix_files(files, index)
        print("\n".join(changes) or "fixed nothing", file=sys.stderr if args.json else sys.stdout)
    findings = check(files, index)
    if args.json:
        print_json([asdict(f) for f in findings])
    else:
        for finding in findings:
            print(finding.text())
    return 1 if any(f.kind in FAILING for f in findings) else 0


if __name__ == "__main__":
    run_cli(main)
