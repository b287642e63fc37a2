# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1", "libcst==1.9.0"]
# ///
"""--fix: rewrite the mechanical renames of the data in place with LibCST, keeping formatting and comments.

What is rewritten (chosen by the checker, `jax_currency_check.fixable`): names whose replacement is the
same installed object, a move, a drop-in replacement or marked `rename = true`, and keyword renames of
one callee. Every rewrite is checked before it is written:

  - a call of a renamed name must bind to the NEW name's installed signature (after its own keyword
    renames), and a renamed keyword must be one the installed callee takes and the call does not pass
    already; otherwise that rewrite is skipped and reported (`path:line:col: not fixed ...: why`);
  - the rewritten file must compile, and the checker must find nothing in it that it did not find
    before (kind and old form); otherwise each rewrite is tried alone and only those that pass are kept.
LibCST is imported only here, only when --fix is given.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import inspect
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Plan:
    """What may be rewritten in one file, and the rewrites refused with their reasons."""

    renames: dict[str, str]
    keywords: dict[tuple[str, str], str]
    vetoed: set[tuple[int, int]] = field(default_factory=set)  # (line, col 0-based) of keyword arguments left
    refused: list[str] = field(default_factory=list)


def prefixes(name: str) -> list[str]:
    """`a.b.c`, `a.b`, `a`: longest first."""
    parts = name.split(".")
    return [".".join(parts[:end]) for end in range(len(parts), 0, -1)]


def binds(signature: inspect.Signature, call: ast.Call, keywords: list[str]) -> str:
    """"" if a call with these keywords binds to `signature`, else why not (a `*`/`**` call always binds)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return ""
    try:
        signature.bind(*range(len(call.args)), **dict.fromkeys(keywords))
    except TypeError as exc:
        return str(exc)
    return ""


def plan(path: str, tree: ast.Module, renames: dict[str, str], keywords: dict[tuple[str, str], str],
         resolve: Callable[[ast.AST], str | None], signature: Callable[[str], inspect.Signature | None]) -> Plan:
    """The renames and keyword renames that fit every call of this file, as the installed signatures say."""
    found = Plan(dict(renames), dict(keywords))

    def renamed(name: str) -> tuple[str, str] | None:  # (the key renamed, the new name) of `name` or a prefix
        key = next((p for p in prefixes(name) if p in renames), None)
        return (key, renames[key] + name[len(key):]) if key else None

    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        callee = resolve(call.func) or ""
        moved = renamed(callee) if callee else None
        target = moved[1] if moved else callee
        passed = [k.arg for k in call.keywords if k.arg]
        new_keywords = []
        for k in call.keywords:
            new = k.arg and (keywords.get((callee, k.arg)) or keywords.get((target, k.arg)))
            sig = signature(target) if new else None
            why = "" if not new else f"the call passes {new}= already" if new in passed else \
                f"the installed {target} takes no keyword {new}" if sig is not None and new not in sig.parameters \
                and not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()) else ""
            if why:
                found.vetoed.add((k.lineno, k.col_offset))
                found.refused.append(f"{path}:{k.lineno}:{k.col_offset + 1}: not fixed {callee}({k.arg}=) -> "
                                     f"{target}({new}=): {why}")
            new_keywords.append(new if new and not why else k.arg)
        if moved and moved[0] in found.renames and (sig := signature(target)) is not None:
            if why := binds(sig, call, [k for k in new_keywords if k]):
                del found.renames[moved[0]]
                found.refused.append(f"{path}:{call.lineno}:{call.col_offset + 1}: not fixed {callee} -> {target}: "
                                     f"the installed {target} rejects this call ({why})")
    return found


def touches(tree: ast.Module, renames: dict[str, str], keywords: dict[tuple[str, str], str],
            resolve: Callable[[ast.AST], str | None]) -> bool:
    """Whether the file names anything `renames` or `keywords` would rewrite (most files do not: LibCST,
    slow, is then never run on them)."""
    callees = {name for name, _ in keywords}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, (ast.Attribute, ast.Name)):
            names = [resolve(node) or ""]
        else:
            continue
        if any(p in renames or p in callees for name in names for p in prefixes(name)):
            return True
    return False


