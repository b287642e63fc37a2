"""Grade `block_summary.block_summary`: the direct submodule attributes, their classes and Param counts."""

import jax.numpy as jnp
from flax import nnx


class Block(nnx.Module):
    def __init__(self, d: int, *, rngs: nnx.Rngs):
        self.linear = nnx.Linear(d, d, rngs=rngs)  # d*d + d
        self.norm = nnx.LayerNorm(d, rngs=rngs)  # 2d


class Net(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.embed = nnx.Linear(3, 4, rngs=rngs)  # 16
        self.pos_embed = nnx.Param(jnp.zeros((5, 4)))  # a Param on the model itself: not a block
        self.encoder = Block(4, rngs=rngs)  # 28
        self.decoder = self.encoder  # the same block under a second name
        self.norm = nnx.BatchNorm(4, rngs=rngs)  # 8 Params (+ 8 batch statistics, not counted)
        self.dropout = nnx.Dropout(0.1, rngs=rngs)  # 0, but an RngState
        self.head = nnx.Linear(4, 2, use_bias=False, rngs=rngs)  # 8
        self.depth = 2
        self.temperature = 0.5


def test_direct_submodules_with_param_counts(answer):
    summary = [tuple(row) for row in answer.block_summary(Net(rngs=nnx.Rngs(0)))]
    names = [row[0] for row in summary]
    assert "pos_embed" not in names, "the Param attribute on the model was listed as a block"
    assert summary == [
        ("decoder", "Block", 28),
        ("dropout", "Dropout", 0),
        ("embed", "Linear", 16),
        ("encoder", "Block", 28),
        ("head", "Linear", 8),
        ("norm", "BatchNorm", 8),
    ], summary


def test_a_module_without_submodules(answer):
    assert list(answer.block_summary(nnx.Linear(2, 3, rngs=nnx.Rngs(1)))) == []
