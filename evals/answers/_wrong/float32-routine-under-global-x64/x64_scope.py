"""Mid-2025 form: the experimental scoped switch, removed from jax.experimental since."""

from collections.abc import Callable
from typing import Any

from jax.experimental import disable_x64


def call_in_32bit(fn: Callable, *args, **kwargs) -> Any:
    with disable_x64():
        return fn(*args, **kwargs)
