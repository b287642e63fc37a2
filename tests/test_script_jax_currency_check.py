"""Tests of scripts/jax_currency_check.py, run as a subprocess on real files, with the installed jax."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from script_runner import assert_one_line_error, run_script

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "scripts" / "jax_currency_check.py"
FIXTURES = REPO / "tests" / "fixtures" / "currency"
DATA = FIXTURES / "api_changes.toml"
MIGRATION = "references/migration.md"


def run_tool(*args: str | Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return run_script(TOOL, *args, cwd=cwd)


def copy_fixture(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copy(FIXTURES / name, target)
    return target


def findings(path: Path, *extra: str, data: Path = DATA) -> list[dict]:
    """The JSON findings of one run; checks the exit status agrees with them."""
    result = run_tool(path, "--data", data, "--json", *extra, cwd=path.parent if path.is_file() else path)
    assert result.returncode in (0, 1), result.stderr
    found = json.loads(result.stdout)
    failing = [f for f in found if f["kind"] not in ("review", "unparsable")]
    assert result.returncode == (1 if failing else 0), found
    return found


def by_line(found: list[dict]) -> dict[int, dict]:
    return {f["line"]: f for f in found}


def test_help_documents_flags_output_fix_and_exit_codes():
    result = run_tool("--help")
    assert result.returncode == 0
    for text in ("--data", "--json", "--fix", "examples:", "exit codes:", "path:line:col: KIND old -> new",
                 "cannot parse", "hedge", "review", "pip install 'libcst==", "rename = true",
                 "no Python file in the paths given", "RecursionError"):
        assert text in result.stdout, text


def test_each_kind_of_old_form_is_found_through_the_imports(tmp_path: Path):
    path = copy_fixture("old_forms.py", tmp_path)
    lines = by_line(findings(path))
    expected = {
        4: ("removed", "jax.experimental.host_callback", ""),  # `import ... as hcb`
        7: ("deprecated", "jax.experimental.pjit", "jax.jit"),  # every public name of it is deprecated
        8: ("moved", "jax.experimental.shard_map.shard_map", "jax.shard_map"),  # from-import
        12: ("removed", "jax.tree_map", "jax.tree.map"),
        13: ("removed", "jax.numpy.round_", "jax.numpy.round"),  # jnp -> jax.numpy
        14: ("deprecated", "jax.experimental.pjit.pjit", "jax.jit"),  # module from-import
        15: ("renamed-keyword", "jax.shard_map(check_rep=)", "jax.shard_map(check_vma=)"),
        16: ("review", "jax.make_mesh(axis_types=None)", "jax.make_mesh(axis_types=(AxisType.Explicit, ...))"),
        17: ("signature", "flax.nnx.Optimizer(...)", "flax.nnx.Optimizer"),  # no wrt= (installed flax)
    }
    assert {line: (f["kind"], f["old"], f["new"]) for line, f in lines.items()} == expected
    assert ("review", 17) in {(f["kind"], f["line"]) for f in findings(path)}  # and its review note
    assert lines[12]["section"] == f"{MIGRATION}#tree-utilities-moved-to-jaxtree"
    assert lines[15]["col"] == 72  # the keyword itself, 1-based
    assert lines[16]["message"].startswith("default changed in jax ")
    assert "missing a required keyword-only argument: 'wrt'" in lines[17]["message"]


def test_text_lines_are_sorted_and_name_the_section(tmp_path: Path):
    path = copy_fixture("old_forms.py", tmp_path)
    result = run_tool(path.name, "--data", DATA, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 10  # with the installed libraries' pjit-module and nnx.Optimizer findings
    assert lines[3] == ("old_forms.py:12:15: removed jax.tree_map -> jax.tree.map (removed in jax 0.6.0; see "
                        f'"Tree utilities moved to jax.tree" in {REPO / MIGRATION})')  # works from any folder
    assert lines[0].startswith("old_forms.py:4:8: removed jax.experimental.host_callback -> (no replacement)")
    assert [int(line.split(":")[1]) for line in lines] == sorted(int(line.split(":")[1]) for line in lines)


def test_a_hedge_of_each_type(tmp_path: Path):
    lines = by_line(findings(copy_fixture("hedges.py", tmp_path)))
    assert {f["kind"] for f in lines.values()} == {"hedge"}
    assert sorted(lines) == [12, 17, 22, 23, 24, 25, 26, 28, 32, 34, 35, 37]
    assert lines[12]["old"] == "try: jax.shard_map ... except ImportError"
    assert lines[17]["old"] == "try: jax.tree.map ... except AttributeError"
    assert lines[22]["old"] == "hasattr(jax, 'tree')"
    assert lines[23]["old"] == "getattr(optax, 'adamw', None)"
    assert lines[25]["old"] == "warnings.filterwarnings('ignore', category=DeprecationWarning)"
    assert lines[28]["old"].startswith("catch_warnings() + ignore around jax.numpy.sum")
    assert (lines[32]["old"], lines[34]["old"], lines[35]["old"]) == (
        "jax.__version__", "flax.__version__", "metadata.version('optax')")
    assert lines[37]["old"] == "try: jax.experimental.multihost_utils ... except Exception"


def test_a_clean_modern_file_exits_0(tmp_path: Path):
    path = copy_fixture("modern.py", tmp_path)
    result = run_tool(path, "--data", DATA)
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr


def test_folders_are_searched_skipping_hidden_and_virtualenv_folders(tmp_path: Path):
    for folder in ("pkg/sub", ".venv/lib", "lib/python3.12/site-packages/jaxlike", ".hidden"):
        (tmp_path / folder).mkdir(parents=True)
        shutil.copy(FIXTURES / "old_forms.py", tmp_path / folder / "code.py")
    (tmp_path / "notes.txt").write_text("jax.tree_map\n")
    found = findings(tmp_path)
    assert {f["path"] for f in found} == {str(tmp_path / "pkg/sub/code.py")}


def test_the_installed_jax_deprecation_tables_are_read(tmp_path: Path):
    # Verified in the installed jax/__init__.py: `_deprecations["device_put_replicated"]` is
    # (message, None), i.e. removed; jax/scipy/special.py keeps `lpmn` as a working deprecated name.
    empty = tmp_path / "empty.toml"
    empty.write_text("[versions.old]\n[versions.new]\n")
    path = tmp_path / "legacy.py"
    path.write_text("import jax\nfrom jax.scipy import special\n\n"
                    "x = jax.device_put_replicated(1, jax.devices())\ny = special.lpmn(1, 1, 0.5)\n")
    lines = by_line(findings(path, data=empty))
    assert (lines[4]["kind"], lines[4]["old"], lines[4]["new"]) == (
        "removed", "jax.device_put_replicated", "jax.device_put")
    assert "jax.device_put_replicated is deprecated" in lines[4]["message"]
    assert (lines[5]["kind"], lines[5]["old"]) == ("deprecated", "jax.scipy.special.lpmn")


def test_the_tables_come_from_the_installed_modules():
    sys.path.insert(0, str(REPO / "scripts"))
    from jax_currency_check import installed_jax_changes

    changes, note = installed_jax_changes()
    assert note == ""
    by_name = {c.name: c for c in changes}
    assert by_name["jax.device_put_replicated"].kind == "removed"
    assert by_name["jax.experimental.shard_map.shard_map"].kind == "deprecated"
    assert by_name["jax.experimental.shard_map.shard_map"].new == "jax.shard_map"


def test_an_unparsable_file_is_one_line_and_the_run_goes_on(tmp_path: Path):
    (tmp_path / "broken.py").write_text("import jax\n\ndef f(:\n    pass\n")
    only_broken = run_tool("broken.py", "--data", DATA, cwd=tmp_path)
    assert only_broken.returncode == 0, only_broken.stderr
    assert only_broken.stdout == "broken.py: cannot parse (SyntaxError: invalid syntax line 3)\n"
    copy_fixture("old_forms.py", tmp_path)
    both = run_tool(".", "--data", DATA, cwd=tmp_path)
    assert both.returncode == 1
    assert both.stdout.splitlines()[0] == "broken.py: cannot parse (SyntaxError: invalid syntax line 3)"
    assert len(both.stdout.splitlines()) == 11


def test_json_shape(tmp_path: Path):
    found = findings(copy_fixture("old_forms.py", tmp_path))
    assert all(set(f) == {"path", "line", "col", "kind", "old", "new", "section", "message"} for f in found)
    assert all(isinstance(f["line"], int) and isinstance(f["col"], int) and f["col"] >= 1 for f in found)
    assert found == sorted(found, key=lambda f: (f["path"], f["line"], f["col"]))


def test_fix_rewrites_pure_renames_and_keeps_comments(tmp_path: Path):
    path = copy_fixture("renames.py", tmp_path)
    result = run_tool(path.name, "--data", DATA, "--fix", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "renames.py:4:40: fixed jax.experimental.shard_map.shard_map -> jax.shard_map",
        "renames.py:9:15: fixed jax.tree_map -> jax.tree.map",
        "renames.py:13:69: fixed jax.shard_map(check_rep=) -> jax.shard_map(check_vma=)",
        "renames.py:14:21: fixed jax.numpy.round_ -> jax.numpy.round",
    ]
    expected = (FIXTURES / "renames.py").read_text().replace(
        "from jax.experimental.shard_map import", "from jax import").replace(
        "jax.tree_map(", "jax.tree.map(").replace("check_rep=", "check_vma=").replace("jnp.round_(", "jnp.round(")
    assert path.read_text() == expected
    assert "# double every leaf (this comment stays)" in expected and "# the old home of shard_map" in expected
    again = run_tool(path.name, "--data", DATA, cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "")


def test_fix_rewrites_import_lines_through_aliases(tmp_path: Path):
    path = tmp_path / "aliases.py"
    path.write_text(
        "import jax.experimental.shard_map as shmap\n"
        "from jax import tree_map\n"
        "from jax.numpy import round_, sin  # both\n\n"
        "y = shmap.shard_map(sin, mesh=None, in_specs=None, out_specs=None)\n"
        "z = tree_map(round_, [1.5])\n")
    result = run_tool(path.name, "--data", DATA, "--fix", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert path.read_text() == (
        "from jax.tree import map as tree_map\n"
        "from jax.numpy import round as round_, sin  # both\n"
        "import jax\n\n"
        "y = jax.shard_map(sin, mesh=None, in_specs=None, out_specs=None)\n"
        "z = tree_map(round_, [1.5])\n")


def test_fix_leaves_other_findings_and_files_alone(tmp_path: Path):
    path = copy_fixture("old_forms.py", tmp_path)
    bystander = copy_fixture("renames.py", tmp_path)
    result = run_tool(path.name, "--data", DATA, "--fix", cwd=tmp_path)
    assert result.returncode == 1
    assert bystander.read_text() == (FIXTURES / "renames.py").read_text()
    left = [line.split(": ", 1)[1].split(" ")[0] for line in result.stdout.splitlines() if ": fixed " not in line]
    # host_callback, the pjit module, pjit, make_mesh, Optimizer (review, and no wrt= for the installed flax)
    assert left == ["removed", "deprecated", "deprecated", "review", "review", "signature"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["missing_dir/"], "no such file or folder: missing_dir/"),
        ([".", "--data", "nope.toml"], "no data file nope.toml"),
        ([".", "--colour"], "unrecognized arguments: --colour"),
        ([], "the following arguments are required: PATH"),
        (["empty"], "no Python files in empty"),  # nothing to check is a usage error
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str], fragment: str, tmp_path: Path):
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "empty" / "notes").mkdir(parents=True)
    assert_one_line_error(run_tool(*args, cwd=tmp_path), 2, fragment)


def test_a_malformed_data_file_is_a_usage_error(tmp_path: Path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[[change]\nold = \n")
    (tmp_path / "code.py").write_text("x = 1\n")
    assert_one_line_error(run_tool(".", "--data", bad, cwd=tmp_path), 2, "cannot read data file")


def test_the_default_data_file_is_next_to_the_plugin_root():
    result = run_tool("--help")
    assert str(REPO / "api_changes.toml") in " ".join(result.stdout.split())


def test_without_jax_and_libcst_the_check_runs_and_fix_names_the_pin(tmp_path: Path):
    """A bare virtualenv (standard library only): the deprecation tables are skipped with a note,
    the data file is still checked, and --fix stops with one line naming the pinned LibCST."""
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    path = copy_fixture("renames.py", tmp_path)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(venv / "bin" / "python"), str(TOOL), path.name, "--data", str(DATA), *args],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)

    checked = run()
    assert checked.returncode == 1 and len(checked.stdout.splitlines()) == 4, checked.stdout + checked.stderr
    assert checked.stderr.startswith("note: jax is not importable")
    fixed = run("--fix")
    assert_one_line_error(fixed, 2, "--fix needs LibCST", "pip install 'libcst==1.9.0'")
    assert path.read_text() == (FIXTURES / "renames.py").read_text()


def test_the_installed_libraries_are_asked_for_names_modules_and_signatures(tmp_path: Path):
    """Old forms the data file lacks, found by importing the installed jax and flax: a name a module no
    longer has, a module that is gone, a module whose every public name is deprecated, keywords the new
    home of a moved function does not take (also through functools.partial), a missing required keyword."""
    empty = tmp_path / "empty.toml"
    empty.write_text("[versions.old]\n[versions.new]\n")
    path = copy_fixture("installed_checks.py", tmp_path)
    found = {(f["line"], f["kind"], f["old"]) for f in findings(path, data=empty)}
    assert found == {
        (9, "deprecated", "jax.experimental.shard_map"),
        (10, "removed", "jax.experimental.optimizers"),
        (11, "deprecated", "jax.experimental.shard_map.shard_map"),  # the installed jax's own table
        (15, "removed", "jax.ops.index_update"),
        (15, "removed", "jax.ops.index"),
        (16, "signature", "jax.experimental.shard_map.shard_map(check_rep=)"),
        (17, "deprecated", "jax.experimental.shard_map.shard_map"),
        (17, "signature", "jax.experimental.shard_map.shard_map(check_rep=)"),
        (18, "signature", "flax.nnx.Optimizer(...)"),
    }, found
    messages = {f["line"]: f["message"] for f in findings(path, data=empty) if f["kind"] == "signature"}
    assert "missing a required keyword-only argument: 'wrt'" in messages[18]
    assert "jax.shard_map takes no keyword check_rep" in messages[16]


def test_local_type_knowledge_finds_variable_value_methods_containers_and_mesh(tmp_path: Path):
    """local_types.py: `.value` on what the file binds to Variables (through a local base class, an
    installed module's own attributes, a pass-through wrapper, an annotation, a plain name), and not on
    other objects; a method call the installed signature rejects; plain containers of nnx data in a
    Module attribute (flax 0.12 raises); `with mesh:`; a public name keyed by its private origin."""
    path = copy_fixture("local_types.py", tmp_path)
    found = findings(path)
    got = {(f["line"], f["kind"], f["old"]) for f in found if f["kind"] != "review"}
    value = "flax.nnx.variablelib.Variable.value"
    assert got == {
        (26, "deprecated", value), (27, "deprecated", value), (36, "deprecated", value), (56, "deprecated", value),
        (58, "signature", "Optimizer.update(...)"),
        (60, "deprecated", "optax.global_norm"),  # as written, though the entry is keyed by its origin
        (65, "raises", "plain listcomp of nnx data in Stack.layers"),
        (71, "raises", "plain list of nnx data in Stack.params"),
        (77, "deprecated", "jax._src.mesh.Mesh.__enter__"),
    }, got
    by_col = {(f["line"], f["col"]): f for f in found}
    assert by_col[(36, 5)]["section"] == "references/flax_nnx_guide.md#1-modules-and-variables"  # the setter entry
    assert by_col[(36, 25)]["section"] == "references/migration.md#variablevalue-is-deprecated"  # the getter
    assert not any(f["line"] == 51 for f in found)  # enum members, plain objects, unknown names
    assert "missing a required argument: 'grads'" in by_line(found)[58]["message"]
    assert "raises ValueError" in by_line(found)[65]["message"]


def test_structured_call_without_keyword_fields_give_a_review_note(tmp_path: Path):
    data = tmp_path / "data.toml"
    data.write_text('[[change]]\nlibrary = "jax"\nold = "jax.make_mesh(axis_types=None) -> Auto axes"\n'
                    'new = "jax.make_mesh(axis_types=None) -> Explicit axes"\nkind = "behaviour-changed"\n'
                    'version = "0.9.0"\ncall = "jax.make_mesh"\nwithout_keyword = "axis_types"\n')
    path = tmp_path / "mesh.py"
    path.write_text("import jax\nfrom jax.sharding import AxisType\n\n"
                    "a = jax.make_mesh((1,), ('x',))\n"
                    "b = jax.make_mesh((1,), ('x',), axis_types=(AxisType.Auto,))\n"
                    "c = jax.make_mesh((1,), ('x',), (AxisType.Auto,))\n")
    found = findings(path, data=data)
    assert [(f["line"], f["kind"]) for f in found] == [(4, "review")], found
    assert found[0]["message"] == "behaviour changed in jax 0.9.0"


def test_help_documents_the_structured_fields_and_the_local_inference():
    out = " ".join(run_tool("--help").stdout.split())
    for text in ("without_keyword", "call =", "raises", "local type knowledge"):
        assert text in out, text


# --- robustness (issue 26, item 8) ------------------------------------------------------------------

def checker_module():
    """The checker imported in this process (cheaper than a subprocess for rules on small sources)."""
    sys.path.insert(0, str(REPO / "scripts"))
    import jax_currency_check

    return jax_currency_check


def check_source(tmp_path: Path, source: str, data: Path = DATA, name: str = "code.py") -> list:
    """The findings of one small source file, in process, against `data` and the installed libraries."""
    jcc = checker_module()
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    index, _ = jcc.read_index(data)
    return sorted(jcc.check_file(path, index))


def test_files_nested_too_deeply_are_one_line_each_and_the_run_goes_on(tmp_path: Path):
    """A 3,000-term sum breaks Python's own parser, a 1,000-term one the checker's reading of a probe:
    each file gets one line and the other files are still checked."""
    (tmp_path / "deep.py").write_text("x = " + " + ".join(["1"] * 3000) + "\n")
    (tmp_path / "probe.py").write_text("import jax\n\nf = getattr(jax, 'tree', " + " + ".join(["1"] * 1000) + ")\n")
    copy_fixture("old_forms.py", tmp_path)
    result = run_tool(".", "--data", DATA, cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "deep.py: cannot parse (RecursionError: too deeply nested to check)"
    assert lines[-1] == "probe.py: cannot parse (RecursionError: too deeply nested to check)"
    assert sum(line.startswith("old_forms.py:") for line in lines) == 10


def test_an_import_of_several_names_from_a_removed_module_is_one_finding(tmp_path: Path):
    found = check_source(tmp_path, "from jax.experimental.host_callback import call, id_tap\n")
    assert [(f.line, f.kind, f.old) for f in found] == [(1, "removed", "jax.experimental.host_callback")]


def test_importing_libraries_prints_nothing_on_stderr(tmp_path: Path):
    """An optional dependency that logs to file descriptor 2 while it is imported (as TensorFlow and absl
    do) leaves no trace in the checker's output; no cached answers, so the import really happens."""
    fake = tmp_path / "deps" / "tensorflow_probability"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("import os\nos.write(2, b'W0000 absl notice from an import\\n')\n"
                                      "raise ImportError('not the real TFP')\n")
    code = tmp_path / "code.py"
    code.write_text("import numpyro.contrib.tfp.distributions as tfd\nimport jax\n\nx = jax.tree_map(abs, [1])\n"
                    "pattern = '\\d+'  # an invalid escape: Python's own SyntaxWarning is the file's, not ours\n")
    env = {**os.environ, "PYTHONPATH": str(fake.parent), "JAX_PRO_CACHE": "off"}
    result = subprocess.run([sys.executable, str(TOOL), code.name, "--data", str(DATA)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert (result.returncode, result.stderr) == (1, ""), result.stderr
    assert "jax.tree_map" in result.stdout


# --- conditional deprecations (issue 26, item 1) ----------------------------------------------------

CONDITIONAL_SOURCE = '''\
import os
import warnings

DEFAULT = object()


def f(x, scale=None, *, old=DEFAULT, flag=False):
    if os.environ.get("F_SKIP"):
        return x
    if scale is not None:
        warnings.warn("scale is deprecated")
    elif flag:
        warnings.warn("flag without scale is deprecated")
    if old is not DEFAULT:
        warnings.warn("old is deprecated; use new")
    if x.ndim > 1:
        warnings.warn("batched x is deprecated")
    warnings.warn("f is deprecated")
'''


def condition_at(tmp_path: Path, line: int) -> dict:
    """The condition of the warning at `line` of CONDITIONAL_SOURCE, read as the checker reads a library's."""
    sys.path.insert(0, str(REPO / "scripts"))
    import _currency_conditions

    path = tmp_path / "lib.py"
    path.write_text(CONDITIONAL_SOURCE)
    found = _currency_conditions.condition_in(str(path), line, "f")
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("line", "call", "expected"),
    [
        (11, "f(x)", False), (11, "f(x, 2.0)", True), (11, "f(x, scale=None)", False), (11, "f(x, scale=s)", True),
        (11, "f(*args)", None), (11, "f(x, **options)", None),
        (13, "f(x, flag=True)", True), (13, "f(x, flag=False)", False), (13, "f(x, 2.0, flag=True)", False),
        (15, "f(x)", False), (15, "f(x, old=3)", True), (15, "f(x, old=None)", True),
        (17, "f(x)", None),  # reads an attribute of the argument: cannot be told from the call
    ],
)
def test_a_condition_is_the_if_tests_around_the_warning(tmp_path: Path, line: int, call: str, expected):
    sys.path.insert(0, str(REPO / "scripts"))
    import ast

    import _currency_conditions

    node = ast.parse(call, mode="eval").body
    assert _currency_conditions.meets(condition_at(tmp_path, line), node) is expected


def test_a_warning_after_an_undecidable_early_return_warns_on_every_call(tmp_path: Path):
    sys.path.insert(0, str(REPO / "scripts"))
    import ast

    import _currency_conditions

    found = condition_at(tmp_path, 18)
    assert found["tests"] == [] and found["guards"] == ["os.environ.get('F_SKIP')"]
    assert _currency_conditions.meets(found, ast.parse("f(x)", mode="eval").body) is True


def test_conditional_deprecations_are_reported_only_on_calls_meeting_them(tmp_path: Path):
    """`jax.distributed.initialize` warns only when slice_index is given (its installed source says where:
    the data's note names the file and line); the data may also say `warns_if_keyword`."""
    source = (Path(importlib.util.find_spec("jax").origin).parent / "_src" / "distributed.py").read_text()
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "`slice_index` has been deprecated" in text)
    data = tmp_path / "data.toml"
    data.write_text(
        '[[change]]\nlibrary = "jax"\nold = "jax._src.distributed.initialize"\nnew = ""\nkind = "deprecated"\n'
        f'version = "0.8.0"\nnote = "jax/_src/distributed.py:{line}: `slice_index` has been deprecated. '
        'Please use `partition_index` instead."\n\n'
        '[[change]]\nlibrary = "jax"\nold = "jax.numpy.linspace"\nnew = ""\nkind = "deprecated"\n'
        'version = "0.1.0"\nwarns_if_keyword = "retstep"\nnote = "retstep is deprecated"\n\n'
        '[[change]]\nlibrary = "jax"\nold = "jax.numpy.geomspace"\nnew = ""\nkind = "deprecated"\n'
        'version = "0.1.0"\nwarns_if = "num > 100"\n')
    found = check_source(tmp_path, (
        "import jax\nimport jax.numpy as jnp\nfrom jax.distributed import initialize\n\n"
        "jax.distributed.initialize()\n"
        "jax.distributed.initialize(coordinator_address='h:1', slice_index=None)\n"
        "initialize(slice_index=index)\n"
        "a = jnp.linspace(0, 1, 5)\n"
        "b = jnp.linspace(0, 1, 5, True, True)\n"
        "c = jnp.linspace(0, 1, retstep=True)\n"
        "d = jnp.geomspace(1, 2)\ne = jnp.geomspace(1, 2, n)\nf = jnp.geomspace(1, 2, num=500)\n"), data=data)
    got = [(f.line, f.kind, f.old, f.new) for f in found]
    assert got == [
        (7, "deprecated", "jax.distributed.initialize(slice_index=)", "jax.distributed.initialize(partition_index=)"),
        (9, "deprecated", "jax.numpy.linspace(retstep=)", ""),
        (10, "deprecated", "jax.numpy.linspace(retstep=)", ""),
        (13, "deprecated", "jax.numpy.geomspace(num=)", ""),  # `warns_if`, decided only for a literal
    ], got
    assert found[0].col == 12 and found[0].message.startswith("deprecated in jax 0.8.0: `slice_index` has been")


# --- replacements and messages (issue 26, items 7 and 8) --------------------------------------------

@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("jax.tree_map is deprecated: use jax.tree.map", "jax.tree.map"),
        ("`slice_index` has been deprecated. Please use `partition_index` instead.", "partition_index"),
        ('"seed" is deprecated and will be removed, use "key".', "key"),
        ("removed in 0.8.0: use method= (CHANGELOG)", "method="),
        ("use_x is deprecated, please use implementation=Impl.X instead.", "implementation=Impl.X"),
        ("The 'split' argument of 'fork' is deprecated; use the 'split' method instead.", "split()"),
        ("'.raw' access is now deprecated. Use:\n\n  variable.get_raw()\n", "variable.get_raw()"),
        ("optax.global_norm is deprecated in favor of optax.tree.norm", "optax.tree.norm"),
        ("pl.x was moved to pltpu.x.", "jax.experimental.pallas.tpu.x"),
        ("vectorized= is replaced by vmap_method=", "vmap_method="),
        ("deprecated in 0.9.0; jnp.trunc is the drop-in replacement", "jax.numpy.trunc"),
        ("the sharding_names property is now out_sharding", "out_sharding"),
        ("jax.scipy.special.lpmn is deprecated; no replacement is planned.", ""),
        ("It is internal to the pipeline implementation and should not be used.", ""),
    ],
)
def test_the_replacement_a_deprecation_message_names(message: str, expected: str):
    assert checker_module().replacement_in(message) == expected


