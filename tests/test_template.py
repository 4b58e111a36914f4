"""A fifth benchmark is one folder (issue 21): the template, copied into a copy of the package and
named by scripts/new_benchmark.py (its folder, module file and `benchmark.toml`, nothing else), is a
benchmark that the CLI, `official:` (fetched from a loopback mirror), `compare`, `evaluate.load`,
the Trainer helper, the Space and the whole contract test run.

The copy is the installed `benchscore` package (what a user's checkout or wheel holds) with the new
folder added; the subprocesses import it first (PYTHONPATH) and the contract test reads its folders
(BENCHSCORE_METRICS).
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import benchscore
from conftest import REPO
from data_mirror_server import MirrorServer

TEMPLATE = REPO / "templates" / "accuracy"
FOLDER = "toy_accuracy"


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """(root for PYTHONPATH, the copied package folder), the template added as FOLDER."""
    root = tmp_path_factory.mktemp("copy")
    package = root / "benchscore"
    shutil.copytree(pathlib.Path(benchscore.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    before = sorted(str(p.relative_to(package)) for p in package.rglob("*"))
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import new_benchmark
    finally:
        sys.path.pop(0)
    new_benchmark.new_benchmark(FOLDER, package, title="Toy accuracy")
    after = sorted(str(p.relative_to(package)) for p in package.rglob("*") if p.parts[len(package.parts)] != FOLDER)
    assert after == before  # nothing outside the new folder was added or removed
    return root, package


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    """A loopback GitHub-raw mirror holding the template's pinned file (its example gold file)."""
    root = tmp_path_factory.mktemp("mirror")
    target = root / "your-org" / "your-benchmark" / ("0" * 40) / "data" / "test.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copyfile(TEMPLATE / "examples" / "gold.jsonl", target)
    server = MirrorServer(root).start()
    yield server
    server.stop()


def run(package, mirror, store, *argv, module="benchscore"):
    root, folder = package
    env = {**os.environ, "PYTHONPATH": str(root), "BENCHSCORE_METRICS": str(folder), "BENCHSCORE_DATA": str(store),
           "BENCHSCORE_DATA_MIRROR": mirror.url, "HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", module, *argv], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=600)


def test_the_copy_is_a_benchmark_of_the_cli_official_data_and_compare(package, mirror, tmp_path):
    examples = package[1] / FOLDER / "examples"
    done = run(package, mirror, tmp_path, "data", "fetch", FOLDER, "--no-progress")
    assert done.returncode == 0, done.stderr
    done = run(package, mirror, tmp_path, FOLDER, "--gold", "official:test", "--predictions",
               str(examples / "predictions.jsonl"), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["accuracy"], result["n_items"]) == (0.6, 5)
    assert result["signature"] == f"{FOLDER}|version:1.0.0|benchscore:{benchscore.__version__}|labels:exact"
    assert "differ from the reference only in case" in done.stderr
    done = run(package, mirror, tmp_path, "compare", FOLDER, "--gold", "official:test", "--predictions",
               str(examples / "predictions.jsonl"), "--predictions", str(examples / "gold.jsonl"), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"]["accuracy"]["difference"] == pytest.approx(0.4)
    done = run(package, mirror, tmp_path, FOLDER, "--gold", str(examples / "gold.jsonl"), "--predictions",
               str(examples / "gold.jsonl") + ".missing")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_the_contract_test_runs_the_copy_through_every_entry_point(package, mirror, tmp_path):
    """evaluate.load, add_batch, two processes, the Trainer helper, the CLI and the Space: the shared
    contract test, unchanged, with the copy's registry."""
    done = run(package, mirror, tmp_path, "-q", "-p", "no:cacheprovider", "tests/test_contract.py", "-k",
               FOLDER, module="pytest")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout.splitlines()[-1]
