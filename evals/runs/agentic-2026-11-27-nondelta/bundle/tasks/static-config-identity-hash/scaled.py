"""A static config that equal instances share: a frozen dataclass (hash and == by value).

jit looks a static argument up in its cache by ``hash()`` and ``==``. A plain class inherits
``object.__hash__``/``__eq__``, which compare *identity*, so every fresh ``Config(2.0, 1.0)`` is a new
cache key and the function traces and compiles again. ``@dataclasses.dataclass(frozen=True)``
generates ``__eq__`` and ``__hash__`` over the fields, so equal configs hit the same compiled
program. (A non-frozen ``@dataclass`` sets ``__hash__ = None`` and jit rejects it; frozen also keeps
the key immutable, which a cache key must be. Derive a changed copy with ``dataclasses.replace``.)

Pass the config the same way every time (positionally, or always as ``config=``): in jax 0.12.0.1 a
call by keyword is a separate cache entry from a call by position and compiles once more.

Each *new* value of a static config still compiles once; only put in it what the function branches
on in Python. Numbers that merely enter the arithmetic and change often are better passed as traced
arrays.
"""

from __future__ import annotations

import dataclasses
import functools

import jax


@dataclasses.dataclass(frozen=True)
class Config:
    scale: float
    shift: float

    def __post_init__(self) -> None:
        # Normalise to float, so Config(2, 1) and Config(2.0, 1.0) are the same key and trace the same.
        object.__setattr__(self, "scale", float(self.scale))
        object.__setattr__(self, "shift", float(self.shift))


@functools.partial(jax.jit, static_argnames="config")
def transform(x: jax.Array, config: Config) -> jax.Array:
    """x * config.scale + config.shift (config is static: Python may branch on it)."""
    y = x if config.scale == 1.0 else x * config.scale
    if config.shift != 0.0:
        y = y + config.shift
    return y


if __name__ == "__main__":
    import jax.numpy as jnp

    compiles: list[str] = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    x = jnp.arange(4.0)
    expected = x * 2.0 + 1.0  # eager ops compile too: compute references outside the counted window
    outs = [transform(x, Config(scale=2.0, shift=1.0))]  # the first call compiles transform
    n = len(compiles)
    for _ in range(5):
        outs.append(transform(x, Config(scale=2.0, shift=1.0)))  # fresh, equal configs
    outs.append(transform(x, Config(2, 1)))  # ints normalised: the same key
    extra = len(compiles) - n
    print("compilations for 6 more calls with fresh equal configs:", extra)
    assert extra == 0
    n = len(compiles)
    outs.append(transform(x, config=Config(2.0, 1.0)))  # passed by keyword instead of by position
    print("compilations when the config is passed by keyword instead:", len(compiles) - n)
    assert all(bool(jnp.array_equal(o, expected)) for o in outs)

    assert Config(2.0, 1.0) == Config(2.0, 1.0) and hash(Config(2.0, 1.0)) == hash(Config(2, 1))
    n = len(compiles)
    out = transform(x, Config(3.0, 0.0))  # a new value compiles once more
    print("compilations for a new config value:", len(compiles) - n)
    assert len(compiles) - n == 1 and bool(jnp.array_equal(out, 3.0 * x))