def test_without_a_replacement_in_the_data_the_library_message_or_signature_gives_one(tmp_path: Path):
    """The data's `new` is empty: the note's own deprecation message names the replacement; a removed
    keyword gets the installed parameter it became (`jnp.clip(a_min=)` -> `min=`, `a=` -> by position);
    a name the installed library lacks gets the name that took its place."""
    data = tmp_path / "data.toml"
    data.write_text(
        '[[change]]\nlibrary = "jax"\nold = "jax.numpy.clip(a_min=)"\nnew = ""\nkind = "removed"\nversion = "0.10.0"\n\n'
        '[[change]]\nlibrary = "jax"\nold = "jax.numpy.clip(a=)"\nnew = ""\nkind = "removed"\nversion = "0.10.0"\n\n'
        '[[change]]\nlibrary = "jax"\nold = "jax.numpy.fix"\nnew = ""\nkind = "removed"\nversion = "0.10.0"\n'
        'note = "deprecated in 0.9.0; jnp.trunc is the drop-in replacement (CHANGELOG)"\n')
    found = check_source(tmp_path, "import jax\nimport jax.numpy as jnp\n\n"
                                   "y = jnp.clip(x, a_min=0)\nz = jnp.clip(a=x)\nw = jnp.fix(x)\nv = jax.tree_map(f, x)\n",
                         data=data)
    assert [(f.line, f.old, f.new) for f in found] == [
        (4, "jax.numpy.clip(a_min=)", "jax.numpy.clip(min=)"),
        (5, "jax.numpy.clip(a=)", "jax.numpy.clip(arr)"),
        (6, "jax.numpy.fix", "jax.numpy.trunc"),
        (7, "jax.tree_map", "jax.tree.map"),
    ]
    assert "arr is positional-only" in found[1].message
    assert found[2].message == "removed in jax 0.10.0: deprecated in 0.9.0; jnp.trunc is the drop-in replacement (CHANGELOG)"


