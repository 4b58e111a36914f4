"""TempBench pure scoring: parity with the reference scorer's recorded outputs, and our sharp edges."""

import dataclasses
import glob
import importlib.util
import json
import math

import pytest

from benchscore.core.readers import read_jsonl
from benchscore.tempbench_trp import files
from benchscore.tempbench_trp import scoring
from conftest import METRICS, shared_path

FIXTURES = ("data", "tempbench", "fixtures")
QUESTION_FILES = ("questions_point.jsonl", "questions_interval.jsonl")
EXAMPLES = METRICS / "tempbench_trp" / "examples"


def _json(value):
    """Our results as the expected files store them (None slice keys become "null"; ItemStats as rows)."""
    if isinstance(value, list):
        value = [dataclasses.asdict(v) if isinstance(v, scoring.ItemStats) else v for v in value]
    elif isinstance(value, scoring.ItemStats):
        value = dataclasses.asdict(value)
    return json.loads(json.dumps(value))


def _records(path):
    return [record for _, record in read_jsonl(path)]


def _questions(name):
    return _records(shared_path(*FIXTURES, name))


def _evidence(name):
    return files.read_predictions(shared_path(*FIXTURES, name))


def one(question, evidence, space="label", top_k=None, dedup=False):
    """One question's statistics (what the reference's score_question gives, as `ItemStats`)."""
    return scoring.item_stats([question], [evidence], space, top_k, dedup)[0]


def row(question, evidence, space="label", **options):
    return dataclasses.asdict(one(question, evidence, space, **options))


def stats_of(rows):
    return [scoring.ItemStats(**r) for r in rows]


def _try_rows(questions, evidence, space):
    out = []
    for q in questions:
        try:
            out.append(one(q, evidence[q["id"]], space))
        except ValueError as err:
            out.append(err)
    return out


def _expected_files():
    pattern = str(shared_path(*FIXTURES) / "expected_*.json")
    return sorted(glob.glob(pattern))


