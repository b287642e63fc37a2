"""Tensor-parallel MLP forward pass whose sharding constraints name their mesh.

pjit-era code passed bare PartitionSpecs to jax.lax.with_sharding_constraint and relied on
`with mesh:` around the call. That context manager is deprecated (use jax.set_mesh), and without any
mesh in context a bare P has nothing to refer to, hence the error asking for a mesh.

Here each constraint is a NamedSharding(mesh, P(...)): the spec carries its mesh, so the constraint
applies on exactly that mesh with no context at all, and nothing is set globally (not even
temporarily): after forward returns, jax.get_mesh() is whatever it was before. The mesh is a static
argument of the jitted function (meshes are hashable), so each mesh compiles once and repeated calls
reuse the program.

On Auto axes, with_sharding_constraint is a request to the XLA partitioner: `hidden` is laid out as
P("data", "model") (batch rows over "data", hidden units over "model", the Megatron column split of w1),
and the second matmul, which contracts over the "model"-split hidden dimension, ends in one all-reduce
of the activations over "model" so that `out` is P("data", None).

(Equivalent alternative that keeps bare specs: `with jax.set_mesh(mesh): return _forward(...)` around
the call; the context manager restores the previous mesh on exit. The NamedSharding form needs no
context at all, which also keeps it independent of whatever mesh a caller may have set.)
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P


@partial(jax.jit, static_argnames="mesh")
def _forward(params: dict, x: jax.Array, mesh: jax.sharding.Mesh) -> tuple[jax.Array, jax.Array]:
    hidden = jnp.tanh(x @ params["w1"])
    hidden = jax.lax.with_sharding_constraint(hidden, NamedSharding(mesh, P("data", "model")))
    out = hidden @ params["w2"]
    out = jax.lax.with_sharding_constraint(out, NamedSharding(mesh, P("data", None)))
    return out, hidden


def forward(params: dict, x: jax.Array, mesh: jax.sharding.Mesh) -> tuple[jax.Array, jax.Array]:
    """params {"w1": f32[d, h], "w2": f32[h, k]}, x f32[n, d]; mesh 2 x 4 ("data", "model"), Auto axes.

    Returns (out, hidden): hidden = tanh(x @ w1) constrained to P("data", "model") on `mesh`,
    out = hidden @ w2 constrained to P("data", None), in one jitted function. Sets no mesh.
    """
    return _forward(params, x, mesh=mesh)


if __name__ == "__main__":
    # Run with XLA_FLAGS=--xla_force_host_platform_device_count=8 to get 8 CPU devices.
    import numpy as np
    from jax.sharding import AxisType

    mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))
    rng = np.random.default_rng(0)
    params = {"w1": rng.normal(size=(16, 32)).astype(np.float32) / 4,
              "w2": rng.normal(size=(32, 8)).astype(np.float32) / 6}
    x = rng.normal(size=(8, 16)).astype(np.float32)

    before = jax.get_mesh()
    out, hidden = forward(params, x, mesh)
    assert jax.get_mesh() == before  # nothing left set
    assert hidden.sharding.is_equivalent_to(NamedSharding(mesh, P("data", "model")), 2)
    assert out.sharding.is_equivalent_to(NamedSharding(mesh, P("data", None)), 2)
    ref_hidden = np.tanh(x @ params["w1"])
    np.testing.assert_allclose(hidden, ref_hidden, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out, ref_hidden @ params["w2"], rtol=1e-5, atol=1e-5)
    print(hidden.sharding.spec, out.sharding.spec)
