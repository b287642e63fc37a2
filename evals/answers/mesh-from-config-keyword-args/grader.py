"""Grade `launcher.build_mesh`: a mesh with the config's names and sizes over the first num_devices devices."""

import jax
import numpy as np
import pytest
from jax.sharding import NamedSharding, PartitionSpec as P

CONFIGS = [
    {"sizes": [2, 4], "names": ["data", "model"], "num_devices": 8},
    {"sizes": [2, 2], "names": ["data", "model"], "num_devices": 4},
    {"sizes": [4], "names": ["batch"], "num_devices": 4},
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "x".join(map(str, c["sizes"])))
def test_mesh_matches_the_config(answer, config):
    mesh = answer.build_mesh(dict(config))
    assert isinstance(mesh, jax.sharding.Mesh), type(mesh)
    assert tuple(mesh.axis_names) == tuple(config["names"])
    assert dict(mesh.shape) == dict(zip(config["names"], config["sizes"])), dict(mesh.shape)
    wanted = jax.devices()[: config["num_devices"]]
    assert set(mesh.devices.flat) == set(wanted), f"mesh devices {mesh.devices.flat}, not the first {len(wanted)}"

    shape = tuple(2 * size for size in config["sizes"])
    data = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    placed = jax.device_put(data, NamedSharding(mesh, P(*config["names"])))
    blocks = {shard.device: shard.index for shard in placed.addressable_shards}
    assert set(blocks) == set(wanted) and len(set(map(str, blocks.values()))) == len(wanted)
    np.testing.assert_array_equal(np.asarray(placed), data)
