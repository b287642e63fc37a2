"""Fetch every release between the old and the pinned versions and read them statically (issues 26, 29).

For jax, flax, optax, orbax-checkpoint and numpyro, every release on PyPI from the old pin (the last
release before July 2025, see dev/api_delta.py) to the pinned one is downloaded once as a wheel into
a cache OUTSIDE the checkout (``${XDG_CACHE_HOME:-~/.cache}/jax-pro/release-history/``) with

    pip download --no-deps --only-binary :all: <package>==<version> -d <cache>

(PyPI only: this machine's extra indexes and find-links are switched off). The list of releases is
PyPI's JSON API (``https://pypi.org/pypi/<package>/json``): final releases with a wheel that is not
yanked. Nothing is installed or imported: each wheel's ``.py`` files are parsed with ``ast``.

For each name it is asked about (every old and new form of api_changes.toml, every name the data
file already has, every deprecation any release in the window declares, and every dotted replacement
their messages name), it records the name's state in each release:

  absent    not there: no binding in the module, no class attribute, no parameter
  module    a submodule its parent does not import (``import a.b`` works, ``a.b`` after ``import a``
            may not)
  present   there, and nothing in its source warns
  warns     a deprecation: a ``_deprecations`` table entry whose function is not None; a module
            ``__getattr__`` branch on the name that warns; a ``warnings.warn(..., DeprecationWarning |
            PendingDeprecationWarning | FutureWarning)`` or jax ``deprecations.warn(...)`` call in its
            body (a class: in its own ``__init__``/``__new__``/``__post_init__``); a deprecating
            decorator or wrapper (optax's ``warn_deprecated_function``, ``deprecated(...)``); for a
            keyword, a warning inside an ``if`` that tests that the keyword was passed
  fails     a ``_deprecations`` entry whose function is None (AttributeError), or for a keyword a
            ``raise`` inside an ``if`` that tests only that the keyword was passed
  kwargs    (keywords only) no such parameter, but the callable takes ``**kwargs``: it goes on
  unknown   the name leads into something the sources do not describe (a class from a compiled
            extension, an attribute of a value)

with the message of a warning or failure, the replacement that message names (as written), and the
`if` tests around a warning: ``warns_if_keyword`` when a test checks that a keyword was passed
(``slice_index is not None``, ``not isinstance(a, DeprecatedArg)``), ``warns_if`` for the others, as
written. The data file keeps only the releases where a state changes (``timeline``, ``dumps``), so
CI needs neither the network nor the wheels. jaxpro.api_changes.computed turns a timeline into the
versions of api_changes.toml.

Limits: a warning in a helper that a def calls is the helper's, not the def's (api_changes.toml
keys such warnings by the helper, as dev/api_delta.py does); names made at run time (``globals()``,
``setattr``) are not seen; a class attribute is looked for in the class and its bases inside the
same wheel; a warning of a def that warns more than once is told apart from the others by its text.

Usage (from the repository root, with the pinned interpreter):

    .venv/bin/python dev/release_history.py --write evals/release_history.json
    .venv/bin/python dev/release_history.py --name jax.numpy.fix --name 'jax.numpy.clip(a=)'
    .venv/bin/python dev/release_history.py --check evals/release_history.json  # exit 1 if stale
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import difflib
import json
import os
import re
import subprocess
import sys
import tomllib
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version

from jaxpro.repo import REPO

HISTORY = REPO / "evals" / "release_history.json"
DATA = REPO / "api_changes.toml"
PYPI_JSON = "https://pypi.org/pypi/{package}/json"
# The import packages inside each distribution's wheel.
TOP_PACKAGES: dict[str, tuple[str, ...]] = {
    "jax": ("jax",),
    "flax": ("flax",),
    "optax": ("optax",),
    "orbax-checkpoint": ("orbax",),
    "numpyro": ("numpyro",),
}


def cache_dir() -> Path:
    """Where the wheels live: outside the checkout."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "jax-pro" / "release-history"


def pip_env() -> dict[str, str]:
    """pip's environment: PyPI only, as dev/api_delta.py does."""
    return {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_FIND_LINKS": "", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def pypi_releases(package: str) -> dict[str, list[dict]]:
    """PyPI's JSON API: every release of `package` with its files."""
    with urllib.request.urlopen(PYPI_JSON.format(package=package), timeout=60) as response:
        return json.load(response)["releases"]


def window(releases: dict[str, list[dict]], old: str, new: str) -> tuple[list[str], list[str]]:
    """(the final releases from `old` to `new` with an unyanked wheel, oldest first; those left out)."""
    kept, skipped = [], []
    for version in sorted(releases, key=Version):
        if not Version(old) <= Version(version) <= Version(new) or Version(version).is_prerelease:
            continue
        wheels = [f for f in releases[version] if f["packagetype"] == "bdist_wheel" and not f.get("yanked")]
        (kept if wheels else skipped).append(version)
    return kept, skipped


def wheel_of(package: str, version: str, cache: Path) -> Path:
    """The cached wheel of `package==version`, downloaded with pip if it is not there yet."""
    stem = package.replace("-", "_")
    found = sorted(cache.glob(f"{stem}-{version}-*.whl"))
    if found:
        return found[0]
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
                    f"{package}=={version}", "-d", str(cache)], check=True, env=pip_env())
    found = sorted(cache.glob(f"{stem}-{version}-*.whl"))
    if not found:
        raise RuntimeError(f"pip downloaded no wheel named {stem}-{version}-*.whl into {cache}")
    return found[0]


# --- one release's sources ------------------------------------------------------------------------

WARNING_CATEGORIES = ("DeprecationWarning", "PendingDeprecationWarning", "FutureWarning")


@dataclass(frozen=True)
class State:
    """What one release says about one name (see the module docstring for `state`)."""

    state: str
    message: str = ""
    replacement: str = ""
    warns_if_keyword: str = ""
    warns_if: str = ""
    default: str = ""

    def record(self) -> dict[str, str]:
        """The non-empty fields, as stored in the data file."""
        return {k: v for k, v in dataclasses.asdict(self).items() if v}


