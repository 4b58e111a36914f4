"""Run lm-evaluation-harness's own task tests (its `tests/test_tasks.py`, what its CI runs on a task a
pull request adds) on every task folder of ours, offline, unmodified.

    python scripts/lm_eval_task_tests.py [--upstream ../shared/external/lm-evaluation-harness-tests]

The four upstream files are copied to a temporary folder, never edited. Beside them go the two
things upstream's CI would provide: the list of changed task YAMLs
(`.github/outputs/tasks_all_changed_and_modified_files.txt`, here every YAML of ours) and a root
`conftest.py` that points the bare `TaskManager()` the tests build at our tasks folder (upstream's
tasks live inside lm-eval, ours beside it). Only the tests parametrised by task are run
(`TestNewTasksElseDefault`); the file's other tests exercise lm-eval's own tasks, which would
download their data. Data comes from benchscore's store (BENCHSCORE_DATA) or the *_DIR variables.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UPSTREAM = os.path.join(os.path.dirname(REPO), "shared", "external", "lm-evaluation-harness-tests")
UPSTREAM_FILES = ("__init__.py", "conftest.py", "test_tasks.py", "utils.py")
CHANGED_FILES = os.path.join(".github", "outputs", "tasks_all_changed_and_modified_files.txt")

SHIM = '''"""benchscore's shim: the task tests build a bare `TaskManager()`; this one also sees our tasks folder."""
import lm_eval.tasks

from benchscore.harness import lm_eval_path


class TaskManager(lm_eval.tasks.TaskManager):
    def __init__(self, *args, include_path=None, **kwargs):
        super().__init__(*args, include_path=include_path or lm_eval_path(), **kwargs)


lm_eval.tasks.TaskManager = TaskManager
'''


def our_task_yamls():
    from benchscore.harness import lm_eval_path

    return sorted(glob.glob(os.path.join(lm_eval_path(), "*", "*.yaml")))


def run(upstream=UPSTREAM, folder=None, pytest_args=()):
    """The finished `pytest` run (stdout/stderr captured) in `folder` (a new temporary one if None)."""
    folder = folder or tempfile.mkdtemp(prefix="lm_eval_task_tests_")
    os.makedirs(os.path.join(folder, "tests"), exist_ok=True)
    for name in UPSTREAM_FILES:
        shutil.copyfile(os.path.join(upstream, "tests", name), os.path.join(folder, "tests", name))
    with open(os.path.join(folder, "conftest.py"), "w", encoding="utf-8") as f:
        f.write(SHIM)
    os.makedirs(os.path.dirname(os.path.join(folder, CHANGED_FILES)), exist_ok=True)
    with open(os.path.join(folder, CHANGED_FILES), "w", encoding="utf-8") as f:
        f.write("\n".join(our_task_yamls()) + "\n")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir", folder,
               "tests/test_tasks.py", "-k", "TestNewTasksElseDefault", *pytest_args]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True,
                          env=dict(os.environ, TOKENIZERS_PARALLELISM="false"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", default=UPSTREAM, help="the folder holding upstream's tests/ (default: %(default)s)")
    args, pytest_args = parser.parse_known_args(argv)
    done = run(args.upstream, pytest_args=pytest_args)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