def fix_file(file: Path, renames: dict[str, str], keywords: dict[tuple[str, str], str],
             bindings: Callable[[ast.AST], dict[str, str]], resolve: Callable[[ast.AST, dict[str, str]], str | None],
             signature: Callable[[str], inspect.Signature | None],
             problems: Callable[[str, ast.Module], set[tuple[str, str]]],
             local_renames: Callable[[ast.Module, dict[str, str]], dict[str, str]] | None = None) -> list[str]:
    """Rewrite one file in place; its `fixed`/`not fixed` lines. `problems(path, tree)` is what the checker
    finds in a parsed source, as (kind, old form) pairs; `local_renames(tree, bindings)` adds renames of
    names this file uses that the installed library lacks (`jax.tree_map` -> `jax.tree.map`)."""
    import libcst as cst
    from libcst import codemod

    try:
        source = file.read_text(encoding="utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the file's own SyntaxWarnings (invalid escapes) are not ours to print
            tree = ast.parse(source)
        names = bindings(ast.walk(tree))
        renames = {**renames, **(local_renames(tree, names) if local_renames else {})}
        if not touches(tree, renames, keywords, lambda node: resolve(node, names)):
            return []
        module = cst.parse_module(source)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError, cst.ParserSyntaxError):
        return []  # reported by the check (unparsable)
    todo = plan(str(file), tree, renames, keywords, lambda node: resolve(node, names), signature)
    fixer_class = make_fixer(cst, codemod)

    def attempt(renames: dict[str, str], keywords: dict[tuple[str, str], str]) -> tuple[str, list[Any]] | None:
        """The rewritten source and its changes, if it compiles and adds no finding; else None."""
        try:
            fixer = fixer_class(codemod.CodemodContext(filename=str(file)), names, renames, keywords, todo.vetoed)
            code = fixer.transform_module(module).code
            if code == source:
                return code, []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(code, str(file), "exec")  # what Python itself rejects (a keyword passed twice, ...)
                new = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError, cst.ParserSyntaxError):
            return None
        if not before:
            before.append(problems(str(file), tree))
        return (code, fixer.changes) if problems(str(file), new) <= before[0] else None

    before: list[set[tuple[str, str]]] = []  # what the check finds in the file as it is, once needed
    result = attempt(todo.renames, todo.keywords)
    if result is None:  # try each rewrite alone; keep those that pass, together
        renames = {k: v for k, v in todo.renames.items() if attempt({k: v}, {}) is not None}
        keywords = {k: v for k, v in todo.keywords.items() if attempt({}, {k: v}) is not None}
        todo.refused += [f"{file}: not fixed {old} -> {new}: the rewritten code would not pass the check"
                         for old, new in todo.renames.items() if old not in renames]
        todo.refused += [f"{file}: not fixed {name}({old}=) -> {name}({new}=): the rewritten code would not pass "
                         f"the check" for (name, old), new in todo.keywords.items() if (name, old) not in keywords]
        result = attempt(renames, keywords)
        if result is None:
            return todo.refused + [f"{file}: not fixed: the rewritten file would not pass the check"]
    code, changes = result
    if code != source:
        file.write_text(code, encoding="utf-8")
    return [f"{file}:{line}:{col}: fixed {old} -> {new}" for line, col, old, new in sorted(changes)] + todo.refused


def import_target(name: str) -> str:
    """The module to import so that dotted `name` can be spelled in full (its parent if that is a module)."""
    parent = name.rpartition(".")[0]
    try:
        return parent if parent and importlib.util.find_spec(parent) is not None else name.partition(".")[0]
    except (ImportError, ValueError):
        return name.partition(".")[0]


@functools.cache
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
                     keywords: dict[tuple[str, str], str], vetoed: set[tuple[int, int]] = frozenset()) -> None:
            super().__init__(context)
            self.bindings, self.renames, self.keywords, self.vetoed = dict(bindings), renames, keywords, vetoed
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
                start = self.get_metadata(position, original.args[i]).start
                if (start.line, start.column) in self.vetoed:
                    continue
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
