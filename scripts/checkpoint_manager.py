# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1", "orbax-checkpoint==0.12.8"]
# ///
"""List, inspect, verify and prune the Orbax checkpoints in one directory, through Orbax's own API.

  list ROOT              every step: complete, or incomplete (an interrupted save leaves a
                         `<step>.orbax-checkpoint-tmp` folder), its size on disk and commit time
  inspect ROOT STEP      the saved tree (shapes, dtypes, sharding) and the step metadata, read
                         without loading any array
  verify ROOT STEP       restore the step with Orbax and check that every leaf is finite and has
                         the shape and dtype its metadata records (exit 3 if any leaf fails)
  prune ROOT --keep N    delete all but the newest N complete steps. This is a DRY RUN that deletes
                         nothing unless --yes (or --execute) is given.

ROOT is the directory given to `ocp.CheckpointManager`; STEP is a step number or `latest` (the newest
complete step). Steps are found with Orbax's own helpers, not by matching folder names:
`ocp.utils.checkpoint_steps_paths` lists the complete ones, `ocp.utils.tmp_checkpoints` the incomplete
ones. They are read with `CheckpointManager.metadata(step)` and `.restore(step)` (the item handlers
recorded in each step's metadata are registered), and deleted with `CheckpointManager.delete(step)`.

prune never removes the newest complete checkpoint, never touches incomplete folders, and refuses to
run (deleting nothing) when a step it would delete is a symbolic link or resolves outside ROOT.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _cli import (
    EXIT_CODES_HELP,
    CheckFailed,
    CliError,
    CliParser,
    UsageError,
    first_line,
    non_negative_int,
    print_json,
    positive_int,
    print_table,
    run_cli,
    setup_host_devices,
)
from _pytree import build_tree, human_bytes, show

EXAMPLES = """\
examples:
  python scripts/checkpoint_manager.py list ckpts/
  python scripts/checkpoint_manager.py inspect ckpts/ latest --depth 2
  python scripts/checkpoint_manager.py verify ckpts/ 1000
  python scripts/checkpoint_manager.py prune ckpts/ --keep 3          # dry run: prints the plan
  python scripts/checkpoint_manager.py prune ckpts/ --keep 3 --yes    # deletes