def test_notes_lose_this_projects_bookkeeping_and_say_why_there_is_no_replacement():
    jcc = checker_module()
    assert jcc.user_note("x/y.py:12: `a` is deprecated. Use `b` instead.") == "`a` is deprecated. Use `b` instead"
    assert jcc.user_note("removed in 0.8.0: use method=; new filled in because the keyword is method=") == \
        "removed in 0.8.0: use method="
    assert jcc.user_note("replaced by jax.new_ref (the section shows old raising on the pins)") == "replaced by jax.new_ref"
    assert jcc.user_note("pkg/m.py:3: {msg}") == ""
    left_out = jcc.change_from_entry({"kind": "removed", "old": "jax.util", "version": "0.7.0", "library": "jax",
                                      "left_out": "internal module the bundle does not teach"})
    assert left_out.message == "removed in jax 0.7.0; no replacement: jax removed it without naming one"
    private = jcc.change_from_entry({"kind": "deprecated", "old": "jax._src.x.f", "version": "0.8.0", "library": "jax"})
    assert private.message == "deprecated in jax 0.8.0; no replacement: a private name; use the public API"
    named = jcc.change_from_entry({"kind": "removed", "old": "jax.numpy.fix", "version": "0.10.0", "library": "jax",
                                   "message_replacement": "jnp.trunc", "deprecated_in": "0.9.0"})
    assert (named.new, named.message) == ("jax.numpy.trunc", "removed in jax 0.10.0")


