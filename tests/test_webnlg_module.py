"""The webnlg_rdf `evaluate` module: loaded by absolute path, on the official example and a real submission."""

import json
import math

import evaluate
import pytest

import benchscore
from benchscore.webnlg_rdf import files as webnlg_files
from benchscore.webnlg_rdf import files
from benchscore.webnlg_rdf import scoring
from conftest import load_metric
from conftest import shared_path

OFFICIAL_KEYS = ["Total_scores", "Scores_per_tag", "Exact_match"]


def assert_official(result, expected):
    """Same keys in the same order; counts equal; rates within 1e-12 (the spec's tolerance)."""
    assert list(result) == list(expected)
    for key, want in expected.items():
        got = result[key]
        if isinstance(want, dict):
            assert_official(got, want)
        elif isinstance(want, int):
            assert got == want and isinstance(got, int), (key, got, want)
        else:
            assert math.isclose(got, want, rel_tol=0, abs_tol=1e-12), (key, got, want)


def read_pair(ref_path, cand_path):
    refs, cands = files.read_pair(ref_path, cand_path)
    return [r["triples"] for r in refs], [c["triples"] for c in cands], [r["category"] for r in refs]


def official_part(result):
    return {key: result[key] for key in OFFICIAL_KEYS}


@pytest.fixture(scope="module")
def webnlg():
    return load_metric("webnlg_rdf")


@pytest.fixture(scope="module")
def webnlg_breakdown():
    return load_metric("webnlg_rdf", "breakdown")


@pytest.fixture(scope="module")
def example():
    refs, cands, _ = read_pair(
        shared_path("data", "webnlg", "example", "Refs.xml"), shared_path("data", "webnlg", "example", "Cands2.xml")
    )
    expected = json.loads(shared_path("data", "webnlg", "expected", "example.json").read_text())
    return refs, cands, expected


@pytest.fixture(scope="module")
def bt5_first100():
    refs, cands, categories = read_pair(
        shared_path("data", "webnlg", "subsets", "first100", "ref_en.xml"),
        shared_path("data", "webnlg", "subsets", "first100", "cand_en_bt5.xml"),
    )
    expected = json.loads(shared_path("data", "webnlg", "expected", "first100_en_bt5.json").read_text())
    return refs, cands, categories, expected


@pytest.mark.parity
def test_compute_equals_official_example(webnlg, example):
    refs, cands, expected = example
    result = webnlg.compute(predictions=cands, references=refs)
    assert list(result) == OFFICIAL_KEYS + ["warnings", "signature"]  # quoted candidates (the quote asymmetry)
    assert_official(official_part(result), expected)


@pytest.mark.parity
def test_compute_equals_official_on_real_submission(webnlg, bt5_first100):
    refs, cands, _, expected = bt5_first100
    assert_official(official_part(webnlg.compute(predictions=cands, references=refs)), expected)


@pytest.mark.parity
def test_streamed_full_split_equals_official(webnlg):
    # A whole official file through evaluate: bt5's 606 "seen" entries, in Trainer-sized batches.
    refs, cands, _ = read_pair(
        shared_path("data", "webnlg", "references", "en_seen.xml"),
        shared_path("data", "webnlg", "submissions", "en", "bt5", "seen.xml"),
    )
    for start in range(0, len(refs), 64):
        webnlg.add_batch(predictions=cands[start : start + 64], references=refs[start : start + 64])
    expected = json.loads(shared_path("data", "webnlg", "expected", "en_bt5_seen.json").read_text())
    assert_official(official_part(webnlg.compute()), expected)


@pytest.mark.parametrize("data", ["example", "bt5_first100"])
@pytest.mark.parity
def test_add_batch_equals_compute_equals_pure_score(webnlg, data, request):
    refs, cands = request.getfixturevalue(data)[:2]
    pure = scoring.score(refs, cands)
    one_compute = webnlg.compute(predictions=cands, references=refs)
    for start in range(0, len(refs), 7):  # uneven batches
        webnlg.add_batch(predictions=cands[start : start + 7], references=refs[start : start + 7])
    streamed = webnlg.compute()
    assert official_part(one_compute) == official_part(pure)
    assert streamed == one_compute


def test_add_one_example_at_a_time(webnlg, example):
    refs, cands, expected = example
    for ref, cand in zip(refs, cands):
        webnlg.add(prediction=cand, reference=ref)
    assert_official(official_part(webnlg.compute()), expected)


