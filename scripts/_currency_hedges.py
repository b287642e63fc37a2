# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""Version-probing hedges: code that behaves differently depending on which release of jax, flax, optax,
orbax or numpyro is installed, where the current API should simply be called.

A hedge is:
  - a `try` whose `except ImportError|ModuleNotFoundError|AttributeError` (or a broader except, around
    imports) can only be taken on another release: it imports a member or submodule of a library the
    file otherwise relies on, or reads an attribute chain of a library module, and does nothing else that
    could raise it; or its handler falls back to another library name (`except ImportError: from
    jax.experimental.shard_map import shard_map`). NOT a hedge: a guard of an optional dependency (the
    body imports another package, `import funsor`, a bare `import numpyro`, or a library module that
    cannot be imported here for want of one) and duck typing (the body reads attributes of the user's own
    objects, `x.numpy()`), unless the handler falls back to a library name;
  - `hasattr`/`getattr(obj, "name", default)` where obj is a library module, an instance of a library
    class (local type knowledge) or what a library call returned (`jax.devices()[0]`); and
    `inspect.signature(<library callable>)` (`"check_vma" in inspect.signature(shard_map).parameters`);
  - a comparison that matches both an old and a new name of one change of the data (`name in ("pjit",
    "jit")`, `p == "pvary" or p == "pcast"`);
  - a warnings filter that ignores DeprecationWarning/FutureWarning, or messages naming a library, or
    warnings from a library's modules; `catch_warnings()` with a blanket ignore around library calls.
    NOT a hedge: a filter for one specific message or category unrelated to the libraries;
  - a comparison or condition reading `jax.__version__`, `flax.__version__`, `importlib.metadata.version(...)`.
"""

from __future__ import annotations

import ast
import re
import sys
from typing import Any

from _installed import MISSING, Symbol, installed, is_library

CAUGHT = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"})
IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
WARNING_CLASSES = frozenset({"DeprecationWarning", "PendingDeprecationWarning", "FutureWarning"})
BLANKET_CLASSES = frozenset({"Warning", "UserWarning"})  # what a blanket `ignore` of library calls also hides
LIBRARY_WORD = re.compile(r"\b(jax|jaxlib|flax|optax|orbax|numpyro|jnp|nnx|pjit|xla)\b", re.IGNORECASE)
REPORTING = frozenset({"print", "warn", "warning", "info", "debug", "error", "exception", "log"})
SIGNATURE_PROBES = frozenset({"inspect.signature", "inspect.getfullargspec", "inspect.getargspec"})
HEDGE_ADVICE = "call the installed version's API directly"
VERSION_ATTRIBUTES = frozenset({"__version__", "__version_info__"})


def short(node: ast.AST, limit: int = 70) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def ignores(call: ast.Call) -> bool:
    """Whether a warnings filter call's action is "ignore"."""
    action = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "action"), None)
    return isinstance(action, ast.Constant) and action.value == "ignore"


def parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names of a function's parameters."""
    args = function.args
    found = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in found if a is not None}


def only_reports(node: ast.Try) -> bool:
    """Whether every handler only logs, warns or prints: the `try` guards an optional feature (praxis's
    `except ImportError: logging.warning('jax_triton not found ...')`); no other release's API is used."""
    def reports(stmt: ast.stmt) -> bool:
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            return False
        func = stmt.value.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name in REPORTING
    return all(handler.body and all(reports(stmt) for stmt in handler.body) for handler in node.handlers)


def handler_names(handler: ast.ExceptHandler) -> set[str]:
    """Exception class names an except clause catches; a bare `except:` catches BaseException."""
    if handler.type is None:
        return {"BaseException"}
    nodes = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "") for n in nodes}


def filter_scope(call: ast.Call) -> str:
    """What a warnings filter silences: "library" (a message naming a library, or a library's modules),
    "deprecation" (a deprecation category), "blanket" (everything, or Warning/UserWarning), or
    "specific" (one message or module unrelated to the libraries, or another category)."""
    simple = isinstance(call.func, ast.Attribute) and call.func.attr == "simplefilter" \
        or isinstance(call.func, ast.Name) and call.func.id == "simplefilter"
    names = ("action", "category", "lineno", "append") if simple else ("action", "message", "category", "module")
    given = dict(zip(names, call.args)) | {k.arg: k.value for k in call.keywords if k.arg}
    for field in ("message", "module"):
        value = given.get(field)
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.strip(".*^$ "):
            if field == "module":
                return "library" if is_library(re.sub(r"^\W*", "", value.value).split("\\")[0]) else "specific"
            return "library" if LIBRARY_WORD.search(value.value) else "specific"
    category = given.get("category")
    if category is None:
        return "blanket"
    names_in = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "") for n in ast.walk(category)}
    if names_in & WARNING_CLASSES:
        return "deprecation"
    return "blanket" if names_in & BLANKET_CLASSES else "specific"


