"""Compute the public-API delta between the last pre-July-2025 releases and the pinned ones.

The bundle teaches the pinned versions (pyproject.toml); assistants trained on older code write the
old forms. This tool measures what changed, so that every change is either taught or left out
knowingly (issue 21). It

1. creates, once, a side virtualenv (Python 3.12) OUTSIDE the checkout, under
   ``${XDG_CACHE_HOME:-~/.cache}/jax-pro/api-delta/old-venv``, with the OLD releases below;
2. runs the same introspection function (``introspect``, sent to a subprocess as a temporary
   script) in that venv and in the pinned ``.venv``: for a curated list of public modules per
   library it records every public name, its kind, its qualified origin (``__module__`` +
   ``__qualname__``, to detect moves), ``inspect.signature`` for callables (parameter names, kinds,
   default reprs), the methods classes define, every entry of module-level ``_deprecations`` dicts,
   and every ``warnings.warn(..., DeprecationWarning)`` / ``deprecations.warn(...)`` call in the
   installed sources (file:line, message);
3. diffs old against new into change records (added, removed, moved, renamed-keyword,
   default-changed, deprecated) and writes them as TOML (``--write``), keeping the hand-written
   fields (section, left_out, note, rename, call, without_keyword) of entries already in the file,
   and the hand-written ``behaviour-changed`` entries taken from the changelogs;
4. dates every record from the release history (evals/release_history.json, made by
   dev/release_history.py from every release between the two pins): its version, the release that
   began to warn, the condition a deprecation warns under, the replacement its message names. The
   history also rules records out (a removal of a name still there, an addition of one already there
   in mid-2025, a default written the same in every release) and adds the deprecations that warn
   through a decorator, which the introspection does not read (``history_deprecations``).

The old versions: jax and jaxlib 0.6.2 (given by issue 21). For flax, optax, orbax-checkpoint and
numpyro, the last release uploaded to PyPI before 2025-07-01, found with pip's own upload-time
filter on PyPI's index (the extra file indexes and find-links of this machine's pip configuration are
switched off, since an index without upload times disables the filter):

    PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS= pip download --no-deps --only-binary :all: \\
        --uploaded-prior-to 2025-07-01T00:00:00Z flax   # -> flax-0.10.6 (likewise optax-0.2.5,
        # orbax_checkpoint-0.11.17, numpyro-0.18.0, jax-0.6.2, jaxlib-0.6.2)

and checked from the other side: ``pip download flax==0.10.7 --uploaded-prior-to ...`` (and
optax==0.2.6, orbax-checkpoint==0.11.18, numpyro==0.19.0) finds no distribution, so each next
release came out on or after 2025-07-01. The side venv installs the six pins together with the same
upload-time filter for every dependency, so they resolve as they did then.

Usage (from the repository root, with the pinned interpreter):

    .venv/bin/python dev/api_delta.py                        # counts per library and kind
    .venv/bin/python dev/api_delta.py --write api_changes.toml
    .venv/bin/python dev/api_delta.py --check api_changes.toml   # exit 1 listing untracked changes
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import tomllib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
import inspect as _inspect

from jaxpro.api_changes import HISTORY, HISTORY_FIELDS, LIBRARIES, WORKS, computed, load_history, rows_of

REPO = Path(__file__).resolve().parent.parent
NEW_PYTHON = REPO / ".venv" / "bin" / "python"
CUTOFF = "2025-07-01T00:00:00Z"
OLD_PINS: dict[str, str] = {
    "jax": "0.6.2",
    "jaxlib": "0.6.2",
    "flax": "0.10.6",
    "optax": "0.2.5",
    "orbax-checkpoint": "0.11.17",
    "numpyro": "0.18.0",
}
# The import packages of each library: an origin outside them is a re-export from elsewhere.
PACKAGES: dict[str, tuple[str, ...]] = {
    "jax": ("jax", "jaxlib"),
    "flax": ("flax",),
    "optax": ("optax",),
    "orbax-checkpoint": ("orbax",),
    "numpyro": ("numpyro",),
}
# The public modules walked, per library: what users import, not the _src trees.
MODULES: dict[str, tuple[str, ...]] = {
    "jax": (
        "jax", "jax.numpy", "jax.numpy.fft", "jax.numpy.linalg", "jax.lax", "jax.lax.linalg",
        "jax.random", "jax.nn", "jax.nn.initializers", "jax.tree", "jax.tree_util", "jax.sharding",
        "jax.debug", "jax.dtypes", "jax.errors", "jax.export", "jax.image", "jax.ops", "jax.profiler",
        "jax.stages", "jax.typing", "jax.distributed", "jax.flatten_util", "jax.monitoring", "jax.ffi",
        "jax.ref", "jax.core", "jax.extend", "jax.extend.core",
        "jax.experimental", "jax.experimental.checkify", "jax.experimental.shard_map",
        "jax.experimental.pjit", "jax.experimental.mesh_utils", "jax.experimental.multihost_utils",
        "jax.experimental.compilation_cache.compilation_cache", "jax.experimental.pallas",
        "jax.experimental.pallas.tpu", "jax.experimental.sparse", "jax.experimental.ode",
        "jax.experimental.jet", "jax.experimental.custom_partitioning", "jax.experimental.layout",
        "jax.experimental.compute_on", "jax.experimental.serialize_executable",
        "jax.experimental.topologies", "jax.experimental.transfer",
        "jax.scipy", "jax.scipy.linalg", "jax.scipy.special", "jax.scipy.stats", "jax.scipy.stats.norm",
        "jax.scipy.signal", "jax.scipy.optimize", "jax.scipy.sparse.linalg", "jax.scipy.fft",
        "jax.scipy.integrate", "jax.scipy.ndimage", "jax.scipy.spatial.transform",
        "jax.scipy.interpolate", "jax.scipy.cluster.vq",
    ),
    "flax": (
        "flax", "flax.nnx", "flax.nnx.bridge", "flax.linen", "flax.linen.initializers", "flax.struct",
        "flax.serialization", "flax.traverse_util", "flax.core", "flax.jax_utils", "flax.typing",
        "flax.training.train_state", "flax.training.common_utils", "flax.training.early_stopping",
        "flax.training.checkpoints",
    ),
    "optax": (
        "optax", "optax.contrib", "optax.losses", "optax.schedules", "optax.tree_utils", "optax.tree",
        "optax.transforms", "optax.projections", "optax.second_order", "optax.perturbations",
        "optax.assignment", "optax.microbatching",
    ),
    "orbax-checkpoint": (
        "orbax.checkpoint", "orbax.checkpoint.args", "orbax.checkpoint.checkpoint_managers",
        "orbax.checkpoint.type_handlers", "orbax.checkpoint.checkpoint_utils", "orbax.checkpoint.utils",
        "orbax.checkpoint.options", "orbax.checkpoint.metadata", "orbax.checkpoint.tree",
        "orbax.checkpoint.experimental.v1",
    ),
    "numpyro": (
        "numpyro", "numpyro.infer", "numpyro.infer.autoguide", "numpyro.infer.reparam",
        "numpyro.distributions", "numpyro.distributions.constraints", "numpyro.distributions.transforms",
        "numpyro.handlers", "numpyro.optim", "numpyro.diagnostics", "numpyro.util", "numpyro.primitives",
    ),
}
KINDS = ("added", "removed", "moved", "renamed-keyword", "default-changed", "behaviour-changed", "deprecated")
COMPUTED_KINDS = ("added", "removed", "moved", "renamed-keyword", "default-changed", "deprecated")
HAND_FIELDS = ("section", "left_out", "note", "rename", "call", "without_keyword")
FIELD_ORDER = ("library", "old", "new", "kind", "version", "deprecated_in", "message_replacement", "warns_if_keyword",
               "warns_if", "call", "without_keyword", "rename", "section", "left_out", "note")


def introspect(modules: dict[str, list[str]], packages: dict[str, list[str]]) -> dict:
    """Walk the public API of `modules` in THIS interpreter; run in a subprocess on each side.

    Self-contained (its imports are inside) because its source is sent to the other interpreter.
    Returns {"versions", "api", "deprecations", "warnings", "missing_modules"}, all JSON-ready.
    """
    import ast
    import importlib
    import importlib.metadata
    import inspect
    import os
    import re
    import sys
    import types
    import warnings

    warnings.simplefilter("ignore")
    address = re.compile(r" at 0x[0-9a-fA-F]+")

    def clean(text: str) -> str:
        return address.sub("", text)

    def kind_of(obj: object) -> str:
        if isinstance(obj, types.ModuleType):
            return "module"
        if inspect.isclass(obj):
            return "class"
        if inspect.isfunction(obj) or inspect.ismethod(obj):
            return "function"
        if inspect.isbuiltin(obj):
            return "builtin"
        if callable(obj):
            return "callable"
        return "value:" + type(obj).__name__

    def origin_of(obj: object) -> str | None:
        if isinstance(obj, types.ModuleType):
            return obj.__name__
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if isinstance(module, str) and isinstance(qualname, str) and (inspect.isclass(obj) or callable(obj)):
            return f"{module}.{qualname}"
        return None

    def signature_of(obj: object) -> list[list] | None:
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError, RuntimeError, AttributeError, NameError):
            return None
        except Exception:  # noqa: BLE001 - a library's __signature__ may raise anything
            return None
        params = []
        for p in sig.parameters.values():
            default = None if p.default is inspect.Parameter.empty else clean(repr(p.default))
            params.append([p.name, p.kind.name, default])
        return params

    def foreign(obj: object, top_packages: list[str]) -> bool:
        """Typing helpers and stdlib objects that a module merely imported."""
        if isinstance(obj, types.ModuleType):
            return obj.__name__.split(".")[0] not in top_packages
        module = getattr(obj, "__module__", None)
        if not isinstance(module, str) or not (inspect.isclass(obj) or callable(obj)):
            return False
        top = module.split(".")[0]
        return top in sys.stdlib_module_names and top != "builtins"

    def methods_of(cls: type) -> tuple[list[str], dict[str, list[list] | None]]:
        # An Enum's dir() lists its members but not its methods (ResizeMethod.from_string): read the MRO too.
        names = set(dir(cls)) | {n for c in getattr(cls, "__mro__", ()) for n in vars(c)}
        members = sorted(n for n in names if not n.startswith("_"))
        own = {}
        for name, value in sorted(vars(cls).items()):
            if name.startswith("_"):
                continue
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            # A dataclass field whose default is a function (flax.linen's kernel_init) is no method.
            if inspect.isfunction(value) and value.__qualname__.startswith(cls.__qualname__ + "."):
                own[name] = signature_of(value)
        return members, own

    result: dict = {"versions": {}, "api": {}, "deprecations": {}, "warnings": {}, "missing_modules": {}}
    for library in modules:
        try:
            result["versions"][library] = importlib.metadata.version(library)
        except importlib.metadata.PackageNotFoundError:
            result["versions"][library] = None
    result["versions"]["jaxlib"] = importlib.metadata.version("jaxlib")

    for library, names in modules.items():
        api: dict = {}
        deprecations: dict = {}
        missing: list = []
        seen_classes: set = set()
        for module_name in names:
            try:
                module = importlib.import_module(module_name)
            except Exception as error:  # noqa: BLE001 - a missing module is a finding
                missing.append([module_name, f"{type(error).__name__}: {error}"[:200]])
                continue
            public = getattr(module, "__all__", None)
            candidates = sorted(set(public) if public is not None else set(dir(module)))
            for name in candidates:
                if name.startswith("_"):
                    continue
                try:
                    obj = getattr(module, name)
                except Exception:  # noqa: BLE001 - e.g. a deprecated name that now raises
                    continue
                if foreign(obj, packages[library]):
                    continue
                if isinstance(obj, types.ModuleType) and obj.__name__ != f"{module_name}.{name}":
                    continue  # an internal module a public one happens to import (jax.lax.jax)
                path = f"{module_name}.{name}"
                entry = {"kind": kind_of(obj), "origin": origin_of(obj), "module": module_name}
                if entry["kind"] in ("class", "function", "builtin", "callable"):
                    entry["signature"] = signature_of(obj)
                if entry["kind"] == "class" and (entry["origin"] or "").split(".")[0] in packages[library]:
                    if entry["origin"] not in seen_classes:
                        seen_classes.add(entry["origin"])
                        entry["members"], entry["methods"] = methods_of(obj)
                api[path] = entry
            table = vars(module).get("_deprecations")
            if isinstance(table, dict):
                for name, value in sorted(table.items()):
                    message, replacement = (value if isinstance(value, tuple) and len(value) == 2 else (str(value), None))
                    deprecations[f"{module_name}.{name}"] = {
                        "message": str(message), "still_works": replacement is not None,
                    }
        result["api"][library] = api
        result["deprecations"][library] = deprecations
        result["missing_modules"][library] = missing

    def literal(node: ast.AST) -> str:
        """A warning message as written: f-string fields and names shown as {...}."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return "".join(literal(v) if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                           for v in node.values)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return literal(node.left) + literal(node.right)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            return literal(node.func.value)
        return "{" + ast.unparse(node) + "}"

    def is_deprecation_warn(call: ast.Call) -> bool:
        func = ast.unparse(call.func)
        if func.endswith("deprecations.warn"):
            return True
        if func not in ("warnings.warn", "warn"):
            return False
        args = [*call.args[1:], *(k.value for k in call.keywords if k.arg == "category")]
        return any(ast.unparse(a).split(".")[-1] in ("DeprecationWarning", "FutureWarning") for a in args)

    def scoped_calls(tree: ast.AST, scope: str):
        """Every call in `tree` with the dotted name of the def/class around it."""
        for child in ast.iter_child_nodes(tree):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield from scoped_calls(child, f"{scope}.{child.name}")
                continue
            if isinstance(child, ast.Call):
                yield child, scope
            yield from scoped_calls(child, scope)

    for library in modules:
        found = []
        for top in packages[library]:
            spec = importlib.util.find_spec(top)
            if spec is None or not spec.submodule_search_locations:
                continue
            root = list(spec.submodule_search_locations)[0]
            base = os.path.dirname(root)
            for folder, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if d not in ("__pycache__",) and "test" not in d)
                for filename in sorted(files):
                    if not filename.endswith(".py") or "test" in filename:
                        continue
                    path = os.path.join(folder, filename)
                    try:
                        with open(path, encoding="utf-8") as handle:
                            source = handle.read()
                        if "warn(" not in source:
                            continue
                        tree = ast.parse(source)
                    except (SyntaxError, UnicodeDecodeError, OSError):
                        continue
                    module = os.path.relpath(path, base).removesuffix(".py").removesuffix("/__init__")
                    for node, scope in scoped_calls(tree, module.replace(os.sep, ".")):
                        if is_deprecation_warn(node):
                            func = ast.unparse(node.func)
                            first = node.args[1] if func.endswith("deprecations.warn") and len(node.args) > 1 \
                                else (node.args[0] if node.args else None)
                            message = literal(first) if first is not None else ""
                            found.append([os.path.relpath(path, base), node.lineno, scope, " ".join(message.split())])
        result["warnings"][library] = sorted(found)
    return result


