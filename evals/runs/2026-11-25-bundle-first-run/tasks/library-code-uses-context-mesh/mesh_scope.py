"""Run mesh-agnostic library code on a mesh chosen by the application.

Library code that calls ``jax.lax.with_sharding_constraint(y, P("data"))`` with a bare
``PartitionSpec`` or ``jax.shard_map(f, in_specs=..., out_specs=...)`` without ``mesh=`` takes the
mesh from the *context*. ``jax.set_mesh(mesh)`` sets that context; used as a context manager it
restores the previous setting when the block exits, whether it returns or raises. The old
``with mesh:`` form is deprecated (``DeprecationWarning``); don't use it.

Notes:

* The context mesh is part of ``jax.jit``'s cache key, so a jitted ``fn`` called later under another
  mesh is traced and compiled for that mesh; it never reuses a program built for the previous one.
* ``jax.set_mesh`` is thread-local: it applies to the calling thread only.
* Arrays passed in must live on the same mesh (same devices in the same order); place them with
  ``jax.device_put(x, NamedSharding(mesh, spec))``, or inside ``run_on_mesh`` with a bare ``P``.
* ``jax.make_mesh`` creates ``Explicit`` axes by default. On Explicit axes ``with_sharding_constraint``
  is an *assertion* that the value already has that sharding (use ``jax.reshard`` to move it), and
  ``shard_map`` checks its inputs against ``in_specs`` instead of resharding them. Library code that
  relies on the old "steer the partitioner" behaviour needs a mesh built with
  ``axis_types=(jax.sharding.AxisType.Auto,)``; that is the application's choice of mesh, and this
  helper uses whatever mesh it is given, unchanged.
"""

from __future__ import annotations

import jax
from jax.sharding import Mesh


def run_on_mesh(mesh: Mesh, fn, *args):
    """Call ``fn(*args)`` with ``mesh`` as the context mesh and return its result.

    Bare ``PartitionSpec``s and ``shard_map`` calls without ``mesh=`` inside ``fn`` (jitted or not)
    use ``mesh``. When this returns or raises, the mesh context is back to what it was before the
    call (no mesh, if none was set).
    """
    with jax.set_mesh(mesh):
        return fn(*args)


if __name__ == "__main__":
    import os

    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import PartitionSpec as P

    def library_fn(x):
        """Mesh-agnostic library code."""
        y = jax.lax.with_sharding_constraint(x * 2, P("data"))  # bare spec: the context mesh
        return jax.shard_map(lambda b: jax.lax.psum(b.sum(), "data"), in_specs=P("data"), out_specs=P())(y)

    devices = jax.devices()
    for mesh in (jax.make_mesh((8,), ("data",)), jax.make_mesh((4,), ("data",), devices=devices[4:][::-1])):
        x = jax.device_put(np.arange(16, dtype=np.float32), jax.NamedSharding(mesh, P("data")))
        total = run_on_mesh(mesh, jax.jit(library_fn), x)
        assert float(total) == 240.0, total
        print(mesh.devices.tolist(), float(total))