"""

STEP_METADATA_FILE = "_CHECKPOINT_METADATA"
NO_METADATA = "(no metadata)"
CORRUPT_HINT = "the checkpoint is corrupt or incomplete; use an earlier step (see `list`)"
RESTORE_HINT = ("if it was saved on N devices, rerun with --devices N; if it is corrupt or incomplete, "
                "verify an earlier step (see `list`)")


def build_parser() -> CliParser:
    parser = CliParser(prog="checkpoint_manager.py", description=__doc__, epilog="\n\n".join([EXAMPLES, EXIT_CODES_HELP]))
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    root_help = "the checkpoint directory given to ocp.CheckpointManager"
    step_help = "a step number, or `latest` for the newest complete step"

    listing = commands.add_parser("list", help="steps, complete or not, size and time")
    listing.add_argument("root", metavar="ROOT", help=root_help)
    for name, text in (("inspect", "tree and step metadata, without loading arrays"),
                       ("verify", "restore a step and check every leaf")):
        command = commands.add_parser(name, help=text)
        command.add_argument("root", metavar="ROOT", help=root_help)
        command.add_argument("step", metavar="STEP", type=step_argument, help=step_help)
    commands.choices["inspect"].add_argument("--depth", type=non_negative_int, help="tree levels to show (default: all)")
    verify = commands.choices["verify"]
    prune = commands.add_parser("prune", help="delete all but the newest N complete steps (dry run by default)")
    prune.add_argument("root", metavar="ROOT", help=root_help)
    prune.add_argument("--keep", type=int, required=True, metavar="N", help="complete steps to keep (at least 1)")
    prune.add_argument("--yes", "--execute", dest="yes", action="store_true", help="really delete (default: dry run)")
    for command in commands.choices.values():
        command.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    verify.add_argument("--devices", type=positive_int, metavar="N", help="restore on N virtual CPU devices, for a "
                        "checkpoint saved with N-way sharding (sets XLA_FLAGS=--xla_force_host_platform_device_count=N)")
    return parser


def step_argument(text: str) -> str:
    """argparse type for STEP: checked before Orbax is imported, so a typo fails at once."""
    if text != "latest" and not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be a step number or `latest`, not {text!r}")
    return text


# --- finding steps -------------------------------------------------------------------------------

class _BackgroundNoise:
    """An unraisable-exception hook for what a failed Orbax read leaves behind.

    When one leaf cannot be read, the reads of the other leaves still finish in the background and
    report `RuntimeError: Event loop is closed`, or their failed coroutines, as unraisable exceptions:
    pages of traceback after our one-line error. Those are dropped once a failure has been reported
    (`failed`); any other unraisable exception goes to the previous hook.
    """

    def __init__(self) -> None:
        self.previous = sys.unraisablehook
        self.failed = False

    def __call__(self, unraisable: Any) -> None:
        error = unraisable.exc_value
        if self.failed or (isinstance(error, RuntimeError) and str(error) == "Event loop is closed"):
            return
        self.previous(unraisable)


_NOISE = _BackgroundNoise()


def orbax() -> Any:
    """`orbax.checkpoint`, with absl logging and background noise quietened so that errors stay one line."""
    from absl import logging

    logging.set_verbosity(logging.FATAL)
    sys.unraisablehook = _NOISE
    import orbax.checkpoint as ocp

    return ocp


@dataclass(frozen=True)
class StepDir:
    """One step folder under the root."""

    step: int
    path: Path
    complete: bool
    nbytes: int
    time: datetime.datetime

    @property
    def link_target(self) -> Path | None:
        return self.path.resolve() if self.path.is_symlink() else None

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.step, "path": str(self.path), "complete": self.complete, "bytes": self.nbytes,
                "time": self.time.isoformat(timespec="seconds"),
                "link_target": None if self.link_target is None else str(self.link_target)}


def resolve_root(text: str) -> Path:
    """The checkpoint root as an absolute, resolved path; a one-line error if it is not a directory."""
    path = Path(text)
    if not path.exists():
        raise UsageError(f"checkpoint directory {text} does not exist: pass the directory given to ocp.CheckpointManager")
    if not path.is_dir():
        raise UsageError(f"{text} is a file, not a checkpoint directory: pass the directory given to ocp.CheckpointManager")
    return path.resolve()


def disk_size(path: Path) -> int:
    """Bytes of every file below `path` (links are counted, not followed)."""
    total = 0
    for folder, _, files in os.walk(path):
        total += sum(os.lstat(os.path.join(folder, name)).st_size for name in files)
    return total


def scan(root: Path) -> list[StepDir]:
    """Every complete and incomplete step folder under `root`, sorted by step."""
    ocp = orbax()
    complete = ocp.utils.checkpoint_steps_paths(root)
    incomplete = [t.get() for t in ocp.utils.tmp_checkpoints(root)]
    steps = [_step_dir(ocp, path, done) for done, paths in ((True, complete), (False, incomplete)) for path in paths]
    if not steps:
        hint = ("it is one step folder: pass its parent" if (root / STEP_METADATA_FILE).exists()
                else "pass the directory given to ocp.CheckpointManager")
        raise CliError(f"{root} is not an Orbax checkpoint directory (no step folders such as 0/ or 100/): {hint}")
    return sorted(steps, key=lambda s: (s.step, s.complete))


def _step_dir(ocp: Any, path: Any, complete: bool) -> StepDir:
    """A `StepDir` from an `epath.Path`; the time is Orbax's commit timestamp or the folder's mtime."""
    step = ocp.utils.step_from_checkpoint_name(path.name)
    committed = guarded(lambda: ocp.path.step.Metadata(step, path).commit_timestamp,
                        f"cannot read the step metadata in {path}", CORRUPT_HINT)
    return StepDir(step, Path(path), complete, disk_size(Path(path)), committed)


def select_step(steps: Sequence[StepDir], text: str, root: Path) -> StepDir:
    """The complete step named by `text` (a number or `latest`)."""
    complete = [s for s in steps if s.complete]
    if text == "latest":
        if not complete:
            raise CliError(f"{root} has no complete checkpoint: every step folder is incomplete (see `list`)")
        return complete[-1]
    number = int(text)  # a number: `step_argument` checked it on the command line
    for candidate in steps:
        if candidate.step == number and candidate.complete:
            return candidate
    if any(s.step == number for s in steps):
        raise CliError(f"step {number} in {root} is incomplete (its save was interrupted): use a complete step from `list`")
    raise UsageError(f"no step {number} in {root}: complete steps are {[s.step for s in complete]} (see `list`)")


# --- reading through CheckpointManager -----------------------------------------------------------

def manager_options(steps: Sequence[StepDir], *, writable: bool) -> Any:
    """`CheckpointManagerOptions` matching how the existing step folders are named."""
    names = [s.path.name for s in steps if s.complete]
    prefixes = {None if name.isdigit() else name.rpartition("_")[0] for name in names}
    if len(prefixes) > 1:
        raise CliError(f"step folders use different prefixes {sorted(map(str, prefixes))}: give each run its own directory")
    padded = {len(name) for name in names if name.isdigit() and len(name) > 1 and name.startswith("0")}
    return orbax().CheckpointManagerOptions(
        read_only=not writable, create=False, step_prefix=prefixes.pop() if prefixes else None,
        step_format_fixed_length=padded.pop() if len(padded) == 1 else None,
    )


def guarded(action: Callable[[], Any], failure: str, hint: str = "") -> Any:
    """Run an Orbax call; turn its exception into one line that says what failed and what to do."""
    try:
        return action()
    except CliError:
        raise
    except Exception as exc:  # Orbax and TensorStore raise many types for unreadable data
        _NOISE.failed = True
        raise CliError(f"{failure} ({type(exc).__name__}: {short_reason(exc)})" + (f"; {hint}" if hint else "")) from exc


def short_reason(exc: Exception, limit: int = 240) -> str:
    """The first line of an exception message, without TensorStore's spec dump, at most `limit` chars."""
    text = first_line(str(exc))
    for noise in (" [tensorstore_spec=", " See full TensorStore details"):
        text = text.split(noise, 1)[0]
    return text if len(text) <= limit else text[: limit - 3] + "..."