def test_signature_names_every_option(webnlg, webnlg_breakdown):
    plain = webnlg.compute(predictions=[["a | b | c"]], references=[["a | b | c"]])["signature"]
    split = webnlg_breakdown.compute(predictions=[["a | b | c"]], references=[["a | b | c"]], category=["X"])[
        "signature"
    ]
    prefix = (f"webnlg_rdf|version:{scoring.VERSION}|benchscore:{benchscore.__version__}|tokenizer:nltk-3.4.5-punkt"
              "|counting:nervaluate-0.1.7")
    assert plain == prefix + "|breakdown:no" and split == prefix + "|breakdown:yes"
    # the CLI prints the same signature for the same settings
    example = files.__file__.replace("files.py", "examples/")
    assert webnlg_files.score_files(example + "refs.xml", example + "cands.xml")["signature"] == plain
    assert webnlg_files.score_files(example + "refs.xml", example + "cands.xml", by=["size"])["signature"] == split


TINY_METRIC = """
import datasets
import evaluate


class TripleCount(evaluate.Metric):
    def _info(self):
        strings = datasets.List(datasets.Value("string"))
        return evaluate.MetricInfo(
            description="", citation="", inputs_description="",
            features=datasets.Features({"predictions": strings, "references": strings}),
        )

    def _compute(self, predictions, references):
        return {"n_predicted": sum(map(len, predictions))}
"""


def test_combine_with_another_module(tmp_path, webnlg, webnlg_breakdown):
    # Why category is a configuration's feature: evaluate.combine sends compute() keywords to every
    # module, but add_batch() only the features each module declares.
    (tmp_path / "triple_count").mkdir()
    (tmp_path / "triple_count" / "triple_count.py").write_text(TINY_METRIC)
    other = evaluate.load(str(tmp_path / "triple_count"))
    batch = {"predictions": [["a | b | c"], []], "references": [["a | b | c"], ["x | y | z"]]}
    plain = evaluate.combine([webnlg, other]).compute(**batch)
    assert plain["n_predicted"] == 1 and plain["Total_scores"]["Exact"]["Correct"] == 3
    combined = evaluate.combine([webnlg_breakdown, other])
    combined.add_batch(**batch, category=["A", "B"])
    result = combined.compute()
    assert result["n_predicted"] == 1 and list(result["extension_per_category"]) == ["A", "B"]


@pytest.mark.parity
def test_breakdown_groups_equal_scoring_each_group_alone(webnlg, webnlg_breakdown, bt5_first100):
    refs, cands, categories, expected = bt5_first100
    result = webnlg_breakdown.compute(predictions=cands, references=refs, category=categories)
    assert list(result) == OFFICIAL_KEYS + ["extension_per_size", "extension_per_category", "warnings", "signature"]
    assert_official(official_part(result), expected)  # the breakdown leaves the official numbers alone
    assert set(result["extension_per_category"]) == set(categories)
    for category, group in result["extension_per_category"].items():
        rows = [i for i, c in enumerate(categories) if c == category]
        alone = webnlg.compute(predictions=[cands[i] for i in rows], references=[refs[i] for i in rows])
        assert official_part(group) == official_part(alone), category
    sizes = {len(r) for r in refs}
    assert set(result["extension_per_size"]) == sizes
    for size, group in result["extension_per_size"].items():
        rows = [i for i, r in enumerate(refs) if len(r) == size]
        alone = scoring.score([refs[i] for i in rows], [cands[i] for i in rows])
        assert official_part(group) == official_part(alone), size


# --- bad input: a clear ValueError naming the example, the field and the triple --------------------------


def test_two_part_candidate_triple_names_example_and_triple(webnlg):
    # The official script dies with an IndexError on this; we refuse it with a message.
    with pytest.raises(ValueError, match=r"^example 1: .*candidate triple 0 'Alan_Bean \| occupation'"):
        webnlg.compute(
            predictions=[["a | b | c"], ["Alan_Bean | occupation"]],
            references=[["a | b | c"], ["Alan_Bean | occupation | Test_pilot"]],
        )


def test_none_instead_of_a_list_is_refused(webnlg):
    with pytest.raises(TypeError, match=r"^example 1: candidates is NoneType"):
        webnlg.compute(predictions=[["a | b | c"], None], references=[["a | b | c"], ["a | b | c"]])
    webnlg.add_batch(predictions=[["a | b | c"]] * 2, references=[["a | b | c"]] * 2)
    with pytest.raises(TypeError, match=r"^example 2: references\[1\] is NoneType"):  # counted across batches
        webnlg.add_batch(predictions=[["a | b | c"]], references=[["a | b | c", None]])
    webnlg.compute()  # (ends the input)
    with pytest.raises(TypeError, match=r"^example 0: candidates\[0\] is int 3"):
        webnlg.add(prediction=[3], reference=["a | b | c"])


