"""Grade `placement.place`: parameters and batch end up on the model's one mesh, and the step runs."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P


@pytest.fixture(scope="module")
def model_mesh() -> Mesh:
    """A mesh whose device order differs from jax.make_mesh's, as a topology-aware order may."""
    devices = np.array(jax.devices()[:8]).reshape(2, 4).T.reshape(8)
    return Mesh(devices, ("data",), axis_types=(AxisType.Explicit,))


def problem(seed: int = 0, n: int = 32, d: int = 4, k: int = 2):
    rng = np.random.default_rng(seed)
    params = {"w": rng.normal(size=(d, k)).astype(np.float32), "b": np.zeros(k, np.float32)}
    return params, rng.normal(size=(n, d)).astype(np.float32), rng.normal(size=(n, k)).astype(np.float32)


def loss(params, inputs, targets):
    return jnp.mean((inputs @ params["w"] + params["b"] - targets) ** 2)


def device_ids(mesh: Mesh) -> list[int]:
    return [device.id for device in mesh.devices.flat]


def check_placement(model_mesh, params, inputs, targets):
    for name, leaf in params.items():
        assert leaf.sharding.mesh == model_mesh, f"params[{name!r}] is not on the given mesh"
        assert leaf.sharding.is_fully_replicated, f"params[{name!r}] is not replicated"
    for name, array in (("inputs", inputs), ("targets", targets)):
        assert array.sharding.mesh == model_mesh, (
            f"{name} is on a mesh of devices {device_ids(array.sharding.mesh)}, "
            f"not on the given mesh, of devices {device_ids(model_mesh)}")
        assert array.sharding.spec[0] == "data", f"{name} is not split over 'data': {array.sharding.spec}"


def run_step(params, inputs, targets):
    return jax.jit(jax.value_and_grad(loss))(params, inputs, targets)


def check_step(placed, params, inputs, targets):
    value, grads = run_step(*placed)
    residual = inputs.astype(np.float64) @ params["w"] + params["b"] - targets
    np.testing.assert_allclose(float(value), np.mean(residual**2), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(grads["w"]), 2 * inputs.T @ residual / residual.size, rtol=1e-4, atol=1e-6)


def test_arrays_from_the_loaders_mesh_end_on_the_model_mesh(answer, model_mesh):
    params, inputs, targets = problem(0)
    loader = NamedSharding(jax.make_mesh((8,), ("batch",)), P("batch"))
    placed = answer.place(params, jax.device_put(inputs, loader), jax.device_put(targets, loader), model_mesh)
    check_step(placed, params, inputs, targets)  # raises if the arrays are on different meshes
    check_placement(model_mesh, *placed)


def test_numpy_arrays_are_placed_too(answer, model_mesh):
    params, inputs, targets = problem(1, n=16)
    placed = answer.place(params, inputs, targets, model_mesh)
    check_step(placed, params, inputs, targets)  # raises if the arrays are on different meshes
    check_placement(model_mesh, *placed)
