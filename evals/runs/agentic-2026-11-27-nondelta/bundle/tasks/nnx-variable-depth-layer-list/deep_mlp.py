"""An NNX MLP whose depth is a constructor argument.

In Flax 0.12 an nnx.Module is a JAX pytree, and each attribute is either *data* (seen by nnx.state,
trained by nnx.Optimizer, traced by nnx.jit) or *static*. A plain Python ``list`` is static even when
it holds modules, so ``self.layers = [nnx.Linear(...), ...]`` (PyTorch's ModuleList habit) raises
``ValueError: Found data on value of type '<class 'list'>' ...``. ``nnx.List`` is the NNX
counterpart of ``torch.nn.ModuleList``: it indexes, slices, iterates and has ``len``, and its layers'
parameters appear in ``nnx.state(model, nnx.Param)`` under paths ``("layers", i, "kernel")``.
"""

from __future__ import annotations

import jax
from flax import nnx


class MLP(nnx.Module):
    """Linear layers din -> hidden[0] -> ... -> hidden[-1] -> dout, relu between them."""

    def __init__(self, din: int, hidden: list[int], dout: int, *, rngs: nnx.Rngs):
        widths = [din, *hidden, dout]
        self.layers = nnx.List(
            [nnx.Linear(a, b, rngs=rngs) for a, b in zip(widths[:-1], widths[1:])]
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        for layer in self.layers[:-1]:
            x = jax.nn.relu(layer(x))
        return self.layers[-1](x)


if __name__ == "__main__":
    import jax.numpy as jnp
    import optax

    for hidden in ([], [8], [8, 16, 8]):
        model = MLP(3, hidden, 2, rngs=nnx.Rngs(0))
        assert len(model.layers) == len(hidden) + 1
        x = jax.random.normal(jax.random.key(1), (16, 3))
        y = jnp.ones((16, 2))

        # Reference forward pass written by hand.
        h = x
        for i, layer in enumerate(model.layers):
            h = h @ layer.kernel[...] + layer.bias[...]
            if i < len(model.layers) - 1:
                h = jax.nn.relu(h)
        assert model(x).shape == (16, 2) and jnp.allclose(model(x), h, atol=1e-6)

        params = nnx.state(model, nnx.Param)
        assert len(jax.tree.leaves(params)) == 2 * len(model.layers)

        optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)

        @nnx.jit
        def step(model, optimizer, x, y):
            loss, grads = nnx.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
            optimizer.update(model, grads)
            return loss

        before = [(l.kernel[...], l.bias[...]) for l in model.layers]
        step(model, optimizer, x, y)
        moved = [not jnp.array_equal(k, l.kernel[...]) and not jnp.array_equal(b, l.bias[...])
                 for (k, b), l in zip(before, model.layers)]
        assert all(moved), moved
        print(f"hidden={hidden}: {len(model.layers)} layers, all {2 * len(model.layers)} params trained")
