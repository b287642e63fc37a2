"""Grade `per_example.forward`: nnx.vmap over a batch with one dropout mask per example."""

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

WIDTH, RATE = 64, 0.5


class Probe(nnx.Module):
    """scale * x -> Dropout, on one example; with scale = 1 the output shows the mask."""

    def __init__(self, *, rngs: nnx.Rngs):
        self.scale = nnx.Param(jnp.ones(WIDTH))
        self.drop = nnx.Dropout(RATE, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        assert x.ndim == 1, f"the model takes one example, got shape {x.shape}"
        return self.drop(self.scale[...] * x)


def masks(answer, model: Probe, batch: int) -> np.ndarray:
    """The kept-units pattern of each row, checking the dropout scaling on the way."""
    xs = jnp.ones((batch, WIDTH))
    out = np.asarray(answer.forward(model, xs))
    assert out.shape == (batch, WIDTH)
    assert np.all((out == 0) | np.isclose(out, 1 / (1 - RATE))), "outputs are not dropout of the input"
    return out != 0


def test_every_example_gets_its_own_mask(answer):
    model = Probe(rngs=nnx.Rngs(params=0, dropout=1))
    for batch in (5, 9):
        kept = masks(answer, model, batch)
        distinct = {row.tobytes() for row in kept}
        assert len(distinct) == batch, f"{len(distinct)} distinct masks for {batch} examples"


def test_new_masks_on_each_call_and_model_still_usable(answer):
    model = Probe(rngs=nnx.Rngs(params=0, dropout=1))
    first, second = masks(answer, model, 4), masks(answer, model, 4)
    assert not np.array_equal(first, second), "the same masks on two calls: the dropout stream did not advance"
    assert model(jnp.ones(WIDTH)).shape == (WIDTH,)  # the split keys were restored


def test_parameters_are_shared(answer):
    model = Probe(rngs=nnx.Rngs(params=0, dropout=1))
    grads = nnx.grad(lambda m: answer.forward(m, jnp.ones((3, WIDTH))).sum())(model)
    assert grads["scale"].shape == (WIDTH,), "one gradient per shared parameter, not one per example"
