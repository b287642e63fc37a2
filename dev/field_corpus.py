"""The field corpus of scripts/jax_currency_check.py (issue 26): pinned PyPI releases of JAX code that
nobody here wrote, and the fixed rule that splits them into a tuning half and a test half.

The corpus is PINNED below (name==version, the sha256 of the file PyPI serves, its Python line count):
old releases of 2023-2025 full of old forms, current releases that should be nearly clean, and
UPGRADE PAIRS (two consecutive releases of one package between which its maintainers replaced old
APIs; dev/field_eval.py measures recall on them). `fetch` downloads each with
`pip download --no-deps --only-binary=:all:` (a wheel, so no build step of theirs ever runs) into a
cache outside the checkout (default ~/.cache/jax-pro/field-corpus/), checks the sha256 and extracts
only the `.py` files. Nothing is installed or imported.

THE SPLIT (fixed before the checker was run on any of it): a package is in the test half when
sha256(its normalized name) is odd, else in the tuning half; both releases of an upgrade pair go with
their package. A test-half package that someone looked at to explain a failure moves to the tuning
half (evals/field/moves.toml records it and why), and the next test-half package of RESERVE is drawn
into the corpus in its place.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Sequence

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CACHE = Path.home() / ".cache" / "jax-pro" / "field-corpus"
MOVES = REPO / "evals" / "field" / "moves.toml"
HALVES = ("tuning", "test")

EPILOG = """\
examples:
  .venv/bin/python dev/field_corpus.py fetch               # download + extract every pinned release
  .venv/bin/python dev/field_corpus.py list                # name, version, role, half, lines
  .venv/bin/python dev/field_corpus.py list --json         # the same as JSON (used by tests)
  .venv/bin/python dev/field_corpus.py fetch chex==0.1.92  # one release, pinned or not (no sha check)

