"""Grade `restore.restore_sharded`: arrays come back with the requested shardings and the saved bits."""

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> tuple:
    """Saved from other layouts than the one requested: a 1-D mesh of 8, and one device."""
    directory = tmp_path_factory.mktemp("ckpt").resolve()
    line = jax.make_mesh((8,), ("all",))
    arrays = {
        "w": jax.device_put(jnp.arange(128.0, dtype=jnp.float32).reshape(16, 8), NamedSharding(line, P("all", None))),
        "emb": jax.device_put(jnp.linspace(-1, 1, 128).reshape(32, 4).astype(jnp.bfloat16), jax.devices()[0]),
        "count": jax.device_put(jnp.arange(8, dtype=jnp.int32), NamedSharding(line, P())),
    }
    with ocp.CheckpointManager(directory) as manager:
        manager.save(7, args=ocp.args.StandardSave(arrays))
        manager.wait_until_finished()
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    specs = {"w": P("data", "model"), "emb": P(None, "model"), "count": P("data")}
    return directory, arrays, mesh, specs


@pytest.fixture(scope="module")
def restored(answer, saved) -> dict:
    directory, _, mesh, specs = saved
    return answer.restore_sharded(directory, 7, mesh, specs)


def test_every_array_has_the_requested_sharding(saved, restored):
    _, arrays, mesh, specs = saved
    assert set(restored) == set(arrays)
    for name, spec in specs.items():
        want = NamedSharding(mesh, spec)
        got = restored[name].sharding
        assert got.is_equivalent_to(want, restored[name].ndim), f"{name}: restored with {got}, requested {want}"


def test_values_and_dtypes_as_saved(saved, restored):
    _, arrays, _, _ = saved
    for name, array in arrays.items():
        assert restored[name].dtype == array.dtype, (name, restored[name].dtype, array.dtype)
        assert np.asarray(restored[name]).tobytes() == np.asarray(array).tobytes(), name
