"""TSVer rules on our own hand-written inputs (no ../shared needed): the label matcher, the
denominators, strict mode, alignment, Ev²R aggregation and bad input.

metrics/tsver/examples/ holds a 7-claim gold file and a prediction file hitting every quirk:
  claim 0  "supported."   -> Supported, correct; ranges 2002-06 vs gold 2000-04: IoU 3/7
  claim 1  "error"        -> counted wrong; its ranges still score: 1 of 2 gold series, IoU 1 -> TSCS 2/3
  claim 2  "TRUE"         -> matches nothing: out of accuracy, in TSCS; range 2003-2000 adds no year -> 0
  claim 3  two lines      -> the later ("conflicting", correct) wins; series with no ranges still
                             counts as matched: P 1/2, R 1, IoU 0
  claim 4  no line        -> out of both means
  claim 5  "refutes"      -> matches nothing; PredictedTimeRanges null -> 0 but in the TSCS mean
  claim 6  " Refuted "    -> Refuted (wrong); PredictedTimeRanges {} -> 0
  line 6   unknown claim  -> ignored with a warning
"""

import json
import socket

import pytest

from benchscore.cli import main
from benchscore.tsver import files
from benchscore.tsver import ev2r, http_judge
from benchscore.tsver import loader
from benchscore.tsver import scoring
from conftest import METRICS
from conftest import load_metric
from conftest import shared_path

EXAMPLES = METRICS / "tsver" / "examples"
GOLD, PREDICTIONS, EV2R = EXAMPLES / "gold.jsonl", EXAMPLES / "predictions.jsonl", EXAMPLES / "ev2r.jsonl"
S, C, R, N = scoring.LABELS


@pytest.mark.parametrize("verdict,label", [
    ("Supported", S), ("refuted.", R), (" SUPPORTED ", S), ("not enough evidence", N),
    ("conflicting", C), ("Cherry-Picking", C), ("cherry picking", C),  # shared word "cherry"
    ("not supported", S), ("", S),  # substring quirks: "supported" in it / "" in every label
    ("evidence", C), ("not refuted", R), ("enough", N),
    ("refutes", None), ("TRUE", None), ("NEI", None), (" error", None),
])
def test_official_label_matcher(verdict, label):
    assert scoring.match_verdict(verdict) == label


@pytest.mark.parametrize("verdict,status", [
    ("error", scoring.ERROR), ("ERROR", scoring.ERROR), ("Error", scoring.ERROR),
    (" error", scoring.UNMATCHED),  # lower-cased, not stripped, and then matches nothing
    (None, scoring.MISSING), ("Refuted", scoring.OK),
])
def test_verdict_outcome(verdict, status):
    assert scoring.verdict_outcome(verdict)[0] == status


def test_coverage_terms():
    gold = {"a": [{"from": 2000, "to": 2004}], "b": [{"from": 1990, "to": 1991}, {"from": 1991, "to": 1993}]}
    pred = {"a": [{"from": 2002, "to": 2006}], "b": [{"from": 1993, "to": 1990}], "c": []}
    t = scoring.coverage(gold, pred)
    assert t["series"] == {"a": {"iou": 3 / 7, "intersection": 3, "union": 7},
                           "b": {"iou": 0.0, "intersection": 0, "union": 4}}  # overlapping gold ranges: 4 years
    assert (t["precision"], t["recall"], t["f1"]) == (2 / 3, 1.0, 0.8)
    assert t["iou"] == 3 / 14 and t["tscs"] == pytest.approx(0.8 * 3 / 14, abs=1e-15)
    assert scoring.coverage(gold, {"z": [{"from": 2000, "to": 2000}]})["tscs"] == 0  # nothing matched
    for empty in (None, {}):
        assert scoring.coverage(gold, empty)["empty"] and scoring.coverage(empty, gold)["empty"]
    # adjacent ranges merge; an absurd range is counted, not enumerated
    assert scoring.coverage({"a": [{"from": 2000, "to": 2001}, {"from": 2002, "to": 2003}]},
                            {"a": [{"from": 2003, "to": 2003}, {"from": 2001, "to": 2001}]})["iou"] == 0.5
    huge = scoring.coverage({"a": [{"from": 0, "to": 9}]}, {"a": [{"from": -10**12, "to": 10**12}]})
    assert huge["series"]["a"] == {"iou": 10 / (2 * 10**12 + 1), "intersection": 10, "union": 2 * 10**12 + 1}