def test_messages_on_the_real_data_carry_no_internal_words_and_point_to_existing_pages(tmp_path: Path):
    code = tmp_path / "code.py"
    code.write_text("import jax\nimport jax.numpy as jnp\nfrom jax.experimental import mutable_array\n"
                    "from jax.experimental.host_callback import call, id_tap\n\n"
                    "y = jnp.clip(x, a_min=0)\nz = jax.tree_map(f, x)\nw = jnp.fix(x)\n"
                    "m = jax.make_mesh((1,), ('x',))\nu = jax.util.safe_map(f, x)\n")
    result = run_tool(code.name, cwd=tmp_path)
    assert result.returncode == 1 and len(result.stdout.splitlines()) >= 6, result.stdout + result.stderr
    for line in result.stdout.splitlines():
        for word in ("not taught", "bundle", "read: ", "left_out", "kernels"):
            assert word not in line, line
        if "-> (no replacement)" in line:
            assert re.search(r"no replacement: \w", line.split("-> (no replacement)")[1]), line
        if " see " in line:
            page = re.search(r' see "[^"]+" in (/\S+\.md)\)$', line)
            assert page and Path(page.group(1)).is_file(), line


# --- what is a hedge (issue 26, item 2) --------------------------------------------------------------

NOT_HEDGES = '''\
import warnings

import jax
import jax.numpy as jnp
from flax import nnx

try:  # 7: an optional dependency's guard
    import funsor
    from numpyro.contrib.funsor import config_enumerate
except ImportError:
    funsor = None


def to_array(x):
    try:  # 15: duck typing of the caller's object
        return jnp.asarray(x.numpy())
    except AttributeError:
        return jnp.asarray(x)


def dtype_named(name):
    try:  # 22: a lookup by a name the caller gives
        return getattr(jnp, name)
    except AttributeError:
        raise ValueError(name)


with warnings.catch_warnings():  # 28: one message, unrelated to the libraries
    warnings.filterwarnings("ignore", message="Explicitly requested dtype float64")
    y = jnp.ones(3)
warnings.filterwarnings("ignore", category=DeprecationWarning, message="pkg_resources is deprecated")


def has_shape(x):
    return hasattr(x, "shape")  # 35: duck typing


KIND = getattr(jax.devices()[0], "device_kind", "cpu")  # 38: the platform, not the release
HAS_VALUE = hasattr(nnx.Param(jnp.zeros(3)), "get_value")  # 39: a member every release here has
kernel = nnx.Param(jnp.zeros(3))
RAW = getattr(kernel, "value", kernel)  # 41: unwrap a Variable-or-array (the .value read is another matter)


def lora_mesh(model: nnx.Module):
    return getattr(model, "mesh", None)  # 45: the project's Module subclass, annotated by its base


try:  # 48: the try guards work (a clean-up), not whether a name exists
    from jax.experimental import multihost_utils
    multihost_utils.sync_global_devices("done")
except Exception:
    pass


def coordinator(state_module):
    from jax._src import distributed
    return getattr(distributed.global_state, "coordinator_address", None)  # a field of an instance


def as_key(key_or_seed):
    if isinstance(key_or_seed, int):
        key_or_seed = jax.random.key(key_or_seed)
    return key_or_seed if hasattr(key_or_seed, "dtype") else None  # the caller's value


def counts(result):
    out = {}
    for field in ("nfev", "njev"):
        try:
            out[field] = jnp.asarray(getattr(result, field))
        except AttributeError:  # the caller's result lacks the field
            out[field] = jnp.zeros(())
    return out


try:  # an optional feature: the handler only reports it missing
    from jax.experimental.pallas.ops.gpu import attention
except ImportError:
    warnings.warn("the Triton kernels need jax-triton")
'''

