"""Run mesh-agnostic library code on a mesh chosen by the application.

Bare ``PartitionSpec``s in ``jax.lax.with_sharding_constraint`` and ``jax.shard_map`` calls without
``mesh=`` resolve their mesh from the *context mesh*. ``jax.set_mesh(mesh)`` used as a context manager
installs ``mesh`` as that context mesh (both the abstract mesh seen while tracing and the concrete
devices used for compilation) for the duration of the ``with`` block and restores the previous state
(no mesh) on exit, also when an exception propagates. jit's cache is keyed on the context mesh, so
calling the same jitted library function later under another mesh retraces for that mesh instead of
reusing a program built for the old one.
"""

from __future__ import annotations

import jax


def _mesh_context(mesh: jax.sharding.Mesh):
    set_mesh = getattr(jax, "set_mesh", None)  # current JAX
    if set_mesh is not None:
        return set_mesh(mesh)
    use_mesh = getattr(jax.sharding, "use_mesh", None)  # JAX 0.5 - 0.6
    if use_mesh is not None:
        return use_mesh(mesh)
    return mesh  # legacy: `with mesh:`


def run_on_mesh(mesh: jax.sharding.Mesh, fn, *args):
    """Call fn(*args) with `mesh` as the context mesh; no mesh is set once this returns or raises."""
    with _mesh_context(mesh):
        return fn(*args)
