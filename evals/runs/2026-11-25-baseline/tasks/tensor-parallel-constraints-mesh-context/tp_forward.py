"""Tensor-parallel MLP forward pass with sharding constraints tied to an explicit mesh.

`with_sharding_constraint(h, P(...))` with a bare PartitionSpec only works when a mesh is set in the
context (the old `with mesh:` / pjit style). Instead of setting a mesh (globally or via a context
manager), pass a `NamedSharding(mesh, spec)`: the constraint then names its mesh itself, nothing
needs to be set, and nothing is left set after the call.

Inputs are placed on the same mesh in the usual Megatron layout (batch over "data", w1 split by
columns and w2 by rows over "model"); the constraints pin the hidden activation to
P("data", "model") and the output to P("data", None).
"""

import functools

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P


@functools.partial(jax.jit, static_argnames=("mesh",))
def _forward(params, x, mesh):
    hidden = jnp.tanh(x @ params["w1"])
    hidden = jax.lax.with_sharding_constraint(hidden, NamedSharding(mesh, P("data", "model")))
    out = hidden @ params["w2"]
    out = jax.lax.with_sharding_constraint(out, NamedSharding(mesh, P("data", None)))
    return out, hidden


def forward(params: dict, x: jax.Array, mesh: jax.sharding.Mesh) -> tuple[jax.Array, jax.Array]:
    """(out, hidden) with hidden = tanh(x @ w1) on P("data", "model") and out on P("data", None)."""
    # Put the inputs on `mesh` (no-op if they already are), so jit never sees arrays committed to
    # other devices.
    params = dict(
        params,
        w1=jax.device_put(params["w1"], NamedSharding(mesh, P(None, "model"))),
        w2=jax.device_put(params["w2"], NamedSharding(mesh, P("model", None))),
    )
    x = jax.device_put(x, NamedSharding(mesh, P("data", None)))
    return _forward(params, x, mesh)


if __name__ == "__main__":
    from jax.sharding import AxisType

    mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))
    k1, k2, k3 = jax.random.split(jax.random.key(0), 3)
    params = {"w1": jax.random.normal(k1, (16, 32)), "w2": jax.random.normal(k2, (32, 8))}
    x = jax.random.normal(k3, (6, 16))
    out, hidden = forward(params, x, mesh)
    print(out.shape, out.sharding.spec, hidden.sharding.spec)
    print(jnp.allclose(out, jnp.tanh(x @ params["w1"]) @ params["w2"], atol=1e-4))