@dataclass
class Binding:
    """A top-level (or class-body) name: a def, class, value, field, import or from-import."""

    kind: str  # def | class | value | field | module | from
    nodes: list[ast.AST] = field(default_factory=list)
    source: str = ""  # the module of an import, the module a from-import reads
    name: str = ""  # the name a from-import reads


@dataclass
class ModuleInfo:
    """The parts of a module's source that decide what `module.name` is."""

    name: str
    bindings: dict[str, Binding]
    stars: list[str]
    deprecations: dict[str, tuple[ast.expr, ast.expr]]  # _deprecations: name -> (message, function)
    getattr: ast.FunctionDef | None


@dataclass
class Target:
    """What a dotted path leads to; `state` carries a deprecation met on the way."""

    kind: str  # module | def | class | value | field | opaque
    module: str = ""
    nodes: list[ast.AST] = field(default_factory=list)
    state: State | None = None
    bound: bool = True  # False: a submodule its parent does not import (`import a.b` still works)


class Release:
    """One wheel's Python sources, parsed on demand (never imported)."""

    def __init__(self, package: str, version: str, wheel: Path) -> None:
        self.package, self.version = package, version
        self.archive = zipfile.ZipFile(wheel)
        self.files: dict[str, str] = {}  # module name -> path in the wheel
        self.packages: set[str] = set()
        for path in self.archive.namelist():
            if path.endswith(".py") and ".dist-info/" not in path:
                parts = path.removesuffix(".py").split("/")
                if parts[-1] == "__init__":
                    parts.pop()
                    self.packages.add(".".join(parts))
                self.files[".".join(parts)] = path
        for name in list(self.files):  # folders without __init__.py are namespace packages
            parts = name.split(".")
            for end in range(1, len(parts)):
                prefix = ".".join(parts[:end])
                if prefix not in self.files:
                    self.files[prefix] = ""
                    self.packages.add(prefix)
        self._modules: dict[str, ModuleInfo | None] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self.class_bodies: dict[int, ModuleInfo] = {}

    def source(self, module: str) -> str:
        path = self.files[module]
        return self.archive.read(path).decode("utf-8", errors="replace") if path else ""

    def tree(self, module: str) -> ast.Module | None:
        if module not in self._trees:
            try:
                self._trees[module] = ast.parse(self.source(module))
            except SyntaxError:
                self._trees[module] = None
        return self._trees[module]

    def module(self, name: str) -> ModuleInfo | None:
        if name not in self._modules:
            tree = self.tree(name) if name in self.files else None
            self._modules[name] = read_module(name, name in self.packages, tree) if tree else None
        return self._modules[name]