def cache_dir() -> Path:
    """Where the side venv and the old snapshot live: outside the checkout."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "jax-pro" / "api-delta"


def old_python_default() -> str:
    """Python 3.12 for the side venv: pyenv's 3.12.1 if present, else python3.12 on PATH."""
    pyenv = Path.home() / ".pyenv" / "versions" / "3.12.1" / "bin" / "python3.12"
    return str(pyenv) if pyenv.exists() else "python3.12"


def pip_env() -> dict[str, str]:
    """pip's environment for the side venv: PyPI only, so the upload-time filter is effective."""
    return {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_FIND_LINKS": "", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def ensure_old_venv(base_python: str, rebuild: bool = False) -> Path:
    """Create (once) the side venv with OLD_PINS and return its interpreter."""
    venv = cache_dir() / "old-venv"
    marker = venv / "jax-pro-pins.json"
    python = venv / "bin" / "python"
    wanted = json.dumps({"pins": OLD_PINS, "cutoff": CUTOFF}, sort_keys=True)
    if not rebuild and marker.exists() and marker.read_text() == wanted and python.exists():
        return python
    print(f"creating the side venv {venv} (about 1 GB; needs PyPI)", file=sys.stderr)
    subprocess.run([base_python, "-m", "venv", "--clear", str(venv)], check=True)
    # Python 3.12.1's bundled pip predates --uploaded-prior-to.
    subprocess.run([str(python), "-m", "pip", "install", "-q", "pip==26.3"], check=True, env=pip_env())
    pins = [f"{name}=={version}" for name, version in OLD_PINS.items()]
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--only-binary", ":all:", "--uploaded-prior-to", CUTOFF, *pins],
        check=True, env=pip_env(),
    )
    marker.write_text(wanted)
    return python


