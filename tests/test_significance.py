"""Resampling engine (benchscore.core.resampling) and MC-TACO intervals / paired tests.

The engine is tested on hand-written data against a naive implementation; MC-TACO on the official
test set and baseline outputs in ../shared, and on the bundled example through evaluate and the CLI.
"""

import json

import numpy as np
import pytest

from benchscore import cli
from benchscore.core import resampling
from benchscore.mctaco import files
from benchscore.mctaco import scoring
from benchscore.mctaco import significance
from conftest import METRICS
from conftest import load_metric
from conftest import shared_path
from test_mctaco import example_columns

FOLDERS = sorted(p.name for p in METRICS.iterdir() if (p / "scoring.py").exists())
EXAMPLE_TSV = METRICS / "mctaco" / "examples" / "example.tsv"
EXAMPLE_PREDICTIONS = METRICS / "mctaco" / "examples" / "example_predictions.txt"


def mean_statistic(sums):
    return {"mean": sums[:, 0] / sums[:, 1]}


def mean_values(xs):
    return resampling.as_values([(x, 1.0) for x in xs], 2)


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_folder_has_a_significance_adapter_for_compare(folder):
    import importlib

    module = importlib.import_module(f"benchscore.{folder}.significance")
    for name in ("confidence_intervals", "paired_test"):
        assert callable(getattr(module, name)), f"{folder}/significance.py has no {name}"
    command = importlib.import_module(f"benchscore.{folder}.cli")
    if not hasattr(command, "run_compare"):  # as benchscore.cli: until every folder's cli.py owns its compare
        command = module
    for name in ("add_compare_arguments", "run_compare"):
        assert callable(getattr(command, name)), f"{folder}/cli.py has no {name}"


# --- engine, on hand-written numbers ----------------------------------------------------------


def test_bootstrap_samples_equal_a_naive_index_matrix_bootstrap():
    xs = [0.0, 1.0, 1.0, 0.5, 0.25, 0.0, 1.0]
    samples = resampling.bootstrap_samples(mean_values(xs), mean_statistic, n_resamples=50, seed=3)["mean"]
    index = np.random.default_rng(3).integers(0, len(xs), size=(50, len(xs)))  # one chunk: the same draws
    np.testing.assert_allclose(samples, np.asarray(xs)[index].mean(axis=1), rtol=0, atol=1e-15)


def test_chunked_draws_resample_every_item_count_once_per_row(monkeypatch):
    monkeypatch.setattr(resampling, "CHUNK_CELLS", 10)  # 2 rows per chunk for 5 items
    values = resampling.as_values([(1.0,)] * 5, 1)
    samples = resampling.bootstrap_samples(values, lambda sums: {"n": sums[:, 0]}, n_resamples=7, seed=1)
    assert samples["n"].tolist() == [5.0] * 7


def test_interval_contains_the_estimate_and_is_reproducible_with_the_seed():
    xs = [0.1, 0.9, 0.4, 0.7, 0.3, 0.8, 0.5, 0.6, 0.2, 1.0]
    values = mean_values(xs)
    estimate = {"mean": sum(xs) / len(xs)}
    first = resampling.intervals(values, mean_statistic, estimate, n_resamples=500, seed=11)
    again = resampling.intervals(values, mean_statistic, estimate, n_resamples=500, seed=11)
    other = resampling.intervals(values, mean_statistic, estimate, n_resamples=500, seed=12)
    assert first == again
    assert first != other
    assert first["mean"]["low"] < estimate["mean"] < first["mean"]["high"]
    wider = resampling.intervals(values, mean_statistic, estimate, n_resamples=500, seed=11, level=0.99)
    assert wider["mean"]["low"] <= first["mean"]["low"] and wider["mean"]["high"] >= first["mean"]["high"]


def test_a_system_against_itself_differs_by_zero_with_p_one():
    values = mean_values([0.0, 1.0, 0.5, 0.25, 1.0])
    result = resampling.paired(values, values, mean_statistic, {"mean": 0.55}, {"mean": 0.55}, n_resamples=200)
    assert result["mean"] == {"a": 0.55, "b": 0.55, "difference": 0.0, "low": 0.0, "high": 0.0,
                              "p_bootstrap": 1.0, "p_randomization": 1.0}


def test_a_clear_difference_gets_the_smallest_p_value_the_rounds_allow():
    a, b = mean_values([0.0] * 40), mean_values([1.0] * 40)
    result = resampling.paired(a, b, mean_statistic, {"mean": 0.0}, {"mean": 1.0}, n_resamples=99, seed=5)["mean"]
    assert result["difference"] == 1.0 and result["low"] == result["high"] == 1.0
    assert result["p_bootstrap"] == result["p_randomization"] == 1 / 100


def test_randomization_swaps_items_between_the_systems():
    # One item differs: a swap of it flips the sign half of the time, so |d'| = |d| always (p = 1),
    # while the bootstrap, which never swaps, sees a difference whenever the item is drawn.
    a, b = mean_values([0.0, 0.0, 0.0, 0.0]), mean_values([1.0, 0.0, 0.0, 0.0])
    randomized = resampling.approximate_randomization(a, b, mean_statistic, n_resamples=200, seed=2)
    assert randomized["mean"]["p_value"] == 1.0
    boot = resampling.paired_bootstrap(a, b, mean_statistic, n_resamples=200, seed=2)
    assert boot["mean"]["low"] == 0.0 and boot["mean"]["high"] > 0.0


