# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""What the installed jax, flax, optax, orbax and numpyro provide, answered once and kept on disk.

The currency checker asks the installed libraries questions: does `jax.tree_map` exist, which
keywords does `optax.adamw` take, which class does `jax.make_mesh` return. Answering means importing
them, 1 to 3 s. Every answer here is a plain value (a string, a list, a bool or None) and is stored
in a JSON file keyed by the interpreter, the installed versions and the checker's own source, so a
later run (or the editor hook) answers from that file and imports nothing. A question not asked
before is answered by importing the library, then stored too.

The file lives in `${JAX_PRO_CACHE:-${XDG_CACHE_HOME:-~/.cache}/jax-pro}/checker/`, never in the
project being checked; JAX_PRO_CACHE=off keeps everything in memory. A cache that cannot be read or
written is ignored (the answers are computed again), never an error.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import pickle
import re
import sys
import tempfile
import typing
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LIBRARIES = frozenset({"jax", "jaxlib", "flax", "optax", "orbax", "numpyro"})
DISTRIBUTIONS = {"jax": "jax", "jaxlib": "jaxlib", "flax": "flax", "optax": "optax",
                 "orbax": "orbax-checkpoint", "numpyro": "numpyro"}
DIST_INFO = re.compile(r"^(jax|jaxlib|flax|optax|orbax_checkpoint|numpyro)-([^-]+)\.dist-info$")
MISSING = "missing"  # the answer for a name the installed library's modules do not have


def is_library(name: str | None) -> bool:
    return bool(name) and name.partition(".")[0] in LIBRARIES


@dataclass(frozen=True)
class Symbol:
    """An installed object, by where it is defined: a module, a class, a callable or another value."""

    kind: str  # "module", "class", "callable" or "other"
    module: str  # the defining module (`__module__`); for a module, its own name
    qualname: str = ""

    @property
    def path(self) -> str:
        return f"{self.module}.{self.qualname}" if self.qualname else self.module

    @property
    def library_class(self) -> bool:
        return self.kind == "class" and is_library(self.module)


# --- the versions and the cache file -------------------------------------------------------------

@functools.cache
def installed_versions() -> dict[str, str]:
    """Distribution -> version of the libraries on sys.path, from their .dist-info folder names (no import)."""
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if (match := DIST_INFO.match(name)) and match.group(1) not in found:
                found[match.group(1).replace("_", "-")] = match.group(2)
    return found


def cache_dir() -> Path | None:
    """Where answers are kept, or None when JAX_PRO_CACHE=off."""
    setting = os.environ.get("JAX_PRO_CACHE", "")
    if setting == "off":
        return None
    if setting:
        return Path(setting).expanduser() / "checker"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "jax-pro" / "checker"


def cache_key(*sources: Path) -> str:
    """A hash of the interpreter, the installed versions and the source files whose answers are kept."""
    digest = hashlib.sha256(sys.executable.encode() + sys.version.encode())
    digest.update(json.dumps(sorted(installed_versions().items())).encode())
    for source in (Path(__file__), *sources):
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


class Answers:
    """Question -> answer, loaded from and saved to one JSON file per cache key."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.path: Path | None = None
        self.dirty = False

    def open(self, key: str) -> None:
        folder = cache_dir()
        self.path = folder / f"{key}.json" if folder else None
        self.values, self.dirty = {}, False
        if self.path is not None:
            with contextlib.suppress(OSError, ValueError):
                self.values = json.loads(self.path.read_text(encoding="utf-8"))

    def get(self, question: str, compute: Callable[[], Any]) -> Any:
        if question not in self.values:
            self.values[question] = compute()
            self.dirty = True
        return self.values[question]

    def save(self) -> None:
        if not self.dirty or self.path is None:
            return
        self.dirty = False
        write_atomically(self.path, json.dumps(self.values, separators=(",", ":")).encode())


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file, so concurrent readers never see half of it."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tmp-", delete=False) as tmp:
            tmp.write(data)
        os.replace(tmp.name, path)


ANSWERS = Answers()
atexit.register(ANSWERS.save)


def open_cache(*sources: Path) -> str:
    """Load the answers kept for this interpreter, these versions and `sources`; returns the key."""
    key = cache_key(*sources)
    ANSWERS.open(key)
    return key


def load_pickled(name: str, key: str) -> Any:
    """A value `store_pickled` kept under `name` for `key`, or None."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        return pickle.loads((folder / f"{key}-{name}.pickle").read_bytes())
    except Exception:  # missing, truncated, from another version of the classes: build it again
        return None


