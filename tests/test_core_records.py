"""The small types of a result (issue 21): a `Signature` formats itself from its fields and is never
parsed back; a `Note` (a warning) carries its kind, and code keeps or drops notes by kind, not text."""

import copy
import json
import pickle

import pytest

from benchscore.core.records import Note, Signature, extended


def test_a_signature_is_its_text_and_keeps_its_fields():
    sig = Signature("toy", version="1.0.0", strict="no")
    assert sig == "toy|version:1.0.0|strict:no" and json.dumps({"s": sig}) == '{"s": "toy|version:1.0.0|strict:no"}'
    assert sig.name == "toy" and sig.fields == {"version": "1.0.0", "strict": "no"}
    longer = sig.plus({"bootstrap": 1000, "seed": 7})
    assert longer == "toy|version:1.0.0|strict:no|bootstrap:1000|seed:7" and longer.fields["seed"] == "7"
    assert sig.fields == {"version": "1.0.0", "strict": "no"}  # plus makes a new one


def test_a_field_given_twice_is_refused():
    with pytest.raises(ValueError, match=r"already has \['seed'\]"):
        Signature("toy", seed=1).plus(seed=2)


def test_records_survive_pickling_and_copying_with_their_fields():
    sig, note = Signature("toy", a=1).plus(b=2), Note("empty_verdicts", "2 verdicts are empty")
    for copied in (pickle.loads(pickle.dumps(sig)), copy.deepcopy(sig)):
        assert copied == sig and copied.fields == sig.fields and type(copied) is Signature
    for copied in (pickle.loads(pickle.dumps(note)), copy.deepcopy(note)):
        assert copied == note and copied.kind == "empty_verdicts"


def test_extending_a_plain_string_keeps_its_text_whole():
    # a result read back from JSON has a plain str: it is not parsed, only continued
    assert extended("toy|version:1", {"seed": 3}) == "toy|version:1|seed:3"
    assert extended("toy|version:1", {"seed": 3}).name == "toy|version:1"


def test_a_reworded_note_keeps_its_kind():
    note = Note("unmatched_verdicts", "1 verdict matches no label")
    moved = note.reworded(f"preds.jsonl: {note}")
    assert moved == "preds.jsonl: 1 verdict matches no label" and moved.kind == "unmatched_verdicts"


def test_tsver_file_ev2r_drops_notes_by_kind_not_by_their_words():
    """The claim-aligned Ev2R notes are replaced by the file's; a reworded note of the same kind is still
    dropped, and another kind that happens to share the words is kept."""
    from benchscore.tsver import scoring

    result = {"n_ev2r_judged": 1, "warnings": [Note("ev2r_failures", "reworded: the judge failed once"),
                                              Note("duplicate_gold_claims", "Ev2R over: not about Ev2R at all")]}
    records = [dict.fromkeys(scoring.EV2R_KEYS, 1)] * 2
    kept = scoring.file_ev2r(result, records)["warnings"]
    assert [w.kind for w in kept] == ["duplicate_gold_claims", "ev2r_file_records"]


def test_the_module_examples_run():
    import doctest

    from benchscore.core import records

    assert doctest.testmod(records).failed == 0 and doctest.testmod(records).attempted >= 5