exit codes:
  0  done
  1  a download failed, or a file's sha256 or line count is not the pinned one (each on one line)
  2  usage error"""


class CorpusError(Exception):
    """A problem the user can fix; printed as one `error:` line."""


@dataclass(frozen=True)
class Pin:
    """One pinned release. `role`: old (first uploaded 2023-2025, expected to hold old forms) or current
    (uploaded in 2026, expected to be nearly clean); `released` is the date of its first upload to PyPI."""

    name: str
    version: str
    role: str
    released: str
    sha256: str
    lines: int

    @property
    def spec(self) -> str:
        return f"{self.name}=={self.version}"


PINNED: tuple[Pin, ...] = (
    # name, version, role, released (first upload), sha256 of the wheel, lines of Python in its .py files
    Pin("praxis", "1.4.0", "old", "2024-04-09", "787bbc11d65e4a60a2240cc7ae78e56b81cbd99f88fd27da474c730fc8b3b2f3", 92776),
    Pin("levanter", "1.2.dev1359", "old", "2025-05-08", "426bf627e181bffe3e536bf409e10b5e74dfa0771eaf02d29eed7711c859865d", 30325),
    Pin("jaxopt", "0.8.3", "old", "2024-01-10", "4be2f82798393682529c9ca5046e5397ac6c8657b8acb6bf275e773b28df15b6", 14663),
    Pin("jaxopt", "0.8.4", "old", "2025-04-11", "420878c37650c8c0752f8a75b20afb0ddc52bc12b63667910131057295b0e6ab", 14638),
    Pin("clu", "0.0.12", "old", "2024-04-10", "0d183e7d25f7dd0700444510a264e24700e2f068bdabd199ed22866f7e54edba", 8274),
    Pin("evojax", "0.2.17", "old", "2024-06-18", "8badf5453c872b713dbfcd4a877117262df85b7e4be81e010fdf1284869d9022", 7120),
    Pin("penzai", "0.2.5", "old", "2025-04-08", "3b2823b7403c37cfb033ccb27a1b81d8e05df02fb16f246344e962427b2ac43a", 26158),
    Pin("oryx", "0.2.9", "old", "2024-12-10", "04f1ee0f50df4b2cac928ec28d7cc8c46065f3d6d8daf6d2d06cec75262b2822", 17974),
    Pin("neural-tangents", "0.6.5", "old", "2023-12-11", "9caee1f50bfc1af4b827061c5929513fb82b99dc3ad749d9f57d1424d6d032c5", 26680),
    Pin("jax-md", "0.2.8", "old", "2023-08-09", "ca8dd37343a324151a89716b0fd39f67c0658c4f8da7ec52a250bc2c98e277dc", 13435),
    Pin("brax", "0.14.2", "current", "2026-03-15", "d33b7b222ba5d85fd0fc4d4c59aa46feb978684107ad3f79de6bfef97ab06693", 23024),
    Pin("dm-haiku", "0.0.17", "current", "2026-07-27", "aa1394276adf59d695c910810ad90febb741503a83c32b022ce1162483904bbb", 33915),
    Pin("distrax", "0.1.7", "old", "2025-09-01", "cf502d64022c7a682882ae6f07aea35206c6a3d8ddfb1e3beb006723baf283fd", 27362),
    Pin("distrax", "0.1.8", "current", "2026-04-16", "b5160564b049dcfcd12aabfa73344c35c00ee9f7d1789c653fa0ecffaea728cd", 27392),
    Pin("rlax", "0.1.8", "old", "2025-09-01", "c6d5c45cc6727dd7ad58baacf12b92ca53568d7d68063b8a97f3c5c36552cb8f", 10198),
    Pin("rlax", "0.1.9", "current", "2026-06-12", "34f64a5873aaa9d06f7cd4bb12b3abbb1aba2f0f507a5fce9b0c42d3b23f4f80", 10274),
    Pin("equinox", "0.13.2", "old", "2025-10-09", "bc1ee687e4841945d8b776664403839639a05e2f2c02c1da353ff3386e0e43b0", 15313),
    Pin("equinox", "0.13.3", "current", "2026-01-25", "1908ce3ed90b3d2a4d54984b91fdfb96f6468c8e97c5c8dc36e4258125674ec7", 15501),
    Pin("evosax", "0.2.0", "old", "2025-03-11", "4e4aa4426ca1eb139b3783466c8b67a2e1a1060a75ee3013e54a7cd2a2c1cd14", 10506),
    Pin("evosax", "0.3.0", "current", "2026-08-15", "acc305b599833fbf207b45304029036c9d999d99b32d2464b5b174e4f2c48e34", 11150),
    Pin("qwix", "0.1.8", "current", "2026-06-22", "0f4686f7f10a1168787fac4fbaf4d9883bcb8f78a01f2ff1cd3834d39f859b12", 13928),
    Pin("ott-jax", "0.6.0", "old", "2025-11-04", "89d7ee73ae105a56385b66a43e9acd5ae070e66d991efc56047ab47cc756f3e6", 26261),
    Pin("paxml", "1.4.0", "old", "2024-04-09", "1ed1d84a13a35fa7547f9ba6100f036361f379e54e16bc28e40bb854ca01cb78", 45876),
    Pin("haliax", "1.4.dev330", "old", "2025-02-27", "8e19208bb4b471ee71a5a552729096dea229d53804bee5de110096f3996cf81d", 10626),
    Pin("objax", "1.8.0", "old", "2023-11-06", "7b0e3b28751529adc1402a05cc1e71f6e01b1476352d44cbdc4094d2586d1d1c", 5969),
    Pin("dynamax", "1.0.1", "old", "2025-05-10", "98748e72514d990c8a1a67392efd496320f1f1b8c174fca0dd75b9d8bc3ff0d7", 14306),
    Pin("flashbax", "0.1.2", "old", "2024-03-12", "ac50b2580808ce63787da0ae240db14986e3404ade98a33335e6d7a5efe84859", 6399),
    Pin("flashbax", "0.1.3", "old", "2025-03-27", "798b0056dd0f525269ad9689a402dd0a515db7cb6976c761aa95004ff37e9697", 7267),
    Pin("mctx", "0.0.6", "old", "2025-09-02", "4b3bef10c1b51a0b62b95b60003e40177f4d1501f0168a4c1c85012c2a75dedf", 2985),
    Pin("dm-pix", "0.4.4", "old", "2025-02-17", "afd492b9d27a77a55522ce504f5360e2efde1bd9b70fd43b3f9a42219c1c4f23", 3776),
    Pin("maxtext", "0.2.5", "current", "2026-10-02", "2fe8e4ffc3a06bd06f94daeaaf5fe3ecee748bb6f661c0f426e07e2ca10c9406", 169150),
    Pin("gemma", "4.0.1", "current", "2026-05-20", "a3ac8836f63fbf7e8d0934c851fc44c1422638596d157937ba8179db6bfb3e76", 20788),
    Pin("kauldron", "1.4.4", "current", "2026-06-10", "6d586b65de003369101c73bd55bbb64df38a396e511257be5a6e08658019fbc8", 45080),
    Pin("chex", "0.1.91", "old", "2025-09-01", "6fc4cbfc22301c08d4a7ef706045668410100962eba8ba6af03fa07f4e5dcf9b", 9989),
    Pin("chex", "0.1.92", "current", "2026-06-12", "f34989d9bff7954edfab09fba7757e3d62404da34577bff0d253599ec5b4f93d", 10071),
    Pin("diffrax", "0.7.2", "current", "2026-02-18", "1beee2f991cd049962fe3c89da28f933753aa66d80bef857533276c9f23301ed", 16473),
    Pin("blackjax", "1.7.1", "current", "2026-10-02", "be2c7f982f4ab3afef2dd5f075dae271023fdec3d9c5d8b599ba7f2f281524fa", 38754),
    Pin("optimistix", "0.1.0", "current", "2026-02-16", "c8edda7bf7fe48839c93fcd72bce750c950ed9f7033158303150b7ab395add81", 7563),
    Pin("lineax", "0.1.1", "current", "2026-05-01", "2e399f1674773ab2ba54d76175a618977a554f47abd0a345198d53d92c07beb2", 6333),
    Pin("sbx-rl", "0.28.0", "current", "2026-07-24", "1493cc24ef96ecaf267ef2563d19c87fe02a9dc0ca39df59020378f720e4a951", 5395),
    # Taken from RESERVE on 2026-11-27 before the checker ever ran on them, to give the held-out half
    # more findings of the rarer kinds (all four are test half by the rule).
    Pin("scico", "0.0.6", "old", "2024-10-25", "5994d925064add727dc0e6d23658c10e25c3c7a5d5c156d3e5dc85e173f36654", 35751),
    Pin("flowjax", "19.1.2", "current", "2026-10-16", "0c42c668f8591992869ed5954cb67774a60dd0042bbcc749c3bebb604964a600", 5012),
    Pin("navix", "4.0.0", "current", "2026-09-07", "e2b79c06bea8779a21291263d5313dd0460443ddda5b690087381e19923dbc51", 16761),
    Pin("tinygp", "0.3.0", "old", "2024-01-05", "e98fd15cb358978d1211a103203bdc82d692932a235bcc14f3d67d4c86154b75", 4126),
)
# Upgrade pairs: (package, old version, new version), both pinned above.
PAIRS: tuple[tuple[str, str, str], ...] = (
    ("jaxopt", "0.8.3", "0.8.4"),
    ("distrax", "0.1.7", "0.1.8"),
    ("rlax", "0.1.8", "0.1.9"),
    ("equinox", "0.13.2", "0.13.3"),
    ("evosax", "0.2.0", "0.3.0"),
    ("flashbax", "0.1.2", "0.1.3"),
    ("chex", "0.1.91", "0.1.92"),
)
# Drawn in this order into the test half when a test-half package moves to the tuning half.
RESERVE: tuple[Pin, ...] = (
    Pin("jumanji", "1.1.1", "old", "2025-06-18", "5d8e8bcfb00f43223a991b481e2f2a95676756133b220015bc24331cb2fa1aeb", 39766),
    Pin("gymnax", "1.0.1", "current", "2026-10-18", "b7adcda33f41f6b8b27ac589be378a154a9209e736147977f6c0aebe5f35e796", 8044),
    Pin("recurrentgemma", "1.0.1", "current", "2026-02-06", "6d6b513766f559807c43fd98a205d05ece54a329efe3842a5a033e35dee42b4e", 9483),
    # Added 2026-11-27 before any was checked, in the order of sha256 of the name (all in the test half).
    Pin("xminigrid", "0.9.1", "old", "2024-10-11", "dac54c13662a2cec4128f7d4900f622e7dccf285197b546b1f7631f6307d7f44", 4359),
    Pin("fedjax", "0.0.17", "old", "2023-07-12", "42be1d21a57843ccdf3f2af802fe6f8fcdf8530da9b2812b178d18af8ac8c0a1", 52672),
    Pin("gpjax", "1.0.0", "current", "2026-09-28", "8ae37d585d10839fc97283aa9ec17990ea4ea1419a8af936bb7ead891eb8ae45", 15085),
    # Added 2026-11-27 (second batch) before any was checked, in the order of sha256 of the name.
    Pin("jaxdf", "0.2.8", "old", "2024-09-17", "825924f513ed82049b6bdeaff82c4727b9ed172e235f363ef3f7db716e1f0556", 2487),
    Pin("distreqx", "0.0.3", "current", "2026-04-25", "7f68d7b6e9d1a6f544707906bde933f1586d215db0b928979d14a118fa9b3dcb", 4035),
    Pin("jax-triton", "0.3.0", "old", "2025-05-02", "75cd8fae0cc91d84359e58337abd939e58489e9a099954e2a11b504a3a2afc26", 2003),
    Pin("coix", "0.1.0", "old", "2024-04-17", "c8b2b4d0cc2c1defbe3f6771e2fdab42302d65bd64decf7e9e903eb7c43f718f", 2876),
)


def normalize(name: str) -> str:
    """The PEP 503 form of a distribution name (`dm_haiku` -> `dm-haiku`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def rule_half(name: str) -> str:
    """THE SPLIT RULE: test when sha256(normalized name) is odd, else tuning."""
    return HALVES[int(hashlib.sha256(normalize(name).encode()).hexdigest(), 16) % 2]


def load_moves(path: Path = MOVES) -> dict[str, str]:
    """Packages moved from the test half to the tuning half: name -> why (someone looked at them)."""
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise CorpusError(f"{path}: not valid TOML ({exc})") from exc
    return {normalize(move["package"]): move["reason"] for move in data.get("move", [])}


def half(name: str, moves: dict[str, str]) -> str:
    """The half a package is in: the rule's, unless it was moved to tuning."""
    return "tuning" if normalize(name) in moves else rule_half(name)


def corpus(moves: dict[str, str]) -> list[Pin]:
    """PINNED, plus one test-half RESERVE package (in RESERVE's order) for every test-half package of the
    corpus moved to tuning; a drawn package that moves in turn draws the next one."""
    pool = [pin for pin in RESERVE if rule_half(pin.name) == "test"]
    members: list[Pin] = list(PINNED)
    while True:
        moved = {normalize(pin.name) for pin in members if rule_half(pin.name) == "test" and normalize(pin.name) in moves}
        grown = [*PINNED, *pool[:len(moved)]]
        if grown == members:
            return members
        members = grown


def download(spec: str, dist: Path) -> Path:
    """`pip download --no-deps` a wheel of `spec` into `dist` (a wheel only: no build step runs)."""
    name, _, version = spec.partition("==")
    found = wheel_in(dist, name, version)
    if found:
        return found
    dist.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--ignore-requires-python",
         "--disable-pip-version-check", "--quiet", spec, "-d", str(dist)],
        capture_output=True, text=True)
    found = wheel_in(dist, name, version)
    if result.returncode != 0 or not found:
        last = (result.stderr.strip().splitlines() or ["no wheel saved"])[-1]
        raise CorpusError(f"pip download {spec} failed: {last}")
    return found


