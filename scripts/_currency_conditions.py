# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""When a deprecation warns: the `if` tests around a library's `warnings.warn`, read from its installed source.

A data entry such as `jax._src.distributed.initialize` (deprecated, note `jax/_src/distributed.py:400:
`slice_index` has been deprecated...`) does not deprecate the function: the warning sits inside
`if slice_index is not None:`. `warning_condition` finds the warning at that file and line in the installed
source and returns the tests on the way from the function to it (an `else` branch negates its test; an
earlier `if ...: return` adds its negation), with the function's parameters and defaults. `meets` then
decides, for one call as written, whether those tests hold:

  True   every test holds: the call warns (`initialize(slice_index=2)`)
  False  a test fails: the call does not warn (`initialize()`, `initialize(slice_index=None)`)
  None   it cannot be told from the call (a test reads a global, an attribute of an argument, an
         environment variable, or the call passes `*args`/`**kwargs`)

An argument the call passes as an expression is taken to be neither None nor false nor the library's
sentinel default; a literal is compared as it is; an argument left out has its default. A data entry may
also state the condition itself (dev/api_delta.py writes both from the release history):
`warns_if_keyword = "slice_index"` (the call passes that keyword, by name or position, as anything but a
literal None) and `warns_if = "partition_index is None"` (the other tests, as the library writes them).
These replace the tests read from the source; a name they use that is not a known parameter is unknown.

Answers are plain JSON values, kept by `_installed.remember`, so a warm run parses no library source.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import Any

from _installed import remember, source_file

NOTE_PLACE = re.compile(r"^(?P<file>[\w/.-]+)\.py:(?P<line>\d+): ")
GIVEN = ("given",)  # an argument passed as an expression the checker does not evaluate
UNKNOWN = None


@functools.cache
def parsed(path: str) -> tuple[ast.Module, dict[int, ast.AST]] | None:
    """An installed source file's tree and each node's parent; None if it cannot be read."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError):
        return None
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    return tree, parents


def warning_condition(name: str, note: str, keyword: str = "", test: str = "") -> dict[str, Any] | None:
    """The condition under which the entry `name` warns (see the module docstring), as JSON: {"always": true}
    when the warning is located and unconditional; None when it cannot be located and the data states no
    condition (the entry then applies to every use, as before). The data's `warns_if_keyword` (keyword)
    and `warns_if` (test) replace the tests read from the source; the source still gives the parameters,
    their defaults and earlier returns."""
    located = remember(f"warn-condition|{name}|{note}", lambda: read_condition(name, note))
    if not keyword and not test:
        return located
    tests = ([[f"{keyword} is not None", False]] if keyword else []) + ([[test, False]] if test else [])
    if located and "params" in located:
        return dict(located, tests=tests)
    return {"params": [], "defaults": {keyword: ["const", None]} if keyword else {}, "tests": tests, "guards": [],
            "unknown_names": True}


def read_condition(name: str, note: str) -> dict[str, Any] | None:
    """The condition of the warning the note places (`jax/_src/distributed.py:400: ...`) in the installed
    source, for the function `name` ends with."""
    match = NOTE_PLACE.match(note)
    module = match.group("file").replace("/", ".").removesuffix(".__init__") if match else ""
    file = source_file(module) if module else None
    if not file or match is None:
        return None
    return condition_in(file, int(match.group("line")), name.partition("#")[0].rpartition(".")[2])


def condition_in(file: str, line: int, function: str) -> dict[str, Any] | None:
    """The condition of the warning at `line` of `file`, inside the function or method named `function`."""
    tree = parsed(file)
    if tree is None:
        return None
    root, parents = tree
    defs = [n for n in ast.walk(root) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.lineno <= line <= (n.end_lineno or n.lineno)]
    if not defs:
        return None
    fn = max(defs, key=lambda n: n.lineno)  # the innermost
    if fn.name != function:
        return None  # the warning is in a helper, not in the function the entry names
    warn = min((n for n in ast.walk(fn) if isinstance(n, ast.stmt) and n.lineno <= line <= (n.end_lineno or n.lineno)
                and not isinstance(n, (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef))),
               key=lambda n: (n.end_lineno or n.lineno) - n.lineno, default=None)
    if warn is None:
        return None
    tests, guards = [], []
    node: ast.AST = warn
    while node is not fn:
        holder = parents.get(id(node))
        if holder is None or isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) \
                and holder is not fn:
            return None
        if isinstance(holder, ast.If) and node is not holder.test:
            tests.append([ast.unparse(holder.test), node in holder.orelse])
        for body in ("body", "orelse", "finalbody"):  # `if x: return` before the warning
            siblings = getattr(holder, body, None)
            if isinstance(siblings, list) and node in siblings:
                for earlier in siblings[: siblings.index(node)]:
                    if isinstance(earlier, ast.If) and not earlier.orelse and isinstance(earlier.body[-1], ast.Return):
                        guards.append(ast.unparse(earlier.test))
        node = holder
    if not tests and not guards:
        return {"always": True}  # located, and warns on every call
    return {"params": parameters(fn), "defaults": defaults(fn), "tests": tests, "guards": guards}


def parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The parameters a call can fill by position, in order, without the `self`/`cls` of a method."""
    names = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    decorators = {d.id for d in fn.decorator_list if isinstance(d, ast.Name)}
    if names and names[0] in ("self", "cls") and "staticmethod" not in decorators:
        names = names[1:]
    return names


