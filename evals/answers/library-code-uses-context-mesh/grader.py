"""Grade `mesh_scope.run_on_mesh`: library code that names no mesh runs on the given one, and only there."""

import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def library_step(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Model-library code: a bare PartitionSpec and a shard_map without mesh=."""
    y = jax.lax.with_sharding_constraint(x * 2.0, P("data"))
    total = jax.shard_map(lambda block: jax.lax.psum(block.sum(), "data"), in_specs=P("data"), out_specs=P())(y)
    return y, total


def no_mesh_is_set() -> bool:
    return jax.sharding.get_abstract_mesh().empty


def check(answer, devices: list, fn) -> None:
    mesh = jax.make_mesh((len(devices),), ("data",), devices=devices)
    host = np.arange(4.0 * len(devices), dtype=np.float32)
    x = jax.device_put(host, NamedSharding(mesh, P("data")))
    y, total = answer.run_on_mesh(mesh, fn, x)
    np.testing.assert_allclose(np.asarray(y), 2.0 * host)
    np.testing.assert_allclose(float(total), 2.0 * host.sum())
    assert y.sharding.device_set == set(devices), f"the result is on {y.sharding.device_set}, not on the given mesh"
    assert y.sharding.is_equivalent_to(NamedSharding(mesh, P("data")), 1)
    assert no_mesh_is_set(), f"a mesh is still set after run_on_mesh returned: {jax.sharding.get_abstract_mesh()}"


def test_jitted_library_function_on_a_reversed_sub_mesh(answer):
    check(answer, jax.devices()[4:][::-1], jax.jit(library_step))


def test_eager_library_function_on_all_devices(answer):
    check(answer, jax.devices(), library_step)


def test_next_call_can_use_another_mesh(answer):
    check(answer, jax.devices()[:4], jax.jit(library_step))
    check(answer, jax.devices()[::-1], jax.jit(library_step))


def test_no_mesh_left_set_when_fn_raises(answer):
    mesh = jax.make_mesh((8,), ("data",))

    def broken(x):
        raise RuntimeError("library failure")

    try:
        answer.run_on_mesh(mesh, broken, np.zeros(8, np.float32))
    except RuntimeError:
        pass
    assert no_mesh_is_set(), "the mesh stayed set after fn raised"
