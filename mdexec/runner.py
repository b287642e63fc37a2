"""Run one block in its file's namespace and judge the result against the block's directives."""

from __future__ import annotations

import ast
import builtins
import importlib
import warnings
from dataclasses import dataclass, field

from mdexec.document import Block
from mdexec.output import CHECK_NAME, add_output_checks, expect_output, run_doctest


class BlockFailed(AssertionError):
    """The block did not do what its directives say (e.g. it should have raised and did not)."""


@dataclass
class Namespace:
    """The shared globals of one file's blocks, and the first block that failed in them."""

    globals: dict = field(default_factory=dict)
    failed_block: Block | None = None

    @classmethod
    def fresh(cls, path: str) -> Namespace:
        return cls(globals={"__name__": "__main__", "__file__": path, CHECK_NAME: expect_output})


def resolve_exception(dotted: str) -> type[BaseException]:
    """Turn `ValueError` or `jax.errors.TracerBoolConversionError` into the class it names."""
    module_name, _, attr = dotted.rpartition(".")
    try:
        target = getattr(builtins, attr) if not module_name else _import_attr(module_name, attr)
    except (ImportError, AttributeError) as error:
        raise BlockFailed(f"raises={dotted}: cannot find that exception type ({error})") from None
    if not (isinstance(target, type) and issubclass(target, BaseException)):
        raise BlockFailed(f"raises={dotted} names {target!r}, which is not an exception type")
    return target


def _import_attr(module_name: str, attr: str) -> object:
    try:
        return getattr(importlib.import_module(module_name), attr)
    except ImportError:
        # `jax.errors.X` style paths where the parent is a module attribute, e.g. `jax.numpy`.
        parent_name, _, child = module_name.rpartition(".")
        return getattr(getattr(importlib.import_module(parent_name), child), attr)


def execute(block: Block, namespace: Namespace) -> BaseException | None:
    """Run `block` in `namespace`; raise if it fails or does not raise what it declares.

    Returns the exception the block raised as its directive declares, or None.
    """
    expected = resolve_exception(block.directives.raises) if block.directives.raises else None
    try:
        with warnings.catch_warnings():
            if expected is not None and issubclass(expected, Warning):
                warnings.simplefilter("error", expected)
            _run_source(block, namespace.globals)
    except BaseException as error:  # noqa: BLE001 - we judge every outcome, KeyboardInterrupt aside
        if isinstance(error, KeyboardInterrupt) or expected is None or not isinstance(error, expected):
            raise
        return error
    if expected is not None:
        raise BlockFailed(f"block did not raise {block.directives.raises}")
    return None


def _run_source(block: Block, globals_: dict) -> None:
    filename = str(block.path)
    if block.is_doctest:
        run_doctest(block.source, globals_, f"{block.path.name}::{block.name}", filename, block.first_code_line)
        return
    # Padding with blank lines makes every line number, in errors and tracebacks, the Markdown line.
    source = "\n" * (block.first_code_line - 1) + block.source
    tree = add_output_checks(ast.parse(source, filename=filename), source)
    exec(compile(tree, filename, "exec"), globals_)  # noqa: S102 - running documentation is the job
