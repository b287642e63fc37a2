"""Build the device mesh from the run config with jax.make_mesh, keyword arguments only.

jax 0.12 signature: `jax.make_mesh(axis_sizes, axis_names, axis_types=None, *, devices=None)`.
The first parameter is named `axis_sizes`; the name `axis_shapes` that older code and tutorials use
(jax <= 0.6) was renamed and now raises `TypeError: make_mesh() got an unexpected keyword argument
'axis_shapes'`. Positional calls would hide that rename, which is one more reason for keywords here.

`axis_types` is left out on purpose, so the mesh gets jax.make_mesh's default (in jax 0.12:
`AxisType.Explicit` on every axis).
"""

import math

import jax
from jax.sharding import Mesh


def build_mesh(mesh_config: dict) -> Mesh:
    """Mesh over the first `num_devices` devices of jax.devices(), axes `names` of sizes `sizes`.

    Args:
        mesh_config: {"sizes": list[int], "names": list[str], "num_devices": int}, with
            prod(sizes) == num_devices <= jax.device_count().

    Returns:
        A Mesh whose `mesh.shape` maps each name to its size, in the config's order.
    """
    axis_sizes = tuple(int(size) for size in mesh_config["sizes"])
    axis_names = tuple(str(name) for name in mesh_config["names"])
    num_devices = int(mesh_config["num_devices"])

    if len(axis_sizes) != len(axis_names):
        raise ValueError(f"mesh config has {len(axis_sizes)} sizes but {len(axis_names)} names")
    if len(set(axis_names)) != len(axis_names):
        raise ValueError(f"mesh axis names must be unique, got {axis_names}")
    if math.prod(axis_sizes) != num_devices:
        raise ValueError(f"prod(sizes) = {math.prod(axis_sizes)} does not equal num_devices = {num_devices}")
    all_devices = jax.devices()
    if num_devices > len(all_devices):
        raise ValueError(f"num_devices = {num_devices} exceeds the {len(all_devices)} available devices")

    return jax.make_mesh(
        axis_sizes=axis_sizes,
        axis_names=axis_names,
        devices=all_devices[:num_devices],
    )
