"""Tests of scripts/port_check.py, run as a subprocess exactly as an assistant runs it.

The "PyTorch model" here is a state dict in PyTorch layout (Linear weight (out, in)) and its forward
pass written out in float64 NumPy from PyTorch's formulas (nn.Linear, nn.LayerNorm with eps 1e-5,
nn.GELU exact); its intermediates, named as forward hooks name them, are the reference .npz. The port
is an NNX model in a file under tmp_path that loads the same state dict. No torch is needed.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

from script_runner import assert_one_line_error, run_script

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "scripts" / "port_check.py"
D_IN, D, D_OUT, BATCH = 4, 8, 3, 4
TORCH_EPS = 1e-5
TOL = ["--atol", "1e-5", "--rtol", "1e-5"]

# The port: stem = nn.Sequential(Linear, LayerNorm), blocks = nn.ModuleList of two pre-norm residual
# MLP blocks (norm -> fc -> GELU, sown as "act"), head = Linear. `make(...)` variants get one thing wrong.
PORT = '''
import jax, jax.numpy as jnp, numpy as np
from flax import nnx

class Block(nnx.Module):
    def __init__(self, d, *, approximate, rngs):
        self.norm = nnx.LayerNorm(d, epsilon=1e-5, rngs=rngs)
        self.fc = nnx.Linear(d, d, rngs=rngs)
        self.approximate = approximate

    def __call__(self, x):
        h = jax.nn.gelu(self.fc(self.norm(x)), approximate=self.approximate)
        self.sow(nnx.Intermediate, "act", h, capture_noop=True)
        return x + h

class Net(nnx.Module):
    def __init__(self, *, stem_eps, approximate_in, rngs):
        self.stem = nnx.Sequential(nnx.Linear({D_IN}, {D}, rngs=rngs), nnx.LayerNorm({D}, epsilon=stem_eps, rngs=rngs))
        self.blocks = nnx.List([Block({D}, approximate=(i == approximate_in), rngs=rngs) for i in range(2)])
        self.head = nnx.Linear({D}, {D_OUT}, rngs=rngs)

    def __call__(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x)

def load(model, sd):
    def linear(m, key):
        m.kernel[...] = jnp.asarray(sd[key + ".weight"].T)
        m.bias[...] = jnp.asarray(sd[key + ".bias"])
    def norm(m, key):
        m.scale[...] = jnp.asarray(sd[key + ".weight"])
        m.bias[...] = jnp.asarray(sd[key + ".bias"])
    linear(model.stem.layers[0], "stem.0")
    norm(model.stem.layers[1], "stem.1")
    for i, block in enumerate(model.blocks):
        norm(block.norm, f"blocks.{{i}}.norm")
        linear(block.fc, f"blocks.{{i}}.fc")
    linear(model.head, "head")
    return model

def _make(stem_eps=1e-5, approximate_in=-1):
    sd = dict(np.load("weights.npz"))
    model = load(Net(stem_eps=stem_eps, approximate_in=approximate_in, rngs=nnx.Rngs(0)), sd)
    return model, jnp.asarray(np.load("x.npy"))

def make():
    return _make()

def make_default_eps():          # nnx.LayerNorm's default epsilon, 1e-6, in stem.1
    return _make(stem_eps=1e-6)

def make_approximate_gelu():     # jax.nn.gelu's default approximate=True, in blocks.1
    return _make(approximate_in=1)

def make_not_a_pair():
    return _make()[0]
'''.format(D_IN=D_IN, D=D, D_OUT=D_OUT)


def state_dict(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """PyTorch-layout weights, float32."""
    def linear(prefix: str, d_in: int, d_out: int) -> dict[str, np.ndarray]:
        return {f"{prefix}.weight": rng.standard_normal((d_out, d_in)) / math.sqrt(d_in),
                f"{prefix}.bias": 0.1 * rng.standard_normal(d_out)}

    def norm(prefix: str, d: int) -> dict[str, np.ndarray]:
        return {f"{prefix}.weight": 1 + 0.1 * rng.standard_normal(d), f"{prefix}.bias": 0.1 * rng.standard_normal(d)}

    sd = {**linear("stem.0", D_IN, D), **norm("stem.1", D)}
    for i in range(2):
        sd |= {**norm(f"blocks.{i}.norm", D), **linear(f"blocks.{i}.fc", D, D)}
    sd |= linear("head", D, D_OUT)
    return {k: v.astype(np.float32) for k, v in sd.items()}


def reference(sd: dict[str, np.ndarray], x: np.ndarray) -> dict[str, np.ndarray]:
    """Forward-hook outputs of the PyTorch model, in the order the hooks fire, from the formulas in float64."""
    p = {k: v.astype(np.float64) for k, v in sd.items()}

    def linear(h: np.ndarray, key: str) -> np.ndarray:  # nn.Linear: x W^T + b
        return h @ p[key + ".weight"].T + p[key + ".bias"]

    def layer_norm(h: np.ndarray, key: str) -> np.ndarray:  # nn.LayerNorm: biased variance, eps 1e-5
        mean = h.mean(-1, keepdims=True)
        var = ((h - mean) ** 2).mean(-1, keepdims=True)
        return (h - mean) / np.sqrt(var + TORCH_EPS) * p[key + ".weight"] + p[key + ".bias"]

    def gelu(h: np.ndarray) -> np.ndarray:  # nn.GELU(): exact
        return 0.5 * h * (1 + np.vectorize(math.erf)(h / math.sqrt(2)))

    out = {}
    h = out["stem.0"] = linear(x.astype(np.float64), "stem.0")
    h = out["stem.1"] = layer_norm(h, "stem.1")
    out["stem"] = h
    for i in range(2):
        n = out[f"blocks.{i}.norm"] = layer_norm(h, f"blocks.{i}.norm")
        f = out[f"blocks.{i}.fc"] = linear(n, f"blocks.{i}.fc")
        a = out[f"blocks.{i}.act"] = gelu(f)
        h = out[f"blocks.{i}"] = h + a
    out["head"] = linear(h, "head")
    return out


@pytest.fixture
def port(tmp_path: Path) -> Path:
    """tmp_path with port.py, weights.npz, x.npy and the reference ref.npz. The input has a tiny spread
    (std 1e-3), so that stem.1 normalises features whose variance is near LayerNorm's epsilon."""
    rng = np.random.default_rng(0)
    sd = state_dict(rng)
    x = (1e-3 * rng.standard_normal((BATCH, D_IN))).astype(np.float32)
    np.savez(tmp_path / "weights.npz", **sd)
    np.save(tmp_path / "x.npy", x)
    np.savez(tmp_path / "ref.npz", **reference(sd, x))
    (tmp_path / "port.py").write_text(PORT, encoding="utf-8")
    return tmp_path


