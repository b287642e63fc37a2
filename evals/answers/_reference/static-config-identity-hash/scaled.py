"""A static config hashed by value: a frozen dataclass generates __hash__ and __eq__ over its fields."""

import dataclasses

import jax


@dataclasses.dataclass(frozen=True)
class Config:
    scale: float
    shift: float


@jax.jit(static_argnames="config")
def transform(x: jax.Array, config: Config) -> jax.Array:
    return x * config.scale + config.shift
