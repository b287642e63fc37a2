"""Grade `sharded_init`: an NNX MLP initialised inside jit with every parameter sharded by path rules."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

DIN, DHIDDEN, DOUT = 16, 32, 8
RULES = {
    "tensor-parallel": {
        ("hidden", "kernel"): P(None, "model"), ("hidden", "bias"): P("model"),
        ("out", "kernel"): P("model", None), ("out", "bias"): P(),
    },
    "both-axes": {
        ("hidden", "kernel"): P("data", "model"), ("hidden", "bias"): P("model"),
        ("out", "kernel"): P("model", "data"), ("out", "bias"): P("data"),
    },
}


@pytest.fixture(scope="module")
def mesh():
    return jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))


def params(model) -> dict:
    return {("hidden", "kernel"): model.hidden.kernel, ("hidden", "bias"): model.hidden.bias,
            ("out", "kernel"): model.out.kernel, ("out", "bias"): model.out.bias}


@pytest.mark.parametrize("name", RULES)
def test_parameters_come_out_sharded_by_the_rules(answer, mesh, name):
    rules = RULES[name]
    model = answer.create_sharded_mlp(DIN, DHIDDEN, DOUT, 3, mesh, dict(rules))
    eager = answer.MLP(DIN, DHIDDEN, DOUT, rngs=nnx.Rngs(3))
    for path, variable in params(model).items():
        value = variable[...]
        wanted = NamedSharding(mesh, rules[path])
        assert isinstance(value.sharding, NamedSharding) and value.sharding.is_equivalent_to(wanted, value.ndim), (
            f"{path}: sharding {value.sharding}, not {rules[path]} on the mesh")
        np.testing.assert_allclose(np.asarray(value), np.asarray(params(eager)[path][...]), rtol=1e-6,
                                   err_msg=f"{path}: not the values of the same seed")
    x = jnp.asarray(np.random.default_rng(0).normal(size=(4, DIN)).astype(np.float32))
    np.testing.assert_allclose(np.asarray(model(x)), np.asarray(eager(x)), rtol=1e-5, atol=1e-6)
