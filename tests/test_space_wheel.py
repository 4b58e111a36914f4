"""A Space works from its own files plus the benchscore wheel, and nothing of the checkout.

As `scripts/publish_space.py` does: build the wheel of this checkout (offline), install it into a
fresh virtual environment, stage only the Space files of each folder in an empty folder, then in
that environment `evaluate.load(<staged folder>)` runs the module's `>>>` examples (the same
numbers as the checkout's doctests) and the app's scoring function on the staged example gives
exactly the checkout app's table. The fresh environment sees the test environment's other packages
(evaluate, gradio, ...) through a `.pth` line, never its benchscore.
"""

import json
import os
import pathlib
import subprocess
import sys
import sysconfig
import textwrap

import pytest

import browser  # before gradio: it turns gradio's analytics off
from conftest import REPO
from test_publish_space import publish_space

pytest.importorskip("gradio", reason="gradio is not installed (pip install gradio; CI installs the spaces extra)")

from test_spaces_apps import EXAMPLES  # noqa: E402
from test_spaces_apps import cells  # noqa: E402

RUN_IN_SPACE = textwrap.dedent('''
    import doctest, importlib.util, json, pathlib, sys
    import evaluate
    import benchscore

    space, folder = pathlib.Path(sys.argv[1]), sys.argv[2]
    original_load = evaluate.load
    evaluate.load = lambda name, *a, **k: original_load(str(space) if name == folder else name, *a, **k)

    def from_file(name, path):
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    module = from_file(folder, space / f"{folder}.py")
    tests = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    app = from_file("app", space / "app.py")
    output = app.score_files(*[str(space / "examples" / name) for name in sys.argv[3:]])
    table = [[str(value) for value in row] for row in output[0].values.tolist()]
    print(json.dumps({"benchscore": benchscore.__file__, "attempted": tests.attempted, "failed": tests.failed,
                      "table": table}))
''')


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory):
    """(python of a fresh venv with only the wheel's benchscore, its site-packages)."""
    root = tmp_path_factory.mktemp("wheel")
    wheel = publish_space.build_wheel(root / "dist")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target",
                    purelib, str(wheel)], check=True)
    # The other packages come from this environment; a plain path in a .pth file adds no finders of it.
    outer = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    pathlib.Path(purelib, "outer-environment.pth").write_text("".join(f"{p}\n" for p in sorted(outer)))
    return python, purelib


@pytest.mark.parametrize("folder", sorted(EXAMPLES))
def test_a_space_runs_from_its_files_and_the_wheel_alone(folder, wheel_env, tmp_path):
    python, purelib = wheel_env
    space = tmp_path / folder
    staged = publish_space.stage(REPO / "metrics" / folder, space)
    assert not [name for name in staged if name.endswith(".py") and name not in ("app.py", f"{folder}.py")]
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf-home"), "HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1",
           "PYTHONPATH": "", "GRADIO_ANALYTICS_ENABLED": "False"}
    done = subprocess.run([str(python), "-c", RUN_IN_SPACE, str(space), folder, *EXAMPLES[folder]],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["benchscore"].startswith(purelib)  # the wheel's package, not the checkout's
    assert report["attempted"] > 0 and report["failed"] == 0, done.stdout
    checkout_app = browser.load_app(folder)
    expected = checkout_app.score_files(*[str(REPO / "metrics" / folder / "examples" / n) for n in EXAMPLES[folder]])
    assert report["table"] == cells(expected)
