"""Grade `variable_summary.count_by_type`: element counts per Variable type of an NNX model's state."""

import jax.numpy as jnp
from flax import nnx


class Counter(nnx.Variable):
    """A user-defined Variable holding one integer."""


class Ema(nnx.Variable):
    """A user-defined Variable holding a running average vector."""


class Net(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.linear = nnx.Linear(4, 8, rngs=rngs)  # kernel 32 + bias 8
        self.norm = nnx.BatchNorm(8, rngs=rngs)  # scale 8 + bias 8 params, mean 8 + var 8 stats
        self.head = nnx.Linear(8, 2, use_bias=False, rngs=rngs)  # kernel 16
        self.calls = Counter(jnp.array(0))
        self.average = Ema(jnp.zeros((8,)))


def test_counts_per_variable_type(answer):
    counts = answer.count_by_type(Net(rngs=nnx.Rngs(0)))
    assert dict(counts) == {"Param": 32 + 8 + 8 + 8 + 16, "BatchStat": 16, "Counter": 1, "Ema": 8}, counts
    assert all(isinstance(value, int) or hasattr(value, "__index__") for value in counts.values())


def test_a_parameter_only_model(answer):
    counts = answer.count_by_type(nnx.Linear(3, 5, rngs=nnx.Rngs(1)))
    assert dict(counts) == {"Param": 3 * 5 + 5}, counts
