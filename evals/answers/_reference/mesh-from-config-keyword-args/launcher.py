"""Build the mesh from the config with keyword arguments: jax.make_mesh's first parameter is axis_sizes."""

import jax


def build_mesh(mesh_config: dict) -> jax.sharding.Mesh:
    return jax.make_mesh(
        axis_sizes=tuple(mesh_config["sizes"]),
        axis_names=tuple(mesh_config["names"]),
        devices=jax.devices()[: mesh_config["num_devices"]],
    )
