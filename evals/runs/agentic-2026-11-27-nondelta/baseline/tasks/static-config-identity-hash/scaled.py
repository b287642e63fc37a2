"""A static config that equal instances share compiled programs for.

``jax.jit`` caches compiled programs for static arguments by ``hash`` and
``==``.  A plain class inherits ``object.__hash__``/``__eq__``, which compare
by *identity*, so every fresh ``Config(scale=2.0, shift=1.0)`` is a new cache
key and triggers a new trace and compilation.  A frozen dataclass defines
``__eq__`` and ``__hash__`` from its fields (and is immutable, so the hash
cannot go stale), so equal configs hit the same cache entry.

Note that jit's cache also keys on *how* the argument is passed: call it
consistently (always ``transform(x, cfg)`` or always ``transform(x,
config=cfg)``) to use a single compiled program.
"""

from __future__ import annotations

import dataclasses
from functools import partial

import jax


@dataclasses.dataclass(frozen=True)
class Config:
    scale: float
    shift: float


@partial(jax.jit, static_argnames="config")
def transform(x: jax.Array, config: Config) -> jax.Array:
    return x * config.scale + config.shift