def introspection_script() -> str:
    """The source run by the subprocess: `introspect` itself, called on MODULES, printing JSON."""
    call = f"""
import json, sys
modules = {json.dumps({k: list(v) for k, v in MODULES.items()})}
packages = {json.dumps({k: list(v) for k, v in PACKAGES.items()})}
json.dump(introspect(modules, packages), sys.stdout, sort_keys=True)
"""
    return "from __future__ import annotations\n" + textwrap.dedent(_inspect.getsource(introspect)) + call


def snapshot(python: Path | str, cache: Path | None = None) -> dict:
    """Run the introspection in `python`'s environment (cached in `cache`, keyed by the script)."""
    script = introspection_script()
    key = f"{abs(hash_text(script + str(python))):016x}"
    if cache is not None and cache.exists():
        cached = json.loads(cache.read_text())
        if cached.get("key") == key:
            return cached["data"]
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONWARNINGS": "ignore", "TF_CPP_MIN_LOG_LEVEL": "3"}
    with tempfile.TemporaryDirectory(prefix="api-delta-") as tmp:
        path = Path(tmp) / "introspect.py"
        path.write_text(script)
        done = subprocess.run([str(python), str(path)], cwd=tmp, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"introspection failed in {python}:\n{done.stderr[-4000:]}")
    data = json.loads(done.stdout)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps({"key": key, "data": data}, sort_keys=True))
    return data