HEDGES = '''\
import inspect

import jax
import jax.numpy as jnp
from flax import nnx

if eqn.primitive.name in ("pjit", "jit"):  # 7: the old and the new name of one primitive
    pass
if name == "pjit" or name == "jit":  # 9
    pass
mesh = jax.make_mesh((1,), ("x",))
OLD = getattr(mesh, "__enter__", None)  # 12: a member of a library object the data lists as changed
param = nnx.Param(jnp.zeros(3))
READ = hasattr(param, "value")  # 14: a member the data lists as changed
NEW = "check_vma" in inspect.signature(jax.shard_map).parameters  # 15: a probe of a library's parameters
try:  # 16: a handler that falls back to the other release's name
    tree_map = jax.tree.map
except AttributeError:
    tree_map = jax.tree_util.tree_map
'''

def test_optional_dependencies_duck_typing_and_unrelated_filters_are_not_hedges(tmp_path: Path):
    found = check_source(tmp_path, NOT_HEDGES)
    assert [(f.line, f.kind, f.old) for f in found if f.kind == "hedge"] == []


def test_old_and_new_names_and_probes_of_library_objects_are_hedges(tmp_path: Path):
    found = [f for f in check_source(tmp_path, HEDGES) if f.kind != "review"]  # make_mesh's own note
    assert [(f.line, f.kind) for f in found] == [
        (7, "hedge"), (9, "hedge"), (12, "hedge"), (14, "hedge"), (15, "hedge"), (16, "hedge")], found
    assert "'jit' and 'pjit'" in found[0].message