def absolute(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute module of `from <level dots><target> import ...` written in `module`."""
    if not level:
        return target or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([target] if target else []))


def type_checking(test: ast.expr) -> bool:
    """`if TYPE_CHECKING:` / `if typing.TYPE_CHECKING:` (its body never runs)."""
    return ast.unparse(test).split(".")[-1] == "TYPE_CHECKING"


def read_statements(statements: list[ast.stmt], module: str, is_package: bool, info: ModuleInfo) -> None:
    """Bind the names `statements` bind, in order, descending into if/try/with (not into defs)."""
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            old = info.bindings.get(node.name)
            nodes = old.nodes if old and old.kind == "def" else []
            info.bindings[node.name] = Binding("def", [*nodes, node])  # a property's getter and setter
        elif isinstance(node, ast.ClassDef):
            info.bindings[node.name] = Binding("class", [node])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    info.bindings[alias.asname] = Binding("module", source=alias.name)
                else:
                    head = alias.name.split(".")[0]
                    info.bindings[head] = Binding("module", source=head)
        elif isinstance(node, ast.ImportFrom):
            source = absolute(module, is_package, node.level, node.module)
            for alias in node.names:
                if alias.name == "*":
                    info.stars.append(source)
                else:
                    info.bindings[alias.asname or alias.name] = Binding("from", source=source, name=alias.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            read_assignment(node, info)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    info.bindings.pop(target.id, None)
        elif isinstance(node, ast.If):
            if not type_checking(node.test):
                read_statements(node.body, module, is_package, info)
            read_statements(node.orelse, module, is_package, info)
        elif isinstance(node, ast.Try):
            for block in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                read_statements(block, module, is_package, info)
        elif isinstance(node, ast.With):
            read_statements(node.body, module, is_package, info)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            read_table_update(node.value, info)


def read_assignment(node: ast.Assign | ast.AnnAssign, info: ModuleInfo) -> None:
    """`x = value`, `x: T = value`, `x: T` (a field), `_deprecations = {...}`, `_deprecations["x"] = (...)`."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        if isinstance(target, ast.Name):
            if target.id == "_deprecations" and isinstance(node.value, ast.Dict):
                info.deprecations.update(table_entries(node.value))
            elif node.value is None:
                info.bindings[target.id] = Binding("field", [node])
            elif rewraps(node.value, target.id, info):
                continue  # `jit = api_boundary(jit, ...)`: still that def, wrapped
            else:
                info.bindings[target.id] = Binding("value", [node.value])
        elif isinstance(target, ast.Tuple):
            for element in target.elts:
                if isinstance(element, ast.Name):
                    info.bindings[element.id] = Binding("value", [])
        elif isinstance(target, ast.Subscript) and ast.unparse(target.value) == "_deprecations" \
                and isinstance(target.slice, ast.Constant) and isinstance(node.value, ast.Tuple) \
                and len(node.value.elts) == 2:
            info.deprecations[str(target.slice.value)] = (node.value.elts[0], node.value.elts[1])


def rewraps(value: ast.expr, name: str, info: ModuleInfo) -> bool:
    """Whether `name = wrap(name, ...)` (or `wrap(...)(name)`) wraps a def or class bound just before."""
    if not isinstance(value, ast.Call) or deprecating_call(value) or name not in info.bindings:
        return False
    return info.bindings[name].kind in ("def", "class") and any(
        isinstance(a, ast.Name) and a.id == name for a in value.args)


def table_entries(table: ast.Dict) -> dict[str, tuple[ast.expr, ast.expr]]:
    """The `"name": (message, function)` entries of a `_deprecations` dict literal."""
    entries = {}
    for key, value in zip(table.keys, table.values):
        if isinstance(key, ast.Constant) and isinstance(value, ast.Tuple) and len(value.elts) == 2:
            entries[str(key.value)] = (value.elts[0], value.elts[1])
    return entries


def read_table_update(call: ast.Call, info: ModuleInfo) -> None:
    """`_deprecations.update({...})`."""
    if ast.unparse(call.func) == "_deprecations.update" and call.args and isinstance(call.args[0], ast.Dict):
        info.deprecations.update(table_entries(call.args[0]))


def read_module(name: str, is_package: bool, tree: ast.Module) -> ModuleInfo:
    info = ModuleInfo(name, {}, [], {}, None)
    read_statements(tree.body, name, is_package, info)
    getattr_binding = info.bindings.get("__getattr__")
    if getattr_binding and getattr_binding.kind == "def":
        info.getattr = getattr_binding.nodes[-1]  # type: ignore[assignment]
    return info


# --- deprecation signals in a body ----------------------------------------------------------------

@dataclass(frozen=True)
class Event:
    """A deprecation warning or a raise in a def, with the `if` tests around it (test, negated)."""

    kind: str  # warn | raise
    message: str
    tests: tuple[tuple[ast.expr, bool], ...]
    line: int


def literal(node: ast.AST | None) -> str:
    """A message as written: f-string fields and other expressions shown as {...}."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(literal(v) if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                       for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return literal(node.left) + ("" if isinstance(node.op, ast.Add) else " % ") + literal(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return literal(node.func.value)
    if isinstance(node, ast.Tuple):  # implicit concatenation split over lines in parentheses is a Constant
        return " ".join(literal(e) for e in node.elts)
    return "{" + ast.unparse(node) + "}"


def tidy(message: str) -> str:
    return " ".join(message.split())


def warning_message(call: ast.Call) -> str | None:
    """The message of a deprecation warning call, or None if `call` is none."""
    func = ast.unparse(call.func)
    if func.endswith("deprecations.warn") or func == "deprecations_lib.warn":  # jax: warn(id, message)
        return tidy(literal(call.args[1])) if len(call.args) > 1 else ""
    if func.split(".")[-1] != "warn":
        return None
    categories = [*call.args[1:2], *(k.value for k in call.keywords if k.arg == "category")]
    if not any(ast.unparse(c).split(".")[-1] in WARNING_CATEGORIES for c in categories):
        return None
    message = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "message"), None)
    return tidy(literal(message))


def raise_message(node: ast.Raise) -> str:
    exc = node.exc
    if isinstance(exc, ast.Call) and exc.args:
        return tidy(f"{ast.unparse(exc.func)}: {literal(exc.args[0])}")
    return tidy(ast.unparse(exc)) if exc is not None else ""


def events(statements: list[ast.stmt], tests: tuple = ()) -> list[Event]:
    """Deprecation warnings and raises in `statements`, not descending into nested defs or classes."""
    found: list[Event] = []
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.If):
            found += events(node.body, (*tests, (node.test, False)))
            found += events(node.orelse, (*tests, (node.test, True)))
            continue
        if isinstance(node, ast.Raise):
            found.append(Event("raise", raise_message(node), tests, node.lineno))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.stmt, ast.ExceptHandler)):
                continue
            for sub in walk_expression(child):
                message = warning_message(sub) if isinstance(sub, ast.Call) else None
                if message is not None:
                    found.append(Event("warn", message, tests, sub.lineno))
        for block in ("body", "orelse", "finalbody"):
            found += events(getattr(node, block, []), tests)
        for handler in getattr(node, "handlers", []):
            found += events(handler.body, tests)
    return found


def walk_expression(node: ast.AST):
    """ast.walk that stays out of lambdas."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.Lambda):
            yield from walk_expression(child)


def deprecating_call(call: ast.expr) -> tuple[str, str] | None:
    """(message, replacement) when `call` makes a deprecated callable: a decorator such as
    `functools.partial(warn_deprecated_function, replacement='g')`, `deprecated('Use save instead.')`,
    or a wrapper such as flax's `deprecated(new_fn)`."""
    if not isinstance(call, ast.Call):
        return None
    func, args, keywords = call.func, list(call.args), list(call.keywords)
    if ast.unparse(func).split(".")[-1] == "partial" and args:
        func, args = args[0], args[1:]
    maker = ast.unparse(func).split(".")[-1]
    if "deprecat" not in maker or "getattr" in maker:  # not the `__getattr__` factory of a table
        return None
    named = {k.arg: k.value for k in keywords if k.arg}
    replacement = literal(named["replacement"]) if "replacement" in named else ""
    text = next((literal(a) for a in args if isinstance(a, (ast.Constant, ast.JoinedStr))), "")
    if not replacement and args and isinstance(args[0], (ast.Name, ast.Attribute)):
        replacement = ast.unparse(args[0])  # flax: old = deprecated(new)
    message = tidy(text or ast.unparse(call))
    return message, replacement


def decorator_deprecation(node: ast.AST) -> tuple[str, str] | None:
    """The deprecating decorator of a def or class, if any."""
    for decorator in getattr(node, "decorator_list", []):
        found = deprecating_call(decorator)
        if found:
            return found
    return None


# --- resolving a dotted name in one release ---------------------------------------------------------

DEPTH = 40  # re-export chains are short; this only stops import cycles


def resolve(release: Release, path: str) -> Target | None:
    """What `path` (a module, then attributes) is in `release`; None if it is not there.

    A deprecation met on the way (a `_deprecations` entry, a module `__getattr__` branch) is kept on
    the target; one that fails ends the walk."""
    parts = path.split(".")
    if parts[0] not in release.files:
        return None
    target: Target | None = Target("module", parts[0])
    for part in parts[1:]:
        passed, owner = target.state, target.kind
        target = attribute(release, target, part, 0)
        if target is None or (target.state and target.state.state == "fails"):
            return target
        if target.kind == "unknown" and owner in ("module", "class"):
            target = Target("external", state=target.state)  # bound here to a compiled or computed object
        if passed and passed.state == "warns" and not target.state:
            target = dataclasses.replace(target, state=passed)
    return target


def attribute(release: Release, target: Target, name: str, depth: int) -> Target | None:
    if depth > DEPTH:
        return Target("unknown")
    if target.kind == "module":
        return lookup(release, target.module, name, depth + 1)
    if target.kind == "class":
        return class_attribute(release, target, name, depth + 1)
    return Target("unknown")  # an attribute of a function, a value or something outside the wheel


def lookup(release: Release, module: str, name: str, depth: int) -> Target | None:
    """`module.name` as Python finds it: a binding, a star import, the `_deprecations` table behind
    `__getattr__`, a submodule, a module `__getattr__` branch on the name."""
    info = release.module(module)
    if info is None or depth > DEPTH:
        return Target("external") if info is None else Target("unknown")
    if name in info.bindings:
        return from_binding(release, module, info.bindings[name], depth + 1)
    for star in info.stars:
        if not name.startswith("_") and star in release.files:
            found = lookup(release, star, name, depth + 1)
            if found is not None:
                return found
    if name in info.deprecations:
        return table_target(release, module, *info.deprecations[name], depth=depth + 1)
    if f"{module}.{name}" in release.files:
        return Target("module", f"{module}.{name}", bound=False)
    if info.getattr is not None:
        state = getattr_branch(info.getattr, name)
        if state is not None:
            return Target("external", module, state=state)
    return None


def table_target(release: Release, module: str, message: ast.expr, function: ast.expr, depth: int) -> Target:
    """A `_deprecations` entry: fails when its function is None, else warns and is that function."""
    text = tidy(literal(message))
    if isinstance(function, ast.Constant) and function.value is None:
        return Target("external", module, state=State("fails", text, replacement_in(text)))
    found = expression_target(release, module, function, depth) or Target("external", module)
    return dataclasses.replace(found, state=State("warns", text, replacement_in(text)))


def from_binding(release: Release, module: str, binding: Binding, depth: int) -> Target:
    if binding.kind in ("def", "class", "field"):
        return Target(binding.kind, module, binding.nodes)
    if binding.kind == "module":
        return Target("module", binding.source) if binding.source in release.files else Target("external")
    if binding.kind == "from":
        if f"{binding.source}.{binding.name}" in release.files:  # `from pkg import submodule`
            return Target("module", f"{binding.source}.{binding.name}")
        if binding.source not in release.files:
            return Target("external")
        found = lookup(release, binding.source, binding.name, depth + 1)
        return found if found is not None else Target("unknown")
    value = binding.nodes[0] if binding.nodes else None
    wrapped = deprecating_call(value) if isinstance(value, ast.Call) else None
    if wrapped:
        return Target("external", module, [value], State("warns", wrapped[0], wrapped[1]))
    if isinstance(value, (ast.Name, ast.Attribute)):
        return expression_target(release, module, value, depth + 1) or Target("external", module)
    return Target("value", module, [value] if value is not None else [])


def expression_target(release: Release, module: str, expr: ast.expr, depth: int) -> Target | None:
    """A name or attribute chain written in `module` (an alias, a base class, a table's function)."""
    if depth > DEPTH:
        return Target("unknown")
    if isinstance(expr, ast.Name):
        return lookup(release, module, expr.id, depth + 1)
    if isinstance(expr, ast.Attribute):
        owner = expression_target(release, module, expr.value, depth + 1)
        return attribute(release, owner, expr.attr, depth + 1) if owner is not None else None
    if isinstance(expr, ast.Subscript):  # Generic[T], Protocol[T]
        return expression_target(release, module, expr.value, depth + 1)
    return None


def class_body(release: Release, module: str, node: ast.ClassDef) -> ModuleInfo:
    """The names a class body binds (cached per node)."""
    if id(node) not in release.class_bodies:
        info = ModuleInfo(f"{module}.{node.name}", {}, [], {}, None)
        read_statements(node.body, module, False, info)
        release.class_bodies[id(node)] = info
    return release.class_bodies[id(node)]


def class_attribute(release: Release, target: Target, name: str, depth: int) -> Target | None:
    """A class attribute: the class body, then its bases inside the wheel (outside ones add nothing)."""
    node = target.nodes[0]
    assert isinstance(node, ast.ClassDef)
    body = class_body(release, target.module, node)
    if name in body.bindings:
        binding = body.bindings[name]
        value = binding.nodes[0] if binding.kind == "value" and binding.nodes else None
        if isinstance(value, ast.Name) and value.id in body.bindings and value.id != name:  # `to_state = copy`
            return class_attribute(release, target, value.id, depth + 1)
        found = from_binding(release, target.module, binding, depth + 1)
        return dataclasses.replace(found, module=target.module) if found.kind in ("def", "field") else found
    for base in node.bases:
        parent = expression_target(release, target.module, base, depth + 1)
        if parent is not None and parent.kind == "class" and depth < DEPTH:
            found = class_attribute(release, parent, name, depth + 1)
            if found is not None:
                return found
    return None  # a class's own __getattr__ serves its instances, not `Class.name`


def getattr_branch(function: ast.FunctionDef, name: str) -> State | None:
    """A module `__getattr__`'s answer for `name`: `if name == "X":` with a warning or a raise."""
    argument = function.args.args[0].arg if function.args.args else "name"
    for node in ast.walk(function):
        if isinstance(node, ast.If) and name in compared_names(node.test, argument):
            found = events(node.body)
            fail = next((e for e in found if e.kind == "raise"), None)
            warn = next((e for e in found if e.kind == "warn"), None)
            if warn:
                return State("warns", warn.message, replacement_in(warn.message))
            if fail:
                return State("fails", fail.message, replacement_in(fail.message))
            return State("present")
    return None


def compared_names(test: ast.expr, argument: str) -> set[str]:
    """The strings `test` compares `argument` to: `name == "X"`, `name in ("X", "Y")`."""
    if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == argument):
        return set()
    found = set()
    for op, right in zip(test.ops, test.comparators):
        if isinstance(op, ast.Eq) and isinstance(right, ast.Constant):
            found.add(str(right.value))
        elif isinstance(op, ast.In) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
            found |= {str(e.value) for e in right.elts if isinstance(e, ast.Constant)}
    return found