def hash_text(text: str) -> int:
    """A stable hash (Python's own is salted per process)."""
    import hashlib

    return int(hashlib.sha256(text.encode()).hexdigest()[:15], 16)


@dataclass(frozen=True, order=True)
class Change:
    """One change record; (library, kind, old, new) is its key."""

    library: str
    kind: str
    old: str
    new: str
    version: str = field(compare=False, default="")
    note: str = field(compare=False, default="")

    @property
    def key(self) -> tuple[str, str, str]:
        """(library, kind, old), or (library, kind, new) for an addition: a hand-given `new` keeps it."""
        return (self.library, self.kind, self.old or self.new)


VERSION_IN_MESSAGE = {
    kind: re.compile(rf"\b{kind}\s+(?:in|since|as of)\s+(?:JAX\s+|jax\s+|optax\s+|flax\s+)?v?(\d+\.\d+(?:\.\d+)?)",
                     re.IGNORECASE)
    for kind in ("deprecated", "removed")
}
REPLACEMENT_IN_MESSAGE = re.compile(r"\b(?:[Uu]sed?|replaced by|in favor of|instead of)\s+`*([A-Za-z_][\w.]*\w)`*")


def version_from(message: str, default: str, kind: str = "deprecated") -> str:
    """The version a deprecation message names for `kind` ("removed in JAX v0.12.0"), else `default`."""
    match = VERSION_IN_MESSAGE["removed" if kind == "removed" else "deprecated"].search(message)
    return match.group(1) if match else default


def replacement_from(message: str, library: str) -> str:
    """A dotted replacement named by a deprecation message ("use jax.device_put instead"), else ""."""
    for match in REPLACEMENT_IN_MESSAGE.finditer(message):
        name = match.group(1)
        if "." in name and name.split(".")[0] in PACKAGES[library] + ("jnp", "nnx", "ocp"):
            return name
    return ""


def leaf(path: str) -> str:
    return path.rsplit(".", 1)[-1]


def canonical_paths(api: dict[str, dict], library: str) -> dict[str, str]:
    """For each origin inside `library`, its shortest public path: signature changes are told once."""
    best: dict[str, str] = {}
    for path in sorted(api, key=lambda p: (p.count("."), len(p), p)):
        origin = api[path].get("origin")
        if origin and origin.split(".")[0] in PACKAGES[library] and origin not in best:
            best[origin] = path
    return best


def find_move(path: str, entry: dict, old_api: dict, new_api: dict) -> str:
    """Where a vanished name lives now: the same object (origin) or the same name elsewhere."""
    name = leaf(path)
    candidates = [p for p in new_api if leaf(p) == name and p not in old_api]
    same_origin = [p for p in candidates if entry.get("origin") and new_api[p].get("origin") == entry["origin"]]
    same_kind = [p for p in candidates if new_api[p]["kind"] == entry["kind"]]
    for group in (same_origin, same_kind):
        if group:
            return sorted(group, key=lambda p: (p.count("."), len(p), p))[0]
    return ""


OBJECT_REPR = re.compile(r"^<(?:class '|)(?:[\w.]*\.)?_*(\w+)(?:'>| object>)$")


def same_default(old: str, new: str) -> bool:
    """Whether two default reprs mean the same: 100 == 100.0, and a sentinel class or object of the
    same name (<class 'flax.typing.Missing'> and <flax.typing.Missing object>) is the same sentinel."""
    if old == new:
        return True
    try:
        return float(old) == float(new)
    except ValueError:
        pass
    a, b = OBJECT_REPR.match(old), OBJECT_REPR.match(new)
    return bool(a and b and a.group(1) == b.group(1))


def similar(old: str, new: str) -> bool:
    """Whether a vanished and a new parameter name look like one renamed (check_rep -> check_vma,
    axis_shapes -> axis_sizes, add_axis_hooks -> on_add_axis), not two unrelated ones."""
    return SequenceMatcher(None, old, new).ratio() >= 0.5