class HedgeChecks:
    """The hedge checks of `FileChecker` (which provides `bindings`, `types`, `index`, `name_of`, `add`)."""

    bindings: dict[str, str]
    types: Any
    index: Any

    def name_of(self, node: ast.AST) -> str | None:  # provided by FileChecker
        raise NotImplementedError

    def add(self, node: ast.AST, kind: str, old: str, new: str = "", section: str = "", message: str = "") -> None:
        raise NotImplementedError

    def add_hedge(self, node: ast.AST, old: str, new: str, message: str) -> None:
        """One hedge per expression: `hasattr(jax, "pxla") and hasattr(jax.pxla, "X")` is one probe."""
        top = node
        while isinstance(holder := self.types.parent.get(id(top)), ast.expr):
            top = holder
        seen = self.__dict__.setdefault("_hedged", set())
        if id(top) not in seen:
            seen.add(id(top))
            self.add(top if top is not node and isinstance(top, (ast.BoolOp, ast.Compare)) else node,
                     "hedge", old, new, message=message)

    # hasattr / getattr / inspect.signature
    def check_probe(self, call: ast.Call) -> None:
        """hasattr(<library object>, "name"), getattr(<library object>, "name", default), and
        inspect.signature(<library callable>)."""
        if isinstance(call.func, ast.Name) and call.func.id not in self.bindings:
            wanted = {"hasattr": 2, "getattr": 3}.get(call.func.id)
            unwrap = len(call.args) == 3 and ast.dump(call.args[2]) == ast.dump(call.args[0])  # getattr(x, "v", x)
            if wanted and len(call.args) == wanted and isinstance(call.args[1], ast.Constant) and not unwrap \
                    and isinstance(call.args[1].value, str) and self.probes_version(call.args[0], call.args[1].value):
                self.add_hedge(call, short(call), HEDGE_ADVICE, message=f"{call.func.id} probes for an API version")
            return
        if self.name_of(call.func) in SIGNATURE_PROBES and call.args and self.library_object(call.args[0]):
            self.add_hedge(call, short(call), HEDGE_ADVICE,
                           message="reading a library function's parameters probes for an API version")

    def probes_version(self, obj: ast.AST, attr: str) -> bool:
        """Whether `hasattr(obj, attr)` asks which release is installed: obj is a library module or class
        (any attribute), or a library object (an instance, even one a module holds, such as
        `distributed.global_state`) whose attribute is one the data lists as changed or added.
        Whether the installed class lacks it says nothing: the object may be the project's subclass
        (`model: nnx.Module`), a registered handler or a platform's device (`device_kind`)."""
        name = self.name_of(obj)
        if is_library(name):
            symbol = installed(name)  # a module or class of the library, or a name the installed one lacks
            if not isinstance(symbol, Symbol) or symbol.kind in ("module", "class"):
                return True
        return self.library_object(obj) and attr in self.changed_members()

    def changed_members(self) -> set[str]:
        """The last names of the data's old, new and added forms (`value`, `sharding_names`, `axis_types`)."""
        found = getattr(self.index, "_changed_members", None)
        if found is None:
            found = {n.partition("#")[0].rpartition(".")[2] for n in self.index.names}
            found |= {c.new_name.rpartition(".")[2] for c in self.index.names.values() if c.new_name}
            found |= getattr(self.index, "added", set())
            self.index._changed_members = found
        return found

    def library_object(self, node: ast.AST, depth: int = 0) -> bool:
        """A library module or name, an instance of a library class, or what a library call returned
        (through indexing, attributes and further calls), or a local name only ever bound to one."""
        known = self.types.of(node)
        if is_library(self.name_of(node)) or isinstance(known, tuple) and known[0] == "lib":
            return True  # not an instance of the project's own class, even one derived from a library's
        inner = node
        while isinstance(inner, (ast.Subscript, ast.Attribute, ast.Call)):
            inner = inner.func if isinstance(inner, ast.Call) else inner.value
            if isinstance(inner, (ast.Attribute, ast.Name)) and is_library(self.name_of(inner)) \
                    and inner is not node and isinstance(self.types.parent.get(id(inner)), ast.Call):
                return True  # the root is a library call: `jax.devices()[0]`, `jax.jit(f).lower(x)`
        if isinstance(inner, ast.Name) and depth < 3:  # a local name bound only to library objects
            scope = self.types.scope(inner)
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and inner.id in parameters(scope):
                return False  # the caller's value, whatever the function assigns to it in one branch
            values = self.types.assignments(scope).get(inner.id)
            return bool(values) and all(self.library_object(v, depth + 1) for v in values)
        return False

    # old and new names in one comparison
    def renamed_pairs(self) -> set[frozenset[str]]:
        """{old, new} last names of the data's renames (`pjit`/`jit`, `pvary`/`pcast`), public names only."""
        pairs = getattr(self.index, "_renamed_pairs", None)
        if pairs is None:
            pairs = set()
            for change in self.index.names.values():
                old, new = change.name.rpartition(".")[2], change.new_name.rpartition(".")[2]
                if change.kind in ("removed", "moved", "deprecated") and re.fullmatch(r"[a-z]\w*", old) \
                        and re.fullmatch(r"[a-z]\w*", new) and old != new and "." in change.new_name:
                    pairs.add(frozenset((old, new)))
            self.index._renamed_pairs = pairs
        return pairs

    def check_name_pairs(self, node: ast.AST) -> None:
        """A comparison (or an `or` of comparisons) whose string constants hold both the old and the new
        name of one change: code written to match either release."""
        if isinstance(node, ast.Compare) and isinstance(self.types.parent.get(id(node)), ast.BoolOp):
            return  # judged with its `or`
        if not isinstance(node, ast.Compare) and not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)
                                                      and all(isinstance(v, ast.Compare) for v in node.values)):
            return
        strings = {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        if len(strings) < 2:
            return
        for pair in self.renamed_pairs():
            if pair <= strings:
                old, new = sorted(pair)
                self.add_hedge(node, short(node), HEDGE_ADVICE,
                               message=f"matches both {old!r} and {new!r}, the names of one API on two releases")
                return

    # warnings filters
    def check_filter(self, call: ast.Call) -> None:
        """warnings.filterwarnings/simplefilter("ignore", ...) that hides deprecation warnings or the libraries'."""
        if self.name_of(call.func) not in ("warnings.filterwarnings", "warnings.simplefilter"):
            return
        if ignores(call) and filter_scope(call) in ("library", "deprecation"):
            self.add(call, "hedge", short(call), "let deprecation warnings show",
                     message="silenced deprecation warnings hide what the installed versions removed")

    def check_catch_warnings(self, node: ast.With) -> None:
        """`with warnings.catch_warnings():` + a blanket ignore around calls into the libraries."""
        if not any(isinstance(i.context_expr, ast.Call)
                   and self.name_of(i.context_expr.func) == "warnings.catch_warnings" for i in node.items):
            return
        inner = [n for stmt in node.body for n in ast.walk(stmt)]
        filters = [n for n in inner if isinstance(n, ast.Call) and ignores(n)
                   and self.name_of(n.func) in ("warnings.filterwarnings", "warnings.simplefilter")]
        touched = [n for n in inner if isinstance(n, ast.Call) and is_library(self.name_of(n.func))]
        if touched and any(filter_scope(f) == "blanket" for f in filters):
            self.add(node, "hedge", f"catch_warnings() + ignore around {short(touched[0].func)}",
                     "let deprecation warnings show", message="silenced warnings hide what the installed versions removed")

    # try / except
    def check_try(self, node: ast.Try) -> None:
        """A try/except that can only fail on another release (see the module docstring)."""
        caught = {n for h in node.handlers for n in handler_names(h)} & CAUGHT
        if not caught:
            return
        body = [n for stmt in node.body for n in ast.walk(stmt)]
        imports, others, bare = self.imports(body)
        reads = self.library_reads(body) if "AttributeError" in caught else []
        probe = imports[0] if imports else reads[0][0] if reads else None
        if probe is None:
            return
        if not imports and "ImportError" not in caught and self.dynamic_user_getattr(body) \
                and all(installed(name) not in (None, MISSING) for name, _ in reads):
            return  # `getattr(result, name)` of the caller's object is what raises AttributeError
        if not self.falls_back(node, body, imports):
            if not all(self.probe_statement(stmt) for stmt in node.body):
                return  # the try guards work (a registration, a clean-up), not a name's existence
            if imports and (others or bare or not caught - {"AttributeError"} or only_reports(node)
                            or any(installed(name) is None or name.partition(".")[0] not in self.relied_on()
                                   for name in imports)):
                return  # an optional dependency's guard (or an import under `except AttributeError` only)
            if not imports and (self.user_attributes(body) or all(called and installed(name) not in (None, MISSING)
                                                                  for name, called in reads)):
                return  # duck typing of the caller's objects, or calls of names every release has
        self.add(node, "hedge", f"try: {probe} ... except {'/'.join(sorted(caught))}", HEDGE_ADVICE,
                 message="a try/except that probes for an API version")

    def dynamic_user_getattr(self, nodes: list[ast.AST]) -> bool:
        """Whether `nodes` call `getattr(obj, name)` with no default on an object that is not the library's."""
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "getattr"
                   and n.func.id not in self.bindings and len(n.args) == 2 and not self.library_object(n.args[0])
                   for n in nodes)

    @staticmethod
    def probe_statement(stmt: ast.stmt) -> bool:
        """An import, `pass`, or an assignment of a name or attribute chain: what a version probe's body holds."""
        if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass)):
            return True
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr)) else None
        return isinstance(value, (ast.Name, ast.Attribute, ast.Constant))

    def falls_back(self, node: ast.Try, body: list[ast.AST], imports: list[str]) -> bool:
        """Whether a handler turns to a library name the body does not use (`except ImportError: from
        jax.experimental.shard_map import shard_map`): code written for two releases."""
        used = set(imports) | {self.name_of(n) for n in body if isinstance(n, (ast.Attribute, ast.Name))}
        handled = [n for h in node.handlers for stmt in h.body for n in ast.walk(stmt)]
        if self.imports(handled)[0]:
            return True
        return any(isinstance(n, (ast.Attribute, ast.Name)) and isinstance(n.ctx, ast.Load)
                   and is_library(name := self.name_of(n)) and name not in used for n in handled)

    def library_reads(self, nodes: list[ast.AST]) -> list[tuple[str, bool]]:
        """(name, whether it is called) of the attributes of library modules that `nodes` read (`jax.tree.map`):
        what can raise AttributeError on another release (not a module itself, not a name bound by import)."""
        found = []
        for n in nodes:
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) \
                    and not isinstance(holder := self.types.parent.get(id(n)), ast.Attribute) \
                    and is_library(name := self.name_of(n)) and getattr(installed(name), "kind", "") != "module":
                found.append((name, isinstance(holder, ast.Call) and holder.func is n))
        return found

    def relied_on(self) -> set[str]:
        """The libraries this file imports outside any `try`: those it cannot run without."""
        found = getattr(self, "_relied_on", None)
        if found is None:
            guarded = {id(n) for t in ast.walk(self.types.tree) if isinstance(t, ast.Try)
                       for stmt in t.body for n in ast.walk(stmt)}
            found = {name.partition(".")[0] for n in ast.walk(self.types.tree) if id(n) not in guarded
                     for name in self.imports([n])[0]}
            self._relied_on = found
        return found

    def imports(self, nodes: list[ast.AST]) -> tuple[list[str], list[str], list[str]]:
        """The library names imported among `nodes`, the other non-standard modules imported, and the
        library imports that are a bare top-level package (`import numpyro`)."""
        library, others, bare = [], [], []
        for sub in nodes:
            if isinstance(sub, ast.Import):
                for alias in sub.names:
                    (library if is_library(alias.name) else others).append(alias.name)
                    if is_library(alias.name) and "." not in alias.name:
                        bare.append(alias.name)
            elif isinstance(sub, ast.ImportFrom) and sub.level == 0 and sub.module:
                if is_library(sub.module):
                    library += [f"{sub.module}.{a.name}" for a in sub.names if a.name != "*"] or [sub.module]
                else:
                    others.append(sub.module)
        others = [o for o in others if o.partition(".")[0] not in sys.stdlib_module_names]
        return library, others, bare

    def user_attributes(self, nodes: list[ast.AST]) -> bool:
        """Whether `nodes` read an attribute of something other than a library module or object."""
        for n in nodes:
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) \
                    and not isinstance(self.types.parent.get(id(n)), ast.Attribute) \
                    and not is_library(self.name_of(n)) and not self.library_object(n.value):
                return True
        return False

    # versions
    def check_version(self, node: ast.AST) -> None:
        """A library's version read inside a comparison or a condition."""
        test = node if isinstance(node, ast.Compare) else node.test  # type: ignore[attr-defined]
        for sub in ast.walk(test):
            if self.is_version(sub):
                self.add_hedge(sub, short(sub), HEDGE_ADVICE, message="a version comparison")

    def is_version(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute) and node.attr in VERSION_ATTRIBUTES:
            return is_library(self.name_of(node.value))
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            callee = self.name_of(node.func) or ""
            return callee.endswith("metadata.version") and is_library(str(node.args[0].value).replace("-", "."))
        return False