# --- what a message names -------------------------------------------------------------------------

CUE = re.compile(r"(?:\b[Uu]se(?:d)?|\bin favou?r of|\breplaced by|\bmoved to|\bswitch to|\bmigrate to)\s+(?:the\s+)?"
                 r"(?::(?:class|func|meth|attr|mod):)?[`'\"]*([A-Za-z_][\w.]*\w(?:\[[^\]]{0,20}\])?"
                 r"(?:\((?:[^()]|\([^()]*\)){0,60}\))?)")
NOT_NAMES = frozenset({"a", "an", "it", "this", "that", "them", "instead", "indexing", "with", "one", "either"})


def replacement_in(message: str) -> str:
    """The replacement a deprecation message names, as the message spells it ("jax.enable_x64(False)",
    "optax.tree.norm", "partition_index"); "" when it names none."""
    if "respectively" in message:  # "use 'arr', 'min' or 'max' respectively": no single name
        return ""
    for match in CUE.finditer(message):
        name = match.group(1)
        if name.split("(")[0].lower() not in NOT_NAMES:
            return name
    return ""


# --- the state of a name in one release -------------------------------------------------------------

FORM = re.compile(r"^([A-Za-z_][\w.]*?)(?:#(\d+))?(?:\((\w+)=(.*)\))?$")


