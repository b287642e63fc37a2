"""Grade `tp_forward.forward`: bare-PartitionSpec constraints applied on the given Auto mesh."""

import jax
import numpy as np
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

D, H, K = 6, 8, 3


def auto_mesh() -> jax.sharding.Mesh:
    return jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))


def inputs(n: int) -> tuple[dict, np.ndarray]:
    rng = np.random.default_rng(n)
    params = {"w1": rng.normal(size=(D, H)).astype(np.float32), "w2": rng.normal(size=(H, K)).astype(np.float32)}
    return params, rng.normal(size=(n, D)).astype(np.float32)


def test_values_and_constrained_shardings(answer):
    mesh = auto_mesh()
    for n in (4, 10):
        params, x = inputs(n)
        out, hidden = answer.forward(params, x, mesh)
        want_hidden = np.tanh(x @ params["w1"])
        np.testing.assert_allclose(np.asarray(hidden), want_hidden, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(np.asarray(out), want_hidden @ params["w2"], rtol=1e-4, atol=1e-5)
        assert hidden.sharding.is_equivalent_to(NamedSharding(mesh, P("data", "model")), 2), hidden.sharding
        assert out.sharding.is_equivalent_to(NamedSharding(mesh, P("data", None)), 2), out.sharding
        assert hidden.sharding.device_set == set(mesh.devices.flat)


def test_no_mesh_left_set(answer):
    params, x = inputs(4)
    answer.forward(params, x, auto_mesh())
    assert jax.sharding.get_abstract_mesh().empty, "a mesh is still set after forward returned"