def _example_stats():
    gold = files.read_references(GOLD)
    with pytest.warns(scoring.TSVerWarning) as caught:
        predictions = files.read_predictions(PREDICTIONS, [g["Claim"] for g in gold])
        stats = scoring.item_stats(gold, predictions)
    messages = [str(w.message) for w in caught] + scoring.aggregate(stats)["warnings"]
    assert any(m.endswith("predictions.jsonl: 1 gold claim(s) have more than one prediction line (claims 3); as the "
                          "official scorer, the later line wins") for m in messages)
    assert any("predictions.jsonl: ignored 1 prediction line(s) whose Claim is not in the gold file (the first: "
               in m for m in messages)
    assert "2 predicted verdict(s) match no label (claims 2, 5); as the official scorer, they are left out of the " \
        "verdict scores" in messages
    return gold, predictions, stats


def test_official_denominators():
    _, _, stats = _example_stats()
    result = scoring.aggregate(stats)
    assert [s.status for s in stats] == ["ok", "error", "unmatched", "ok", "missing", "unmatched", "ok"]
    assert (result["n_claims"], result["n_scored"], result["n_correct"], result["n_in_tscs"]) == (7, 4, 2, 6)
    assert (result["n_unmatched"], result["n_errors"], result["n_missing"]) == (2, 1, 1)
    assert result["verdict_accuracy"] == 0.5
    # per label F1: S 1 (1 tp), C 1, R 0 (1 fp from claim 6; the error line is a miss only), N 0
    assert result["verdict_macro_f1"] == 0.5
    assert result["tscs"] == pytest.approx((3 / 7 + 2 / 3) / 6, abs=1e-15)
    assert result["iou"] == pytest.approx((3 / 7 + 1) / 6, abs=1e-15)
    assert result["precision"] == result["recall"] == pytest.approx(3.5 / 6, abs=1e-15)
    assert result["f1"] == pytest.approx((1 + 2 / 3 + 1 + 2 / 3) / 6, abs=1e-15)
    assert result["confusion_matrix"] == [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0]]
    assert "ev2r_f1" not in result


def test_strict_counts_every_claim():
    _, _, stats = _example_stats()
    result = scoring.aggregate(stats, strict=True)
    assert (result["n_scored"], result["n_in_tscs"], result["n_correct"]) == (7, 7, 2)
    assert result["verdict_accuracy"] == 2 / 7
    assert result["verdict_macro_f1"] == pytest.approx((2 / 3 + 1) / 4, abs=1e-15)  # S: 1 tp, 1 miss (claim 4)
    assert result["tscs"] == pytest.approx((3 / 7 + 2 / 3) / 7, abs=1e-15)
    assert result["confusion_matrix"] == scoring.aggregate(stats)["confusion_matrix"]


def test_aggregate_is_order_free_and_mergeable():
    _, _, stats = _example_stats()
    reversed_order, result = scoring.aggregate(stats[::-1]), scoring.aggregate(stats)
    assert reversed_order.pop("warnings") != result.pop("warnings")  # they name the claims by position
    assert reversed_order == result
    assert scoring.aggregate([])["verdict_accuracy"] is None  # nothing counted: undefined, not 0