def test_undefined_samples_are_left_out_not_zero():
    # The ratio is 0/0 in every resample that draws no counted item.
    values = resampling.as_values([(1.0, 1.0), (0.0, 0.0), (0.0, 0.0)], 2)
    bounds = resampling.bootstrap(values, lambda s: {"rate": s[:, 0] / s[:, 1]}, n_resamples=300, seed=4)
    assert bounds["rate"]["low"] == bounds["rate"]["high"] == 1.0
    assert 0 < bounds["rate"]["n_defined"] < 300


@pytest.mark.parametrize(
    "options, message",
    [
        ({"n_resamples": 0}, "n_resamples must be a positive int, found 0"),
        ({"n_resamples": 10.5}, "n_resamples must be a positive int"),
        ({"n_resamples": 10**9}, "n_resamples is 1,000,000,000; expected at most 100,000"),  # not minutes of CPU
        ({"seed": -1}, "seed must be a non-negative int"),
        ({"seed": None}, "seed must be a non-negative int"),
        ({"level": 95}, "confidence level must be a number strictly between 0 and 1"),
        ({"level": True}, "confidence level must be"),
    ],
)
def test_bad_options_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        resampling.bootstrap(mean_values([1.0, 0.0]), mean_statistic, **options)


def test_systems_on_different_items_are_refused():
    with pytest.raises(ValueError, match="system A has 2 items and system B 3"):
        resampling.paired_bootstrap(mean_values([1, 0]), mean_values([1, 0, 1]), mean_statistic)
    with pytest.raises(ValueError, match="no items to resample"):
        mean_values([])


def test_signature_fields_name_resamples_seed_and_level():
    from benchscore.core.records import Signature

    fields = resampling.signature_fields(1000, 12345, 0.95)
    assert Signature("x").plus(fields) == "x|bootstrap:1000|seed:12345|confidence:0.95"


# --- MC-TACO on the official test set and baselines -------------------------------------------


def official_stats(predictions, gold="test_9442.tsv"):
    folder = shared_path("data", "mctaco")
    return files.file_stats(folder / gold, folder / predictions)


@pytest.fixture(scope="module")
def baselines():
    names = {"bert": "bert.norm.output.txt", "roberta": "roberta.output.txt", "glove": "esim.glove.output.txt"}
    return {name: official_stats(f"baseline_outputs/{file}") for name, file in names.items()}


@pytest.mark.parity
def test_estimates_are_the_official_numbers_exactly():
    runs = json.loads(shared_path("data", "mctaco", "expected_official.json").read_text())["runs"]
    for run in runs:
        stats = official_stats(run["predictions"], run["gold"])
        result = significance.confidence_intervals(stats, n_resamples=20)
        assert (result["em"]["estimate"], result["f1"]["estimate"]) == (run["em"], run["f1"]), run["predictions"]
        # The resampled path computes the same numbers (as sums; the official F1 sum is sequential).
        identity = significance.statistic(significance.item_values(stats).sum(axis=0)[None, :])
        assert identity["em"][0] == run["em"]
        assert identity["f1"][0] == pytest.approx(run["f1"], abs=1e-12)


def test_intervals_contain_the_estimate_on_real_data(baselines):
    for name, stats in baselines.items():
        for metric, r in significance.confidence_intervals(stats).items():
            assert r["low"] < r["estimate"] < r["high"], (name, metric, r)
            assert r["high"] - r["low"] < 0.07, "1,332 questions give intervals a few points wide"


def test_slices_resample_within_the_slice(baselines):
    stats = baselines["bert"]
    by_category = significance.per_category_intervals(stats, n_resamples=300)
    assert list(by_category) == list(scoring.per_category(stats))
    for category, result in by_category.items():
        alone = significance.confidence_intervals([q for q in stats if q.category == category], n_resamples=300)
        assert result == alone
        assert result["em"]["estimate"] == scoring.per_category(stats)[category]["em"]


def test_bert_is_significantly_better_than_esim_glove(baselines):
    result = significance.paired_test(baselines["glove"], baselines["bert"])
    for metric in ("em", "f1"):
        r = result[metric]
        assert r["difference"] == r["b"] - r["a"] > 0.15
        assert 0 < r["low"] < r["difference"] < r["high"]
        assert r["p_bootstrap"] < 0.01 and r["p_randomization"] < 0.01


def test_bert_vs_roberta_the_documented_example(baselines):
    """The card's example: RoBERTa's EM gain is within noise, its F1 gain is not (at 5%)."""
    result = significance.paired_test(baselines["bert"], baselines["roberta"])
    assert result["em"]["low"] < 0 < result["em"]["high"]
    assert result["em"]["p_bootstrap"] > 0.3 and result["em"]["p_randomization"] > 0.3
    assert 0 < result["f1"]["low"]
    assert result["f1"]["p_bootstrap"] < 0.05 and result["f1"]["p_randomization"] < 0.05