@dataclass(frozen=True)
class Form:
    """A name as api_changes.toml writes it: `pkg.f`, `pkg.C.m#2` (its 2nd warning), `pkg.f(kw=)`."""

    path: str
    index: int = 1
    keyword: str = ""

    @property
    def text(self) -> str:
        return self.path + (f"#{self.index}" if self.index > 1 else "") + (f"({self.keyword}=)" if self.keyword else "")


def parse_form(text: str) -> Form | None:
    """The Form of a toml `old`/`new`, or None for prose ("jax.numpy.empty returns zeros")."""
    match = FORM.match(text.strip())
    if not match or "." not in match.group(1):
        return None
    return Form(match.group(1), int(match.group(2) or 1), match.group(3) or "")


@dataclass(frozen=True)
class Parameters:
    """A callable's parameters (name -> default source, "" when required), its **kwargs name, its body."""

    names: dict[str, str]
    var_keyword: str
    body: tuple[Event, ...]


def callable_parameters(release: Release, target: Target) -> Parameters | None:
    """The parameters of a function, of a class's __init__, or of a dataclass / NamedTuple's fields."""
    if target.kind == "def":
        node = implementation(target.nodes)
        return function_parameters(node) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if target.kind != "class":
        return None
    init = class_attribute(release, target, "__init__", 0)
    if init is not None and init.kind == "def":
        return function_parameters(implementation(init.nodes))  # type: ignore[arg-type]
    fields = class_fields(release, target, 0)
    if fields is None:
        return None
    post_init = class_attribute(release, target, "__post_init__", 0)
    body = tuple(events(post_init.nodes[0].body)) if post_init is not None and post_init.kind == "def" else ()
    return Parameters(fields, "", body)


def is_setter(node: ast.AST) -> bool:
    return any(ast.unparse(d).endswith((".setter", ".deleter")) for d in getattr(node, "decorator_list", []))


def is_overload(node: ast.AST) -> bool:
    return any(ast.unparse(d).split(".")[-1] == "overload" for d in getattr(node, "decorator_list", []))


def implementation(nodes: list[ast.AST]) -> ast.AST:
    """The def that runs among a name's defs: not an @overload stub, not a property's setter."""
    real = [n for n in nodes if not is_setter(n) and not is_overload(n)]
    return real[-1] if real else nodes[-1]


def function_parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Parameters:
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [""] * (len(positional) - len(args.defaults)) + [ast.unparse(d) for d in args.defaults]
    names = {a.arg: d for a, d in zip(positional, defaults) if a not in args.posonlyargs and a.arg not in ("self", "cls")}
    names |= {a.arg: ast.unparse(d) if d is not None else "" for a, d in zip(args.kwonlyargs, args.kw_defaults)}
    return Parameters(names, args.kwarg.arg if args.kwarg else "", tuple(events(node.body)))


def class_fields(release: Release, target: Target, depth: int) -> dict[str, str] | None:
    """The annotated fields of a dataclass-like class and its bases in the wheel (None: not one)."""
    node = target.nodes[0]
    assert isinstance(node, ast.ClassDef)
    fields: dict[str, str] = {}
    for base in node.bases:
        parent = expression_target(release, target.module, base, 0)
        if parent is not None and parent.kind == "class" and depth < 10:
            fields |= class_fields(release, parent, depth + 1) or {}
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                and "ClassVar" not in ast.unparse(statement.annotation):
            fields[statement.target.id] = ast.unparse(statement.value) if statement.value is not None else ""
    marked = any("dataclass" in ast.unparse(d) for d in node.decorator_list) or any(
        ast.unparse(b).split(".")[-1] in ("NamedTuple", "PyTreeNode") for b in node.bases)
    return fields if fields or marked else None


def names_in(test: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}