# --- review notes where nothing changed for the call (issue 26, item 3) ------------------------------

def test_the_value_a_left_out_parameter_takes_is_read_from_the_source(tmp_path: Path):
    sys.path.insert(0, str(REPO / "scripts"))
    import _currency_conditions

    path = tmp_path / "lib.py"
    path.write_text("def g(a, mode=None, level=3, other=None):\n    if mode is None:\n        mode = 'fast'\n"
                    "    return a\n")
    assert _currency_conditions.default_in(str(path), 2, "g", "mode") == ["fast"]
    assert _currency_conditions.default_in(str(path), 2, "g", "level") == [3]
    assert _currency_conditions.default_in(str(path), 2, "g", "other") == [None]


def test_no_review_note_where_the_old_default_is_what_the_call_still_gets(tmp_path: Path):
    """numpyro's message says `exclude_deterministic=True` (the old default) corresponds to
    `condition_deterministic=False`, and the installed Predictive sets a left-out condition_deterministic to
    False: a call passing neither behaves as before. One that passes condition_deterministic may not."""
    source = (Path(importlib.util.find_spec("numpyro").origin).parent / "infer" / "util.py").read_text()
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "`exclude_deterministic` is deprecated" in text
                and "corresponds" in source.splitlines()[i + 1] + source.splitlines()[i + 2])
    data = tmp_path / "data.toml"
    data.write_text(
        '[[change]]\nlibrary = "numpyro"\nold = "numpyro.infer.Predictive(exclude_deterministic=True)"\n'
        'new = "numpyro.infer.Predictive(exclude_deterministic=None)"\nkind = "default-changed"\nversion = "0.22.0"\n\n'
        '[[change]]\nlibrary = "numpyro"\nold = "numpyro.infer.util.Predictive.__init__"\n'
        'new = "numpyro.infer.Predictive(condition_deterministic=)"\nkind = "deprecated"\nversion = "0.22.0"\n'
        f'note = "numpyro/infer/util.py:{line}: `exclude_deterministic` is deprecated, use `condition_deterministic` '
        'instead (`exclude_deterministic=True` corresponds to `condition_deterministic=False`)."\n')
    found = check_source(tmp_path, "from numpyro.infer import Predictive\n\n"
                                   "a = Predictive(model, num_samples=10)\n"
                                   "b = Predictive(model, num_samples=10, condition_deterministic=True)\n", data=data)
    assert [(f.line, f.kind) for f in found] == [(4, "review")], found