def parameter_changes(library: str, path: str, old_sig: list | None, new_sig: list | None, pin: str) -> list[Change]:
    """renamed-keyword, added/removed parameters and default changes between two signatures."""
    if not old_sig or not new_sig:
        return []
    variadic = ("VAR_POSITIONAL", "VAR_KEYWORD")
    if all(p[1] in variadic for p in old_sig) or all(p[1] in variadic for p in new_sig):
        return []
    old_named = {p[0]: (i, p) for i, p in enumerate(old_sig) if p[1] not in variadic}
    new_named = {p[0]: (i, p) for i, p in enumerate(new_sig) if p[1] not in variadic}
    # self, cls and a new positional-only parameter are no keyword a caller writes (Optimizer.update(model, /)).
    gone = [n for n in old_named if n not in new_named and n not in ("self", "cls")]
    came = [n for n in new_named if n not in old_named and n not in ("self", "cls")
            and new_named[n][1][1] != "POSITIONAL_ONLY"]
    changes: list[Change] = []
    for name in list(gone):
        kind = old_named[name][1][1]
        match = sorted((n for n in came if new_named[n][1][1] == kind and similar(name, n)),
                       key=lambda n: (-SequenceMatcher(None, name, n).ratio(), n))
        if not match and len(gone) == len(came) == 1 and new_named[came[0]][0] == old_named[name][0] \
                and new_named[came[0]][1][1] == kind and kind != "KEYWORD_ONLY":
            match = came  # the one parameter in the same place under another name: icdf(value) -> icdf(q)
        if match:
            if kind != "POSITIONAL_ONLY":  # a positional-only name is invisible to callers
                changes.append(Change(library, "renamed-keyword", f"{path}({name}=)", f"{path}({match[0]}=)", pin))
            gone.remove(name)
            came.remove(match[0])
    star = [i for i, p in enumerate(new_sig) if p[1] == "VAR_POSITIONAL"]
    # A positional-only parameter absorbed by a new *args (merge(graphdef, state) -> merge(g, *states)).
    gone = [n for n in gone if not (old_named[n][1][1] == "POSITIONAL_ONLY" and star)]
    changes += [Change(library, "removed", f"{path}({n}=)", "", pin) for n in gone]
    changes += [Change(library, "added", "", f"{path}({n}=)", pin) for n in came]
    for name, (_, param) in old_named.items():
        if name in new_named and param[2] is not None and new_named[name][1][2] is not None \
                and not same_default(param[2], new_named[name][1][2]):
            changes.append(Change(library, "default-changed", f"{path}({name}={param[2]})",
                                  f"{path}({name}={new_named[name][1][2]})", pin))
    return changes


def diff_library(library: str, old: dict, new: dict) -> list[Change]:
    """All computed changes of one library between the old and the new snapshot."""
    pin = new["versions"][library]
    old_api, new_api = old["api"][library], new["api"][library]
    old_dep, new_dep = old["deprecations"][library], new["deprecations"][library]
    changes: list[Change] = []
    moved_to: set[str] = set()
    for path in sorted(old_api):
        if path in new_api:
            continue
        entry = old_api[path]
        if path in new_dep:
            info = new_dep[path]
            kind = "deprecated" if info["still_works"] else "removed"
            changes.append(Change(library, kind, path, replacement_from(info["message"], library),
                                  version_from(info["message"], pin, kind), info["message"]))
            continue
        if entry["kind"] == "module" and path in MODULES[library] and path not in dict(new["missing_modules"][library]):
            continue  # only no longer imported by its parent package; `import path` still works
        target = find_move(path, entry, old_api, new_api)
        if target:
            moved_to.add(target)
            changes.append(Change(library, "moved", path, target, pin))
        else:
            changes.append(Change(library, "removed", path, "", pin))
    for path in sorted(set(new_dep) - set(old_dep)):
        if path in old_api or path in new_api:
            continue  # handled above, or still public next to its deprecation entry
        info = new_dep[path]
        kind = "deprecated" if info["still_works"] else "removed"
        changes.append(Change(library, kind, path, replacement_from(info["message"], library),
                              version_from(info["message"], pin, kind), info["message"]))
    for path in sorted(set(old_dep) & set(new_dep)):
        if old_dep[path]["still_works"] and not new_dep[path]["still_works"] and path not in new_api:
            changes.append(Change(library, "removed", path, replacement_from(new_dep[path]["message"], library),
                                  version_from(new_dep[path]["message"], pin, "removed"), new_dep[path]["message"]))
    for path in sorted(set(new_api) - set(old_api) - moved_to):
        if path in old_dep:
            continue  # it was reachable (deprecated) before
        changes.append(Change(library, "added", "", path, pin))
    changes += signature_changes(library, old_api, new_api, pin)
    changes += warning_changes(library, old, new, pin)
    changes += module_changes(library, old, new, pin)
    return sorted(set(changes))


def signature_changes(library: str, old_api: dict, new_api: dict, pin: str) -> list[Change]:
    """Parameter and method changes of objects public on both sides, once per object."""
    changes: list[Change] = []
    old_canon = canonical_paths(old_api, library)
    for origin, path in sorted(canonical_paths(new_api, library).items()):
        old_path = old_canon.get(origin) or (path if path in old_api else None)
        if old_path is None or old_path not in old_api:
            continue
        before, after = old_api[old_path], new_api[path]
        changes += parameter_changes(library, path, before.get("signature"), after.get("signature"), pin)
        if "methods" in after and "methods" in before:
            old_members, new_members = set(before["members"]), set(after["members"])
            for name in sorted(set(before["methods"]) | set(after["methods"])):
                if name in before["methods"] and name not in new_members:
                    changes.append(Change(library, "removed", f"{path}.{name}", "", pin))
                elif name in after["methods"] and name not in old_members:
                    changes.append(Change(library, "added", "", f"{path}.{name}", pin))
                elif name in before["methods"] and name in after["methods"]:
                    changes += parameter_changes(library, f"{path}.{name}", before["methods"][name],
                                                 after["methods"][name], pin)
    return changes