def wheel_in(dist: Path, name: str, version: str) -> Path | None:
    """The wheel of name==version already in `dist`, if any."""
    stem = re.sub(r"[-_.]+", "_", name).lower()
    for path in sorted(dist.glob("*.whl")) if dist.is_dir() else []:
        parts = path.name.split("-")
        if re.sub(r"[-_.]+", "_", parts[0]).lower() == stem and parts[1] == version:
            return path
    return None


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def safe_member(name: str) -> PurePosixPath | None:
    """A member path to extract: a .py file with no absolute part or `..`, else None."""
    path = PurePosixPath(name)
    if path.suffix != ".py" or path.is_absolute() or ".." in path.parts:
        return None
    return path


def extract(archive: Path, dest: Path) -> int:
    """Write only the .py files of a wheel (zip) or sdist (tar) under `dest`; returns how many."""
    count = 0
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                member = safe_member(info.filename)
                if member and not info.is_dir():
                    write(dest / member, zf.read(info))
                    count += 1
    else:
        with tarfile.open(archive) as tf:
            for info in tf.getmembers():
                member = safe_member(info.name)
                if member and info.isfile():
                    stream = tf.extractfile(info)
                    if stream is not None:
                        write(dest / member, stream.read())
                        count += 1
    return count


def write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def source_dir(cache: Path, name: str, version: str) -> Path:
    """Where the .py files of a release are extracted."""
    return cache / "src" / f"{normalize(name)}-{version}"


