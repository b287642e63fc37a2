"""Turn 64-bit mode off for one call: jax.enable_x64(False) is a context manager that restores the setting."""

from collections.abc import Callable
from typing import Any

import jax


def call_in_32bit(fn: Callable, *args, **kwargs) -> Any:
    with jax.enable_x64(False):
        return fn(*args, **kwargs)