def test_a_baseline_against_itself(baselines):
    result = significance.paired_test(baselines["bert"], baselines["bert"], n_resamples=200)
    for r in result.values():
        assert (r["difference"], r["low"], r["high"], r["p_bootstrap"], r["p_randomization"]) == (0, 0, 0, 1, 1)


def test_seeded_paired_test_is_reproducible(baselines):
    def run(seed):
        return significance.paired_test(baselines["bert"], baselines["roberta"], n_resamples=300, seed=seed)

    assert run(7) == run(7)
    assert run(7)["f1"]["low"] != run(8)["f1"]["low"]


def test_different_gold_files_are_refused():
    test = official_stats("predictions/test_all_yes.txt")
    dev = official_stats("predictions/dev_all_yes.txt", "dev_3783.tsv")
    with pytest.raises(ValueError, match="system A has 1332 questions and system B 561"):
        significance.paired_test(test, dev)
    shuffled = test[1:] + test[:1]
    with pytest.raises(ValueError, match="question 0: key, candidate count and gold .yes. count .* for system A but .* for B; expected the same gold questions in the same order"):
        significance.paired_test(test, shuffled)


# --- MC-TACO through evaluate and the CLI (bundled example, runs without ../shared) ------------


def test_evaluate_compute_with_confidence_adds_intervals_and_names_them_in_the_signature():
    mctaco = load_metric("mctaco")
    columns = example_columns()
    plain = mctaco.compute(**columns)
    result = mctaco.compute(**columns, confidence=0.9, n_resamples=300, seed=99)
    stats = files.file_stats(EXAMPLE_TSV, EXAMPLE_PREDICTIONS)
    expected = significance.confidence_intervals(stats, n_resamples=300, seed=99, level=0.9)
    assert result["em"] == plain["em"] and result["f1"] == plain["f1"]
    assert result["extension_confidence_intervals"] == resampling.bounds(expected)
    for category, per in significance.per_category_intervals(stats, 300, 99, 0.9).items():
        assert result["extension_per_category"][category]["confidence_intervals"] == resampling.bounds(per)
    assert result["signature"] == plain["signature"] + "|bootstrap:300|seed:99|confidence:0.9"
    assert "extension_confidence_intervals" not in plain


def test_evaluate_compute_rejects_a_bad_confidence_level():
    with pytest.raises(ValueError, match="confidence level must be a number strictly between 0 and 1"):
        load_metric("mctaco").compute(**example_columns(), confidence=95)


def test_cli_compare_prints_the_paired_table(capsys):
    status = cli.main(["compare", "mctaco", "--gold", str(EXAMPLE_TSV), "--predictions", str(EXAMPLE_PREDICTIONS),
                       "--predictions", str(EXAMPLE_PREDICTIONS), "--n-resamples", "50", "--seed", "1"])
    out = capsys.readouterr().out
    assert status == 0
    assert "metric  A       B       B - A    95% interval      p (bootstrap)  p (randomization)" in out
    assert "em      0.6000  0.6000  +0.0000  [0.0000, 0.0000]  1.0000         1.0000" in out
    assert out.rstrip().endswith("|bootstrap:50|seed:1|confidence:0.95")


def test_cli_compare_with_one_system_prints_intervals_as_json(capsys):
    status = cli.main(["compare", "mctaco", "--gold", str(EXAMPLE_TSV), "--predictions", str(EXAMPLE_PREDICTIONS),
                       "--n-resamples", "50", "--confidence", "0.9", "--json"])
    result = json.loads(capsys.readouterr().out)
    stats = files.file_stats(EXAMPLE_TSV, EXAMPLE_PREDICTIONS)
    assert status == 0
    assert result["results"] == significance.confidence_intervals(stats, 50, resampling.DEFAULT_SEED, 0.9)
    assert result["signature"].endswith("|bootstrap:50|seed:12345|confidence:0.9")


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--predictions", str(EXAMPLE_PREDICTIONS)] * 3, "--predictions was given 3 times; expected once"),
        (["--predictions", str(EXAMPLE_PREDICTIONS), "--confidence", "95"], "confidence level must be"),
        (["--predictions", str(EXAMPLE_TSV)], "example.tsv:1: the label is"),
    ],
)
def test_cli_compare_errors_are_one_line_and_exit_2(capsys, extra, message):
    status = cli.main(["compare", "mctaco", "--gold", str(EXAMPLE_TSV), *extra])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("benchscore compare: error: ") and message in err and err.count("\n") == 1


def test_cli_compare_on_real_data(capsys):
    folder = shared_path("data", "mctaco")
    status = cli.main(["compare", "mctaco", "--gold", str(folder / "test_9442.tsv"),
                       "--predictions", str(folder / "baseline_outputs" / "bert.norm.output.txt"),
                       "--predictions", str(folder / "baseline_outputs" / "roberta.output.txt")])
    out = capsys.readouterr().out
    assert status == 0
    assert "em      0.4272  0.4362  +0.0090" in out and "f1      0.6993  0.7234  +0.0241" in out