def count_lines(folder: Path) -> tuple[int, int]:
    """(files, lines) of the .py files under `folder`."""
    files = sorted(folder.rglob("*.py"))
    return len(files), sum(len(path.read_bytes().splitlines()) for path in files)


def fetch(spec: str, cache: Path, pin: Pin | None) -> Path:
    """Download and extract one release (checking the pin's sha256 and line count); its source folder."""
    name, _, version = spec.partition("==")
    dest = source_dir(cache, name, version)
    marker = dest / ".complete"
    wheel = download(spec, cache / "dist")
    if pin and sha256_of(wheel) != pin.sha256:
        raise CorpusError(f"{wheel.name}: sha256 {sha256_of(wheel)} is not the pinned {pin.sha256}")
    if not marker.exists():
        extract(wheel, dest)
        marker.write_text(wheel.name + "\n", encoding="utf-8")
    if pin and pin.lines:
        _, lines = count_lines(dest)
        if lines != pin.lines:
            raise CorpusError(f"{spec}: {lines} lines of Python, pinned {pin.lines}")
    return dest


def rows(moves: dict[str, str]) -> list[dict[str, object]]:
    """One row per release of the corpus: the pin, its half, and whether it is in an upgrade pair."""
    paired = {(name, version) for name, old, new in PAIRS for version in (old, new)}
    return [{**asdict(pin), "half": half(pin.name, moves), "pair": (pin.name, pin.version) in paired,
             "moved": normalize(pin.name) in moves} for pin in corpus(moves)]