@pytest.fixture(scope="module")
def reference():
    path = shared_path("reference", "tempbench_eval.py")
    spec = importlib.util.spec_from_file_location("tempbench_eval_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------- parity on the public fixtures


@pytest.mark.parity
def test_all_24_expected_files_are_there():
    assert len(_expected_files()) == 24


@pytest.mark.parity
@pytest.mark.parametrize("space", ["label", "id"])
def test_natural_space_gives_the_reference_rows_and_aggregates(space):
    checked = 0
    for path in _expected_files():
        expected = json.load(open(path, encoding="utf-8"))
        if expected["natural_key"] != space:
            continue
        evidence = _evidence(expected["evidence_file"])
        for questions_file, groups in expected["results"].items():
            questions = _questions(questions_file)
            (group,) = [g for g in groups if space in g["keys"]]
            assert group["n_errors"] == 0
            rows = scoring.item_stats(questions, [evidence[q["id"]] for q in questions], space)
            assert _json(rows) == group["rows"], (path, questions_file)
            assert _json(scoring.aggregate(rows)) == group["aggregate"], (path, questions_file)
            test_rows = [r for r, q in zip(rows, questions) if q["split"] == "test"]
            assert _json(scoring.aggregate(test_rows)) == group["aggregate_test_split"]
            checked += 1
    assert checked == 24  # 12 evidence files in this space x 2 question files


@pytest.mark.parity
@pytest.mark.parametrize("space", ["label", "id"])
def test_wrong_space_is_an_error_never_a_silent_number(space):
    """Where the reference errors or silently scores zero, we raise, or give the natural row."""
    for path in _expected_files():
        expected = json.load(open(path, encoding="utf-8"))
        if expected["natural_key"] == space:
            continue
        evidence = _evidence(expected["evidence_file"])
        for questions_file, groups in expected["results"].items():
            questions = _questions(questions_file)
            (natural,) = [g for g in groups if expected["natural_key"] in g["keys"]]
            ours = _try_rows(questions, evidence, space)
            errors = [r for r in ours if isinstance(r, ValueError)]
            scored = [(r, n) for r, n in zip(ours, natural["rows"]) if not isinstance(r, ValueError)]
            assert errors, (path, questions_file)
            for err in errors:
                assert "space" in str(err) and "question 'tbs-" in str(err)
            # A question that is not refused is one where no retrieved triple matches gold in any
            # space: the space cannot change its number.
            assert all(_json(r) == n and r.hits == 0 for r, n in scored)


@pytest.mark.parity
def test_reference_auto_key_equals_our_id_space_on_id_evidence():
    for path in _expected_files():
        expected = json.load(open(path, encoding="utf-8"))
        evidence = _evidence(expected["evidence_file"])
        for questions_file, groups in expected["results"].items():
            (auto,) = [g for g in groups if "auto" in g["keys"]]
            if expected["space"] in ("id", "tuple_id"):
                questions = _questions(questions_file)
                rows = scoring.item_stats(questions, [evidence[q["id"]] for q in questions], "id")
                assert _json(rows) == auto["rows"]
            else:
                # auto reads gold (which carries ids) in id space: label evidence silently scores 0.
                assert all(r["hits"] == 0 for r in auto["rows"])


@pytest.mark.parity
def test_fixture_rows_match_the_live_reference_too(reference):
    questions = _questions("questions_interval.jsonl")
    evidence = _evidence("evidence_oracle_plus_noise_tuple_label.jsonl")
    ours = [row(q, evidence[q["id"]], "label") for q in questions]
    theirs = [reference.score_question(q, evidence[q["id"]], "label") for q in questions]
    assert ours == theirs
    assert scoring.aggregate(stats_of(ours)) == reference.aggregate(theirs)


# ---------------------------------------------------------------- the 15 edge cases


def _edge_cases():
    return [json.loads(line) for line in open(shared_path(*FIXTURES, "edge_cases.jsonl"), encoding="utf-8")]


@pytest.mark.parity
def test_edge_cases_with_an_explicit_key_match_the_reference_row():
    cases = [c for c in _edge_cases() if c["key"] != "auto"]
    assert cases
    for case in cases:
        assert _json(one(case["question"], case["evidence"], case["key"])) == case["expected"]["row"], case["case"]


@pytest.mark.parity
def test_edge_case_tuple_id_evidence_auto_is_our_id_space():
    (case,) = [c for c in _edge_cases() if c["case"] == "tuple_id_evidence_auto"]
    assert row(case["question"], case["evidence"], "id") == case["expected"]["row"]
    with pytest.raises(ValueError, match="space must be 'label' or 'id', found 'auto'"):
        one(case["question"], case["evidence"], "auto")
    with pytest.raises(ValueError, match=r"example 0: .*evidence\[0\] .* matches a gold triple in id space"):
        one(case["question"], case["evidence"], "label")


@pytest.mark.parity
def test_edge_case_label_evidence_under_auto_is_scored_not_zeroed():
    (case,) = [c for c in _edge_cases() if c["case"] == "gold_both_spaces_label_evidence_auto"]
    assert case["expected"]["row"]["hits"] == 0  # the reference's silent zero
    stats = one(case["question"], case["evidence"], "label")
    assert (stats.hits, stats.trp, stats.ccr) == (1, 1.0, 1)
    with pytest.raises(ValueError, match=r"evidence\[0\] lacks s_id, r_id, o_id .*space='label'"):
        one(case["question"], case["evidence"], "id")


@pytest.mark.parity
def test_edge_aggregate_cases():
    cases = json.load(open(shared_path(*FIXTURES, "edge_aggregate.json"), encoding="utf-8"))["cases"]
    assert len(cases) == 3
    for case in cases:
        ours = _json(scoring.aggregate(stats_of(case["rows"]), by=tuple(case["by"])))
        if case["rows"]:
            assert ours == case["expected"], case["case"]
        else:
            # Ours: the reference's {'n_questions': 0} plus every other key, rates undefined.
            assert {k: ours[k] for k in case["expected"]} == case["expected"]
            assert ours == {"n_questions": 0, "coverage": None, "TRP_macro": None, "TRP_micro": None,
                            "CCR": None, "by_complexity": {}, "by_operator": {}}


# ---------------------------------------------------------------- our own small fixtures


def _example():
    questions = _records(EXAMPLES / "questions.jsonl")
    evidence = [r["evidence"] for r in _records(EXAMPLES / "evidence.jsonl")]
    return questions, evidence


Q = {
    "id": "q1", "t_query": 1994.0, "complexity": "1hop", "operator_type": "point_in_time",
    "S_star": [{"s": "A", "r": "rel", "o": "B", "s_id": "Q1", "r_id": "P1", "o_id": "Q2",
                "t_start": 1994.0, "t_end": 1994.0}],
}
GOLD = {"s": "A", "r": "rel", "o": "B", "t_start": 1994.0, "t_end": 1994.0}
NOISE = {"s": "A", "r": "rel", "o": "C", "t_start": 1994.0, "t_end": 1994.0}


def test_hand_written_examples_rows():
    questions, evidence = _example()
    rows = scoring.item_stats(questions, evidence)
    assert [(r.n_ret, r.hits, r.n_gold, r.trp, r.ccr) for r in rows] == [
        (4, 2, 1, 0.5, 1),      # gold twice (both count), a distractor, a stale copy
        (2, 1, 2, 0.5, 0),      # half of a 2-hop chain
        (3, 3, 3, 1.0, 1),      # interval gold, wide evidence intervals
        (0, 0, 1, None, 0),     # nothing retrieved
    ]
    result = scoring.aggregate(rows)
    assert (result["coverage"], result["TRP_macro"], result["TRP_micro"], result["CCR"]) == (0.75, 2 / 3, 6 / 9, 0.5)
    assert result["by_complexity"]["1hop"] == {"n": 2, "TRP": 0.5, "CCR": 0.5}


def test_id_space_on_hand_written_examples():
    q = dict(Q)
    stats = one(q, [{"s_id": "Q1", "r_id": "P1", "o_id": "Q2", "t_start": 1994, "t_end": 1994}], "id")
    assert (stats.hits, stats.ccr) == (1, 1)
    assert one(q, [("Q1", "P1", "Q2", 1990, 2000)], "id").hits == 1


def test_time_rules_inclusive_inf_inverted_and_nan_refused():
    def hits(start, end):
        return one(Q, [dict(GOLD, t_start=start, t_end=end)]).hits

    assert hits(1994, 1994) == 1 and hits(1990, 1994) == 1 and hits(1994, 2000) == 1
    assert hits("-inf", "inf") == 1 and hits(float("-inf"), 1994.0) == 1  # open bounds
    assert hits(1995, 1993) == 0  # inverted: never valid
    # The reference counts a NaN time as retrieved and never a hit; a NaN is not a year (issue 12): refused.
    for start, end in (("nan", 2000), (1990, math.nan), (math.nan, "inf")):
        with pytest.raises(ValueError, match=r"evidence\[0\]\.t_(start|end) must be a year .*found (nan|'nan')"):
            hits(start, end)
    assert hits(1995, 1995) == 0


def test_gold_times_are_never_read():
    q = dict(Q, S_star=[dict(Q["S_star"][0], t_start=1800.0, t_end=1800.0)])
    assert one(q, [GOLD]).hits == 1


def test_empty_gold_is_a_row_with_ccr_zero():
    stats = one(dict(Q, S_star=[]), [GOLD])
    assert (stats.n_gold, stats.hits, stats.trp, stats.ccr) == (0, 0, 0.0, 0)


@pytest.mark.parametrize("bad", [None, "1994-05-01"])
@pytest.mark.parametrize("field", ["t_start", "t_end"])
def test_bad_evidence_time_names_question_item_and_field(bad, field):
    evidence = [NOISE, dict(GOLD, **{field: bad})]
    with pytest.raises(ValueError, match=rf"question 'q1': evidence\[1\]\.{field} must be a year .*found {bad!r}"):
        one(Q, evidence)


def test_missing_evidence_time_is_an_error():
    item = {k: v for k, v in GOLD.items() if k != "t_end"}
    with pytest.raises(ValueError, match=r"evidence\[0\]\.t_end must be a year .*found None"):
        one(Q, [item])
    with pytest.raises(ValueError, match=r"evidence\[0\]\.t_start must be a year"):
        one(Q, [("A", "rel", "B", None, 1994)])


@pytest.mark.parametrize("bad", [None, "1994-05-01", "soon"])
def test_bad_t_query_is_an_error(bad):
    with pytest.raises(ValueError, match=rf"question 'q1': t_query must be a year .*found {bad!r}"):
        one(dict(Q, t_query=bad), [GOLD])


def test_unknown_space_is_rejected():
    for space in ("auto", "labels", None):
        with pytest.raises(ValueError, match="space must be 'label' or 'id'"):
            one(Q, [GOLD], space)


def test_malformed_evidence_items():
    with pytest.raises(ValueError, match=r"evidence\[0\] must be \(s, r, o, t_start, t_end\), found 4 fields"):
        one(Q, [("A", "rel", "B", 1994)])
    with pytest.raises(TypeError, match=r"evidence\[0\] must be a dict or a 5-tuple, found str"):
        one(Q, ["A rel B"])
    with pytest.raises(TypeError, match=r"evidence\[0\]\.o must be a string, found list"):
        one(Q, [dict(GOLD, o=["B"])])
    for bad in (None, GOLD, "A rel B"):
        with pytest.raises(TypeError, match="evidence must be a list of triples, found"):
            one(Q, bad)
    assert one(Q, iter([GOLD])).hits == 1  # any iterable, as in the reference


def test_gold_without_the_chosen_space_is_an_error():
    q = dict(Q, S_star=[{"s_id": "Q1", "r_id": "P1", "o_id": "Q2", "t_start": 1994.0, "t_end": 1994.0}])
    with pytest.raises(ValueError, match=r"question 'q1': S_star\[0\] needs s, r, o for space 'label'"):
        one(q, [GOLD])
    with pytest.raises(TypeError, match="S_star must be a list"):
        one({"id": "q2", "t_query": 1994.0}, [GOLD])


def test_a_bad_record_in_a_run_names_its_position_and_id():
    questions, evidence = _example()
    evidence[2] = [dict(evidence[2][0], t_end="2000-12-31")]
    with pytest.raises(ValueError, match=r"^example 2: question 'ex-3': evidence\[0\]\.t_end"):
        scoring.item_stats(questions, evidence)
    with pytest.raises(ValueError, match=r"^example 2: question 'ex-3'"):
        scoring.score(questions, evidence)


def test_different_lengths_are_refused_not_truncated():
    questions, evidence = _example()
    with pytest.raises(ValueError, match="differ in length: more questions after 3"):
        scoring.item_stats(questions, evidence[:3])


# ---------------------------------------------------------------- options beyond the reference


def test_defaults_signature():
    assert scoring.signature() == "tempbench_trp|version:1.0.0|benchscore:0.1.0|space:label|top_k:none|dedup:no|subset:all"
    assert scoring.signature("id", 5, True).startswith("tempbench_trp|version:1.0.0|benchscore:0.1.0|space:id|top_k:5|dedup:yes|")


def test_dedup_drops_exact_repeats_only():
    evidence = [GOLD, GOLD, dict(GOLD, t_start=1990.0), NOISE, ("A", "rel", "B", 1994, 1994)]
    assert one(Q, evidence).n_ret == 5
    stats = one(Q, evidence, dedup=True)
    assert (stats.n_ret, stats.hits) == (3, 2)  # the int-year tuple is the same triple as GOLD


def test_top_k_cuts_after_dedup_and_ignores_the_rest():
    evidence = [GOLD, GOLD, NOISE, {"broken": True}]
    assert one(Q, evidence, top_k=2).trp == 1.0
    assert one(Q, evidence, top_k=2, dedup=True).trp == 0.5
    assert one(Q, evidence, top_k=3).n_ret == 3
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="top_k must be a positive int"):
            one(Q, evidence, top_k=bad)


