"""Grade `replicate.replicate`: one copy of every leaf per device, stacked on a leading device axis."""

import jax
import jax.numpy as jnp
import numpy as np


def params() -> dict:
    rng = np.random.default_rng(0)
    return {
        "dense": {"w": rng.normal(size=(3, 2)).astype(np.float32), "b": np.arange(2, dtype=np.float32)},
        "scale": np.float32(1.5),
    }


def check_layout(answer, devices: list) -> dict:
    tree = params()
    out = answer.replicate(tree, devices)
    assert jax.tree.structure(out) == jax.tree.structure(tree)
    for leaf, copied in zip(jax.tree.leaves(tree), jax.tree.leaves(out)):
        assert isinstance(copied, jax.Array)
        assert copied.shape == (len(devices), *np.shape(leaf)), copied.shape
        shards = {shard.device: shard for shard in copied.addressable_shards}
        assert set(shards) == set(devices), f"the copies are on {sorted(map(str, shards))}, not on the given devices"
        for i, device in enumerate(devices):
            shard = shards[device]
            assert shard.data.shape == (1, *np.shape(leaf)), f"{device} holds {shard.data.shape}, not one copy"
            assert shard.index[0] == slice(i, i + 1), f"{device} holds slice {shard.index[0]}, not copy {i}"
            np.testing.assert_array_equal(np.asarray(shard.data)[0], leaf)
    return out


def test_copies_on_a_reversed_device_subset(answer):
    check_layout(answer, jax.devices()[4:][::-1])


def test_copies_on_all_devices_feed_pmap(answer):
    devices = jax.devices()
    out = check_layout(answer, devices)
    step = jax.pmap(lambda p: p["scale"] * (p["dense"]["w"].sum() + p["dense"]["b"].sum()), devices=devices)
    tree = params()
    want = tree["scale"] * (tree["dense"]["w"].sum() + tree["dense"]["b"].sum())
    np.testing.assert_allclose(np.asarray(step(out)), np.full(len(devices), want), rtol=1e-5)


def test_jax_array_leaves(answer):
    devices = jax.devices()[:2]
    out = answer.replicate({"w": jnp.arange(4.0)}, devices)
    np.testing.assert_array_equal(np.asarray(out["w"]), np.stack([np.arange(4.0)] * 2))
