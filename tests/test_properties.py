"""Property tests (hypothesis) for the four evaluate modules (issue 12), through `compute` only.

For random well-formed inputs: nothing but ValueError/TypeError is ever raised; permuting the items
(questions, entries, claims) leaves the corpus numbers unchanged; perfect predictions score 1; and
(TempBench) adding a non-gold triple never raises TRP. Inputs stay small: evaluate's Arrow round
trip dominates the cost.
"""

import math
import random

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed (the test extra)")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from conftest import load_metric  # noqa: E402

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALLOWED = (ValueError, TypeError)
RAW = (KeyError, IndexError, RecursionError, OverflowError, StopIteration, UnicodeError, AttributeError)


def compute_or_documented_error(module, **inputs):
    """`module.compute(**inputs)`, or None when it raised a documented error (ValueError/TypeError)."""
    try:
        return module.compute(**inputs)
    except RAW as err:
        pytest.fail(f"raw {type(err).__name__} from well-formed input: {err}")
    except ALLOWED:
        return None


def permuted(items, seed):
    order = list(range(len(items)))
    random.Random(seed).shuffle(order)
    return order


def same_numbers(a, b, path="result"):
    """Equal corpus numbers (floats to 1e-12; the order of summation may change the last bits)."""
    if isinstance(a, dict):
        assert set(a) == set(b), f"{path}: keys differ"
        for key in a:
            if key in ("signature", "per_claim"):
                continue
            same_numbers(a[key], b[key], f"{path}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{path}: lengths differ"
        for i, (x, y) in enumerate(zip(a, b)):
            same_numbers(x, y, f"{path}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert a is not None and b is not None and math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), \
            f"{path}: {a!r} != {b!r}"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


# -- MC-TACO -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mctaco():
    return load_metric("mctaco")


LABEL = st.sampled_from(["yes", "no", "Yes", "NO", 0, 1, True, False])
MCTACO_QUESTIONS = st.lists(
    st.tuples(st.text(min_size=1, max_size=8), st.lists(st.tuples(LABEL, LABEL), min_size=1, max_size=4)),
    min_size=1, max_size=5, unique_by=lambda q: q[0])


def mctaco_rows(questions):
    rows = [(qid, pred, gold) for qid, candidates in questions for pred, gold in candidates]
    return ([p for _, p, _ in rows], [g for _, _, g in rows], [q for q, _, _ in rows])


@SETTINGS
@given(questions=MCTACO_QUESTIONS, seed=st.integers(0, 2 ** 16))
def test_mctaco_random_input_and_permutation(mctaco, questions, seed):
    preds, golds, qids = mctaco_rows(questions)
    result = compute_or_documented_error(mctaco, predictions=preds, references=golds, question_id=qids)
    if result is None:
        return
    order = permuted(preds, seed)
    shuffled = mctaco.compute(predictions=[preds[i] for i in order], references=[golds[i] for i in order],
                              question_id=[qids[i] for i in order])
    same_numbers({k: result[k] for k in ("em", "f1", "n_questions")},
                 {k: shuffled[k] for k in ("em", "f1", "n_questions")})


@SETTINGS
@given(questions=MCTACO_QUESTIONS)
def test_mctaco_perfect_predictions_score_one(mctaco, questions):
    _, golds, qids = mctaco_rows(questions)
    result = mctaco.compute(predictions=golds, references=golds, question_id=qids)
    assert result["em"] == 1 and result["f1"] == 1, result


# -- TempBench ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tempbench():
    return load_metric("tempbench_trp")


NAMES = st.sampled_from(["Ada", "Bea", "Rovers", "United", "Oslo", "Park"])
RELATIONS = st.sampled_from(["team", "coach", "residence", "venue"])
YEAR = st.integers(1950, 2020)


@st.composite
def tempbench_question(draw):
    t_query = draw(YEAR)
    gold = draw(st.lists(st.tuples(NAMES, RELATIONS, NAMES), min_size=1, max_size=3, unique=True))
    spans = [(t_query - draw(st.integers(0, 10)), t_query + draw(st.integers(0, 10))) for _ in gold]
    return {"t_query": float(t_query), "gold": [{"s": s, "r": r, "o": o} for s, r, o in gold],
            "evidence": [{"s": s, "r": r, "o": o, "t_start": float(a), "t_end": float(b)}
                         for (s, r, o), (a, b) in zip(gold, spans)]}


TEMPBENCH_QUESTIONS = st.lists(tempbench_question(), min_size=1, max_size=4)


def tempbench_inputs(questions, evidence=None):
    return dict(predictions=evidence or [q["evidence"] for q in questions], references=[q["gold"] for q in questions],
                t_query=[q["t_query"] for q in questions])


@SETTINGS
@given(questions=TEMPBENCH_QUESTIONS)
def test_tempbench_gold_evidence_holding_at_t_query_scores_one(tempbench, questions):
    result = tempbench.compute(**tempbench_inputs(questions))
    assert result["TRP_macro"] == 1 and result["TRP_micro"] == 1 and result["CCR"] == 1, result


@SETTINGS
@given(questions=TEMPBENCH_QUESTIONS, extra=st.tuples(NAMES, RELATIONS, NAMES, YEAR, YEAR), where=st.integers(0, 100),
       position=st.integers(0, 100))
def test_tempbench_adding_a_non_gold_triple_never_raises_trp(tempbench, questions, extra, where, position):
    s, r, o, a, b = extra
    q = questions[where % len(questions)]
    if {"s": s, "r": r, "o": o} in q["gold"]:
        return  # only non-gold triples
    before = tempbench.compute(**tempbench_inputs(questions))
    evidence = [list(x["evidence"]) for x in questions]
    target = evidence[where % len(questions)]
    target.insert(position % (len(target) + 1), {"s": s, "r": r, "o": o, "t_start": float(min(a, b)),
                                                  "t_end": float(max(a, b))})
    after = tempbench.compute(**tempbench_inputs(questions, evidence))
    assert after["TRP_macro"] <= before["TRP_macro"] and after["TRP_micro"] <= before["TRP_micro"], (before, after)


@SETTINGS
@given(questions=TEMPBENCH_QUESTIONS, drop=st.lists(st.booleans(), min_size=12, max_size=12),
       seed=st.integers(0, 2 ** 16))
def test_tempbench_random_evidence_and_permutation(tempbench, questions, drop, seed):
    # random evidence: some gold triples dropped, times shifted off t_query
    evidence = []
    for i, q in enumerate(questions):
        kept = []
        for j, triple in enumerate(q["evidence"]):
            if drop[(i * 3 + j) % len(drop)]:
                kept.append(dict(triple, t_start=triple["t_start"] + 30, t_end=triple["t_end"] + 30))
            else:
                kept.append(triple)
        evidence.append(kept)
    result = compute_or_documented_error(tempbench, **tempbench_inputs(questions, evidence))
    if result is None:
        return
    order = permuted(questions, seed)
    shuffled = tempbench.compute(**tempbench_inputs([questions[i] for i in order], [evidence[i] for i in order]))
    keys = ("n_questions", "coverage", "TRP_macro", "TRP_micro", "CCR")
    same_numbers({k: result[k] for k in keys}, {k: shuffled[k] for k in keys})


# -- WebNLG ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def webnlg():
    return load_metric("webnlg_rdf")


# Quoted literals ('"almond jam"') are left out of the random entities: the official script strips
# quotes from references only (an official quirk, see test_webnlg_quoted_literal_quirk_warns).
ENTITIES = st.sampled_from(["Alan_Bean", "Test_pilot", "Wheeler,_Texas", "Aarhus", "Jacob_Bundsgaard", "Dessert",
                            "Bakewell_pudding", "1932-03-15", "almond jam"])
PREDICATES = st.sampled_from(["occupation", "birthPlace", "leader", "course", "region", "mainIngredient"])
TRIPLE = st.builds(lambda s, p, o: f"{s} | {p} | {o}", ENTITIES, PREDICATES, ENTITIES)
ENTRIES = st.lists(st.tuples(st.lists(TRIPLE, min_size=1, max_size=4, unique=True),
                             st.lists(TRIPLE, min_size=0, max_size=4, unique=True)), min_size=1, max_size=4)


@SETTINGS
@given(entries=ENTRIES, seed=st.integers(0, 2 ** 16))
def test_webnlg_random_input_and_permutation(webnlg, entries, seed):
    refs, cands = [r for r, _ in entries], [c for _, c in entries]
    result = compute_or_documented_error(webnlg, predictions=cands, references=refs)
    if result is None:
        return
    order = permuted(entries, seed)
    shuffled = webnlg.compute(predictions=[cands[i] for i in order], references=[refs[i] for i in order])
    same_numbers(result, shuffled)


@SETTINGS
@given(entries=ENTRIES)
def test_webnlg_perfect_predictions_score_one(webnlg, entries):
    refs = [r for r, _ in entries]
    result = webnlg.compute(predictions=refs, references=refs)
    for scheme, scores in result["Total_scores"].items():
        assert scores["F1"] == 1, (scheme, scores)
    for tag, schemes in result["Scores_per_tag"].items():
        for scheme, scores in schemes.items():
            assert scores["F1"] == 1, (tag, scheme, scores)
    assert result["Exact_match"]["F1"] == 1, result["Exact_match"]


def test_webnlg_quoted_literal_quirk_warns(webnlg):
    """A perfect prediction with a quoted object scores below 1 (the official quote asymmetry, kept for
    parity): the number changes, so the result must carry a named warning."""
    refs = [['Bakewell_pudding | mainIngredient | "almond jam"']]
    result = webnlg.compute(predictions=refs, references=refs)
    if all(s["F1"] == 1 for s in result["Total_scores"].values()):
        return
    warnings_ = result.get("warnings")
    assert isinstance(warnings_, list) and any("quot" in w.lower() for w in warnings_), \
        f"a perfect prediction scores {result['Total_scores']['Exact']['F1']} Exact F1 with no warning"


# -- TSVer -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tsver():
    return load_metric("tsver")


TSVER_LABELS = ["Supported", "Cherry-Picking/Conflicting Evidence", "Refuted", "Not Enough Evidence"]
SERIES = st.dictionaries(st.sampled_from(["rainfall", "gdp", "co2", "population"]),
                         st.lists(st.tuples(st.integers(1990, 2020), st.integers(0, 10)), min_size=1, max_size=2),
                         min_size=1, max_size=3)
FREE_VERDICTS = st.sampled_from(TSVER_LABELS + ["supported.", "REFUTED", "conflicting", "not enough info", "error",
                                                "maybe", None])


def time_series(series):
    return [{"series": name, "ranges": [{"from": a, "to": a + n} for a, n in spans]} for name, spans in series.items()]


CLAIMS = st.lists(st.tuples(st.sampled_from(TSVER_LABELS), SERIES, FREE_VERDICTS, SERIES), min_size=1, max_size=5)


def tsver_inputs(claims):
    refs = [{"claim": f"claim {i}", "verdict": gold, "justifications": ["j"], "time_series": time_series(gs)}
            for i, (gold, gs, _, _) in enumerate(claims)]
    preds = [{"verdict": verdict, "explanation": None if verdict is None else "e",
              "time_series": None if verdict is None else time_series(ps)}
             for _, _, verdict, ps in claims]
    return preds, refs


@SETTINGS
@given(claims=CLAIMS, seed=st.integers(0, 2 ** 16))
def test_tsver_random_input_and_permutation(tsver, claims, seed):
    preds, refs = tsver_inputs(claims)
    with _any_warnings():
        result = compute_or_documented_error(tsver, predictions=preds, references=refs)
        if result is None:
            return
        order = permuted(claims, seed)
        shuffled = tsver.compute(predictions=[preds[i] for i in order], references=[refs[i] for i in order])
    keys = ("verdict_accuracy", "verdict_macro_f1", "tscs", "iou", "precision", "recall", "f1", "n_claims",
            "n_scored", "n_in_tscs", "n_correct", "n_unmatched", "n_errors", "n_missing", "confusion_matrix")
    same_numbers({k: result[k] for k in keys}, {k: shuffled[k] for k in keys})


@SETTINGS
@given(claims=CLAIMS)
def test_tsver_perfect_predictions_score_one(tsver, claims):
    _, refs = tsver_inputs(claims)
    preds = [{"verdict": r["verdict"], "explanation": "e", "time_series": r["time_series"]} for r in refs]
    result = tsver.compute(predictions=preds, references=refs)
    # (macro-F1 is over all four labels, officially: below 1 when a label never occurs in the gold)
    assert result["verdict_accuracy"] == 1, result
    assert result["tscs"] == pytest.approx(1, abs=1e-12), result


class _any_warnings:
    """Records (and so silences) the TSVer warnings a random run may raise on purpose."""

    def __enter__(self):
        import warnings

        self._context = warnings.catch_warnings(record=True)
        self._context.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        return self._context.__exit__(*exc)
