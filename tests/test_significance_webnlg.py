"""WebNLG+ 2020 text-to-RDF intervals and paired tests: the resampled statistic is `aggregate` on the
resample, official estimates, breakdowns within the key, detection on real submissions, the CLI."""

import json

import numpy as np
import pytest

from benchscore import cli
from benchscore.webnlg_rdf import files
from benchscore.webnlg_rdf import scoring
from benchscore.webnlg_rdf import significance
from benchscore.core.resampling import bounds
from conftest import METRICS
from conftest import shared_path

EXAMPLES = METRICS / "webnlg_rdf" / "examples"

# Hand-written entries: (reference triples, candidate triples), with unequal sizes on both sides.
ENTRIES = [
    (["Alan_Bean | occupation | Test_pilot", "Alan_Bean | birthPlace | Wheeler,_Texas"],
     ["Alan Bean | occupation | test pilot", "Alan Bean | birth place | Texas"]),
    (["Aarhus | leader | Jacob_Bundsgaard"], ["Aarhus | leaderName | Jacob Bundsgaard", "Aarhus | country | Denmark"]),
    (["Bakewell_pudding | region | Derbyshire_Dales", "Bakewell_pudding | course | Dessert",
      "Bakewell_pudding | country | England"], ["Bakewell pudding | course | dessert"]),
    (["Ajoblanco | country | Spain"], []),
    (["Ajoblanco | ingredient | Bread", "Ajoblanco | region | Andalusia"],
     ["Ajoblanco | region | Andalusia", "Ajoblanco | ingredient | Bread"]),
    (["Abilene | isPartOf | Texas"], ["Texas | contains | Abilene"]),
]


def read_stats(reference, candidate):
    return files.file_stats(reference, candidate)


def item_stats_of(entries):
    return [scoring.entry_stats(refs, cands, example=i) for i, (refs, cands) in enumerate(entries)]


def _total(result, name):
    scheme, rate = name.rsplit("_", 1)
    return result["Total_scores"][scheme][rate]


def test_resampled_statistic_is_the_aggregate_of_the_resample():
    stats = item_stats_of(ENTRIES)
    values = significance.item_values(stats)
    rng = np.random.default_rng(0)
    for index in [rng.integers(0, len(stats), len(stats)) for _ in range(30)] + [np.array([3, 3]), np.array([4])]:
        weights = np.bincount(index, minlength=len(stats)).astype(float)
        ours = significance.statistic((weights @ values)[None, :])
        expected = scoring.aggregate([stats[i] for i in index])
        for name in significance.HEADLINE:
            assert ours[name][0] == pytest.approx(_total(expected, name), abs=1e-12), (name, index)


@pytest.mark.parametrize("system", ["bt5", "cyclegt"])
@pytest.mark.parity
def test_estimates_are_the_official_numbers_exactly(system):
    data = shared_path("data", "webnlg")
    official = json.loads((data / "expected" / f"first100_en_{system}.json").read_text("utf-8"))
    stats = files.file_stats(data / "subsets" / "first100" / "ref_en.xml",
                              data / "subsets" / "first100" / f"cand_en_{system}.xml")
    result = significance.confidence_intervals(stats)
    schemes, rates = ("Ent_type", "Partial", "Strict", "Exact"), ("Precision", "Recall", "F1")
    assert list(result) == [f"{scheme}_{rate}" for scheme in schemes for rate in rates]
    for name, r in result.items():
        assert r["estimate"] == _total(official, name), name
        assert r["low"] < r["estimate"] < r["high"], name


def test_bt5_is_significantly_better_than_cyclegt_on_100_entries():
    data = shared_path("data", "webnlg", "subsets", "first100")
    bt5 = read_stats(data / "ref_en.xml", data / "cand_en_bt5.xml")
    cyclegt = read_stats(data / "ref_en.xml", data / "cand_en_cyclegt.xml")
    result = significance.paired_test(cyclegt, bt5)
    for name, r in result.items():
        assert r["difference"] > 0.3 and r["low"] > 0, name
        assert r["p_bootstrap"] < 0.01 and r["p_randomization"] < 0.01, name


