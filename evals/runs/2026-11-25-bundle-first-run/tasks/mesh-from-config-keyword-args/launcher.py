"""Build the device mesh from the run config's mesh section.

Config example: {"sizes": [2, 4], "names": ["data", "model"], "num_devices": 8}.

Style-guide note: every call to a JAX function with more than one argument passes them by keyword.
In jax 0.12.0.1 the signature is ``jax.make_mesh(axis_sizes, axis_names, axis_types=None, *,
devices=None)``; the first parameter used to be called ``axis_shapes`` (jax <= 0.6), and that
keyword now raises ``TypeError``, so the keyword to use is ``axis_sizes=``.
"""

import math

import jax

__all__ = ["build_mesh"]


def build_mesh(mesh_config: dict) -> jax.sharding.Mesh:
    """Return a mesh over the first ``num_devices`` devices with the configured axis names and sizes.

    ``mesh.shape`` maps each name in ``mesh_config["names"]`` to its size in ``mesh_config["sizes"]``,
    in order. ``axis_types`` is not passed, so the axes get ``jax.make_mesh``'s default (in jax 0.12
    that is ``AxisType.Explicit``). ``jax.make_mesh`` may arrange the given devices in an order that
    suits the interconnect, but it uses exactly the devices passed in ``devices=``.
    """
    sizes = tuple(int(size) for size in mesh_config["sizes"])
    names = tuple(str(name) for name in mesh_config["names"])
    num_devices = int(mesh_config["num_devices"])

    if len(sizes) != len(names):
        raise ValueError(f"mesh config has {len(sizes)} sizes but {len(names)} names: {sizes} vs {names}")
    if len(set(names)) != len(names):
        raise ValueError(f"mesh axis names must be unique, got {names}")
    if math.prod(sizes) != num_devices:
        raise ValueError(f"prod(sizes) = {math.prod(sizes)} does not equal num_devices = {num_devices}")
    available = jax.devices()
    if num_devices > len(available):
        raise ValueError(f"num_devices = {num_devices} but only {len(available)} devices are available")

    return jax.make_mesh(
        axis_sizes=sizes,
        axis_names=names,
        devices=available[:num_devices],
    )