def warning_changes(library: str, old: dict, new: dict, pin: str) -> list[Change]:
    """DeprecationWarnings whose message is new in the new sources, one `deprecated` record each.

    `old` is the warning's place: the dotted def around the call (e.g. flax.nnx.module.Module.sow,
    a private path when the call sits in _src), with #2, #3 for further warnings in the same def;
    the note carries file:line and the message, so the key does not depend on line numbers.
    """
    old_messages = {w[3] for w in old["warnings"][library]}
    changes = []
    seen: dict[str, int] = defaultdict(int)
    for file, line, scope, message in sorted(new["warnings"][library], key=lambda w: (w[2], w[1])):
        seen[scope] += 1
        if message in old_messages or not message.strip("{} "):
            continue
        where = scope if seen[scope] == 1 else f"{scope}#{seen[scope]}"
        changes.append(Change(library, "deprecated", where, replacement_from(message, library),
                              version_from(message, pin, "deprecated"), f"{file}:{line}: {message}"))
    return changes


def module_changes(library: str, old: dict, new: dict, pin: str) -> list[Change]:
    """Walked modules that import on one side only."""
    old_missing = {m for m, _ in old["missing_modules"][library]}
    new_missing = {m for m, _ in new["missing_modules"][library]}
    return [Change(library, "added", "", m, pin) for m in sorted(old_missing - new_missing)] + [
        Change(library, "removed", m, "", pin) for m in sorted(new_missing - old_missing)]


def compute(old_python: Path | str, new_python: Path | str) -> tuple[dict, dict, list[Change]]:
    """Both snapshots (the old one cached) and the sorted change records."""
    old = snapshot(old_python, cache=cache_dir() / "old-snapshot.json")
    new = snapshot(new_python)
    changes = [c for library in LIBRARIES for c in diff_library(library, old, new)]
    return old, new, sorted(changes)


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(str(value), ensure_ascii=False)


