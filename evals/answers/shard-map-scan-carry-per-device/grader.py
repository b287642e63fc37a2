"""Grade `chunk_scan.chunk_running_sums`: a per-device lax.scan inside jax.shard_map, carry typed varying."""

import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

DEVICES = 8


def mesh_and_input(n: int) -> tuple[jax.sharding.Mesh, jax.Array, np.ndarray]:
    mesh = jax.make_mesh((DEVICES,), ("data",))
    host = np.random.default_rng(n).normal(size=n).astype(np.float32)
    return mesh, jax.device_put(host, NamedSharding(mesh, P("data"))), host


def expected(host: np.ndarray) -> np.ndarray:
    return np.cumsum(host.reshape(DEVICES, -1), axis=1).reshape(-1)


def test_running_sums_restart_per_device_and_total(answer):
    for n in (32, 80):
        mesh, x, host = mesh_and_input(n)
        running, total = answer.chunk_running_sums(x, mesh)
        assert running.shape == (n,)
        np.testing.assert_allclose(np.asarray(running), expected(host), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(float(total), host.sum(), rtol=1e-5, atol=1e-4)
        assert len(running.sharding.device_set) == DEVICES
        assert running.sharding.is_equivalent_to(NamedSharding(mesh, P("data")), 1), running.sharding


def test_scan_runs_inside_shard_map_with_checking_on(answer):
    mesh, x, _ = mesh_and_input(32)
    jaxpr = jax.make_jaxpr(lambda v: answer.chunk_running_sums(v, mesh))(x)
    shard_maps = [eqn for eqn in _all_eqns(jaxpr.jaxpr) if eqn.primitive.name == "shard_map"]
    assert shard_maps, "no shard_map in the traced function"
    assert all(eqn.params.get("check_vma", True) for eqn in shard_maps), "check_vma was turned off"
    inner = [e.primitive.name for eqn in shard_maps for e in _all_eqns(eqn.params["jaxpr"])]
    assert "scan" in inner, f"no lax.scan inside the shard_map: {sorted(set(inner))}"


def _all_eqns(jaxpr):
    """Every equation of a jaxpr and of the jaxprs nested in its equations' parameters."""
    for eqn in jaxpr.eqns:
        yield eqn
        for value in eqn.params.values():
            for sub in value if isinstance(value, (tuple, list)) else (value,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    yield from _all_eqns(inner)