def test_functional_subset_restricts_and_is_in_the_signature():
    questions, evidence = _example()
    result = scoring.score(questions, evidence, functional_ids=["ex-1", "ex-3", "not-in-run"])
    rows = scoring.item_stats(questions, evidence)
    assert {k: v for k, v in result.items() if k != "signature"} == scoring.aggregate([rows[0], rows[2]])
    assert result["signature"].endswith("|subset:functional-3-" + result["signature"][-8:])
    assert scoring.signature(functional_ids=["b", "a"]) == scoring.signature(functional_ids=["a", "b", "a"])
    assert scoring.signature(functional_ids=["a"]) != scoring.signature(functional_ids=["b"])
    with pytest.raises(TypeError, match=r"functional_ids must be a collection of question ids \(strings\), found .ex-1."):
        scoring.score(questions, evidence, functional_ids="ex-1")


def test_read_functional_ids(tmp_path):
    path = tmp_path / "functional_negatives.jsonl"
    path.write_text('{"id": "a", "S_dist": true}\n{"id": "b", "S_dist": false}\n"c"\n\n', encoding="utf-8")
    assert files.read_functional_ids(path) == ["a", "b", "c"]
    path.write_text('{"id": "a", "S_dist": true}\n{"id": "b", "S_dist": false}\n', encoding="utf-8")
    assert files.read_functional_ids(path, flag="S_dist") == ["a"]
    path.write_text('{"id": "a"}\n{"id": "b"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="functional_negatives.jsonl:2: not valid JSON"):
        files.read_functional_ids(path)
    path.write_text('{"qid": "a"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="functional_negatives.jsonl:1: found .*; expected an object with a string 'id'"):
        files.read_functional_ids(path)


# ---------------------------------------------------------------- aggregation and streaming


def test_aggregate_in_chunks_or_one_by_one_is_bit_identical():
    rows = [{"id": str(i), "complexity": ("1hop", "2hop", None)[i % 3], "operator": "x" if i % 2 else 7,
             "n_ret": i % 5, "hits": i % 3 if i % 5 else 0, "n_gold": 2,
             "trp": (i % 3) / (i % 5) if i % 5 else None, "ccr": i % 2} for i in range(1000)]
    rows = stats_of(rows)
    whole = scoring.aggregate(rows)
    chunked = scoring.Aggregator()
    for start in range(0, len(rows), 77):
        chunked.add_rows(rows[start:start + 77])
    one_by_one = scoring.Aggregator()
    for row in rows:
        one_by_one.add(row)
    assert chunked.result() == whole == one_by_one.result()
    assert list(whole["by_complexity"]) == ["1hop", "2hop", None]  # sorted by str(key)
    assert list(whole["by_operator"]) == [7, "x"]


@pytest.mark.parity
def test_aggregate_matches_the_reference_on_awkward_rows(reference):
    rows = [{"id": str(i), "complexity": ("1hop", "3+hop", None)[i % 3], "operator": ("a", 2, None)[i % 4 % 3],
             "n_ret": i % 7, "hits": i % 3 if i % 7 else 0, "n_gold": 1,
             "trp": (i % 3) / (i % 7) if i % 7 else None, "ccr": i % 2} for i in range(500)]
    assert scoring.aggregate(stats_of(rows)) == reference.aggregate(rows)
    assert scoring.aggregate(stats_of(rows), by=("complexity",)) == reference.aggregate(rows, by=("complexity",))


def test_score_files_equals_scoring_in_memory():
    questions, evidence = _example()
    streamed = files.score_files(EXAMPLES / "questions.jsonl", EXAMPLES / "evidence.jsonl")
    in_memory = scoring.score(questions, evidence)
    assert streamed.pop("n_evidence_unused") == 0
    assert streamed == in_memory
    test_only = files.score_files(EXAMPLES / "questions.jsonl", EXAMPLES / "evidence.jsonl", split="test")
    assert (test_only["n_questions"], test_only["n_evidence_unused"]) == (3, 1)


@pytest.mark.parity
def test_score_files_on_fixtures_joins_by_id_in_question_order():
    expected = json.load(open(shared_path(*FIXTURES, "expected_mixed_id.json"), encoding="utf-8"))
    for questions_file, groups in expected["results"].items():
        (group,) = [g for g in groups if "id" in g["keys"]]
        result = files.score_files(shared_path(*FIXTURES, questions_file),
                                   shared_path(*FIXTURES, "evidence_mixed_id.jsonl"), space="id", split="test")
        n_lines = len(shared_path(*FIXTURES, "evidence_mixed_id.jsonl").read_text().splitlines())
        assert result["n_evidence_unused"] == n_lines - result["n_questions"]
        assert _json({k: v for k, v in result.items() if k not in ("signature", "n_evidence_unused")}) == \
            group["aggregate_test_split"]


def test_score_files_errors(tmp_path):
    questions = tmp_path / "q.jsonl"
    evidence = tmp_path / "e.jsonl"
    questions.write_text(json.dumps(Q) + "\n\n" + json.dumps(dict(Q, id="q2")) + "\n", encoding="utf-8")
    evidence.write_text(json.dumps({"id": "q1", "evidence": [GOLD]}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"q.jsonl:3: no evidence line for id 'q2' in .*e.jsonl"):
        files.score_files(questions, evidence)
    evidence.write_text(json.dumps({"id": "q2", "evidence": []}) + "\n" + json.dumps({"id": "q2", "evidence": []}) + "\n")
    with pytest.raises(ValueError, match=r"e.jsonl:2: duplicate id 'q2' \(first on line 1\)"):
        files.score_files(questions, evidence)
    evidence.write_text(json.dumps({"id": "q1", "evidence": [dict(GOLD, t_start="1994-01-01")]}) + "\n")
    with pytest.raises(ValueError, match=r"e.jsonl:1: question 'q1': evidence\[0\]\.t_start"):
        files.score_files(questions, evidence)
    evidence.write_text('{"id": "q1", "evidence": [}\n')
    with pytest.raises(ValueError, match="e.jsonl:1: not valid JSON"):
        files.score_files(questions, evidence)
    questions.write_text(json.dumps(dict(Q, split="train")) + "\n")
    with pytest.raises(ValueError, match=r"q.jsonl:1: no question has split 'test' \(splits found: train\)"):
        files.score_files(questions, evidence, split="test")


def _random_case(rng, space):
    """A question and evidence with the shapes the rules talk about, in one space."""
    keys = scoring.SPACES[space]
    names = [f"E{i}" for i in range(6)]
    t_query = rng.choice([1994, 1994.0, "1994", 2000.5])
    gold = []
    for _ in range(rng.choice([0, 1, 1, 2, 3, 4])):
        s, o = rng.sample(names, 2)
        triple = {"s": s, "r": rng.choice("rq"), "o": o}
        gold.append(dict(triple, s_id="Q" + s, r_id="P" + triple["r"], o_id="Q" + o, t_start=1.0, t_end=1.0))
    gold += rng.sample(gold, min(len(gold), rng.choice([0, 1])))  # a repeated gold triple
    times = [(1994, 1994), (1994.0, 1994.0), (1990, 1994), (1994, 2001), ("-inf", "inf"), (1995, 1993),
             (1993, 1993), (2000.5, 2000.5), (1900, "inf")]  # no NaN: refused (above)
    evidence = []
    for _ in range(rng.randint(0, 12)):
        if gold and rng.random() < 0.5:
            base = rng.choice(gold)
            triple = tuple(base[k] for k in keys)
        else:
            s, o = rng.sample(names, 2)
            triple = (s, rng.choice("rq"), o) if space == "label" else ("Q" + s, "P" + rng.choice("rq"), "Q" + o)
        start, end = rng.choice(times)
        if rng.random() < 0.5:
            evidence.append(triple + (start, end))
        else:
            evidence.append(dict(zip(keys, triple), t_start=start, t_end=end))
    question = {"id": f"r{rng.random()}", "t_query": t_query, "S_star": gold,
                "complexity": rng.choice(["1hop", "2hop", "3+hop", None]), "operator_type": rng.choice(["a", "b"])}
    return question, evidence


@pytest.mark.parity
@pytest.mark.parametrize("space", ["label", "id"])
def test_random_questions_follow_the_reference_rules(reference, space):
    """Rules, not files: random shapes (repeats, open/inverted intervals, int/str years) agree."""
    import random

    rng = random.Random(20261130)
    cases = [_random_case(rng, space) for _ in range(3000)]  # empty S_star included: explicit keys agree
    ours = [row(q, ev, space) for q, ev in cases]
    theirs = [reference.score_question(q, ev, space) for q, ev in cases]
    assert ours == theirs
    assert scoring.aggregate(stats_of(ours)) == reference.aggregate(theirs)
    assert sum(r["hits"] for r in ours) > 0 and sum(r["ccr"] for r in ours) > 0


# ---------------------------------------------------------------- hostile inputs (issue 12): refused, never scored


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, "inf", "nan", True, 10 ** 400])
def test_t_query_must_be_a_finite_year(bad):
    with pytest.raises(ValueError, match=r"^example 1: question 'q1': t_query must be a (finite )?year"):
        scoring.item_stats([Q, dict(Q, t_query=bad)], [[GOLD], [GOLD]])


@pytest.mark.parametrize("bad", [True, False, 10 ** 400, [1994], {"year": 1994}])
def test_evidence_years_that_are_not_numbers_are_refused(bad):
    with pytest.raises(ValueError, match=r"evidence\[1\]\.t_end must be a year"):
        one(Q, [GOLD, dict(GOLD, t_end=bad)])
    with pytest.raises(ValueError, match=r"evidence\[0\]\.t_start must be a year"):
        one(Q, [("A", "rel", "B", bad, 1994)])


@pytest.mark.parametrize("bad", [5, None, ["B"], {"x": 1}, b"B"])
def test_non_string_triple_fields_are_refused(bad):
    with pytest.raises((TypeError, ValueError), match=r"evidence\[0\]"):
        one(Q, [dict(GOLD, o=bad)])
    kind, message = (ValueError, "needs s, r, o") if bad is None else (TypeError, "s, r, o must be strings")
    with pytest.raises(kind, match=rf"S_star\[0\] {message}"):
        one(dict(Q, S_star=[dict(Q["S_star"][0], o=bad)]), [GOLD])
    with pytest.raises(TypeError, match=r"S_star\[0\] s_id, r_id, o_id must be strings"):
        one(dict(Q, S_star=[dict(Q["S_star"][0], o_id=7)]), [GOLD])  # the other space too


def test_a_gold_triple_with_only_part_of_the_other_space_is_fine():
    q = dict(Q, S_star=[{"s": "A", "r": "rel", "o": "B", "s_id": "Q1"}])
    assert one(q, [GOLD]).hits == 1


def test_empty_run_file_and_repeated_question_are_named(tmp_path):
    questions, evidence = tmp_path / "q.jsonl", tmp_path / "e.jsonl"
    questions.write_text(json.dumps(Q) + "\n" + json.dumps(dict(Q, id="q2")) + "\n", encoding="utf-8")
    evidence.write_text("\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"e.jsonl:1: the file has no records; expected"):
        files.score_files(questions, evidence)
    questions.write_text(json.dumps(Q) + "\n" + json.dumps(Q) + "\n", encoding="utf-8")
    evidence.write_text(json.dumps({"id": "q1", "evidence": [GOLD]}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"q.jsonl:2: duplicate question id 'q1' \(first on line 1\)"):
        files.score_files(questions, evidence)
    questions.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=r"q.jsonl:1: the file has no questions"):
        files.score_files(questions, evidence)


def test_a_repeated_run_line_after_its_question_was_scored(tmp_path, monkeypatch):
    questions, evidence = tmp_path / "q.jsonl", tmp_path / "e.jsonl"
    questions.write_text(json.dumps(Q) + "\n", encoding="utf-8")
    line = json.dumps({"id": "q1", "evidence": [GOLD]}) + "\n"
    evidence.write_text(line + json.dumps({"id": "other", "evidence": []}) + "\n" + line, encoding="utf-8")
    with pytest.raises(ValueError, match=r"e.jsonl:3: duplicate id 'q1' \(an earlier line was already scored\)"):
        files.score_files(questions, evidence)
    # The filter may say "maybe seen" for an id never scored: it is then counted, not refused.
    monkeypatch.setattr(files._IdFilter, "__contains__", lambda self, key: True)
    result = files.score_files(EXAMPLES / "questions.jsonl", EXAMPLES / "evidence.jsonl", split="test")
    assert result["n_evidence_unused"] == 1


def test_wrong_types_of_options_are_refused():
    for options, kind in [({"top_k": 2.0}, ValueError), ({"top_k": True}, ValueError), ({"dedup": 1}, TypeError),
                          ({"space": ["label"]}, ValueError)]:
        with pytest.raises(kind):
            scoring.item_stats([Q], [[GOLD]], **options)


def test_nothing_to_score_is_said_not_silent():
    result = scoring.score([], [])
    assert (result["n_questions"], result["TRP_macro"], result["CCR"]) == (0, None, None)
    assert result["warnings"] == ["no question was scored: every rate is undefined (None)"]
    result = scoring.score([Q], [[GOLD]], functional_ids=["not-q1"])
    assert result["n_questions"] == 0 and result["warnings"]


def test_error_messages_stay_short_whatever_the_input(tmp_path):
    questions, evidence = tmp_path / "q.jsonl", tmp_path / "e.jsonl"
    huge = "x" * 100_000
    questions.write_text(json.dumps(dict(Q, id=huge)) + "\n", encoding="utf-8")
    evidence.write_text(json.dumps({"id": "other", "evidence": []}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no evidence line for id") as err:
        files.score_files(questions, evidence)
    assert len(str(err.value)) < 500
    evidence.write_text(json.dumps({"id": huge, "evidence": [dict(GOLD, **{f"k{i}": i for i in range(5000)}, s=None)]}) + "\n")
    with pytest.raises(ValueError) as err:
        files.score_files(questions, evidence)
    assert len(str(err.value)) < 1000


def test_functional_ids_that_are_not_ids_are_refused():
    for bad in ([["ex-1"]], 5):
        with pytest.raises(TypeError, match="functional_ids must be a collection of question ids"):
            scoring.signature(functional_ids=bad)
    assert "|subset:functional-2-" in scoring.signature(functional_ids=[1, "1"])  # mixed types sort as text
