"""TempBench properties (issue 12), on random well-formed questions and runs (hypothesis)."""

import random

import pytest

from benchscore.tempbench_trp import scoring

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed (the test extra)")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

NAMES = st.sampled_from(["Ada", "Bea", "Rovers", "United", "Oslo"])
RELATIONS = st.sampled_from(["member of", "coach", "residence"])
YEARS = st.one_of(st.integers(1900, 2030), st.floats(1900, 2030), st.sampled_from(["1994", "inf", "-inf", 1994.5]))
TRIPLE = st.tuples(NAMES, RELATIONS, NAMES)


@st.composite
def question_and_run(draw):
    gold = draw(st.lists(TRIPLE, max_size=4))
    t_query = draw(st.integers(1950, 2000))
    evidence = []
    for _ in range(draw(st.integers(0, 8))):
        triple = draw(st.sampled_from(gold)) if gold and draw(st.booleans()) else draw(TRIPLE)
        start, end = draw(YEARS), draw(YEARS)
        evidence.append(triple + (start, end) if draw(st.booleans()) else
                        dict(zip(("s", "r", "o"), triple), t_start=start, t_end=end))
    question = {"id": draw(st.text(max_size=5)), "t_query": t_query,
                "complexity": draw(st.sampled_from(["1hop", "2hop", None])), "operator_type": "x",
                "S_star": [dict(zip(("s", "r", "o"), g)) for g in gold]}
    return question, evidence


RUNS = st.lists(question_and_run(), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(RUNS)
def test_well_formed_runs_score_within_bounds(run):
    stats = scoring.item_stats(*zip(*run))
    for item, (question, evidence) in zip(stats, run):
        assert item.n_ret == len(evidence) and 0 <= item.hits <= item.n_ret
        assert item.trp is None if not evidence else 0 <= item.trp <= 1
        assert item.n_gold == len({(g["s"], g["r"], g["o"]) for g in question["S_star"]})
    result = scoring.score(*zip(*run))
    assert all(0 <= result[k] <= 1 for k in ("coverage", "TRP_macro", "TRP_micro", "CCR"))


@settings(max_examples=100, deadline=None)
@given(RUNS, st.randoms(use_true_random=False))
def test_permuting_questions_leaves_the_numbers(run, rng):
    shuffled = run[:]
    rng.shuffle(shuffled)
    a, b = scoring.score(*zip(*run)), scoring.score(*zip(*shuffled))
    for key in ("n_questions", "coverage", "TRP_micro", "CCR"):
        assert a[key] == pytest.approx(b[key], abs=1e-12)
    assert a["TRP_macro"] == pytest.approx(b["TRP_macro"], abs=1e-12)  # float sums in another order


@settings(max_examples=100, deadline=None)
@given(RUNS)
def test_perfect_evidence_scores_one(run):
    perfect = [[(g["s"], g["r"], g["o"], q["t_query"], q["t_query"]) for g in q["S_star"]] for q, _ in run]
    for item in scoring.item_stats([q for q, _ in run], perfect):
        assert (item.trp, item.ccr) == ((1.0, 1) if item.n_gold else (None, 0))


@settings(max_examples=100, deadline=None)
@given(question_and_run(), TRIPLE)
def test_adding_a_non_gold_triple_never_raises_trp(case, extra):
    question, evidence = case
    gold = {(g["s"], g["r"], g["o"]) for g in question["S_star"]}
    hypothesis.assume(extra not in gold)
    before = scoring.item_stats([question], [evidence])[0]
    for position in {0, len(evidence) // 2, len(evidence)}:
        longer = evidence[:position] + [extra + (question["t_query"], question["t_query"])] + evidence[position:]
        after = scoring.item_stats([question], [longer])[0]
        assert after.hits == before.hits and (before.trp is None or after.trp <= before.trp)


def test_a_random_run_is_the_same_through_files(tmp_path):
    """Streaming from files gives the numbers of the in-memory path (a seeded random run)."""
    import json

    from benchscore.tempbench_trp import files

    rng = random.Random(7)
    questions = [{"id": f"q{i}", "t_query": 1994, "S_star": [{"s": "A", "r": "r", "o": f"B{i % 3}"}],
                  "complexity": rng.choice(["1hop", "2hop"]), "operator_type": "x"} for i in range(50)]
    runs = [[["A", "r", f"B{rng.randrange(3)}", rng.choice([1990, 1994]), 1994] for _ in range(rng.randrange(4))]
            for _ in questions]
    (tmp_path / "q.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    (tmp_path / "e.jsonl").write_text("".join(json.dumps({"id": q["id"], "evidence": e}) + "\n"
                                              for q, e in zip(questions, runs)), encoding="utf-8")
    streamed = files.score_files(tmp_path / "q.jsonl", tmp_path / "e.jsonl")
    assert streamed.pop("n_evidence_unused") == 0
    assert streamed == scoring.score(questions, runs)
