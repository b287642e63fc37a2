"""Run mesh-agnostic library code on a mesh chosen by the application.

The library writes `jax.lax.with_sharding_constraint(y, P("data"))` with a bare PartitionSpec and
`jax.shard_map(f, in_specs=..., out_specs=...)` without `mesh=`. Both resolve the mesh from JAX's
*current mesh*, which `jax.set_mesh(mesh)` sets. Used as a context manager it sets the mesh for the
block only and restores the previous setting on exit, also when the block raises, so nothing leaks
into the next call (which may use another mesh).

Notes:
  * `with mesh:` (the Mesh object as a context manager) is deprecated and does not serve
    `shard_map` without `mesh=`; `jax.set_mesh` is the current API.
  * The mesh is used exactly as given: any subset and order of devices. Do not rebuild it from
    `jax.devices()`.
  * The current mesh is part of JAX's trace context, so a jitted `fn` is traced and compiled once per
    mesh and never reuses a program built for another mesh.
  * The setting is thread-local: a thread started inside `fn` does not see it.
  * With `jax.make_mesh`'s default Explicit axes, `with_sharding_constraint` acts as an assertion
    (the value must already have that sharding) and `shard_map`'s `in_specs` are checked, not
    applied. Place the inputs on `mesh` accordingly, e.g.
    `jax.device_put(x, jax.NamedSharding(mesh, P("data")))`.
"""

from __future__ import annotations

from typing import Any, Callable

import jax


def run_on_mesh(mesh: jax.sharding.Mesh, fn: Callable[..., Any], *args: Any) -> Any:
    """Call fn(*args) with `mesh` as the current mesh and return its result.

    Bare PartitionSpecs and `jax.shard_map` calls without `mesh=` inside fn (jitted or not) use
    `mesh`. When this returns or raises, the mesh setting is back to what it was before the call
    (no mesh, for an application that sets none globally).
    """
    with jax.set_mesh(mesh):
        return fn(*args)


if __name__ == "__main__":
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import NamedSharding, PartitionSpec as P

    # --- library code: never sees a mesh ----------------------------------------------------
    @jax.jit
    def library_fn(x):
        y = jax.lax.with_sharding_constraint(x * 2.0, P("data"))
        return jax.shard_map(
            lambda block: jax.lax.psum(block.sum(), "data"), in_specs=P("data"), out_specs=P()
        )(y)

    # --- application: owns the meshes ---------------------------------------------------------
    # Run with XLA_FLAGS=--xla_force_host_platform_device_count=8 on a CPU.
    for devices in (jax.devices(), jax.devices()[::-1][:4]):
        mesh = jax.make_mesh((len(devices),), ("data",), devices=devices)
        x = jax.device_put(np.arange(16, dtype=np.float32), NamedSharding(mesh, P("data")))
        print(run_on_mesh(mesh, library_fn, x))  # 240.0
        assert jax.sharding.get_abstract_mesh().empty  # no mesh left set
