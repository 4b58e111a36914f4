"""The installed package: `benchscore.load` from any working directory, the CLI entry points."""

import os
import re
import subprocess
import sys

import pytest

import benchscore
from conftest import METRICS


@pytest.mark.parametrize("name, folder", [(b.name, b.folder) for b in benchscore.BENCHMARKS.values()])
def test_load_finds_the_installed_folder_from_any_working_directory(name, folder, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing called metrics/ here: a relative evaluate.load would go to the Hub
    module = benchscore.load(name)
    assert module.name == folder
    assert os.path.samefile(benchscore.module_path(name), benchscore.METRICS_DIR + os.sep + folder)


def test_load_scores_like_the_local_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = benchscore.load("mctaco").compute(predictions=["yes", "no"], references=["yes", "yes"],
                                               question_id=["q", "q"])
    assert (result["em"], result["f1"]) == (0.0, 2 / 3)


def test_unknown_name_is_a_clear_error():
    with pytest.raises(ValueError, match=r"unknown benchmark 'squad'; expected one of \['mctaco', "):
        benchscore.load("squad")


def test_the_registry_names_every_folder_and_cli_command():
    from benchscore import cli

    folders = sorted(p.name for p in METRICS.iterdir() if (p / f"{p.name}.py").exists())
    assert sorted(b.folder for b in benchscore.BENCHMARKS.values()) == folders
    assert set(cli.COMMANDS) == set(benchscore.BENCHMARKS)


def test_each_folder_declares_its_record_and_the_data_store_reads_it():
    """One registry (issue 21): each benchmark's `benchmark.toml` holds its record, official data included;
    the data store's table and folder aliases are read from it, not written a second time."""
    from benchscore import data

    declared = sorted(p.name for p in METRICS.iterdir() if (p / "benchmark.toml").exists())
    assert sorted(b.folder for b in benchscore.BENCHMARKS.values()) == declared
    assert data.BENCHMARKS == {b.name: b.data for b in benchscore.BENCHMARKS.values()}
    assert data.ALIASES == {b.folder: b.name for b in benchscore.BENCHMARKS.values() if b.folder != b.name}
    assert "tempbench_trp" in data.ALIASES  # a folder named otherwise than its command is found by either name
    for bench in benchscore.BENCHMARKS.values():
        assert bench.data.name == bench.name and data.benchmark(bench.folder) is bench.data


def _benchmark_words():
    """Every way a benchmark is named: its name, folder, title and the words of its title."""
    words = set()
    for bench in benchscore.BENCHMARKS.values():
        words |= {bench.name, bench.folder, bench.title, bench.data.repo}
        words |= {w for w in re.split(r"[\s+]+", bench.title) if len(w) > 4 and w.isalpha()}
    return {w.lower() for w in words} | {w.lower().replace("-", "_") for w in words}


def test_no_shared_file_names_a_benchmark():
    """Outside the benchmark folders, the harness and the registry, no file of the package (and not
    pyproject.toml) names a benchmark (issue 21): the code shared by all of them is written once for any."""
    words = _benchmark_words()
    pattern = re.compile(r"(?<![a-z0-9])(" + "|".join(sorted(map(re.escape, words), key=len, reverse=True))
                         + r")(?![a-z0-9])")
    folders = {b.folder for b in benchscore.BENCHMARKS.values()} | {"harness"}
    shared = [p for p in METRICS.rglob("*") if p.is_file() and p.suffix in (".py", ".toml", ".md", ".json")
              and p.relative_to(METRICS).parts[0] not in folders and "__pycache__" not in p.parts]
    assert METRICS / "data" / "__init__.py" in shared and METRICS / "core" / "registry.py" in shared
    found = {}
    for path in shared + [METRICS.parent / "pyproject.toml"]:
        hits = sorted(set(pattern.findall(path.read_text(encoding="utf-8").lower())))
        if hits:
            found[str(path.relative_to(METRICS.parent))] = hits
    assert found == {}


def test_the_docs_name_every_benchmark_of_the_registry():
    readme = (METRICS.parent / "README.md").read_text(encoding="utf-8")
    for bench in benchscore.BENCHMARKS.values():
        assert f"| [`metrics/{bench.folder}`](metrics/{bench.folder}/README.md) | {bench.title}" in readme
        assert f"benchscore {bench.name} " in readme
        assert f"benchscore.load(\"{bench.name}\")" in readme or f'"{bench.name}"' in readme


def test_no_python_file_of_a_benchmark_folder_is_a_copy_of_another():
    # Shared code lives once, in benchscore.core; a folder imports it instead of vendoring a copy.
    seen = {}
    for path in sorted(METRICS.glob("*/*.py")):
        text = path.read_bytes()
        if text.strip() and len(text.splitlines()) > 3:
            assert text not in seen, f"{path.relative_to(METRICS)} is a copy of {seen[text]}"
            seen[text] = path.relative_to(METRICS)


def test_console_script_and_python_dash_m(tmp_path):
    example = METRICS / "mctaco" / "examples"
    argv = ["mctaco", "--gold", str(example / "example.tsv"), "--predictions", str(example / "example_predictions.txt")]
    for command in ([sys.executable, "-m", "benchscore"], [os.path.join(os.path.dirname(sys.executable), "benchscore")]):
        done = subprocess.run(command + argv, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "Strict Acc.: 0.6\nAvg F1: 0.8666666666666666\n"


def test_cli_without_a_command_shows_usage(capsys):
    from benchscore import cli

    with pytest.raises(SystemExit) as exit_info:
        cli.main([])
    assert exit_info.value.code == 2
    assert "COMMAND" in capsys.readouterr().err


@pytest.mark.parametrize("folder", sorted(b.folder for b in benchscore.BENCHMARKS.values()))
def test_a_module_refuses_an_installed_benchscore_of_another_version(folder, monkeypatch):
    # The Space's module file and the installed package must agree (a Space pins benchscore).
    from conftest import load_metric

    import sys

    monkeypatch.setattr(benchscore, "__version__", "9.9.9")
    for name in [n for n in sys.modules if n.startswith(f"evaluate_modules.metrics.{folder}")]:
        monkeypatch.delitem(sys.modules, name)  # a fresh import of the module file, as in a new process
    with pytest.raises(ImportError, match=rf"'{folder}' was written for benchscore 0\.1\.0, but benchscore 9\.9\.9 "
                                          r"is installed; install benchscore==0\.1\.0"):
        load_metric(folder)


def test_every_module_is_written_for_this_version():
    modules = [METRICS / bench.folder / f"{bench.folder}.py" for bench in benchscore.BENCHMARKS.values()]
    for path in modules + [METRICS.parent / "templates" / "accuracy" / "accuracy.py"]:
        source = path.read_text(encoding="utf-8")
        # by its folder's name, written out or (the template's, so that a copy needs no edit) read from the file
        assert (f'metric.check_version("{benchscore.__version__}", "{path.stem}")' in source
                or f'metric.check_version("{benchscore.__version__}", pathlib.Path(__file__).stem)' in source), path


def test_a_record_that_lacks_a_field_names_its_file(tmp_path):
    from benchscore.core import registry

    record = (METRICS / "mctaco" / "benchmark.toml").read_text(encoding="utf-8")
    broken = tmp_path / "benchmark.toml"
    broken.write_text(record.replace('owner = "CogComp"\n', ""), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(broken))}: not a benchmark record \(TypeError: .*owner"):
        registry.read(broken)
    assert registry.read(METRICS / "mctaco" / "benchmark.toml") == benchscore.BENCHMARKS["mctaco"]


@pytest.mark.parametrize("change, words", [
    (('owner = "CogComp"\n', 'owner = "CogComp"\nhost = "gitlab"\n'), r"host 'gitlab'; expected one of github, hub"),
    (('default = ["dev", "test", "readme"]', 'default = ["dev", "test", "nope"]'), r"names files it does not declare: nope"),
    (('"validation" = "dev"', '"validation" = "devv"'), r"names files it does not declare: devv"),
    (('commit = "0ba9b790ad5a87ab3eef0f0cb7819408192f9729"\n', ""), r"a GitHub source pins a commit"),
    (('[data.files.dev]', '[data.file_sets.x]\nmanifest = "m.json"\nhelp = "h"\nneeds = ["zz"]\n\n[data.files.dev]'),
     r"names files it does not declare: zz"),
])
def test_a_record_that_contradicts_itself_names_its_file_and_what_is_wrong(tmp_path, change, words):
    from benchscore.core import registry

    record = (METRICS / "mctaco" / "benchmark.toml").read_text(encoding="utf-8")
    assert change[0] in record
    broken = tmp_path / "benchmark.toml"
    broken.write_text(record.replace(change[0], change[1]), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(broken))}: not a benchmark record \(ValueError: {words}"):
        registry.read(broken)


def test_new_benchmark_refuses_a_bad_name_and_an_existing_folder(tmp_path, capsys):
    sys.path.insert(0, str(METRICS.parent / "scripts"))
    try:
        import new_benchmark
    finally:
        sys.path.pop(0)
    assert new_benchmark.main(["My-Bench", "--metrics", str(tmp_path)]) == 2
    assert capsys.readouterr().err == ("new_benchmark: error: folder 'My-Bench': expected a Python package name "
                                       "(lower case, digits, _)\n")
    assert new_benchmark.main(["toy", "--metrics", str(tmp_path)]) == 0
    assert (tmp_path / "toy" / "toy.py").exists() and not (tmp_path / "toy" / "accuracy.py").exists()
    assert 'name = "toy"\nfolder = "toy"\ntitle = "toy"\n' in (tmp_path / "toy" / "benchmark.toml").read_text()
    capsys.readouterr()
    assert new_benchmark.main(["toy", "--metrics", str(tmp_path)]) == 2
    assert "exists; expected a new folder" in capsys.readouterr().err
