"""Grade `freeze.create_optimizer`: a frozen NNX backbone stays bit-identical, the head trains with AdamW."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

STEPS, LEARNING_RATE, WEIGHT_DECAY = 4, 0.05, 1e-2


class Model(nnx.Module):
    """backbone: Linear -> tanh; head: Linear."""

    def __init__(self, *, rngs: nnx.Rngs):
        self.backbone = nnx.Linear(3, 8, rngs=rngs)
        self.head = nnx.Linear(8, 1, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.head(jnp.tanh(self.backbone(x)))


def data() -> tuple[jax.Array, jax.Array]:
    kx, ky = jax.random.split(jax.random.key(3))
    return jax.random.normal(kx, (16, 3)), jax.random.normal(ky, (16, 1))


def loss_fn(model: Model, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((model(x) - y) ** 2)


def reference_head(params: dict, x: jax.Array, y: jax.Array) -> dict:
    """AdamW on the head alone, the backbone held fixed, in pure JAX."""
    features = jnp.tanh(x @ params["backbone"]["kernel"] + params["backbone"]["bias"])

    def head_loss(head: dict) -> jax.Array:
        return jnp.mean((features @ head["kernel"] + head["bias"] - y) ** 2)

    tx = optax.adamw(LEARNING_RATE, weight_decay=WEIGHT_DECAY)
    head = params["head"]
    state = tx.init(head)
    for _ in range(STEPS):
        updates, state = tx.update(jax.grad(head_loss)(head), state, head)
        head = optax.apply_updates(head, updates)
    return head


def test_backbone_frozen_head_trained_with_adamw(answer):
    x, y = data()
    model = Model(rngs=nnx.Rngs(0))
    start = jax.tree.map(np.asarray, nnx.to_pure_dict(nnx.state(model, nnx.Param)))
    want_head = reference_head(jax.tree.map(jnp.asarray, start), x, y)

    optimizer = answer.create_optimizer(model, LEARNING_RATE)
    for _ in range(STEPS):
        grads = nnx.grad(loss_fn)(model, x, y)
        assert np.any(np.asarray(grads["backbone"]["kernel"]) != 0)  # there is something to freeze
        optimizer.update(model, grads)

    after = nnx.to_pure_dict(nnx.state(model, nnx.Param))
    for name in ("kernel", "bias"):
        assert np.array_equal(np.asarray(after["backbone"][name]), start["backbone"][name]), f"backbone {name} moved"
        np.testing.assert_allclose(np.asarray(after["head"][name]), np.asarray(want_head[name]), rtol=1e-5, atol=1e-7)