def item_handlers(manager: Any, entry: StepDir) -> Any:
    """The handlers recorded in the step metadata: one handler (default item) or {item: handler}."""
    recorded = guarded(lambda: manager.metadata(entry.step).item_handlers,
                       f"cannot read the step metadata of {entry.path}", CORRUPT_HINT)
    if not recorded or None in recorded.values():
        raise CliError(f"{entry.path / STEP_METADATA_FILE} does not record the item handlers: the file is corrupt "
                       "or the step was not written by ocp.CheckpointManager; use another step (see `list`)")
    handlers = {item: _make_handler(class_path, entry.path) for item, class_path in recorded.items()}
    return handlers["default"] if set(handlers) == {"default"} else handlers


def _make_handler(class_path: str, step_path: Path) -> Any:
    module, _, name = class_path.rpartition(".")
    if not module.startswith("orbax.checkpoint."):
        raise CliError(f"{step_path} was written by handler {class_path}, which is not Orbax's: restore it in its own code")
    try:
        return getattr(importlib.import_module(module), name)()
    except (ImportError, AttributeError, TypeError) as exc:
        raise CliError(f"{step_path}: cannot create handler {class_path} ({first_line(str(exc))})") from exc


@contextmanager
def open_manager(root: Path, steps: Sequence[StepDir], entry: StepDir | None = None,
                 *, writable: bool = False) -> Iterator[Any]:
    """A `CheckpointManager` on `root`; with `entry`, it has that step's item handlers registered."""
    ocp = orbax()
    options = manager_options(steps, writable=writable)
    handlers = None
    if entry is not None:
        with ocp.CheckpointManager(root, options=options) as bare:
            handlers = item_handlers(bare, entry)
    with ocp.CheckpointManager(root, options=options, item_handlers=handlers) as manager:
        yield manager


def as_tree(item: Any) -> Any:
    """A Composite of items (a Mapping that is not a pytree) becomes a dict; an item without metadata
    (a JSON item, say) gets a placeholder so that it still shows."""
    if isinstance(item, Mapping) and not isinstance(item, dict):
        return {name: NO_METADATA if value is None else value for name, value in item.items()}
    return item


def read_metadata(root: Path, step_text: str) -> tuple[StepDir, Any]:
    """The step and its `StepMetadata` (item metadata included), read without loading arrays."""
    steps = scan(root)
    entry = select_step(steps, step_text, root)
    with open_manager(root, steps, entry) as manager:
        metadata = guarded(lambda: manager.metadata(entry.step), f"cannot read the metadata of {entry.path}", CORRUPT_HINT)
    if metadata.item_metadata is None:
        raise CliError(f"cannot read the tree metadata of {entry.path}; {CORRUPT_HINT}")
    return entry, metadata