def strings_in(test: ast.expr) -> set[str]:
    return {str(n.value) for n in ast.walk(test) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def given_keyword(test: ast.expr, negated: bool, parameters: set[str]) -> str:
    """The parameter whose being passed `test` checks: `k is not None`, `k is not _UNSET`,
    `not isinstance(k, DeprecatedArg)`, `"k" in kwargs` (with `negated`, the else branch of the
    opposite test); "" for any other test."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return given_keyword(test.operand, not negated, parameters)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(left, ast.Name) and left.id in parameters and isinstance(op, (ast.IsNot, ast.Is)):
            return left.id if isinstance(op, ast.IsNot) != negated else ""
        if isinstance(left, ast.Constant) and isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, ast.Name):
            return str(left.value) if isinstance(op, ast.In) != negated else ""
    if isinstance(test, ast.Call) and ast.unparse(test.func) == "isinstance" and test.args \
            and isinstance(test.args[0], ast.Name) and test.args[0].id in parameters \
            and "Deprecated" in ast.unparse(test.args[1]):
        return test.args[0].id if negated else ""
    return ""


def conditions(event: Event, parameters: set[str], keyword: str = "") -> tuple[str, str]:
    """(warns_if_keyword, warns_if) of an event: the keyword whose being passed makes it warn, and the
    other `if` tests around it as written (`not (...)` for an else branch)."""
    keywords, rest = [], []
    for test, negated in event.tests:
        given = given_keyword(test, negated, parameters)
        if given and given in (keyword or given):
            keywords.append(given)
        elif keyword and keyword in names_in(test) | strings_in(test):
            keywords.append(keyword)
        else:
            rest.append(f"not ({ast.unparse(test)})" if negated else ast.unparse(test))
    return ", ".join(dict.fromkeys(keywords)), " and ".join(rest)


def passed_only(event: Event, keyword: str, parameters: set[str]) -> bool:
    """Whether every `if` around an event tests only that `keyword` was passed."""
    return bool(event.tests) and all(given_keyword(t, n, parameters | {keyword}) == keyword for t, n in event.tests)


def passing_warns(event: Event, keyword: str, parameters: set[str]) -> bool:
    """Whether one `if` around a warning tests that `keyword` was passed (other tests may join it)."""
    if any(given_keyword(t, n, parameters) == keyword for t, n in event.tests):
        return True
    return any(isinstance(t, ast.Call) and keyword in names_in(t) and ast.unparse(t.func) == "any"
               for t, _ in event.tests)  # any(not isinstance(t, DeprecatedArg) for t in (a, a_min))


def own_events(release: Release, target: Target) -> list[Event]:
    """The deprecation signals of a def (all its nodes: a property's getter and setter), a class
    (its decorator, own __init__/__new__/__post_init__) or a module (its top-level statements)."""
    if target.kind == "module":
        tree = release.tree(target.module) if target.module in release.files else None
        return events(tree.body) if tree else []
    found: list[Event] = []
    nodes = list(target.nodes)
    if target.kind == "class" and nodes:
        body = class_body(release, target.module, nodes[0])  # type: ignore[arg-type]
        for name in ("__init__", "__new__", "__post_init__"):
            if name in body.bindings and body.bindings[name].kind == "def":
                found += [e for n in body.bindings[name].nodes for e in events(n.body)]  # type: ignore[attr-defined]
    for node in nodes:
        decorated = decorator_deprecation(node)
        if decorated:
            found.append(Event("warn", decorated[0], (), node.lineno))
        if target.kind == "def":
            found += events(node.body)  # type: ignore[attr-defined]
    return sorted(found, key=lambda e: e.line)


def closest(message: str, references: tuple[str, ...]) -> int:
    """The index of the pinned message `message` is most like (-1 when none is at least 60% alike)."""
    ratios = [difflib.SequenceMatcher(None, message, r).ratio() for r in references]
    best = max(range(len(ratios)), key=ratios.__getitem__)
    return best if ratios[best] >= 0.6 else -1


def matching(warns: list[Event], references: tuple[str, ...], index: int) -> Event | None:
    """The warning of a release that is the pinned `references[index]`: the most alike by text, and
    among pinned warnings with the same text, the same one by order."""
    seen: dict[str, int] = {}
    for event in warns:
        best = closest(event.message, references)
        if best < 0:
            continue
        same = [i for i, text in enumerate(references) if text == references[best]]
        order = seen.get(references[best], 0)
        seen[references[best]] = order + 1
        if order < len(same) and same[order] == index:
            return event
    return None


def plain_state(release: Release, target: Target, form: Form, references: tuple[str, ...]) -> State:
    """The state of a name (no keyword): a failing or warning table entry, else its own warnings."""
    if target.state and target.state.state == "fails":
        return target.state
    warns = [e for e in own_events(release, target) if e.kind == "warn"]
    if references:
        pick = matching(warns, references, form.index - 1)
    elif form.index > 1:
        pick = warns[form.index - 1] if len(warns) >= form.index else None
    else:
        pick = next((e for e in warns if not e.tests), warns[0] if warns else None)
    if pick is not None:
        parameters = callable_parameters(release, target)
        keyword, rest = conditions(pick, set(parameters.names) if parameters else set())
        return State("warns", pick.message, replacement_in(pick.message) or decorated_replacement(target),
                     keyword, rest)
    if target.state:
        return target.state
    if target.kind == "module":
        return State("present" if target.bound else "module")
    return State("unknown" if target.kind == "unknown" else "present")


def decorated_replacement(target: Target) -> str:
    """The `replacement=` a deprecating decorator names (optax's warn_deprecated_function)."""
    for node in target.nodes:
        found = decorator_deprecation(node)
        if found and found[1]:
            return found[1]
    return ""


def keyword_state(release: Release, target: Target, keyword: str) -> State:
    """The state of `keyword` of a callable: a parameter (its default), one that raises or warns when
    passed, one taken by **kwargs, or none."""
    parameters = callable_parameters(release, target)
    if parameters is None:
        return State("unknown")
    if keyword not in parameters.names and not parameters.var_keyword:
        return State("absent")
    names = set(parameters.names) | {parameters.var_keyword, keyword}
    fail = next((e for e in parameters.body if e.kind == "raise" and passed_only(e, keyword, names)), None)
    if fail:
        return State("fails", fail.message, replacement_in(fail.message))
    warn = next((e for e in parameters.body if e.kind == "warn" and passing_warns(e, keyword, names)), None)
    if warn:
        _, rest = conditions(warn, names, keyword)
        return State("warns", warn.message, replacement_in(warn.message), keyword, rest)
    if keyword not in parameters.names:
        return State("kwargs")
    return State("present", default=parameters.names[keyword])


def state_of(release: Release, form: Form, references: tuple[str, ...] = ()) -> State:
    """The state of a toml form in `release`; `references` are the pinned messages of a def that warns
    more than once, to tell its warnings apart by text in other releases."""
    target = resolve(release, form.path)
    if target is None:
        return State("absent")
    if form.keyword:
        if target.state and target.state.state == "fails":
            return target.state
        return keyword_state(release, target, form.keyword)
    return plain_state(release, target, form, references)


# --- every deprecation a release declares -----------------------------------------------------------

def public(module: str) -> bool:
    return not any(part.startswith("_") for part in module.split("."))


def declared(release: Release) -> set[str]:
    """The forms of every deprecation `release` declares: `_deprecations` entries and module
    `__getattr__` branches of public modules, deprecated aliases (`old = deprecated(new)`),
    deprecating decorators, and defs whose body warns (keyed `module.Class.def`, `#2` for a second
    warning, as dev/api_delta.py keys them)."""
    found: set[str] = set()
    for module, path in release.files.items():
        if not path or "/test" in path or path.endswith("_test.py"):
            continue
        text = release.source(module)
        if "deprecat" not in text.lower():
            continue
        info = release.module(module)
        tree = release.tree(module)
        if info is None or tree is None:
            continue
        if public(module):
            found |= {f"{module}.{name}" for name in info.deprecations}
            if info.getattr is not None:
                argument = info.getattr.args.args[0].arg if info.getattr.args.args else "name"
                found |= {f"{module}.{name}" for node in ast.walk(info.getattr) if isinstance(node, ast.If)
                          for name in compared_names(node.test, argument)}
        for name, binding in info.bindings.items():
            if binding.kind == "value" and binding.nodes and deprecating_call(binding.nodes[0]):
                found.add(public_alias(release, module, name) or f"{module}.{name}")
        if module.split(".")[-1] not in ("deprecations", "_deprecations"):  # the helpers themselves
            found |= warning_scopes(tree.body, module)
    return found


def warning_scopes(statements: list[ast.stmt], scope: str) -> set[str]:
    """`scope.def` for each def (at any depth) with a deprecating decorator or a warning in its body;
    a property's getter and setter share a name, so the setter's warning is `#2`."""
    found: set[str] = set()
    counts: dict[str, int] = {}
    for node in statements:
        if isinstance(node, ast.ClassDef):
            inner = f"{scope}.{node.name}"
            if decorator_deprecation(node):
                found.add(inner)
            found |= warning_scopes(node.body, inner)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = f"{scope}.{node.name}"
            start = counts.get(inner, 0)
            counts[inner] = start + int(decorator_deprecation(node) is not None) + sum(
                e.kind == "warn" for e in events(node.body))
            found |= {inner if i == 1 else f"{inner}#{i}" for i in range(start + 1, counts[inner] + 1)}
            found |= warning_scopes(node.body, inner)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            blocks = [getattr(node, b, []) for b in ("body", "orelse", "finalbody")]
            blocks += [h.body for h in getattr(node, "handlers", [])]
            for block in blocks:
                found |= warning_scopes(block, scope)
    return found


def public_alias(release: Release, module: str, name: str) -> str:
    """The shortest public path that re-exports `module.name`, or ""."""
    top = module.split(".")[0]
    aliases = [f"{module}.{name}"] if public(module) else []
    for candidate in release.files:
        if candidate.split(".")[0] != top or not public(candidate):
            continue
        info = release.module(candidate)
        for alias, binding in (info.bindings.items() if info else ()):
            if binding.kind == "from" and binding.source == module and binding.name == name:
                aliases.append(f"{candidate}.{alias}")
    return min(aliases, key=lambda a: (a.count("."), len(a), a), default="")


# --- the history of every name, and the data file ---------------------------------------------------

def toml_forms(data: Path = DATA) -> dict[str, set[str]]:
    """Per library, every `old` and `new` of api_changes.toml that names something (not prose)."""
    forms: dict[str, set[str]] = {library: set() for library in TOP_PACKAGES}
    for entry in tomllib.loads(data.read_text(encoding="utf-8")).get("change", []):
        for text in (entry.get("old", ""), entry.get("new", "")):
            form = parse_form(text)
            if form is not None and form.path.split(".")[0] in TOP_PACKAGES[entry["library"]]:
                forms[entry["library"]].add(text.strip())
    return forms


def recorded(path: Path | None) -> dict[str, set[str]]:
    """The names a data file already has: kept, so that an entry the history ruled out (and
    dev/api_delta.py left out of api_changes.toml) stays ruled out when it is computed again."""
    if path is None or not path.is_file():
        return {}
    return {library: set(names) for library, names in json.loads(path.read_text(encoding="utf-8"))["names"].items()}


def reference_messages(release: Release, form: Form) -> tuple[str, ...]:
    """The pinned messages of a def that warns more than once (its warnings are matched by text)."""
    if form.keyword:
        return ()
    target = resolve(release, form.path)
    if target is None or target.kind not in ("def", "class"):
        return ()
    warns = tuple(e.message for e in own_events(release, target) if e.kind == "warn")
    return warns if len(warns) >= max(2, form.index) else ()


def timeline(releases: list[Release], form: Form) -> list[list]:
    """[[version, state record], ...]: the first release and each release where the state changes."""
    references = reference_messages(releases[-1], form)
    rows: list[list] = []
    for release in releases:
        record = state_of(release, form, references).record()
        if not rows or rows[-1][1] != record:
            rows.append([release.version, record])
    return rows


def library_history(package: str, versions: list[str], forms: set[str], cache: Path) -> dict[str, list[list]]:
    """The timeline of each form (and of every deprecation declared in the window) in one library."""
    releases = [Release(package, v, wheel_of(package, v, cache)) for v in versions]
    names = set(forms)
    for release in releases:
        names |= declared(release)
    parsed = {name: parse_form(name) for name in sorted(names)}
    timelines = {name: timeline(releases, form) for name, form in parsed.items() if form is not None}
    named = {state.get("replacement", "") for rows in timelines.values() for _, state in rows}
    for name in sorted(named - set(timelines)):  # does the replacement a message names exist?
        form = parse_form(name)
        if form is not None and form.path.split(".")[0] in TOP_PACKAGES[package]:
            timelines[name] = timeline(releases, form)
    return timelines


def build(old: dict[str, str], new: dict[str, str], forms: dict[str, set[str]], cache: Path) -> dict:
    """The whole data file: the releases read, those left out, and each library's timelines."""
    data: dict = {"releases": {}, "left_out": {}, "names": {}}
    for package in TOP_PACKAGES:
        kept, skipped = window(pypi_releases(package), old[package], new[package])
        data["releases"][package] = kept
        data["left_out"][package] = {v: "no unyanked wheel on PyPI" for v in skipped}
        print(f"{package}: {len(kept)} releases {kept[0]} .. {kept[-1]}", file=sys.stderr)
        data["names"][package] = library_history(package, kept, forms[package], cache)
    return data


HEADER = (
    "The state of each name of api_changes.toml, and of every deprecation declared, in every release "
    "from the old pin to the pinned one, read statically from the wheels. Made by: "
    ".venv/bin/python dev/release_history.py --write evals/release_history.json. Each name maps to "
    "[[version, state], ...]: its state in the first release and in each release where it changes. "
    "state: absent | module (importable, not an attribute of its parent) | present | warns | fails | "
    "kwargs (a keyword taken by **kwargs) | unknown; message and replacement as the library writes "
    "them; warns_if_keyword (warns when that keyword is passed); warns_if (the other `if` tests "
    "around the warning, as written); default (a keyword's default, as written)."
)


def dumps(data: dict) -> str:
    """JSON with one name per line: compact, and a pin bump shows as a readable diff."""
    lines = ["{", f'"about": {json.dumps(HEADER)},']
    for key in ("releases", "left_out"):
        lines.append(f'"{key}": {json.dumps(data[key], sort_keys=True)},')
    lines.append('"names": {')
    libraries = sorted(data["names"])
    for i, library in enumerate(libraries):
        names = sorted(data["names"][library])
        lines.append(f"{json.dumps(library)}: {{")
        lines += [f"{json.dumps(n)}: {json.dumps(data['names'][library][n], sort_keys=True)}"
                  + ("," if j < len(names) - 1 else "") for j, n in enumerate(names)]
        lines.append("}" + ("," if i < len(libraries) - 1 else ""))
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"


def versions_table(data: Path = DATA) -> tuple[dict[str, str], dict[str, str]]:
    """The old and new pins of api_changes.toml's [versions] table."""
    versions = tomllib.loads(data.read_text(encoding="utf-8"))["versions"]
    return versions["old"], versions["new"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Read every release of jax, flax, optax, orbax-checkpoint and numpyro between the old and "
        "the pinned versions (wheels from PyPI, cached outside the checkout; parsed, never imported) and "
        "record when each name of api_changes.toml appeared, warned and failed.",
        epilog=f"Without --write or --check, --name FORM prints FORM's timeline. The data file: {HISTORY.relative_to(REPO)}.")
    parser.add_argument("--write", type=Path, metavar="FILE", help="write the data file (JSON) to FILE")
    parser.add_argument("--check", type=Path, metavar="FILE", help="exit 1 if FILE differs from what would be written")
    parser.add_argument("--name", action="append", default=[], metavar="FORM",
                        help="print the timeline of FORM (`pkg.f`, `pkg.f(kw=)`, `pkg.C.m#2`); repeatable")
    parser.add_argument("--data", type=Path, default=DATA, help="the api_changes.toml to read (default: %(default)s)")
    parser.add_argument("--cache", type=Path, default=cache_dir(), help="the wheel cache (default: %(default)s)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not (args.write or args.check or args.name):
        print("error: give --write FILE, --check FILE or --name FORM (see --help)", file=sys.stderr)
        return 2
    if not args.data.is_file():
        print(f"error: no data file {args.data}", file=sys.stderr)
        return 2
    old, new = versions_table(args.data)
    if args.name:
        for text in args.name:
            form = parse_form(text)
            package = next((p for p, tops in TOP_PACKAGES.items() if form and form.path.split(".")[0] in tops), None)
            if form is None or package is None:
                print(f"error: {text!r} is not a dotted name of {', '.join(TOP_PACKAGES)}", file=sys.stderr)
                return 2
            versions, _ = window(pypi_releases(package), old[package], new[package])
            releases = [Release(package, v, wheel_of(package, v, args.cache)) for v in versions]
            for version, record in timeline(releases, form):
                print(f"{text}  {version}  {json.dumps(record)}")
        return 0
    forms = toml_forms(args.data)
    for library, names in recorded(args.write or args.check).items():
        forms.setdefault(library, set()).update(names)
    text = dumps(build(old, new, forms, args.cache))
    if args.check:
        current = args.check.read_text(encoding="utf-8") if args.check.is_file() else ""
        if current != text:
            print(f"{args.check} is stale: run dev/release_history.py --write {args.check}", file=sys.stderr)
            return 1
        return 0
    if args.write:
        args.write.write_text(text, encoding="utf-8")
        print(f"wrote {args.write}")
    return 0


def run(argv: list[str] | None = None) -> int:
    """main, with a failed download or a PyPI outage told in one line."""
    try:
        return main(argv)
    except (urllib.error.URLError, subprocess.CalledProcessError, RuntimeError, OSError) as error:
        print(f"error: {error} (the release history needs PyPI the first time; wheels are cached in {cache_dir()})",
              file=sys.stderr)
        return 1
