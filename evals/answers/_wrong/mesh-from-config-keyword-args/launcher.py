"""Mid-2025 keywords: make_mesh's first parameter was axis_shapes (renamed axis_sizes since)."""

import jax


def build_mesh(mesh_config: dict) -> jax.sharding.Mesh:
    return jax.make_mesh(
        axis_shapes=tuple(mesh_config["sizes"]),
        axis_names=tuple(mesh_config["names"]),
        devices=jax.devices()[: mesh_config["num_devices"]],
    )