def defaults(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, list[Any]]:
    """Parameter -> ["const", value] for a literal default, ["expr", source] for any other default."""
    positional = [*fn.args.posonlyargs, *fn.args.args]
    pairs = list(zip(positional[len(positional) - len(fn.args.defaults):], fn.args.defaults))
    pairs += [(a, d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None]
    found = {}
    for arg, default in pairs:
        if isinstance(default, ast.Constant) and isinstance(default.value, (type(None), bool, int, float, str)):
            found[arg.arg] = ["const", default.value]
        else:
            found[arg.arg] = ["expr", ast.unparse(default)]
    return found


def arguments(condition: dict[str, Any], call: ast.Call) -> dict[str, Any] | None:
    """Parameter -> ("const", value) | GIVEN | ("default", source) for one call; None if the call spreads
    `*args` or `**kwargs` (what it passes cannot be told)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    values: dict[str, Any] = {}
    for name, (kind, value) in condition["defaults"].items():
        values[name] = ("const", value) if kind == "const" else ("default", value)
    passed = dict(zip(condition["params"], call.args))
    passed.update({k.arg: k.value for k in call.keywords if k.arg})
    for name, node in passed.items():
        literal = isinstance(node, ast.Constant) and isinstance(node.value, (type(None), bool, int, float, str))
        values[name] = ("const", node.value) if literal else GIVEN
    return values


def meets(condition: dict[str, Any], call: ast.Call) -> bool | None:
    """Whether the call as written meets the condition: True, False, or None when it cannot be told."""
    values = arguments(condition, call)
    if values is None:
        return UNKNOWN
    if condition.get("unknown_names"):  # the parameters are not known: a name may be one
        values["__unknown_names__"] = True
    results = [truth(ast.parse(src, mode="eval").body, values) for src, _ in condition["tests"]]
    results = [None if r is None else r != negated for r, (_, negated) in zip(results, condition["tests"])]
    for guard in condition.get("guards", []):
        fired = truth(ast.parse(guard, mode="eval").body, values)
        if fired is True:
            return False  # an earlier `return` is taken
    if any(r is False for r in results):
        return False
    return True if all(r is True for r in results) else UNKNOWN


def value(node: ast.AST, values: dict[str, Any]) -> Any:
    """("const", v), GIVEN, ("default", source), ("name", source) for a global or attribute, or None."""
    if isinstance(node, ast.Constant):
        return ("const", node.value)
    if isinstance(node, ast.Name) and node.id in values:
        return values[node.id]
    if isinstance(node, ast.Name) and values.get("__unknown_names__"):
        return None
    if isinstance(node, (ast.Name, ast.Attribute)):
        return ("name", ast.unparse(node))
    return None


def truth(node: ast.AST, values: dict[str, Any]) -> bool | None:
    """Three-valued truth of a test over the parameters (None: unknown)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = truth(node.operand, values)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        parts = [truth(v, values) for v in node.values]
        if isinstance(node.op, ast.And):
            return False if False in parts else (True if all(p is True for p in parts) else None)
        return True if True in parts else (False if all(p is False for p in parts) else None)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return compare(node.ops[0], value(node.left, values), value(node.comparators[0], values))
    found = value(node, values)
    if found == GIVEN:
        return True  # an argument passed as an expression: taken to be meant (not None, not false)
    return bool(found[1]) if found and found[0] == "const" else None


def compare(op: ast.cmpop, left: Any, right: Any) -> bool | None:
    """`is`, `is not`, `==`, `!=` (and orderings of two literals) between evaluated operands."""
    if left is None or right is None:
        return None
    if isinstance(op, (ast.IsNot, ast.NotEq)):
        same = compare(ast.Is() if isinstance(op, ast.IsNot) else ast.Eq(), left, right)
        return None if same is None else not same
    if left[0] == "const" and right[0] == "const":
        try:
            if isinstance(op, ast.Is):
                return left[1] is right[1]
            return {ast.Eq: lambda a, b: a == b, ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
                    ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}[type(op)](left[1], right[1])
        except (KeyError, TypeError):
            return None
    if not isinstance(op, (ast.Is, ast.Eq)):
        return None
    kinds = {left[0], right[0]}
    if kinds == {"default", "name"}:  # `param is DEFAULT_X` where the default is DEFAULT_X
        return left[1] == right[1] or None
    if GIVEN in (left, right):  # the user's value is not None and not the library's sentinel
        other = right if left == GIVEN else left
        return False if other[0] == "name" or other == ("const", None) else None
    if kinds == {"const", "name"}:
        return False  # a literal is not the library's sentinel object
    if kinds == {"const", "default"}:
        return None
    return None


def effective_default(note: str, function: str, param: str) -> Any:
    """The value a parameter of the function at the note's place takes when a call leaves it out: its
    literal default, or for a None default the literal the body then assigns under `if param is None`
    (`elif condition_deterministic is None: condition_deterministic = False`); MISSING_VALUE if unknown."""
    found = remember(f"effective-default|{note}|{function}|{param}", lambda: read_default(note, function, param))
    return found[0] if found else MISSING_VALUE


MISSING_VALUE = object()


def read_default(note: str, function: str, param: str) -> list[Any] | None:
    match = NOTE_PLACE.match(note)
    file = source_file(match.group("file").replace("/", ".").removesuffix(".__init__")) if match else None
    return default_in(file, int(match.group("line")), function, param) if file and match else None


def default_in(file: str, line: int, function: str, param: str) -> list[Any] | None:
    """[the value `param` of the function around `line` of `file` takes when left out], or None if unknown."""
    tree = parsed(file)
    if tree is None:
        return None
    fn = next((n for n in ast.walk(tree[0]) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
               and n.name == function and n.lineno <= line <= (n.end_lineno or n.lineno)), None)
    default = defaults(fn).get(param) if fn else None
    if default is None or default[0] != "const":
        return None
    if default[1] is not None:
        return [default[1]]
    for node in ast.walk(fn):
        if isinstance(node, ast.If) and ast.unparse(node.test) == f"{param} is None":
            values = [s.value.value for s in node.body if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant)
                      and [t.id for t in s.targets if isinstance(t, ast.Name)] == [param]]
            if values:
                return [values[0]]
    return [None]
