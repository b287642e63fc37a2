"""Build the device mesh from the run config's mesh section.

Example config::

    {"sizes": [2, 4], "names": ["data", "model"], "num_devices": 8}

Style-guide note: every call below to a JAX function that takes more than one argument passes
its arguments by keyword. For ``jax.make_mesh`` the parameter names are ``axis_shapes``,
``axis_names`` and ``devices`` (``axis_types`` is left unset, so JAX's default axis types apply).
"""

from __future__ import annotations

import math

import jax

__all__ = ["build_mesh"]


def build_mesh(mesh_config: dict) -> jax.sharding.Mesh:
    """Return a Mesh over the first ``num_devices`` devices of ``jax.devices()``.

    ``mesh_config = {"sizes": list[int], "names": list[str], "num_devices": int}`` with
    ``prod(sizes) == num_devices <= jax.device_count()``. The mesh has axis names ``names`` and
    axis sizes ``sizes`` in that order (``mesh.shape == {names[0]: sizes[0], ...}``).
    """
    sizes = tuple(int(s) for s in mesh_config["sizes"])
    names = tuple(str(n) for n in mesh_config["names"])
    num_devices = int(mesh_config["num_devices"])

    if len(sizes) != len(names):
        raise ValueError(
            f"mesh config has {len(sizes)} sizes {list(sizes)} but {len(names)} names {list(names)}"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"mesh axis names must be unique, got {list(names)}")
    if any(s < 1 for s in sizes):
        raise ValueError(f"mesh axis sizes must be positive, got {list(sizes)}")
    if math.prod(sizes) != num_devices:
        raise ValueError(
            f"prod(sizes) = {math.prod(sizes)} does not match num_devices = {num_devices}"
        )
    available = jax.device_count()
    if num_devices > available:
        raise ValueError(
            f"num_devices = {num_devices} but only {available} devices are available"
        )

    devices = jax.devices()[:num_devices]

    return jax.make_mesh(
        axis_shapes=sizes,
        axis_names=names,
        devices=devices,
    )
