"""What the harness end-to-end tests share: a tiny causal LM built once per session, WebNLG XML
writers for the references and candidates a run covered, and `benchscore` run as a command."""

import importlib.util
import os
import subprocess
import sys
from xml.sax.saxutils import escape

from conftest import REPO
from conftest import shared_path

FIT_ENTRIES = 4  # the tiny model is fitted on the first WebNLG entries so that it writes some triples
MCTACO_ROWS = 24

_spec = importlib.util.spec_from_file_location("make_tiny_lm", REPO / "scripts" / "make_tiny_lm.py")
make_tiny_lm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_tiny_lm)
_built = {}


def offline_env(**extra):
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_EVALUATE_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               TOKENIZERS_PARALLELISM="false", DISABLE_MULTIPROC="1")
    env.update(extra)
    return env


def tiny_model(tmp_path_factory):
    """The folder of a tiny GPT-2 (2 layers, hidden 32) with a byte-level BPE tokenizer trained on the
    first MC-TACO test rows and fitted on the first WebNLG entries; built once per session."""
    if "path" not in _built:
        from benchscore.mctaco.files import read_references as read_tsv

        mctaco_dir, webnlg_dir = shared_path("data", "mctaco"), shared_path("data", "webnlg")
        texts = [field for row in read_tsv(mctaco_dir / "test_9442.tsv")[:MCTACO_ROWS] for field in row.values()]
        fit_pairs = make_tiny_lm.webnlg_fit_pairs(FIT_ENTRIES, data_dir=str(webnlg_dir))
        _built["path"] = make_tiny_lm.build(str(tmp_path_factory.mktemp("tiny_lm")), texts, fit_pairs)
    return _built["path"]


def benchscore_cli(*args):
    done = subprocess.run([sys.executable, "-m", "benchscore", *args], capture_output=True, text=True, env=offline_env())
    assert done.returncode == 0, done.stderr
    return done.stdout


def write_references(path, entries):
    body = "".join(
        f'<entry category="{escape(e["category"] or "")}" eid="{escape(e["eid"] or "")}" size="{e["size"]}">'
        "<modifiedtripleset>" + "".join(f"<mtriple>{escape(t)}</mtriple>" for t in e["triples"])
        + "</modifiedtripleset>" + "".join(f'<lex lid="{i}">{escape(lex)}</lex>' for i, lex in enumerate(e.get("lexicalisations", []), 1))
        + "</entry>\n" for e in entries)
    path.write_text(f"<?xml version='1.0' encoding='utf-8'?>\n<benchmark><entries>\n{body}</entries></benchmark>\n",
                    encoding="utf-8")


def write_candidates(path, triples_per_entry):
    body = "".join("<entry><generatedtripleset>" + "".join(f"<gtriple>{escape(t)}</gtriple>" for t in triples)
                   + "</generatedtripleset></entry>\n" for triples in triples_per_entry)
    path.write_text(f"<?xml version='1.0' encoding='utf-8'?>\n<benchmark><entries>\n{body}</entries></benchmark>\n",
                    encoding="utf-8")


def rebuild_triples(generations, references):
    """(candidates, unparseable lines, unscorable triples): each generation parsed with the task's
    documented parsing, the triples past the scorer's limits left out and counted."""
    from benchscore.harness import tasks

    candidates, unparseable, unscorable = [], 0, 0
    for generation, reference in zip(generations, references):
        triples, bad_lines = tasks.parse_triples(generation)
        kept, dropped = tasks.scorable_triples(reference["triples"], triples)
        candidates.append(kept)
        unparseable += bad_lines
        unscorable += dropped
    assert sum(map(len, candidates)) > 0, "the fitted tiny model should write some triples"
    return candidates, unparseable, unscorable


def assert_webnlg_f1s_equal(result, official, suffix=""):
    """The harness's five F1s (keys + `suffix`, e.g. lm-eval's ",none") equal `benchscore webnlg`'s JSON."""
    assert result[f"strict_f1{suffix}"] == official["Total_scores"]["Strict"]["F1"]
    assert result[f"exact_f1{suffix}"] == official["Total_scores"]["Exact"]["F1"]
    assert result[f"partial_f1{suffix}"] == official["Total_scores"]["Partial"]["F1"]
    assert result[f"ent_type_f1{suffix}"] == official["Total_scores"]["Ent_type"]["F1"]
    assert result[f"triple_f1{suffix}"] == official["Exact_match"]["F1"]
