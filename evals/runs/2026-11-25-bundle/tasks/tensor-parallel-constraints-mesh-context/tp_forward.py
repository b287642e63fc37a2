"""Tensor-parallel MLP forward with sharding constraints bound to an explicit mesh (no global mesh).

The pjit-era code wrote `jax.lax.with_sharding_constraint(h, P("data", "model"))` with a bare
PartitionSpec. A bare P names mesh axes but no mesh; it used to be resolved against the mesh entered
with `with mesh:` (that context manager is deprecated now and warns), so called on its own the
function fails asking for a mesh.

Here each constraint carries its mesh: `NamedSharding(mesh, P(...))`. The mesh is an argument of the
jitted function (static: it is hashable, and one mesh compiles one program), so nothing is ever set
globally and no mesh remains in effect after `forward` returns. On this mesh's Auto axes the
constraints are instructions to the XLA partitioner (on Explicit axes they would only be assertions):
the hidden activation is split by rows over "data" and by columns over "model", and the output by
rows over "data" and replicated over "model" (XLA inserts the all-reduce over "model" for the second
matmul).

If you prefer to keep bare P's in the model code, the equivalent is to scope the mesh to the call,
`with jax.set_mesh(mesh): ...` (a context manager: it is unset on exit), never a bare
`jax.set_mesh(mesh)` call, which sets it from then on.
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
    """params = {"w1": f32[d, h], "w2": f32[h, k]}, x: f32[n, d]; mesh 2 x 4 ("data", "model"), Auto.

    Returns (out, hidden): hidden = tanh(x @ w1) constrained to P("data", "model"), out = hidden @ w2
    constrained to P("data", None), both on `mesh`, computed in one jitted function. No mesh is set
    before, during or after the call.
    """
    return _forward(params, x, mesh)


if __name__ == "__main__":
    # XLA_FLAGS=--xla_force_host_platform_device_count=8 python tp_forward.py
    import numpy as np
    from jax.sharding import AxisType

    mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))
    rng = np.random.default_rng(0)
    params = {"w1": rng.normal(size=(6, 16)).astype(np.float32),
              "w2": rng.normal(size=(16, 3)).astype(np.float32)}
    x = rng.normal(size=(8, 6)).astype(np.float32)

    out, hidden = forward(params, x, mesh)
    ref_hidden = np.tanh(x @ params["w1"])
    np.testing.assert_allclose(hidden, ref_hidden, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out, ref_hidden @ params["w2"], rtol=1e-4, atol=1e-4)
    assert hidden.sharding.is_equivalent_to(NamedSharding(mesh, P("data", "model")), 2)
    assert out.sharding.is_equivalent_to(NamedSharding(mesh, P("data", None)), 2)
    assert jax.sharding.get_abstract_mesh().empty  # nothing left set
    print(hidden.sharding.spec, out.sharding.spec)