def checkpoint_tree(directory: str, step: int | None) -> tuple[Any, str, dict[str, Any]]:
    """For pytree_visualizer: (metadata tree, name, extra JSON fields) of a root or one step folder."""
    path = resolve_root(directory)
    if (path / STEP_METADATA_FILE).exists():
        own_step = orbax().utils.step_from_checkpoint_name(path.name)
        if step is not None and step != own_step:
            raise UsageError(f"{directory} is the folder of step {own_step}; --step {step} names another step")
        path, step = path.parent, own_step
    entry, metadata = read_metadata(path, "latest" if step is None else str(step))
    return as_tree(metadata.item_metadata), f"step {entry.step}", {"checkpoint": str(entry.path), "step": entry.step}


# --- commands ------------------------------------------------------------------------------------

def _time(value: datetime.datetime) -> str:
    return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def cmd_list(root: Path, as_json: bool) -> int:
    steps = scan(root)
    if as_json:
        print_json({"root": str(root), "steps": [s.as_dict() for s in steps]})
        return 0
    rows = [(s.step, "complete" if s.complete else "INCOMPLETE", human_bytes(s.nbytes), _time(s.time),
             s.path.name + (f" -> {s.link_target}" if s.link_target else "")) for s in steps]
    print_table(f"Checkpoints in {root}", ["step", "status", "size", "time", "folder"], rows)
    complete = [s.step for s in steps if s.complete]
    print(f"{len(complete)} complete, {len(steps) - len(complete)} incomplete; "
          f"newest complete step: {complete[-1] if complete else 'none'}")
    return 0


def step_summary(entry: StepDir, metadata: Any) -> dict[str, Any]:
    """The step metadata worth showing: handlers, commit time, metrics, custom metadata."""
    committed = metadata.commit_timestamp_nsecs
    return {
        "step": entry.step,
        "path": str(entry.path),
        "size": human_bytes(entry.nbytes),
        "committed": _time(datetime.datetime.fromtimestamp(committed / 1e9, datetime.timezone.utc)) if committed else None,
        "item_handlers": {k: v.rpartition(".")[2] for k, v in (metadata.item_handlers or {}).items()},
        "metrics": metadata.metrics or {},
        "custom_metadata": metadata.custom_metadata or {},
    }


def cmd_inspect(root: Path, step_text: str, depth: int | None, as_json: bool) -> int:
    entry, metadata = read_metadata(root, step_text)
    summary = step_summary(entry, metadata)
    if not as_json:
        print_table(f"Step {entry.step}", ["field", "value"], [(k, v) for k, v in summary.items()])
    show(build_tree(as_tree(metadata.item_metadata), f"step {entry.step}"), depth, as_json, {"step_metadata": summary})
    return 0


def check_leaves(expected: Any, restored: Any) -> list[dict[str, Any]]:
    """One row per restored leaf: shape/dtype against the metadata, and whether the values are finite."""
    import jax
    import numpy as np

    want = {jax.tree_util.keystr(p): leaf for p, leaf in jax.tree.leaves_with_path(expected)}
    rows = []
    for path, value in jax.tree.leaves_with_path(restored):
        key = jax.tree_util.keystr(path)
        meta = want.pop(key, None)
        array = np.asarray(value)
        finite = bool(np.all(np.isfinite(array))) if array.dtype.kind in "fc" or "float" in str(array.dtype) else True
        problems = [] if finite else ["not finite"]
        if hasattr(meta, "shape") and tuple(meta.shape) != array.shape:
            problems.append(f"shape {array.shape} != metadata {tuple(meta.shape)}")
        if hasattr(meta, "dtype") and np.dtype(meta.dtype) != array.dtype:
            problems.append(f"dtype {array.dtype} != metadata {meta.dtype}")
        rows.append({"leaf": key, "shape": list(array.shape), "dtype": str(array.dtype), "finite": finite,
                     "ok": not problems, "problem": "; ".join(problems)})
    for key, meta in want.items():
        if meta != NO_METADATA:
            rows.append({"leaf": key, "shape": None, "dtype": None, "finite": False, "ok": False,
                         "problem": "in the metadata but not restored"})
    return rows