def test_ev2r_official_micro_aggregation_rounds_to_4_decimals():
    k_cp, k_sp, k_cr, k_sr = scoring.EV2R_KEYS
    spec_example = {k_cp: 7, k_sp: 3, k_cr: 6, k_sr: 0}  # the spec's example: P 0.4286, R 0.5, F1 0.4615
    assert scoring.ev2r_aggregate([spec_example]) == {"precision": 0.4286, "recall": 0.5, "f1": 0.4615}
    # recall is the predicted side's support over the reference count (sic); the reference support is unused
    assert scoring.ev2r_aggregate([{**spec_example, k_sr: 6}]) == scoring.ev2r_aggregate([spec_example])
    assert scoring.ev2r_aggregate([{k_cp: 0, k_sp: 0, k_cr: 0, k_sr: 0}]) == {"precision": 0.0, "recall": 0.0,
                                                                             "f1": 0.0}
    assert scoring.ev2r_counts({k_cp: 2}) == {k_cp: 2, k_sp: 0, k_cr: 0, k_sr: 0}  # missing keys count 0
    with pytest.raises(ValueError, match="'support predicted evidence' must be an int >= 0"):
        scoring.ev2r_counts({k_sp: "3"})


def test_ev2r_paper_aggregation_is_per_claim():
    k_cp, k_sp, k_cr, k_sr = scoring.EV2R_KEYS
    records = [{k_cp: 7, k_sp: 3, k_cr: 6, k_sr: 4}, {k_cp: 2, k_sp: 2, k_cr: 0, k_sr: 0}]
    p, r = (3 / 7 + 1) / 2, (4 / 6 + 0) / 2
    f1 = (2 * (3 / 7) * (4 / 6) / (3 / 7 + 4 / 6) + 0) / 2
    assert scoring.ev2r_aggregate(records, "paper") == {"precision": p, "recall": r, "f1": pytest.approx(f1)}
    with pytest.raises(ValueError, match="ev2r_aggregation must be one of"):
        scoring.ev2r_aggregate(records, "macro")


def test_judge_failures_are_counted_not_dropped():
    gold, predictions, _ = _example_stats()
    items = ev2r.claims_to_judge(gold, predictions)
    # official skips: claim 1 (null Explanation) and claim 4 (no line)
    assert [i for i, _ in items] == [0, 2, 3, 5, 6]
    assert items[0][1] == (gold[0]["Claim"], gold[0]["Justifications"][0], predictions[0]["explanation"])
    run = ev2r.judge_claims(ev2r.as_judge(str(EV2R)), items, len(gold))
    per_claim, name = run.per_claim, run.signature
    assert name.startswith("recorded(n=3,")
    result = scoring.aggregate(scoring.item_stats(gold, predictions, per_claim))
    assert (result["n_ev2r_judged"], result["n_ev2r_failed"]) == (3, 2)  # claims 5 and 6 have no record
    # micro: cp 7+2+1, sp 3+1+0, cr 6+3+2 (claim 2's record lacks "support reference evidence": 0)
    assert (result["ev2r_precision"], result["ev2r_recall"]) == (0.4, round(4 / 11, 4))
    assert result["ev2r_f1"] == round(2 * 0.4 * (4 / 11) / (0.4 + 4 / 11), 4)


def test_cli_on_the_examples(capsys):
    assert main(["tsver", "--gold", str(GOLD), "--predictions", str(PREDICTIONS), "--ev2r", str(EV2R)]) == 0
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    for line in ["   • Claims processed: 6 out of 7", "   • Coverage: 85.7%",
                 "| TSCS                        |       18.25 |",
                 "| Verdict F1                  |       50.00 |",
                 "| Justifications Ev2R Score   |       38.10 |",
                 "   • 1 error prediction(s) (verdict \"error\": counted wrong)",
                 "   • 1 claim(s) without a prediction line"]:
        assert line in out
    assert "predictions.jsonl: 1 gold claim(s) have more than one prediction line (claims 3)" in captured.err
    assert "predictions.jsonl: 2 predicted verdict(s) match no label (claims 2, 5)" in captured.err