def read_entries(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return tomllib.loads(path.read_text(encoding="utf-8")).get("change", [])


def entry_key(entry: dict) -> tuple[str, str, str]:
    """The key of a TOML entry, as Change.key."""
    return (entry.get("library", ""), entry.get("kind", ""), entry.get("old", "") or entry.get("new", ""))


def merge(changes: list[Change], existing: list[dict]) -> tuple[list[dict], list[dict]]:
    """Computed records with the hand-written fields of `existing` (found by key, else by library and
    old form: the history may have changed an entry's kind); returns (entries, dropped)."""
    by_key = {entry_key(e): e for e in existing}
    by_form = {(e.get("library", ""), e.get("old", "")): e for e in existing if e.get("old")}
    entries = []
    for change in changes:
        entry = {"library": change.library, "old": change.old, "new": change.new, "kind": change.kind,
                 "version": change.version}
        if change.note:
            entry["note"] = change.note
        before = by_key.get(change.key) or (by_form.get((change.library, change.old), {}) if change.old else {})
        for name in HAND_FIELDS:
            if name in before:
                entry[name] = before[name]
        if not change.new and before.get("new"):
            entry["new"] = before["new"]  # a replacement the sources do not name, given by hand
        entries.append(entry)
    computed = {c.key for c in changes}
    forms = {(c.library, c.old) for c in changes if c.old}
    gone = [e for e in existing if entry_key(e) not in computed and (e.get("library"), e.get("old")) not in forms]
    kept = [e for e in gone if e.get("kind") == "behaviour-changed"]
    dropped = [e for e in gone if e.get("kind") != "behaviour-changed"]
    return entries + kept, dropped


# --- the release history (dev/release_history.py, evals/release_history.json) ----------------------

def contradiction(entry: dict, history: dict) -> str:
    """Why the release history rules an entry out ("" when it does not): a removal of a name that is
    still there, an addition of one that was already there, a deprecation that does not warn, a
    default written the same in every release, a module `__getattr__` (its names have their own)."""
    kind = entry["kind"]
    rows = rows_of(history, entry["library"], entry["new"] if kind == "added" else entry["old"])
    if kind == "behaviour-changed" or not rows:
        return ""
    states = [state["state"] for _, state in rows]
    version = computed(entry, history).get("version", "")
    if entry["old"].endswith(".__getattr__"):
        return "a module __getattr__: the history records each name it serves"
    if kind in ("removed", "moved", "renamed-keyword"):
        if states[-1] == "present":
            return "still there in the pin"
        if not {"module", "present", "warns", "fails"} & set(states):
            return "never there under this name in any release"
    if kind == "added" and (states[-1] not in ("present", "warns", "module") or version.endswith("or earlier")):
        return "not there in the pin" if states[-1] not in ("present", "warns", "module") else "already there in the old pin"
    if kind == "deprecated" and states[-1] != "warns":
        return "does not warn in the pin"
    if kind == "default-changed":
        defaults = {state.get("default") for _, state in rows if state["state"] in WORKS}
        if len(defaults) < 2:
            return "its default is written the same in every release (the change is inside the default's class)"
        if states[-1] == "warns":
            return "the keyword warns in the pin: a deprecation (see its deprecated entry), not a new default"
    return ""


def apply_history(entries: list[dict], history: dict) -> tuple[list[dict], list[str]]:
    """The entries with the versions, deprecation versions, conditions and message-named replacements
    of the release history; a removal of a name that still warns becomes a deprecation; entries the
    history rules out are left out. Returns (entries, one log line per entry changed or left out)."""
    kept, log = [], []
    for entry in entries:
        entry = dict(entry)
        last = (rows_of(history, entry["library"], entry["old"]) or [[None, {}]])[-1][1]
        if entry["kind"] in ("removed", "moved") and last.get("state") == "warns":
            log.append(f"{entry_key(entry)}: still warns in the pin, so deprecated, not {entry['kind']}")
            entry["kind"] = "deprecated"
        elif entry["kind"] == "moved" and not moved_as_named(entry, history):
            log.append(f"{entry_key(entry)}: its messages name another replacement, so removed, not moved")
            entry["kind"], entry["new"] = "removed", ""
        reason = contradiction(entry, history)
        if reason:
            log.append(f"left out {entry_key(entry)}: {reason}")
            continue
        fields = computed(entry, history)
        if fields:
            for name in ("version", *HISTORY_FIELDS):
                entry.pop(name, None)
            entry.update(fields)
            replacement = fields.get("message_replacement", "")
            if entry["kind"] in ("removed", "deprecated") and entry["new"] and replacement.startswith(entry["new"] + "("):
                entry["new"] = replacement  # jax.enable_x64 -> jax.enable_x64(False), as the message says
            elif entry["kind"] in ("removed", "deprecated") and not entry["new"] \
                    and in_the_pin(history, entry["library"], replacement):
                entry["new"] = replacement  # jax.scipy.special.sph_harm -> jax.scipy.special.sph_harm_y
        kept.append(entry)
    return kept, log


def in_the_pin(history: dict, library: str, name: str) -> bool:
    """Whether the history has `name` (a dotted name) there in the pinned release."""
    rows = rows_of(history, library, name) if re.fullmatch(r"[\w.]+", name) else []
    return bool(rows) and rows[-1][1]["state"] in ("module", *WORKS)


def moved_as_named(entry: dict, history: dict) -> bool:
    """Whether a `moved` record's target is what the old name's messages name (by its last part:
    "pl.delay" is jax.experimental.pallas.delay), or the messages name nothing."""
    named = {state.get("replacement", "") for _, state in rows_of(history, entry["library"], entry["old"])} - {""}
    leaf = entry["new"].rsplit(".", 1)[-1]
    return not named or any(re.split(r"[\[(]", name)[0].rsplit(".", 1)[-1] == leaf for name in named)


def history_deprecations(changes: list[Change], history: dict, new_api: dict[str, dict]) -> list[Change]:
    """A `deprecated` record for each deprecation the history finds that warns in the pin, did not
    warn in the old pin under any name (by message), and that no computed record names: the
    decorator deprecations (optax's warn_deprecated_function) the introspection does not read."""
    named = {(c.library, c.old) for c in changes}
    found = []
    for library, names in history["names"].items():
        old_messages = {rows[0][1].get("message") for rows in names.values() if rows[0][1]["state"] == "warns"}
        known = {rows_of(history, library, old)[-1][1].get("message") for lib, old in named
                 if lib == library and rows_of(history, library, old)}
        for name, rows in sorted(names.items()):
            state = rows[-1][1]
            if state["state"] != "warns" or (library, name) in named or rows[0][1]["state"] == "warns" \
                    or state.get("message") in old_messages | known or not in_scope(name, library) \
                    or ("._" not in name and rows[0][1]["state"] == "absent"):  # new since mid-2025 itself
                continue
            found.append(Change(library, "deprecated", name, qualified(state.get("replacement", ""), name, new_api[library])))
    return found


def in_scope(name: str, library: str) -> bool:
    """A name of a module the delta walks (or a class attribute there), or of a private module."""
    path = name.split("(")[0].split("#")[0]
    return "._" in path or any(path.startswith(module + ".") and path[len(module) + 1:].split(".")[0][:1].isupper()
                               or path.rsplit(".", 1)[0] == module for module in MODULES[library])


def qualified(replacement: str, name: str, api: dict[str, dict]) -> str:
    """A message's bare replacement ("generalized_kl_divergence") as the public name the new API has,
    looked for in the public modules above `name`; "" when none has it."""
    if not replacement or "(" in replacement or name.split(".")[-2][:1].isupper():
        return ""  # a call form, or a method's replacement (another method of its class)
    if replacement in api:
        return replacement
    parts = [p for p in name.split(".")[:-1] if not p.startswith("_")]
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end]) + "." + replacement
        if candidate in api:
            return candidate
    return ""


def group_of(entry: dict) -> tuple[str, str, str]:
    """(library, kind, module) for sorting and the comment headers that keep the file reviewable."""
    path = entry["new"] or entry["old"]
    module = path.split("(")[0].rsplit(".", 1)[0] if "(" not in path else path.split("(")[0]
    return (entry["library"], entry["kind"], module)