def cmd_verify(root: Path, step_text: str, as_json: bool) -> int:
    steps = scan(root)
    entry = select_step(steps, step_text, root)
    with open_manager(root, steps, entry) as manager:
        metadata = guarded(lambda: manager.metadata(entry.step), f"cannot read the metadata of {entry.path}", CORRUPT_HINT)
        restored = guarded(lambda: manager.restore(entry.step), f"cannot restore {entry.path}", RESTORE_HINT)
    rows = check_leaves(as_tree(metadata.item_metadata), as_tree(restored))
    failed = [r for r in rows if not r["ok"]]
    if as_json:
        print_json({"step": entry.step, "path": str(entry.path), "ok": not failed, "leaves": rows})
    else:
        print_table(f"Verify step {entry.step} ({entry.path})", ["leaf", "shape", "dtype", "finite", "status"],
                    [(r["leaf"], r["shape"], r["dtype"], r["finite"], r["problem"] or "ok") for r in rows])
    if failed:
        names = ", ".join(r["leaf"] for r in failed[:3]) + (" ..." if len(failed) > 3 else "")
        raise CheckFailed(f"step {entry.step} at {entry.path}: {len(failed)} of {len(rows)} leaves failed ({names}); "
                          "restore an earlier step (see `list`)")
    if not as_json:
        print(f"step {entry.step}: all {len(rows)} leaves restored, finite and matching their metadata")
    return 0


def refuse_unsafe(root: Path, entry: StepDir) -> None:
    """Raise unless `entry` is a real folder directly inside `root` (no symbolic link, no escape)."""
    target = entry.link_target
    if target is not None:
        where = "inside" if target.is_relative_to(root) else "OUTSIDE"
        raise CliError(f"refusing to prune: step {entry.step} at {entry.path} is a symbolic link to {target} "
                       f"({where} {root}); nothing was deleted. Remove the link yourself, then run prune again")
    if entry.path.resolve().parent != root:
        raise CliError(f"refusing to prune: step {entry.step} at {entry.path} resolves outside {root}; nothing was deleted")


def plan_prune(steps: Sequence[StepDir], keep: int) -> tuple[list[StepDir], list[StepDir]]:
    """(kept, deleted) complete steps; the newest complete step is always kept."""
    complete = [s for s in steps if s.complete]
    if keep < 1:
        newest = complete[-1].step if complete else "none"
        raise UsageError(f"--keep must be at least 1: prune never removes the newest complete checkpoint (step {newest})")
    kept, deleted = complete[-keep:], complete[:-keep]
    if complete and complete[-1] in deleted:
        raise CliError(f"refusing to delete the newest complete checkpoint (step {complete[-1].step})")
    return kept, deleted


def cmd_prune(root: Path, keep: int, execute: bool, as_json: bool) -> int:
    steps = scan(root)
    kept, deleted = plan_prune(steps, keep)
    for entry in deleted:
        refuse_unsafe(root, entry)
    if execute and deleted:
        with open_manager(root, steps, writable=True) as manager:
            for entry in deleted:
                guarded(lambda: manager.delete(entry.step), f"deleting {entry.path} failed")
        still_there = [str(e.path) for e in deleted if e.path.exists()]
        if still_there:
            raise CliError(f"Orbax reported success but these folders still exist: {', '.join(still_there)}")
    action = "deleted" if execute else "would delete"
    incomplete = [s.step for s in steps if not s.complete]
    if as_json:
        print_json({"root": str(root), "dry_run": not execute, "kept": [s.step for s in kept],
                    action.replace(" ", "_"): [s.step for s in deleted], "incomplete_untouched": incomplete})
        return 0
    rows = [(s.step, human_bytes(s.nbytes), action if s in deleted else "keep") for s in kept + deleted]
    print_table(f"Prune {root} (keep the newest {keep} complete)", ["step", "size", "action"],
                sorted(rows, key=lambda r: r[0]))
    freed = human_bytes(sum(s.nbytes for s in deleted))
    if incomplete:
        print(f"incomplete steps left alone: {incomplete}")
    count = f"{len(deleted)} step{'' if len(deleted) == 1 else 's'} ({freed})"
    if execute:
        print(f"deleted {count}")
    else:
        print(f"dry run: nothing deleted; run again with --yes to delete {count}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    root = resolve_root(args.root)
    if args.command == "list":
        return cmd_list(root, args.json)
    if args.command == "inspect":
        return cmd_inspect(root, args.step, args.depth, args.json)
    if args.command == "verify":
        if args.devices is not None:
            setup_host_devices(args.devices)
        return cmd_verify(root, args.step, args.json)
    return cmd_prune(root, args.keep, args.yes, args.json)


if __name__ == "__main__":
    run_cli(main)