def test_bare_string_instead_of_list_is_refused_in_any_row(webnlg):
    # datasets would split the string into one "triple" per character; evaluate checks only row 0.
    with pytest.raises(TypeError, match=r"^example 1: candidates is str 'x \| y \| z'; expected a list"):
        webnlg.compute(predictions=[["a | b | c"], "x | y | z"], references=[["a | b | c"], ["x | y | z"]])


def test_prediction_and_reference_counts_must_match(webnlg):
    with pytest.raises(ValueError, match=r"references has 1 values for 2 predictions; expected one per example"):
        webnlg.compute(predictions=[["a | b | c"], ["a | b | c"]], references=[["a | b | c"]])


def test_category_needs_the_breakdown_configuration(webnlg):
    with pytest.raises(ValueError, match=r"'breakdown' configuration"):
        webnlg.compute(predictions=[["a | b | c"]], references=[["a | b | c"]], category=["X"])


def test_breakdown_configuration_needs_a_category_per_example(webnlg_breakdown):
    with pytest.raises(ValueError, match=r"missing: \['category'\]"):
        webnlg_breakdown.compute(predictions=[["a | b | c"]], references=[["a | b | c"]])
    with pytest.raises(ValueError, match=r"example 1: category is None; expected a non-empty string"):
        webnlg_breakdown.compute(
            predictions=[["a | b | c"], ["a | b | c"]], references=[["a | b | c"], ["a | b | c"]], category=["X", None]
        )


def test_unknown_configuration_is_refused():
    with pytest.raises(ValueError, match=r"unknown configuration 'per_category'.*'breakdown', 'default'"):
        load_metric("webnlg_rdf", "per_category")


def test_repeated_token_alignment_crash_is_a_clear_error(webnlg):
    # The official word alignment dies with a TypeError here (quirk 4); we name entry and triples.
    with pytest.raises(ValueError, match=r"^example 0: reference triple 0 'a a a \| b \| c' against candidate triple 0 'a x a \| b \| c'"):
        webnlg.compute(predictions=[["a x a | b | c"]], references=[["a a a | b | c"]])


def test_the_first_pair_that_crashes_in_the_official_order_is_named(webnlg):
    # Two pairs crash: (candidate 0, reference 1) and (candidate 1, reference 0). The official scores candidate by
    # candidate, each against every reference, so it dies at the first.
    named = r"^example 0: reference triple 1 'a a a \| b \| c' against candidate triple 0 'a x a \| b \| c'"
    with pytest.raises(ValueError, match=named):
        webnlg.compute(predictions=[["a x a | b | c", "p x p | b | c"]],
                       references=[["p p p | b | c", "a a a | b | c"]])


def test_malformed_extra_candidate_is_a_clear_error_but_mirrored_against_a_real_reference(webnlg):
    refs = [["x | y | z"]]
    # Against a real reference, a triple without ' | ' counts as empty, as in the official script ...
    result = webnlg.compute(predictions=[["x|y|z"]], references=refs)
    assert result["Total_scores"]["Exact"]["Missed"] == 3 and result["Total_scores"]["Exact"]["F1"] == 0
    # ... against padding (more candidates than references) no official run is recorded: refused.
    with pytest.raises(ValueError, match=r"^example 0: .*candidate triple 1 'x\|y\|z'.*padded reference"):
        webnlg.compute(predictions=[["x | y | z", "x|y|z"]], references=refs)


@pytest.mark.parametrize(
    "candidate, f1",
    [  # the metric card's worked examples: Ent_type, Partial, Strict, Exact
        ("Alan_Bean | occupation | Test_pilot_school", (1.0, 5 / 6, 2 / 3, 2 / 3)),
        ("Test_pilot | occupation | Alan_Bean", (1 / 3, 1.0, 1 / 3, 1.0)),
        ("Alan_Bean | occupation | Pilot", (2 / 3, 2 / 3, 2 / 3, 2 / 3)),
    ],
)
def test_metric_card_worked_examples(webnlg, candidate, f1):
    result = webnlg.compute(predictions=[[candidate]], references=[["Alan_Bean | occupation | Test_pilot"]])
    got = tuple(result["Total_scores"][scheme]["F1"] for scheme in ("Ent_type", "Partial", "Strict", "Exact"))
    assert got == pytest.approx(f1, abs=1e-15)