def render(entries: list[dict], old_versions: dict, new_versions: dict) -> str:
    """The TOML text: header, versions, then [[change]] grouped by library, kind and module."""
    lines = [
        "# The public-API delta between the last releases before July 2025 and the pinned ones (issue 21).",
        "# Made by: .venv/bin/python dev/api_delta.py --write api_changes.toml",
        "# (it computes added/removed/moved/renamed-keyword/default-changed/deprecated records and keeps the",
        "# hand-written fields section, left_out, note, rename, call, without_keyword and the behaviour-changed",
        "# entries, which are dated by hand from the changelogs).",
        "# Check that a pin bump is covered: .venv/bin/python dev/api_delta.py --check api_changes.toml",
        "#",
        "# Every other field comes from the release history, evals/release_history.json (made by",
        "# dev/release_history.py, which reads every release between the two pins; issues 26 and 29):",
        "#   version              the first release from which the entry holds through the pin: `added` the",
        "#                        name is there, `removed`/`moved`/`renamed-keyword` the old form is gone or",
        "#                        fails, `deprecated` it warns, `default-changed` the default is the pinned one.",
        "#                        \"<old version> or earlier\": already so in the old pin (before mid-2025).",
        "#   deprecated_in        (removals) the first release of the warnings that came before the removal",
        "#   message_replacement  the replacement the library's own warning or error message names, as written",
        "#                        (\"jax.enable_x64(False)\", \"partition_index\", \"generalized_kl_divergence\")",
        "#   warns_if_keyword     (deprecations) it warns only when this keyword is passed (\"slice_index\")",
        "#   warns_if             (deprecations) the other `if` tests around the warning, as the library writes",
        "#                        them (`partition_index is None`); it warns only when they hold",
        "#   call, without_keyword  (hand-written, for prose entries) the callable an entry is about; with",
        "#                        without_keyword, the calls that leave that keyword out",
        "# Old: " + ", ".join(f"{k} {v}" for k, v in old_versions.items()),
        "# New: " + ", ".join(f"{k} {v}" for k, v in new_versions.items()),
        "",
        "[versions.old]",
        *(f"{json.dumps(k)} = {toml_value(v)}" for k, v in old_versions.items()),
        "",
        "[versions.new]",
        *(f"{json.dumps(k)} = {toml_value(v)}" for k, v in new_versions.items()),
    ]
    order = {kind: i for i, kind in enumerate(KINDS)}
    entries = sorted(entries, key=lambda e: (LIBRARIES.index(e["library"]), order[e["kind"]], group_of(e)[2],
                                             e["old"], e["new"]))
    counts: dict[tuple, int] = defaultdict(int)
    for entry in entries:
        counts[group_of(entry)] += 1
    header = None
    for entry in entries:
        group = group_of(entry)
        if group[:2] != (header or (None, None))[:2]:
            lines += ["", f"# ===== {group[0]}: {group[1]} ====="]
        if group != header:
            if counts[group] >= 5:  # a header for the larger groups only
                lines += ["", f"# --- {group[0]} {group[1]} in {group[2]}: {counts[group]} ---"]
            header = group
        lines += ["", "[[change]]"]
        for name in FIELD_ORDER:
            if name in entry:
                lines.append(f"{name} = {toml_value(entry[name])}")
    return "\n".join(lines) + "\n"


def versions_of(snap: dict) -> dict[str, str]:
    return {name: snap["versions"][name] for name in ("jax", "jaxlib", "flax", "optax", "orbax-checkpoint", "numpyro")}


def summary(changes: Iterable[Change]) -> str:
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for change in changes:
        counts[(change.library, change.kind)] += 1
    rows = [f"{library:17} " + " ".join(f"{kind}={counts[(library, kind)]}" for kind in COMPUTED_KINDS
                                          if counts[(library, kind)]) for library in LIBRARIES]
    return "\n".join(rows)


def check(changes: list[Change], path: Path) -> int:
    """Exit status 1 and a list of every computed change whose key is missing from `path`."""
    known = {entry_key(e) for e in read_entries(path)}
    missing = [c for c in changes if c.key not in known]
    for change in missing:
        print(f"missing: library={change.library} kind={change.kind} old={change.old!r} new={change.new!r}")
    print(f"{len(missing)} of {len(changes)} computed changes are missing from {path}")
    return 1 if missing else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Compute the public-API changes of jax, flax, optax, orbax-checkpoint and numpyro between "
        "the last releases before July 2025 (in a cached side venv) and the pinned .venv.",
        epilog="Without --write or --check it prints the counts per library and kind.",
    )
    parser.add_argument("--write", type=Path, metavar="FILE",
                        help="write the records as TOML to FILE, keeping FILE's hand-written fields")
    parser.add_argument("--check", type=Path, metavar="FILE",
                        help="exit 1 listing every computed change whose key, (library, kind, old) or for an addition "
                        "(library, kind, new), is not in FILE")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also dump both raw snapshots as JSON to FILE")
    parser.add_argument("--history", type=Path, default=HISTORY,
                        help="the release history that dates each record (default: %(default)s)")
    parser.add_argument("--new-python", default=str(NEW_PYTHON),
                        help="the interpreter of the pinned environment (default: %(default)s)")
    parser.add_argument("--base-python", default=old_python_default(),
                        help="Python 3.12 used to create the side venv (default: %(default)s)")
    parser.add_argument("--rebuild", action="store_true", help="recreate the side venv and the old snapshot")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    old_python = ensure_old_venv(args.base_python, rebuild=args.rebuild)
    if args.rebuild:
        (cache_dir() / "old-snapshot.json").unlink(missing_ok=True)
    old, new, changes = compute(old_python, args.new_python)
    history = load_history(args.history)
    changes = sorted(changes + history_deprecations(changes, history, new["api"]))
    for library in LIBRARIES:
        for side, snap in (("old", old), ("new", new)):
            for module, error in snap["missing_modules"][library]:
                print(f"note: {side} {library}: {module} not importable ({error})", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({"old": old, "new": new}, sort_keys=True, indent=1))
    if args.write:
        entries, dropped = merge(changes, read_entries(args.write))
        for entry in dropped:
            print(f"dropped (no longer computed): {entry_key(entry)}", file=sys.stderr)
        entries, log = apply_history(entries, history)
        for line in log:
            print(f"history: {line}", file=sys.stderr)
        for entry in entries:
            if entry["kind"] != "behaviour-changed" and not computed(entry, history):
                print(f"not in the release history (run dev/release_history.py --write): {entry_key(entry)}",
                      file=sys.stderr)
        args.write.write_text(render(entries, versions_of(old), versions_of(new)), encoding="utf-8")
        print(f"wrote {len(entries)} records to {args.write}")
    print(summary(changes))
    if args.check:
        return check(changes, args.check)
    return 0


if __name__ == "__main__":
    sys.exit(main())