# --- --fix: every mechanical rename, each checked before it is written ------------------------------

FIX_DATA = '''\
[[change]]
library = "jax"
old = "jax.numpy.bool_"
new = "jax.numpy.bool"
kind = "deprecated"
version = "0.1.0"

[[change]]
library = "jax"
old = "jax.numpy.fix"
new = "jax.numpy.trunc"
kind = "removed"
version = "0.10.0"
note = "jnp.trunc is the drop-in replacement"

[[change]]
library = "jax"
old = "jax.numpy.sum"
new = "jax.numpy.mean"
kind = "deprecated"
version = "0.1.0"

[[change]]
library = "jax"
old = "jax.shard_map(check_rep=)"
new = "jax.shard_map(check_vma=)"
kind = "renamed-keyword"
version = "0.8.0"

[[change]]
library = "jax"
old = "jax.numpy.linspace(count=)"
new = "jax.numpy.linspace(num=)"
kind = "renamed-keyword"
version = "0.1.0"
'''


def test_fix_makes_every_mechanical_rename_and_refuses_what_would_not_fit(tmp_path: Path):
    """Rewritten: an alias of the same installed object (jnp.bool_), a drop-in replacement (jnp.fix), a
    keyword rename sharing a word (check_rep). Left alone: a different function (jnp.sum -> mean), a keyword
    rename sharing none (count -> num), a call the new signature rejects (trunc takes one argument), a
    keyword the call passes already. Every written file compiles and the check finds nothing new in it."""
    jcc = checker_module()
    data = tmp_path / "data.toml"
    data.write_text(FIX_DATA)
    index, _ = jcc.read_index(data)
    good = tmp_path / "good.py"
    good.write_text("import jax\nimport jax.numpy as jnp\n\n"
                    "a = jnp.bool_(True)\nb = jnp.fix(x)  # keep this comment\nc = jnp.sum(x)\n"
                    "d = jnp.linspace(0, 1, count=5)\n"
                    "f = jax.shard_map(g, mesh=m, in_specs=p, out_specs=p, check_rep=False)\n"
                    "h = jax.shard_map(g, mesh=m, in_specs=p, out_specs=p, check_rep=False, check_vma=True)\n")
    bad = tmp_path / "bad.py"
    bad.write_text("import jax.numpy as jnp\n\nb = jnp.fix(x)\nc = jnp.fix(x, None)\n")
    lines = jcc.fix_files([good, bad], index)
    assert good.read_text() == (
        "import jax\nimport jax.numpy as jnp\n\n"
        "a = jnp.bool(True)\nb = jnp.trunc(x)  # keep this comment\nc = jnp.sum(x)\n"
        "d = jnp.linspace(0, 1, count=5)\n"
        "f = jax.shard_map(g, mesh=m, in_specs=p, out_specs=p, check_vma=False)\n"
        "h = jax.shard_map(g, mesh=m, in_specs=p, out_specs=p, check_rep=False, check_vma=True)\n")
    assert bad.read_text() == "import jax.numpy as jnp\n\nb = jnp.fix(x)\nc = jnp.fix(x, None)\n"
    assert [line.split(": ", 1)[1] for line in lines] == [
        "fixed jax.numpy.bool_ -> jax.numpy.bool",
        "fixed jax.numpy.fix -> jax.numpy.trunc",
        "fixed jax.shard_map(check_rep=) -> jax.shard_map(check_vma=)",
        "not fixed jax.shard_map(check_rep=) -> jax.shard_map(check_vma=): the call passes check_vma= already",
        "not fixed jax.numpy.fix -> jax.numpy.trunc: the installed jax.numpy.trunc rejects this call "
        "(too many positional arguments)",
    ], lines