def run_tool(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_script(TOOL, *args, cwd=cwd)


def check_json(cwd: Path, model: str, *extra: str) -> tuple[int, dict]:
    result = run_tool(cwd, "ref.npz", "--model", f"port.py:{model}", *TOL, "--json", *extra)
    assert result.returncode in (0, 3), result.stderr
    return result.returncode, json.loads(result.stdout)


REFERENCE_ORDER = ["stem.0", "stem.1", "stem", "blocks.0.norm", "blocks.0.fc", "blocks.0.act", "blocks.0",
                   "blocks.1.norm", "blocks.1.fc", "blocks.1.act", "blocks.1", "head"]


def test_help_documents_the_npz_the_hook_and_the_flags():
    result = run_script(TOOL, "--help")
    assert result.returncode == 0, result.stderr
    for text in ("--model", "--atol", "--rtol", "--channels-first", "--skip", "--json", "register_forward_hook",
                 "np.savez", "named_modules", "nnx.capture", '"stem/conv" is', "seq.0", "examples:", "exit codes:"):
        assert text in result.stdout, text


def test_a_matching_port_is_within_tolerance_at_every_layer(port: Path):
    code, report = check_json(port, "make")
    assert code == 0
    assert [row["name"] for row in report["layers"]] == REFERENCE_ORDER
    assert all(row["within"] for row in report["layers"]), report["layers"]
    assert report["first_outside"] is None
    paths = {row["name"]: row["nnx_path"] for row in report["layers"]}
    assert paths["stem.1"] == "stem/layers/1/__call__"  # nnx.Sequential's `layers` level is left out
    assert paths["blocks.1.act"] == "blocks/1/act"  # a sown value
    assert paths["blocks.0"] == "blocks/0/__call__"
    assert "" in report["unchecked"]  # the whole model's output, not in the reference

    table = run_tool(port, "ref.npz", "--model", "port.py:make", *TOL)
    assert table.returncode == 0, table.stderr
    assert "all 12 layers within tolerance" in table.stdout and "measured on:" in table.stdout


def test_slash_names_and_skip(port: Path):
    ref = dict(np.load(port / "ref.npz"))
    np.savez(port / "ref.npz", **{name.replace(".", "/"): value for name, value in ref.items()},
             **{"blocks.0.dropout": ref["blocks.0"]})
    code, report = check_json(port, "make", "--skip", "*.dropout")
    assert code == 0
    assert [row["name"] for row in report["layers"]] == REFERENCE_ORDER


@pytest.mark.parametrize(
    ("model", "first"),
    [("make_default_eps", "stem.1"), ("make_approximate_gelu", "blocks.1.act")],
)
def test_one_wrong_default_is_found_at_its_layer(port: Path, model: str, first: str):
    code, report = check_json(port, model)
    assert code == 3  # _cli.EXIT_CHECK_FAILED, as every script's failed check
    assert report["first_outside"] == first
    rows = report["layers"]
    index = REFERENCE_ORDER.index(first)
    assert all(row["within"] for row in rows[:index]), rows[:index]
    assert not rows[index]["within"] and rows[index]["max_abs_diff"] > 10 * 1e-5, rows[index]  # ten times --atol
    assert not rows[-1]["within"]  # and the difference reaches the output

    table = run_tool(port, "ref.npz", "--model", f"port.py:{model}", *TOL)
    assert table.returncode == 3
    assert f"first layer outside tolerance: {first} " in table.stdout


def test_a_name_the_model_does_not_produce_is_one_line_error(port: Path):
    ref = dict(np.load(port / "ref.npz"))
    np.savez(port / "ref.npz", **ref, **{"blocks.0.dropout": ref["blocks.0"]})
    assert_one_line_error(run_tool(port, "ref.npz", "--model", "port.py:make"), 1,
                          "layer 'blocks.0.dropout'", "not produced by the model", "--skip")


def test_a_shape_mismatch_is_one_line_error(port: Path):
    ref = dict(np.load(port / "ref.npz"))
    ref["blocks.1.fc"] = ref["blocks.1.fc"][:, :-1]
    np.savez(port / "ref.npz", **ref)
    assert_one_line_error(run_tool(port, "ref.npz", "--model", "port.py:make"), 1,
                          "layer 'blocks.1.fc'", "shape (4, 7)", "blocks/1/fc/__call__ has shape (4, 8)")


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (["missing.npz", "--model", "port.py:make"], 2, "no such file: missing.npz"),
        (["x.npy", "--model", "port.py:make"], 2, "holds one array"),
        (["port.py", "--model", "port.py:make"], 2, "cannot read port.py as an .npz"),
        (["ref.npz", "--model", "port.py:nope"], 2, "has no attribute 'nope'"),
        (["ref.npz", "--model", "port.py:make_not_a_pair"], 1, "must return (model, inputs)"),
        (["ref.npz", "--model", "port.py:make", "--rtol", "-1"], 2, "argument --rtol"),
        (["ref.npz"], 2, "--model"),
    ],
)
def test_bad_input_gives_one_error_line(port: Path, args: list[str], code: int, fragment: str):
    assert_one_line_error(run_tool(port, *args), code, fragment)