def test_breakdowns_are_resampled_within_the_key():
    stats = item_stats_of(ENTRIES * 3)
    keys = ["a", "b", "a", "b", "c", "c"] * 3
    result = significance.breakdown_intervals(stats, keys, n_resamples=200)
    assert list(result) == ["a", "b", "c"]
    for key, numbers in result.items():
        alone = [s for s, k in zip(stats, keys) if k == key]
        assert numbers == significance.confidence_intervals(alone, n_resamples=200)
    with pytest.raises(ValueError, match="2 breakdown keys for 18 entries"):
        significance.breakdown_intervals(stats, ["a", "b"])


def test_self_comparison_seeds_and_mismatched_references():
    stats = item_stats_of(ENTRIES * 4)
    for r in significance.paired_test(stats, stats, n_resamples=100).values():
        assert (r["difference"], r["low"], r["high"], r["p_bootstrap"], r["p_randomization"]) == (0, 0, 0, 1, 1)
    other = item_stats_of([(refs, refs[:1]) for refs, _ in ENTRIES * 4])
    assert significance.paired_test(stats, other, 100, 3) == significance.paired_test(stats, other, 100, 3)
    assert significance.paired_test(stats, other, 100, 3) != significance.paired_test(stats, other, 100, 4)
    with pytest.raises(ValueError, match="^entry 0: reference triples .* for system A but .* for B; expected the same reference entries"):
        significance.paired_test(stats, stats[1:] + stats[:1])


def test_cli_compare_on_the_bundled_example(capsys):
    status = cli.main(["compare", "webnlg", "--reference", str(EXAMPLES / "refs.xml"),
                       "--candidate", str(EXAMPLES / "cands.xml"), "--candidate", str(EXAMPLES / "cands.xml"),
                       "--n-resamples", "50"])
    out = capsys.readouterr().out
    assert status == 0
    assert "Exact_F1 " in out and "p (randomization)" in out
    assert out.rstrip().endswith("|breakdown:no|bootstrap:50|seed:12345|confidence:0.95")


def test_cli_compare_refuses_unpaired_files(capsys):
    data = shared_path("data", "webnlg")
    status = cli.main(["compare", "webnlg", "--gold", str(EXAMPLES / "refs.xml"),
                       "--predictions", str(data / "subsets" / "first100" / "cand_en_bt5.xml")])
    assert status == 2
    assert "cand_en_bt5.xml:" in (err := capsys.readouterr().err) and ": 100 entries, and" in err


def test_add_confidence_extends_a_result_its_breakdowns_and_its_signature():
    stats = item_stats_of(ENTRIES * 2)
    categories = ["x", "y", "x", "y", "x", "y"] * 2
    result = scoring.aggregate(stats)
    result["extension_per_category"] = scoring.breakdown(stats, categories)
    result["signature"] = "webnlg_rdf|test"
    significance.add_confidence(result, stats, 100, 2, 0.9, breakdowns={"extension_per_category": categories})
    expected = significance.confidence_intervals(stats, 100, 2, 0.9)
    assert result["extension_confidence_intervals"] == bounds(expected)
    per = significance.breakdown_intervals(stats, categories, 100, 2, 0.9)
    for key in ("x", "y"):
        assert result["extension_per_category"][key]["confidence_intervals"] == bounds(per[key])
    assert result["signature"] == "webnlg_rdf|test|bootstrap:100|seed:2|confidence:0.9"


@pytest.mark.parametrize("config", ["default", "breakdown"])
def test_evaluate_compute_with_confidence(config):
    from conftest import load_metric

    webnlg = load_metric("webnlg_rdf", config)
    entries = ENTRIES * 2
    inputs = {"predictions": [c for _, c in entries], "references": [r for r, _ in entries]}
    categories = ["Astronaut", "City", "Food", "Food", "Food", "City"] * 2
    if config == "breakdown":
        inputs["category"] = categories
    plain = webnlg.compute(**inputs)
    result = webnlg.compute(**inputs, confidence=0.9, n_resamples=100, seed=6)
    stats = item_stats_of(entries)
    expected = significance.confidence_intervals(stats, 100, 6, 0.9)
    assert result["extension_confidence_intervals"] == bounds(expected)
    assert result["Total_scores"] == plain["Total_scores"]
    assert result["signature"] == plain["signature"] + "|bootstrap:100|seed:6|confidence:0.9"
    if config == "breakdown":
        per = significance.breakdown_intervals(stats, categories, 100, 6, 0.9)
        assert result["extension_per_category"]["Food"]["confidence_intervals"] == bounds(per["Food"])
        assert "confidence_intervals" in result["extension_per_size"][1]
