"""WebNLG's speed floor (`scripts/bench_webnlg.py`'s `floor`, a row of `scripts/bench.py`) times the work a
command does: the distinct pairs the scorer scores, and the kernel's counts the scorer's (it times nothing here)."""

import functools
import importlib.util
import sys
import xml.etree.ElementTree as ElementTree

import pytest
from conftest import REPO

EXAMPLES = REPO / "metrics" / "webnlg_rdf" / "examples"


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # it imports bench_tsver's timer
    spec = importlib.util.spec_from_file_location("bench_webnlg", REPO / "scripts" / "bench_webnlg.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("bench_tsver", None)


def parse(*paths):
    return [ElementTree.parse(path) for path in paths]


def test_floor_counts_the_pairs_and_elements_the_command_scores(bench):
    from benchscore.webnlg_rdf import files, scoring

    found = bench.floor(EXAMPLES / "refs.xml", EXAMPLES / "cands.xml", parse, repeat=1)
    assert all(found[part] > 0 for part in ("parse", "tokenize", "pairs"))
    bench.clear_caches()
    files.score_files(EXAMPLES / "refs.xml", EXAMPLES / "cands.xml")
    assert found["distinct_pairs"] == scoring.pair_result.cache_info().misses > 0  # each distinct pair scored once
    assert 0 < found["elements"] <= scoring._element_tokens.cache_info().currsize


def test_floor_refuses_counts_that_are_not_the_scorers(bench, monkeypatch):
    real = bench.scoring.pair_result

    @functools.lru_cache  # (clear_caches clears it)
    def miscounted(ref, cand):
        found = real(ref, cand)
        return found._replace(counts=found.counts[::-1])

    monkeypatch.setattr(bench.scoring, "pair_result", miscounted)
    with pytest.raises(AssertionError, match="the kernel's counts differ from the scorer's"):
        bench.floor(EXAMPLES / "refs.xml", EXAMPLES / "cands.xml", parse, repeat=1)
