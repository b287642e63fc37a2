"""Run library code under a context mesh: jax.set_mesh as a context manager, undone on exit."""

import jax


def run_on_mesh(mesh: jax.sharding.Mesh, fn, *args):
    with jax.set_mesh(mesh):
        return fn(*args)