@pytest.mark.parametrize("line,message", [
    ("{not json", r"predictions.jsonl:2: not valid JSON"),
    ('["a list"]', r"predictions.jsonl:2: found a JSON list; expected a prediction per line"),
    ('{"Claim": "x", "Explanation": null, "PredictedTimeRanges": null}', r":2: prediction has no 'Verdict' key"),
    ('{"Claim": "x", "Verdict": "Refuted", "Explanation": null}', r":2: prediction has no 'PredictedTimeRanges' key"),
    ('{"Claim": "x", "Verdict": null, "Explanation": null, "PredictedTimeRanges": null}',
     r":2: 'Verdict' must be a string, found None"),
    ('{"Claim": "x", "Verdict": "Refuted", "Explanation": null, "PredictedTimeRanges": [[2000, 2001]]}',
     r":2: 'PredictedTimeRanges': found list; expected an object mapping series id"),
    ('{"Claim": "x", "Verdict": "Refuted", "Explanation": null, "PredictedTimeRanges": {"s": {"from": 1}}}',
     r":2: 'PredictedTimeRanges': series 's': found dict; expected a list of \{from, to\} ranges"),
    ('{"Claim": "x", "Verdict": "Refuted", "Explanation": null, "PredictedTimeRanges": {"s": [{"from": 2000.0, '
     '"to": 2001}]}}', r":2: 'PredictedTimeRanges': series 's' range 0: found .*; expected \{\"from\": int, \"to\": int\}"),
    ('{"Claim": "x", "Verdict": "Refuted", "Explanation": null, "PredictedTimeRanges": {"s": [{"from": 2000}]}}',
     r"series 's' range 0: found \{'from': 2000\}; expected"),
    ('{"Claim": "x", "Verdict": "Refuted", "Explanation": 3, "PredictedTimeRanges": null}',
     r":2: 'Explanation' must be a string or null, found int"),
])
def test_bad_prediction_lines_name_the_line(tmp_path, line, message):
    path = tmp_path / "predictions.jsonl"
    path.write_text('{"Claim": "y", "Verdict": "Refuted", "Explanation": null, "PredictedTimeRanges": null}\n'
                    + line + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        files.read_predictions(path, ["x", "y"])


def test_error_lines_may_omit_ranges_and_explanation(tmp_path):
    path = tmp_path / "predictions.jsonl"
    path.write_text('{"Claim": "x", "Verdict": "ERROR", "ErrorMessage": "rate limited"}\n\n', encoding="utf-8")
    assert files.read_predictions(path, ["x"]) == [
        {"verdict": "ERROR", "explanation": None, "ranges": None, "line": 1}]


def test_bad_gold_names_the_line(tmp_path):
    path = tmp_path / "gold.jsonl"
    record = json.loads(GOLD.read_text(encoding="utf-8").splitlines()[0])
    path.write_text(json.dumps(record) + "\n" + json.dumps({**record, "Verdict": "True"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"gold.jsonl:2: 'Verdict' must be one of"):
        files.read_references(path)


def test_cli_reports_bad_input_as_one_line(tmp_path, capsys):
    path = tmp_path / "predictions.jsonl"
    path.write_text("oops\n", encoding="utf-8")
    assert main(["tsver", "--gold", str(GOLD), "--predictions", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("benchscore tsver: error: ") and "predictions.jsonl:1" in err and "\n" not in err
    assert main(["tsver", "--gold", str(GOLD), "--predictions", str(PREDICTIONS), "--judge-model", "m"]) == 2


# ---------------------------------------------------------------- the evaluate module, own data


def _examples():
    gold, predictions, stats = _example_stats()
    return ([loader.prediction(p) for p in predictions], [loader.reference(g) for g in gold], stats)


def test_evaluate_compute_equals_add_batch_equals_pure():
    predictions, references, stats = _examples()
    metric = load_metric("tsver")
    for strict in (False, True):
        with pytest.warns(UserWarning, match="match no label"):
            computed = metric.compute(predictions=predictions, references=references, strict=strict)
        for i in range(0, len(predictions), 3):
            metric.add_batch(predictions=predictions[i:i + 3], references=references[i:i + 3])
        with pytest.warns(UserWarning, match="match no label"):
            batched = metric.compute(strict=strict)
        assert computed == batched
        assert {k: v for k, v in computed.items() if k != "signature"} == scoring.aggregate(stats, strict=strict)
        assert computed["signature"] == f"tsver|version:1.0.0|benchscore:0.1.0|strict:{'yes' if strict else 'no'}|ev2r:tsver|judge:none"


def test_evaluate_with_a_callable_judge_counts_failures():
    predictions, references, _ = _examples()
    metric = load_metric("tsver")
    calls = []

    def judge(claim, reference, prediction):
        calls.append(claim)
        if "Hyperborea" in claim:
            raise ev2r.JudgeError("the judge gave up")
        return dict(zip(scoring.EV2R_KEYS, (4, 2, 4, 3)))

    with pytest.warns(UserWarning, match="match no label"):
        result = metric.compute(predictions=predictions, references=references, ev2r_judge=judge,
                                ev2r_aggregation="paper", return_per_claim=True)
    assert len(calls) == 5  # not claim 1 (null Explanation) nor claim 4 (no prediction)
    assert (result["n_ev2r_judged"], result["n_ev2r_failed"]) == (4, 1)
    assert (result["ev2r_precision"], result["ev2r_recall"]) == (0.5, 0.75)
    assert result["per_claim"][6].ev2r_failure.endswith("the judge gave up")
    assert result["signature"].endswith("|ev2r:paper|judge:callable")
    with pytest.raises(ValueError, match="ev2r_aggregation must be one of"):
        metric.compute(predictions=predictions, references=references, ev2r_aggregation="micro")


def test_evaluate_rejects_a_series_listed_twice():
    predictions, references, _ = _examples()
    predictions[0]["time_series"] = predictions[0]["time_series"] * 2
    with pytest.raises(ValueError, match=r"example 0: predictions\['time_series'\]: series 'rainfall' appears twice"):
        load_metric("tsver").compute(predictions=predictions, references=references)


def test_evaluate_rejects_an_unknown_gold_label():
    predictions, references, _ = _examples()
    references[2]["verdict"] = "NEI"
    with pytest.raises(ValueError, match=r"example 2: references\['verdict'\] is 'NEI'; expected one of"):
        load_metric("tsver").compute(predictions=predictions, references=references)


def test_examples_are_our_own():
    """examples/ must stay hand-written: no claim text from the released data."""
    shared = shared_path("data", "tsver", "tsver_test.jsonl")
    released = {json.loads(l)["Claim"] for l in shared.read_text(encoding="utf-8").splitlines()}
    ours = {json.loads(l)["Claim"] for l in GOLD.read_text(encoding="utf-8").splitlines()}
    assert len(ours) == 7 and not ours & released


def test_official_report_layout_for_every_status(tmp_path):
    out = tmp_path / "report.json"
    assert main(["tsver", "--gold", str(GOLD), "--predictions", str(PREDICTIONS), "--per-claim", str(out)]) == 0
    report = json.loads(out.read_text("utf-8"))
    rows = [(c["status"], c["pred_verdict_raw"], c["matched_label"], c["in_accuracy"], c["in_tscs"], c["correct"])
            for c in report["per_claim"]]
    assert rows == [("ok", "supported.", S, True, True, True), ("error", "error", None, True, True, False),
                    ("unmatched", "TRUE", None, False, True, False), ("ok", "conflicting", C, True, True, True),
                    ("missing", None, None, False, False, False), ("unmatched", "refutes", None, False, True, False),
                    ("ok", " Refuted ", R, True, True, False)]
    assert report["per_claim"][4]["tscs"] is None
    assert report["per_claim"][5]["tscs"] == {"TSCS": 0, "note": "gold TimeSeries or PredictedTimeRanges empty/None -> 0"}
    assert report["per_claim"][1]["tscs"]["IoU per dataset"] == {
        "co₂-emissions": {"IoU": 1.0, "Intersection (years)": 2, "Union (years)": 2}}
    assert report["aggregate_full_precision"]["n_in_accuracy"] == 4
    assert report["aggregate_full_precision"]["n_in_tscs"] == 6


def test_evaluate_accepts_none_in_the_first_example():
    """evaluate rejects None for a string/list feature in a batch's first example unless the module
    allows it; here None means no prediction line / null Explanation / null ranges."""
    predictions, references, stats = _examples()
    order = [4, 1, 5, 0, 2, 3, 6]  # claim 4 (no line: all None) first, then null Explanation, null ranges
    predictions, references = [predictions[i] for i in order], [references[i] for i in order]
    assert predictions[0] == {"verdict": None, "explanation": None, "time_series": None}
    metric = load_metric("tsver")
    with pytest.warns(UserWarning, match="match no label"):
        result = metric.compute(predictions=predictions, references=references)
    assert {k: v for k, v in result.items() if k != "signature"} == scoring.aggregate([stats[i] for i in order])
    with pytest.raises(ValueError, match=r"example 0: predictions\['explanation'\] is 3; expected a string or None"):
        metric.compute(predictions=[{**predictions[1], "explanation": 3}], references=references[1:2])


# ---------------------------------------------------------------- hostile inputs (issue 12), our own cases

def _bad_example(predictions, references, index, message):
    with pytest.raises((ValueError, TypeError), match=rf"^example {index}: {message}"):
        load_metric("tsver").compute(predictions=predictions, references=references)


@pytest.mark.parametrize("index", [0, 3])  # evaluate itself looks at the first example only
def test_evaluate_checks_every_example(index):
    predictions, references, _ = _examples()
    bad = json.loads(json.dumps(predictions))
    bad[index].pop("explanation")
    _bad_example(bad, references, index, r"prediction has missing keys \['explanation'\]")
    bad = json.loads(json.dumps(predictions))
    bad[index]["extra"] = 1
    _bad_example(bad, references, index, r"prediction has unknown keys \['extra'\]")
    bad = json.loads(json.dumps(references))
    bad[index]["time_series"][0]["ranges"][0]["from"] = 2000.7  # never silently 2000
    _bad_example(predictions, bad, index, r"references\['time_series'\]: series .* range 0: found \{'from': 2000.7")
    bad[index]["time_series"][0]["ranges"][0]["from"] = 10 ** 12  # beyond the int32 column
    _bad_example(predictions, bad, index, r"references\['time_series'\]: .* found \{'from': 1000000000000")
    bad[index]["time_series"][0]["ranges"][0] = {"from": 2000, "to": 2001, "step": 1}  # Arrow would raise KeyError
    _bad_example(predictions, bad, index, r"references\['time_series'\]: series .* has a range with other keys")
    _bad_example(predictions[:index] + ["Refuted"] + predictions[index + 1:], references, index, "prediction is str")


def test_evaluate_refuses_no_examples():
    with pytest.raises(ValueError, match="no examples to score"):
        load_metric("tsver").compute(predictions=[], references=[])


def test_a_repeated_gold_claim_and_an_empty_verdict_are_counted_as_officially_with_warnings():
    predictions, references, _ = _examples()
    predictions[0]["verdict"] = ""
    with pytest.warns(UserWarning) as caught:
        result = load_metric("tsver").compute(predictions=predictions + predictions[:1],
                                              references=references + references[:1])
    assert result["confusion_matrix"][0][0] == 2  # both copies, the empty verdict as "Supported" (official)
    assert "1 duplicate gold claim(s) (claim 7 repeats claim 0); as the official scorer, each copy is counted" == \
        result["warnings"][0]
    assert "2 predicted verdict(s) are empty (claims 0, 7); as the official matcher, they count as 'Supported'" \
        in result["warnings"]
    assert {str(w.message) for w in caught} >= set(result["warnings"])


@pytest.mark.usefixtures("tsver_store")  # the default judge protocol reads the store
def test_every_judge_call_failing_is_not_a_silent_zero(capsys, monkeypatch):
    monkeypatch.setenv("TSVER_TEST_KEY", "sk-test")
    with socket.socket() as probe:  # a free port, closed again: nobody listens on it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # one request at a time: which claim's failure comes first would otherwise depend on the threads
    judge = http_judge.OpenAIJudge(f"http://127.0.0.1:{port}/v1", "m", api_key_env=None, cache_dir=None, max_retries=0,
                               progress=False, concurrency=1)
    result = files.score_files(GOLD, PREDICTIONS, judge)
    assert (result["ev2r_precision"], result["ev2r_recall"], result["ev2r_f1"]) == (None, None, None)
    assert (result["n_ev2r_judged"], result["n_ev2r_failed"]) == (0, 5)
    assert result["warnings"][-1].startswith("Ev2R not available: the judge failed on all 5 claim(s) it was asked "
                                             "about (claims 0, 2, 3, 5, 6; first failure: Ev2R judge failed after 1 "
                                             "attempts: ConnectError")
    assert main(["tsver", "--gold", str(GOLD), "--predictions", str(PREDICTIONS), "--judge-url",
                 f"http://127.0.0.1:{port}/v1", "--judge-model", "m", "--judge-api-key-env", "TSVER_TEST_KEY",
                 "--no-judge-cache"]) == 0
    captured = capsys.readouterr()
    assert "| Justifications Ev2R Score   |         n/a |" in captured.out
    assert "benchscore tsver: warning: Ev2R not available" in captured.err


@pytest.mark.parametrize("text,line,message", [
    ("", 1, "found no header; expected 'Date'"),
    ("Year,GBR\n2000,1\n", 1, "found the header 'Year,GBR'"),
    ("Date,GBR,GBR\n", 1, "one distinct column"),
    ("Date,GBR\n2000,1\n2001\n", 3, "found 1 comma-separated fields; expected 2"),
    ("Date,GBR\n2000.5,1\n", 2, "Date is '2000.5'; expected an integer year"),
    ("Date,GBR\n2000,1\n\n2002,1\n", 3, "found an empty line"),
    ("Date,GBR\n2000,abc\n", 2, "a value is not a finite number"),
    ("Date,GBR\n2000,nan\n", 2, "a value is not a finite number"),
    ("Date,GBR\n" + "9" * 5000 + ",1\n", 2, "expected an integer year"),
    (b"Date,GBR\n2000,\xff\n", 2, "is not UTF-8"),
])
def test_malformed_time_series_tables_name_the_line(tmp_path, text, line, message):
    folder = tmp_path / "time_series" / "csv"
    folder.mkdir(parents=True)
    (folder / "s.csv").write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises(ValueError, match=rf"s\.csv:{line}: .*{message}"):
        loader.load_time_series(tmp_path, "s")


@pytest.mark.parametrize("series_id", ["../../x", "../csv/s", "/etc/passwd", "..", "a\\b", ""])
def test_a_series_id_cannot_leave_its_folder(tmp_path, series_id):
    (tmp_path / "time_series" / "csv").mkdir(parents=True)
    (tmp_path / "x.csv").write_text("Date\n2000\n", encoding="utf-8")
    with pytest.raises(ValueError, match="is not a file name"):
        loader.load_time_series(tmp_path, series_id)


def test_an_empty_gold_file_is_refused(tmp_path, capsys):
    empty = tmp_path / "gold.jsonl"
    empty.write_text("\n \n", encoding="utf-8")
    assert main(["tsver", "--gold", str(empty), "--predictions", str(PREDICTIONS)]) == 2
    assert capsys.readouterr().err.strip().endswith("gold.jsonl:1: the file has no gold claim; expected a gold "
                                                   "claim per line")
