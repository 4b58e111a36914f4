"""The benchmark script still runs and still checks parity (tiny sizes; it times nothing here)."""

import importlib.util
import json

from conftest import REPO, shared_path


def _script():
    spec = importlib.util.spec_from_file_location("bench_tempbench", REPO / "scripts" / "bench_tempbench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_script_small_run(tmp_path, capsys):
    shared_path("reference", "tempbench_eval.py")
    bench = _script()
    assert bench.main(["--sizes", "300", "--stream-sizes", "300", "--evaluate-sizes", "--repeat", "1",
                       "--tmp", str(tmp_path)]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["vs_reference"][0]["questions"] == 300  # the script asserts equal numbers itself
    assert report["streaming"]["runs"][0]["n_questions"] == 300
    assert list(tmp_path.iterdir()) == []  # the JSONL files are removed


def test_synthetic_questions_are_well_formed():
    bench = _script()
    pool = bench.make_pool(50)
    assert all(8 <= len(evidence) <= 13 for _, evidence in pool)
    stats = bench.scoring.item_stats([q for q, _ in pool], [e for _, e in pool])
    assert 0 < sum(s.hits for s in stats) < sum(s.n_ret for s in stats)
