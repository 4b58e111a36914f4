"""lm-evaluation-harness's own task tests (../shared/external/lm-evaluation-harness-tests, unmodified)
pass on every task of ours: `scripts/lm_eval_task_tests.py` runs them with its small shim, offline,
on the data store's official files."""

import importlib.util
import re

import pytest
from conftest import REPO, shared_path

_spec = importlib.util.spec_from_file_location("lm_eval_task_tests", REPO / "scripts" / "lm_eval_task_tests.py")
runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runner)

OUR_TASKS = ["mc_taco_official", "webnlg_text2rdf", "webnlg_text2rdf_ru", "webnlg_text2rdf_seen",
             "webnlg_text2rdf_unseen_categories", "webnlg_text2rdf_unseen_entities"]
TESTS_PER_TASK = 13  # the methods of upstream's BaseTasks


@pytest.mark.parity
def test_lm_evals_task_tests_pass_on_all_our_tasks(tmp_path):
    pytest.importorskip("lm_eval", reason="lm-eval is not installed (pip install '.[lm-eval]')")
    upstream = shared_path("external", "lm-evaluation-harness-tests")
    assert [path.rsplit("/", 2)[-2] for path in runner.our_task_yamls()].count("webnlg_text2rdf") == 5
    done = runner.run(str(upstream), str(tmp_path), pytest_args=["-v"])
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    ran = re.findall(r"::TestNewTasksElseDefault::(\w+)\[(\w+)\] PASSED", done.stdout)
    assert sorted({task for _, task in ran}) == OUR_TASKS
    assert len(ran) == TESTS_PER_TASK * len(OUR_TASKS)
    assert re.search(rf"\b{TESTS_PER_TASK * len(OUR_TASKS)} passed\b", done.stdout)
    # The copies are upstream's, byte for byte.
    for name in runner.UPSTREAM_FILES:
        assert (tmp_path / "tests" / name).read_bytes() == (upstream / "tests" / name).read_bytes()
    assert sorted(p.name for p in (tmp_path / "tests").glob("*.py")) == sorted(runner.UPSTREAM_FILES)
