"""Grade `global_batch.make_global_batch`: each process's rows become one global array, in 2 real processes."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

WORKER = Path(__file__).with_name("worker.py")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_one_process_gets_the_whole_batch(answer):
    mesh = jax.make_mesh((8,), ("data",))
    full = np.arange(64 * 3, dtype=np.float32).reshape(64, 3)
    result = answer.make_global_batch(full, mesh)
    assert result.shape == (64, 3) and result.sharding.spec[0] == "data"
    np.testing.assert_array_equal(np.asarray(result), full)


def test_two_processes_build_one_global_batch(task, answer_dir):
    """Two processes with 4 CPU devices each; process i passes rows 32*i to 32*i+31 of a 64-row batch."""
    coordinator = f"127.0.0.1:{free_port()}"
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"} | {"JAX_PLATFORMS": "cpu"}
    workers = [subprocess.Popen([sys.executable, str(WORKER), str(i), "2", coordinator, str(answer_dir), task["module"]],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for i in range(2)]
    reports = []
    try:
        for worker in workers:
            out, err = worker.communicate(timeout=90)
            lines = [line for line in out.splitlines() if line.startswith("{")]
            assert lines, f"a worker printed no report (exit {worker.returncode}):\n{err[-2000:]}"
            reports.append(json.loads(lines[-1]))
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
    for report in reports:
        assert "error" not in report, f"process {report['process']}: {report['error']}"
        assert report["shape"] == [64, 3], f"process {report['process']}: global shape {report['shape']}, not [64, 3]"
        assert report["spec"].startswith("P('data'"), f"process {report['process']}: spec {report['spec']}"
        assert report["rows_ok"], f"process {report['process']}: its devices do not hold the right rows"
        assert report["sum"] == pytest.approx(report["want_sum"]), "the jitted sum over the global batch is wrong"
