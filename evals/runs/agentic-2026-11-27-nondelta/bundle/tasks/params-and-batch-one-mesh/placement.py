"""Place parameters and a batch on the model's one mesh.

Arrays that meet in one jit must live on meshes over the same devices *in the same order*, and with
Explicit axes on the *same* mesh (same axis names, sizes and types). Your loader's
``jax.make_mesh((8,), ("batch",))`` differs from the model mesh in its axis name ("Mesh for all
inputs should be equal"); renaming the axis to "data" still leaves a different device order than the
one the model code chose for the hardware ("Received incompatible devices for jitted computation").

The fix is not to build a second mesh: build the mesh once (the model's), and put everything on it.
``jax.device_put(x, NamedSharding(mesh, spec))`` accepts NumPy arrays and also moves a jax.Array that
lives on another mesh (the loader's) onto this one. Better still, have the loader take the model's
mesh and call ``place`` (or ``device_put`` with ``NamedSharding(mesh, P("data"))``) itself.
"""

from __future__ import annotations

from typing import Any

import jax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def place(
    params: dict[str, Any], inputs: Any, targets: Any, mesh: jax.sharding.Mesh
) -> tuple[dict[str, jax.Array], jax.Array, jax.Array]:
    """Parameters replicated on ``mesh``; inputs and targets split over "data" on their leading axis."""
    replicated = NamedSharding(mesh, P())
    split = NamedSharding(mesh, P("data"))
    placed_params = jax.tree.map(lambda p: jax.device_put(p, replicated), params)
    return placed_params, jax.device_put(inputs, split), jax.device_put(targets, split)


if __name__ == "__main__":
    import numpy as np

    jax.config.update("jax_num_cpu_devices", 8)  # 8 CPU devices for the demo
    from jax.sharding import AxisType, Mesh

    devices = np.array(jax.devices())
    # The model's mesh: axis "data", Explicit, a device order that is not make_mesh's.
    model_mesh = Mesh(devices[[1, 0, 3, 2, 5, 4, 7, 6]], ("data",), axis_types=(AxisType.Explicit,))

    rng = np.random.default_rng(0)
    w = rng.normal(size=(5, 3)).astype(np.float32)
    b = np.zeros(3, np.float32)
    x = rng.normal(size=(32, 5)).astype(np.float32)
    y = rng.normal(size=(32, 3)).astype(np.float32)

    @jax.jit
    def train_step(params, inputs, targets):
        def loss_fn(p):
            return jax.numpy.mean((inputs @ p["w"] + p["b"] - targets) ** 2)
        loss, grads = jax.value_and_grad(loss_fn)(params)
        return loss, jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)

    reference = np.mean((x @ w + b - y) ** 2)

    # Parameters already on the model mesh, batch on the loader's own meshes (both failing cases).
    model_params = jax.tree.map(lambda a: jax.device_put(a, NamedSharding(model_mesh, P())), {"w": w, "b": b})
    for name in ("batch", "data"):
        loader_mesh = jax.make_mesh((8,), (name,))
        lx = jax.device_put(x, NamedSharding(loader_mesh, P(name)))
        ly = jax.device_put(y, NamedSharding(loader_mesh, P(name)))
        try:
            train_step(model_params, lx, ly)
            raise AssertionError("expected the mesh mismatch to fail")
        except ValueError as e:
            print(f"loader axis {name!r}, unplaced:", str(e).split(".")[0][:70])
        for params_in in ({"w": w, "b": b}, model_params):  # NumPy params or already-placed ones
            params, inputs, targets = place(params_in, lx, ly, model_mesh)
            assert params["w"].sharding == NamedSharding(model_mesh, P())
            assert inputs.sharding == targets.sharding == NamedSharding(model_mesh, P("data"))
            loss, _ = train_step(params, inputs, targets)
            np.testing.assert_allclose(float(loss), reference, rtol=1e-5)
        print(f"loader axis {name!r}, placed: loss {float(loss):.5f} == {reference:.5f}")

    # NumPy batch straight from the host.
    params, inputs, targets = place({"w": w, "b": b}, x, y, model_mesh)
    assert [d.id for d in inputs.sharding.mesh.devices.flat] == [1, 0, 3, 2, 5, 4, 7, 6]
    np.testing.assert_allclose(float(train_step(params, inputs, targets)[0]), reference, rtol=1e-5)
    print("NumPy inputs placed and the step runs")