def test_fix_keeps_only_the_rewrites_whose_result_passes_the_check(tmp_path: Path):
    """A rename to a name the data lists as old itself would trade one finding for another: refused, and
    the file's other rewrites are still made."""
    jcc = checker_module()
    data = tmp_path / "data.toml"
    data.write_text(FIX_DATA + '\n[[change]]\nlibrary = "jax"\nold = "jax.numpy.bool"\nnew = ""\nkind = "removed"\n'
                               'version = "0.1.0"\n')
    index, _ = jcc.read_index(data)
    code = tmp_path / "code.py"
    code.write_text("import jax.numpy as jnp\n\na = jnp.bool_(True)\nb = jnp.fix(x)\n")
    lines = jcc.fix_files([code], index)
    assert code.read_text() == "import jax.numpy as jnp\n\na = jnp.bool_(True)\nb = jnp.trunc(x)\n"
    assert [line.split(": ", 1)[1] for line in lines] == [
        "fixed jax.numpy.fix -> jax.numpy.trunc",
        "not fixed jax.numpy.bool_ -> jax.numpy.bool: the rewritten code would not pass the check"], lines


def test_a_fallback_import_never_taken_at_the_pins_does_not_rebind_the_name(tmp_path: Path):
    found = check_source(tmp_path, (
        "try:\n    from jax.example_libraries import optimizers\nexcept ImportError:\n"
        "    from jax.experimental import optimizers\n\nopt = optimizers.adam(1e-3)\n"))
    assert [(f.line, f.kind) for f in found] == [(1, "hedge"), (4, "removed")], found


def test_one_probe_is_one_hedge_and_the_projects_own_objects_are_not_probed(tmp_path: Path):
    found = check_source(tmp_path, (
        "import jax\nfrom flax import nnx\n\n"
        "if hasattr(jax, 'pxla') and hasattr(jax.pxla, 'ShardedDeviceArray'):\n    pass\n\n\n"
        "class Model(nnx.Module):\n    def mesh(self):\n        return getattr(self, 'value', None)\n"))
    assert [(f.line, f.kind) for f in found if f.kind == "hedge"] == [(4, "hedge")], found


def test_a_replacement_is_spelled_in_the_module_the_code_used(tmp_path: Path):
    """orbax.checkpoint.v1 is the installed experimental v1 module: its replacement is named through it."""
    data = tmp_path / "data.toml"
    data.write_text('[[change]]\nlibrary = "orbax-checkpoint"\n'
                    'old = "orbax.checkpoint.experimental.v1._src.loading.loading.load_pytree"\n'
                    'new = "orbax.checkpoint.experimental.v1.load"\nkind = "deprecated"\nversion = "0.12.0"\n')
    found = check_source(tmp_path, "from orbax.checkpoint import v1 as ocp_v1\n\nx = ocp_v1.load_pytree(path)\n",
                         data=data)
    assert [(f.line, f.old, f.new) for f in found] == [
        (3, "orbax.checkpoint.v1.load_pytree", "orbax.checkpoint.v1.load")], found


def test_fix_renames_names_the_installed_library_moved_into_a_module(tmp_path: Path):
    """Not in the data: `jax.tree_map` is missing from the installed jax and `jax.tree.map` is there."""
    jcc = checker_module()
    empty = tmp_path / "empty.toml"
    empty.write_text("[versions.old]\n[versions.new]\n")
    index, _ = jcc.read_index(empty)
    code = tmp_path / "code.py"
    code.write_text("import jax\nfrom jax import tree_flatten\n\ny = jax.tree_map(abs, [1])  # kept\n"
                    "leaves, tree = tree_flatten(y)\n")
    lines = jcc.fix_files([code], index)
    assert code.read_text() == ("import jax\nfrom jax.tree import flatten as tree_flatten\n\n"
                                "y = jax.tree.map(abs, [1])  # kept\nleaves, tree = tree_flatten(y)\n")
    assert [line.split(": ", 1)[1] for line in lines] == [
        "fixed jax.tree_flatten -> jax.tree.flatten", "fixed jax.tree_map -> jax.tree.map"]


def test_a_missing_private_name_gets_no_namesake_as_its_replacement(tmp_path: Path):
    empty = tmp_path / "empty.toml"
    empty.write_text("[versions.old]\n[versions.new]\n")
    found = check_source(tmp_path, "from jax._src.numpy import lax_numpy\n\nh = lax_numpy._gone_table.get(1)\n"
                                   "from jax.experimental import maps\n\nspec = maps.PartitionSpec\n", data=empty)
    got = [(f.line, f.old, f.new) for f in found]
    assert got == [(3, "jax._src.numpy.lax_numpy._gone_table", ""), (4, "jax.experimental.maps", ""),
                   (6, "jax.experimental.maps", "jax.sharding.PartitionSpec")], got  # the member's one namesake
    assert found[0].message.endswith("no replacement: a private name; use the public API")


def test_a_probe_for_a_member_the_data_lists_as_added_is_a_hedge(tmp_path: Path):
    data = tmp_path / "data.toml"
    data.write_text('[[change]]\nlibrary = "jax"\nold = ""\nnew = "jax.sharding.Mesh.axis_types"\nkind = "added"\n'
                    'version = "0.5.0"\n')
    found = check_source(tmp_path, "import jax\n\nmesh = jax.make_mesh((1,), ('x',))\n"
                                   "types = getattr(mesh, 'axis_types', None)\nnames = getattr(mesh, 'axis_names', None)\n",
                         data=data)
    assert [(f.line, f.kind) for f in found] == [(4, "hedge")], found
