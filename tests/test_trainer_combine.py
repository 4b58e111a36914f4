"""`evaluate.combine` with our modules: what works, and what evaluate 0.4.6 itself refuses.

combine's `add`/`add_batch` give each module only its own features, but `compute(**kwargs)` sends
every keyword to every module. So: pass per-example features (question_id, t_query, category, ...)
through `add_batch`, every declared feature of every module (None for the optional ones you do not
use), then call `compute()` with no keywords (or only keywords every module accepts). A second
module here is a small hand-written one standing in for a Hub metric such as `accuracy`.
"""

import textwrap

import evaluate
import pytest

from conftest import load_metric

STAND_IN = '''
"""{doc}"""

import datasets
import evaluate


class {name}(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(description="{doc}", citation="", inputs_description="",
                                   features=datasets.Features({{"predictions": {feature}, "references": {feature}}}))

    def _compute(self, predictions, references):
        return {{"{key}": sum(p == r for p, r in zip(predictions, references)) / len(references)}}
'''


def stand_in(tmp_path, folder, name, feature, key):
    """A minimal metric module in tmp_path/folder: the share of equal predictions and references."""
    (tmp_path / folder).mkdir()
    code = STAND_IN.format(doc=f"Share of equal {folder} (a stand-in for a Hub metric).", name=name, feature=feature,
                           key=key)
    (tmp_path / folder / f"{folder}.py").write_text(textwrap.dedent(code))
    return evaluate.load(str(tmp_path / folder))


MCTACO = {"predictions": ["yes", "no", "no", "yes"], "references": ["yes", "yes", "no", "yes"],
          "question_id": ["a", "a", "b", "c"]}


def test_one_of_our_modules_alone_takes_all_its_keywords():
    combined = evaluate.combine([load_metric("mctaco")])
    assert combined.compute(**MCTACO) == load_metric("mctaco").compute(**MCTACO)
    refs = [["Alan_Bean | occupation | Test_pilot"]]
    preds = [["Alan_Bean | occupation | Test_pilot_school"]]
    combined = evaluate.combine([load_metric("webnlg_rdf", "breakdown")])
    result = combined.compute(predictions=preds, references=refs, category=["Astronaut"])
    assert result == load_metric("webnlg_rdf", "breakdown").compute(predictions=preds, references=refs,
                                                                     category=["Astronaut"])


def test_with_another_module_features_go_through_add_batch(tmp_path):
    accuracy = stand_in(tmp_path, "label_accuracy", "LabelAccuracy", 'datasets.Value("string")', "accuracy")
    combined = evaluate.combine([load_metric("mctaco"), accuracy])
    # Every mctaco feature must be named (None for the optional ones): combine indexes them itself.
    combined.add_batch(**MCTACO, sentence=None, question=None, category=None)
    result = combined.compute()
    assert result == {**load_metric("mctaco").compute(**MCTACO), "accuracy": 0.75}

    # Named modules and prefixes keep keys apart (both would otherwise be flat).
    combined = evaluate.combine({"mctaco": load_metric("mctaco"), "label": accuracy}, force_prefix=True)
    combined.add_batch(**MCTACO, sentence=None, question=None, category=None)
    result = combined.compute()
    assert (result["mctaco_em"], result["label_accuracy"]) == (2 / 3, 0.75)
    assert result["mctaco_signature"].startswith("mctaco|")


def test_webnlg_combines_with_a_module_of_the_same_inputs(tmp_path):
    same_sets = stand_in(tmp_path, "triple_lists", "TripleLists", 'datasets.List(datasets.Value("string"))',
                         "identical_entries")
    refs = [["A | b | C"], ["D | e | F", "D | g | H"]]
    preds = [["A | b | C"], ["D | e | F"]]
    result = evaluate.combine([load_metric("webnlg_rdf"), same_sets]).compute(predictions=preds, references=refs)
    assert result["identical_entries"] == 0.5
    assert result["Total_scores"] == load_metric("webnlg_rdf").compute(predictions=preds, references=refs)["Total_scores"]


def test_what_evaluate_refuses(tmp_path):
    """Upstream behaviour (evaluate 0.4.6), documented; if these start passing, update the docs."""
    accuracy = stand_in(tmp_path, "label_accuracy", "LabelAccuracy", 'datasets.Value("string")', "accuracy")
    # compute() sends question_id (and options such as TSVer's strict) to every module.
    with pytest.raises(TypeError, match="unexpected keyword argument 'question_id'"):
        evaluate.combine([load_metric("mctaco"), accuracy]).compute(**MCTACO)
    # add_batch without the optional features: a bare KeyError from combine itself.
    with pytest.raises(KeyError, match="sentence"):
        evaluate.combine([load_metric("mctaco"), accuracy]).add_batch(**MCTACO)
    # The two WebNLG configurations cannot share inputs: only "breakdown" takes a category.
    with pytest.raises(ValueError, match="category is a feature of the 'breakdown' configuration"):
        evaluate.combine({"plain": load_metric("webnlg_rdf"), "breakdown": load_metric("webnlg_rdf", "breakdown")}).compute(
            predictions=[["A | b | C"]], references=[["A | b | C"]], category=["X"])
