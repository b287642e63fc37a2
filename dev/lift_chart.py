"""Draw the README's chart: the latest measured pair of arms, baseline and bundle, pass and clean-pass, on the
tasks the bundle was tuned on, on those held out from its tuning, and on all (`jaxpro.evals.lift` says
which is which and why). Writes lift.json (the figures, the split with a reason per tuned task) and
lift.svg beside the README; tests/test_lift_chart.py recomputes lift.json and reads the SVG's labels.

    python dev/lift_chart.py             # needs matplotlib (the `chart` extra) and the git history
    python dev/lift_chart.py --out DIR   # write both files elsewhere
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from jaxpro.evals import EvalError
from jaxpro.evals.lift import build
from jaxpro.repo import REPO

ARMS = {"baseline": ("baseline", "#9e9e9e"), "bundle": ("with jax-pro", "#3f51b5")}
PANELS = {"passed": "passed (the grader's checks)", "clean": "clean pass (passed, and no old API form or hedge)"}


def draw(data: dict, path: Path) -> None:
    """Two panels (pass, clean pass), a group of bars per set, each bar labelled `passed/tasks`."""
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "jax-pro", "font.size": 10})
    figure, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True, layout="constrained")
    sets = data["figures"]
    width = 0.38
    for axis, (key, title) in zip(axes, PANELS.items()):
        for offset, (arm, (label, colour)) in zip((-width / 2, width / 2), ARMS.items()):
            counts = [row[key][arm] for row in sets]
            shares = [100 * count / row["tasks"] for count, row in zip(counts, sets)]
            bars = axis.bar([i + offset for i in range(len(sets))], shares, width, label=label, color=colour)
            axis.bar_label(bars, labels=[f"{count}/{row['tasks']}" for count, row in zip(counts, sets)], padding=2,
                           fontsize=8)
        axis.set_xticks(range(len(sets)), [f"{row['set']} ({row['tasks']} tasks)" for row in sets])
        axis.set_title(title, fontsize=10)
        axis.set_ylim(0, 108)
        axis.spines[["top", "right"]].set_visible(False)
    axes[0].set_ylabel("share of tasks (%)")
    figure.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2, frameon=False)
    arms = data["arms"]
    figure.suptitle(f"Answers graded on the pins: {Path(arms['baseline']).name} vs {Path(arms['bundle']).name}",
                    fontsize=11)
    figure.savefig(path, format="svg", metadata={"Date": None})
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO, help="folder for lift.json and lift.svg (default: the checkout)")
    args = parser.parse_args(argv)
    try:
        data = build()
    except EvalError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    try:
        import matplotlib  # noqa: F401
    except ModuleNotFoundError:
        print("error: dev/lift_chart.py needs matplotlib: pip install -e '.[chart]' (dev/setup.sh installs it)",
              file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "lift.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    draw(data, args.out / "lift.svg")
    for row in data["figures"]:
        print(f"{row['set']:>8}: {row['tasks']} tasks, passed {row['passed']['baseline']} -> {row['passed']['bundle']}, "
              f"clean {row['clean']['baseline']} -> {row['clean']['bundle']}")
    print(f"wrote {args.out / 'lift.json'} and {args.out / 'lift.svg'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
