"""Grade `step.train_step`: a correct Adam step that donates the params and the optimizer state."""

import jax
import jax.numpy as jnp
import numpy as np
import optax


def problem(seed: int = 0, d: int = 64, k: int = 32, n: int = 16) -> tuple[dict, jax.Array, jax.Array]:
    rng = np.random.default_rng(seed)
    params = {"w": jnp.asarray(rng.normal(size=(d, k)), jnp.float32), "b": jnp.zeros((k,), jnp.float32)}
    return params, jnp.asarray(rng.normal(size=(n, d)), jnp.float32), jnp.asarray(rng.normal(size=(n, k)), jnp.float32)


def expected_step(params: dict, x: jax.Array, y: jax.Array) -> tuple[dict, jax.Array]:
    """The same step written here with optax, on copies, without donation."""
    tx = optax.adam(1e-2)

    def loss_fn(p):
        return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, _ = tx.update(grads, tx.init(params), params)
    return optax.apply_updates(params, updates), loss


def copy(tree):
    return jax.tree.map(lambda leaf: jnp.array(leaf, copy=True), tree)


def array_bytes(tree) -> int:
    return sum(leaf.nbytes for leaf in jax.tree.leaves(tree) if leaf.ndim > 0)


def test_one_step_matches_optax(answer):
    params, x, y = problem()
    want_params, want_loss = expected_step(copy(params), x, y)
    new_params, _, loss = answer.train_step(params, answer.init(params), x, y)
    np.testing.assert_allclose(float(loss), float(want_loss), rtol=1e-5)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6), new_params, want_params)


def test_old_params_and_optimizer_state_are_donated(answer):
    params, x, y = problem(1)
    opt_state = answer.init(params)
    answer.train_step(params, opt_state, x, y)
    kept = [leaf.shape for leaf in jax.tree.leaves(params) if not leaf.is_deleted()]
    assert not kept, f"old parameter buffers {kept} are still alive after the step: params were not donated"
    kept = [leaf.shape for leaf in jax.tree.leaves(opt_state) if leaf.ndim > 0 and not leaf.is_deleted()]
    assert not kept, f"old optimizer-state buffers {kept} are still alive after the step: opt_state was not donated"


def test_compiled_step_aliases_outputs_to_inputs(answer):
    params, x, y = problem(2)
    opt_state = answer.init(params)
    memory = answer.train_step.lower(params, opt_state, x, y).compile().memory_analysis()
    needed = array_bytes(params) + array_bytes(opt_state)  # params, Adam mu and nu
    assert memory.alias_size_in_bytes >= needed, (
        f"{memory.alias_size_in_bytes} bytes of outputs alias inputs; params and optimizer state are {needed} bytes"
    )
