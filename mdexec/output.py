"""Checked output: `print(...)  # expected` comments and `>>>` doctest blocks.

Both compare text the same way: whitespace runs are one space, and numbers match within a relative
tolerance, so `0.30000000000000004` matches a comment of `0.3`.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import io
import math
import re
import sys
import tokenize
from collections.abc import Iterator

RTOL = 1e-5
ATOL = 1e-8
CHECK_NAME = "__mdexec_expect__"

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)\b")


class OutputMismatch(AssertionError):
    """A checked print wrote something other than its comment."""


class DoctestMismatch(AssertionError):
    """A `>>>` example printed something other than the text below it."""


def outputs_match(expected: str, actual: str) -> bool:
    """Compare two texts with whitespace normalised and numbers within tolerance."""
    exp_parts, act_parts = _split(expected), _split(actual)
    if len(exp_parts) != len(act_parts):
        return False
    for exp, act in zip(exp_parts, act_parts):
        if isinstance(exp, float) and isinstance(act, float):
            if not _close(exp, act):
                return False
        elif exp != act:
            return False
    return True


def _split(text: str) -> list[str | float]:
    """Split into alternating text and numbers; text has its whitespace collapsed."""
    parts: list[str | float] = []
    position = 0
    normalised = " ".join(text.split())
    for match in _NUMBER.finditer(normalised):
        parts.append(normalised[position : match.start()].replace(" ", ""))
        parts.append(float(match.group()))
        position = match.end()
    parts.append(normalised[position:].replace(" ", ""))
    return parts


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL)


@contextlib.contextmanager
def expect_output(line: int, expected: str) -> Iterator[None]:
    """Capture what the wrapped print writes, echo it, and compare it with `expected`."""
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        yield
    written = captured.getvalue()
    sys.stdout.write(written)
    if not outputs_match(expected, written):
        raise OutputMismatch(f"line {line}: printed {written.strip()!r}, but the comment expects {expected!r}")


def add_output_checks(tree: ast.Module, source: str) -> ast.Module:
    """Wrap every `print(...)  # text` statement in `with __mdexec_expect__(line, "text"):`."""
    comments = _trailing_comments(source)
    _PrintWrapper(comments).visit(tree)
    return ast.fix_missing_locations(tree)


def _trailing_comments(source: str) -> dict[int, str]:
    """Map line number -> comment text for comments that follow code on the same line."""
    comments: dict[int, str] = {}
    code_lines: set[int] = set()
    reader = io.StringIO(source).readline
    try:
        for token in tokenize.generate_tokens(reader):
            if token.type == tokenize.COMMENT:
                if token.start[0] in code_lines:
                    comments[token.start[0]] = token.string[1:].strip()
            elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                code_lines.update(range(token.start[0], token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        return {}
    return comments


class _PrintWrapper(ast.NodeTransformer):
    def __init__(self, comments: dict[int, str]) -> None:
        self.comments = comments

    def visit_Expr(self, node: ast.Expr) -> ast.stmt:
        call = node.value
        is_print = isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print"
        end_line = node.end_lineno or node.lineno
        if not is_print or end_line not in self.comments:
            return node
        check = ast.Call(
            func=ast.Name(id=CHECK_NAME, ctx=ast.Load()),
            args=[ast.Constant(end_line), ast.Constant(self.comments[end_line])],
            keywords=[],
        )
        wrapped = ast.With(items=[ast.withitem(context_expr=check)], body=[node])
        return ast.copy_location(wrapped, node)


class _TolerantChecker(doctest.OutputChecker):
    """doctest's checker, but with our whitespace and numeric tolerance."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        return super().check_output(want, got, optionflags) or outputs_match(want, got)


def run_doctest(source: str, namespace: dict, name: str, filename: str, first_line: int) -> None:
    """Run `>>>` examples in `namespace`; raise DoctestMismatch with doctest's report on a mismatch."""
    parser = doctest.DocTestParser()
    test = parser.get_doctest(source, namespace, name, filename, first_line - 1)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    runner = doctest.DocTestRunner(checker=_TolerantChecker(), optionflags=flags, verbose=False)
    report = io.StringIO()
    result = runner.run(test, out=report.write, clear_globs=False)
    if result.failed:
        text = report.getvalue().strip("*\n")
        line = re.search(r", line (\d+), in ", text)
        where = f"line {line.group(1)}: " if line else ""
        raise DoctestMismatch(f"{where}a >>> example printed something else\n{text}")