def print_list(table: list[dict[str, object]]) -> None:
    """A plain-text table of the corpus, with totals per half."""
    print(f"{'package':<28}{'role':<9}{'released':<12}{'half':<8}{'pair':<6}{'lines':>8}")
    for row in table:
        spec = f"{row['name']}=={row['version']}"
        print(f"{spec:<28}{row['role']:<9}{row['released']:<12}{row['half']:<8}{'yes' if row['pair'] else '':<6}"
              f"{row['lines']:>8}")
    for name in HALVES:
        part = [row for row in table if row["half"] == name]
        print(f"{name}: {len({row['name'] for row in part})} packages, {len(part)} releases, "
              f"{sum(int(row['lines']) for row in part)} lines")
    print(f"all: {len({row['name'] for row in table})} packages, {sum(int(row['lines']) for row in table)} lines")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"cache folder (default {DEFAULT_CACHE})")
    parser.add_argument("--moves", type=Path, default=MOVES, help="moves file (default evals/field/moves.toml)")
    sub = parser.add_subparsers(dest="command", required=True)
    fetch_p = sub.add_parser("fetch", help="download and extract the pinned releases (or the ones named)")
    fetch_p.add_argument("specs", nargs="*", metavar="NAME==VERSION")
    fetch_p.add_argument("--reserve", action="store_true", help="also fetch every RESERVE release")
    list_p = sub.add_parser("list", help="the corpus with halves and line counts")
    list_p.add_argument("--json", action="store_true")
    return parser.parse_args(argv)


def run_fetch(args: argparse.Namespace, moves: dict[str, str]) -> int:
    """Fetch the named specs, or the whole corpus; one line per release, one per failure."""
    pins = {pin.spec: pin for pin in (*PINNED, *RESERVE)}
    specs = args.specs or [pin.spec for pin in corpus(moves)] + ([pin.spec for pin in RESERVE] if args.reserve else [])
    failed = 0
    for spec in specs:
        if "==" not in spec:
            raise CorpusError(f"{spec}: give NAME==VERSION")
        try:
            dest = fetch(spec, args.cache, pins.get(spec))
        except CorpusError as exc:
            print(f"error: {exc}", file=sys.stderr)
            failed += 1
            continue
        files, lines = count_lines(dest)
        print(f"{spec}: {files} files, {lines} lines -> {dest}")
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        moves = load_moves(args.moves)
        if args.command == "fetch":
            return run_fetch(args, moves)
        table = rows(moves)
        if args.json:
            print(json.dumps(table, indent=1))
        else:
            print_list(table)
        return 0
    except CorpusError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2 if "give NAME==VERSION" in str(exc) else 1


if __name__ == "__main__":
    sys.exit(main())