def store_pickled(name: str, key: str, value: Any) -> None:
    if (folder := cache_dir()) is not None:
        write_atomically(folder / f"{key}-{name}.pickle", pickle.dumps(value))


def answer(question: str) -> Callable[[Callable[[str], Any]], Callable[[str], Any]]:
    """Decorator: keep the function's answer for each argument under `question|argument`."""
    def wrap(compute: Callable[[str], Any]) -> Callable[[str], Any]:
        def asked(argument: str) -> Any:
            return ANSWERS.get(f"{question}|{argument}", lambda: compute(argument))
        asked.__doc__, asked.__name__ = compute.__doc__, compute.__name__
        return asked
    return wrap


# --- importing, quietly ---------------------------------------------------------------------------

@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """No warnings and nothing on file descriptor 2 (absl and TensorFlow log there while importing)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


_modules: dict[str, Any] = {}
_GONE = object()


def live_module(module: str) -> Any:
    """The imported module; _GONE if it is not there (its library is); None if that cannot be told."""
    if module not in _modules:
        try:
            with quiet():
                _modules[module] = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            # only "this module is gone" counts, not a missing optional dependency (tensorflow, ...)
            gone = exc.name and module.startswith(exc.name) and is_library(exc.name)
            _modules[module] = _GONE if gone else None
        except BaseException:  # a backend-specific module that does not import here
            _modules[module] = None
    return _modules[module]


def live(name: str) -> Any:
    """The installed object a dotted library name stands for; _GONE when a module lacks it; None when it
    cannot be told (library not installed, or the name goes through a class or an object)."""
    top = name.partition(".")[0]
    if not is_library(name) or live_module(top) in (None, _GONE):
        return None
    parts = name.split(".")
    obj = live_module(top)
    for index in range(1, len(parts)):
        if not inspect.ismodule(obj):
            return None  # attributes of classes and objects may be made at run time
        try:
            with quiet():
                obj = getattr(obj, parts[index])
            continue
        except AttributeError:
            pass
        except Exception:
            return None
        sub = live_module(".".join(parts[: index + 1]))  # a submodule not imported by its package
        if sub is None or sub is _GONE:
            return sub
        obj = sub
    return obj


def symbol_of(obj: Any, name: str) -> Symbol:
    if inspect.ismodule(obj):
        return Symbol("module", name)
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    kind = "class" if inspect.isclass(obj) else "callable" if callable(obj) else "other"
    if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
        return Symbol(kind, module, qualname)
    return Symbol(kind, name.rpartition(".")[0], name.rpartition(".")[2])


def live_class(symbol: Symbol) -> Any:
    obj = live(symbol.path)
    return obj if inspect.isclass(obj) else None


# --- the questions --------------------------------------------------------------------------------

def installed(name: str) -> Symbol | str | None:
    """The `Symbol` a dotted library name stands for; MISSING when a module lacks it; None when it cannot
    be told (library not installed, or the name goes through a class or an object)."""
    found = _installed(name)
    if isinstance(found, list):
        return Symbol(*found)
    return MISSING if found == MISSING else None  # the one MISSING object, so that `is MISSING` holds


@answer("installed")
def _installed(name: str) -> list[str] | str | None:
    obj = live(name)
    if obj is None or obj is _GONE:
        return MISSING if obj is _GONE else None
    symbol = symbol_of(obj, name)
    return [symbol.kind, symbol.module, symbol.qualname]


def version_of(name: str) -> str:
    """The installed version of the library `name` belongs to ("" when it is not installed)."""
    return installed_versions().get(DISTRIBUTIONS.get(name.partition(".")[0], ""), "")


def parameters_of(signature: inspect.Signature) -> list[list[Any]]:
    return [[p.name, int(p.kind), p.default is not p.empty] for p in signature.parameters.values()]


def signature_from(params: list[list[Any]] | None) -> inspect.Signature | None:
    if params is None:
        return None
    return inspect.Signature([inspect.Parameter(name, inspect._ParameterKind(kind),
                                                default=None if has_default else inspect.Parameter.empty)
                              for name, kind, has_default in params], __validate_parameters__=False)


def signature_of(name: str) -> inspect.Signature | None:
    """The installed signature of a library callable, or None (not found, not inspectable)."""
    return signature_from(_signature(name))


@answer("signature")
def _signature(name: str) -> list[list[Any]] | None:
    obj = live(name)
    if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.isbuiltin(obj)):
        return None  # instances (enum members, jitted or wrapped objects) may take anything
    try:
        signature = inspect.signature(obj)
        kinds = {p.kind for p in signature.parameters.values()}
        if inspect.isclass(obj) and kinds == {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD} \
                and "__init__" in vars(obj):  # a metaclass __call__ (flax's Object) hides __init__'s
            init = inspect.signature(obj.__init__)
            signature = init.replace(parameters=list(init.parameters.values())[1:])
        return parameters_of(signature)
    except (TypeError, ValueError):
        return None


def method_signature(cls: Symbol, method: str) -> inspect.Signature | None:
    """The signature of a plain method a class defines or inherits, without `self`; None otherwise
    (static and class methods, properties and other descriptors are not checked)."""
    return signature_from(_method_signature(f"{cls.path}#{method}"))


@answer("method")
def _method_signature(key: str) -> list[list[Any]] | None:
    path, _, method = key.partition("#")
    cls = live_class(Symbol("class", *path.rsplit(".", 1)))
    try:
        raw = inspect.getattr_static(cls, method) if cls is not None else None
        return parameters_of(inspect.signature(raw))[1:] if inspect.isfunction(raw) else None
    except (AttributeError, TypeError, ValueError):
        return None


@answer("origin")
def origin(name: str) -> str | None:
    """The implementation path of a public library name (`optax.global_norm` ->
    `optax._src.linear_algebra.global_norm`, from the installed object's __module__ and __qualname__),
    when that path names the very same installed object; else None."""
    obj = live(name)
    if obj is None or obj is _GONE or inspect.ismodule(obj):
        return None
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        return None
    key = f"{module}.{qualname}"
    return key if key != name and is_library(key) and live(key) is obj else None


def mro(cls: Symbol) -> list[Symbol]:
    """The classes an installed class derives from, itself first."""
    return [Symbol("class", module, qualname) for module, qualname in _mro(cls.path)]


@answer("mro")
def _mro(path: str) -> list[list[str]]:
    cls = live_class(Symbol("class", *path.rsplit(".", 1)))
    if cls is None:
        return []
    return [[c.__module__, c.__qualname__] for c in cls.__mro__
            if isinstance(getattr(c, "__module__", None), str) and "<" not in c.__qualname__]


@answer("passes-through")
def passes_through(name: str) -> bool:
    """Whether an installed function returns its first argument's type (a TypeVar in and out)."""
    fn = live(name)
    for candidate in (fn, *typing.get_overloads(fn)) if callable(fn) else ():
        try:
            hints = typing.get_type_hints(candidate)
            params = list(inspect.signature(candidate).parameters.values())
        except Exception:
            continue
        ret = hints.get("return")
        if params and isinstance(ret, typing.TypeVar) and hints.get(params[0].name) is ret:
            return True
    return False


def returned_class(name: str) -> Symbol | None:
    """The installed class an installed function's return annotation names, or None."""
    found = _returned_class(name)
    return Symbol("class", *found) if found else None


@answer("returns")
def _returned_class(name: str) -> list[str] | None:
    try:
        ret = typing.get_type_hints(live(name)).get("return")
    except Exception:
        return None
    symbol = symbol_of(ret, "") if inspect.isclass(ret) else None
    return [symbol.module, symbol.qualname] if symbol and symbol.library_class else None


@answer("source-file")
def source_file(module: str) -> str | None:
    """The path of an installed module's source file, or None."""
    obj = live_module(module)
    try:
        return inspect.getsourcefile(obj) if inspect.ismodule(obj) else None
    except TypeError:
        return None


@answer("deprecated-module")
def deprecated_module(name: str) -> list[str] | None:
    """For a module whose every public name (other than modules) is in its own `_deprecations` table:
    [the one replacement its messages name, or ""]; None for any other module or name."""
    module = live(name)
    table = getattr(module, "_deprecations", None) if inspect.ismodule(module) else None
    if not isinstance(table, dict) or not table:
        return None
    public = {n for n in dir(module) if not n.startswith("_") and not inspect.ismodule(getattr(module, n, None))}
    if public - set(table):
        return None
    return [str(message) for message, _ in table.values()]


def remember(question: str, compute: Callable[[], Any]) -> Any:
    """Keep any other JSON-able answer (the checker's reading of a library class's attributes)."""
    return ANSWERS.get(question, compute)
