"""The per-folder `trainer.compute_metrics_for` helpers: unit tests with hand-made EvalPredictions (no
transformers needed), then a real `transformers.Trainer` on the CPU with tiny models built from a
config and tokenizers built here (skipped where torch/transformers are not installed)."""

import collections
import json

import datasets
import numpy as np
import pytest

from benchscore import BENCHMARKS
from benchscore.mctaco import scoring as mctaco_scoring
from benchscore.mctaco import trainer as mctaco_trainer
from benchscore.tempbench_trp import files as tempbench_files
from benchscore.tempbench_trp import loader as tempbench_loader
from benchscore.tempbench_trp import scoring as tempbench_scoring
from benchscore.tempbench_trp import trainer as tempbench_trainer
from benchscore.tsver import loader as tsver_loader
from benchscore.tsver import scoring as tsver_scoring
from benchscore.tsver import trainer as tsver_trainer
from benchscore.webnlg_rdf import scoring as webnlg_scoring
from benchscore.webnlg_rdf import trainer as webnlg_trainer
from conftest import METRICS
from conftest import load_metric
from conftest import shared_path

# What the helpers read of transformers' EvalPrediction.
EvalPred = collections.namedtuple("EvalPred", "predictions label_ids")


def run_batches(compute_metrics, logits, label_ids, batch_size):
    """Calls the helper as the Trainer does with batch_eval_metrics=True; returns the last call's metrics."""
    metrics = None
    for start in range(0, len(logits), batch_size):
        stop = start + batch_size
        metrics = compute_metrics(EvalPred(logits[start:stop], label_ids[start:stop]), compute_result=stop >= len(logits))
    return metrics


# ---------------------------------------------------------------- layout

TRAINER_FOLDERS = sorted(b.folder for b in BENCHMARKS.values() if (METRICS / b.folder / "trainer.py").exists())


def test_every_benchmark_has_a_trainer_helper():
    assert TRAINER_FOLDERS == sorted(b.folder for b in BENCHMARKS.values())


def test_the_shared_trainer_base_needs_neither_transformers_nor_torch_nor_evaluate():
    source = (METRICS / "core" / "trainer.py").read_text()
    imports = [line.strip() for line in source.splitlines() if line.strip().startswith(("import ", "from "))]
    assert imports == ["import numpy as np", "import benchscore"]


# ---------------------------------------------------------------- MC-TACO, hand-made rows

def mctaco_rows():
    """Nine candidates of four questions (q2's candidates are not consecutive), hand-written."""
    question_id = ["q1", "q1", "q1", "q2", "q2", "q3", "q2", "q4", "q4"]
    label = [1, 0, 1, 0, 0, 1, 1, 0, 0]
    category = [0, 0, 0, 2, 2, 4, 2, 1, 1]
    return datasets.Dataset.from_dict({"question_id": question_id, "label": label, "category": category})


def mctaco_logits(seed, n):
    return np.random.default_rng(seed).normal(size=(n, 2)).astype(np.float32)


@pytest.mark.parametrize("batch_size", [1, 2, 4, 9])
def test_mctaco_whole_set_and_batches_equal_the_pure_function(batch_size):
    rows = mctaco_rows()
    logits = mctaco_logits(0, len(rows))
    label_ids = np.array(rows["label"])
    yes = logits.argmax(axis=1) == 1
    assert 0 < yes.sum() < len(yes)  # a real mix of yes and no
    expected = mctaco_scoring.score(list(yes), rows["label"], rows["question_id"])

    whole = mctaco_trainer.compute_metrics_for(rows)(EvalPred(logits, label_ids))
    batched = run_batches(mctaco_trainer.compute_metrics_for(rows), logits, label_ids, batch_size)
    assert whole == batched
    assert (whole["em"], whole["f1"], whole["n_questions"]) == (expected["em"], expected["f1"], expected["n_questions"])
    assert whole["signature"] == "mctaco|version:1.0.0|benchscore:0.1.0|key:question_id|labels:normalized"


def test_lists_of_batches_are_concatenated():
    """TrainingArguments(eval_do_concat_batches=False) hands over one array per batch."""
    rows = mctaco_rows()
    logits, label_ids = mctaco_logits(5, len(rows)), np.array(rows["label"])
    as_batches = EvalPred([logits[:4], logits[4:]], [label_ids[:4], label_ids[4:]])
    assert mctaco_trainer.compute_metrics_for(rows)(as_batches) == \
        mctaco_trainer.compute_metrics_for(rows)(EvalPred(logits, label_ids))
    claims = tsver_claims()
    logits, label_ids = np.random.default_rng(5).normal(size=(5, 4)), tsver_label_ids(claims)
    as_batches = EvalPred([logits[:2], logits[2:]], [label_ids[:2], label_ids[2:]])
    assert tsver_trainer.compute_metrics_for(claims)(as_batches) == \
        tsver_trainer.compute_metrics_for(claims)(EvalPred(logits, label_ids))


def test_mctaco_single_logit_and_flattened_categories():
    rows = mctaco_rows()
    logit = np.array([[2.0], [-1.0], [0.5], [-3.0], [1.0], [0.1], [0.2], [-0.1], [0.0]])
    compute_metrics = mctaco_trainer.compute_metrics_for(rows, category_column="category")
    metrics = compute_metrics(EvalPred(logit, np.array(rows["label"])))
    yes = logit.reshape(-1) > 0  # 0.0 is "no"
    categories = [mctaco_scoring.CATEGORIES[c] for c in rows["category"]]
    expected = mctaco_scoring.score(list(yes), rows["label"], rows["question_id"], categories)
    assert metrics["em"] == expected["em"] and metrics["f1"] == expected["f1"]
    for name, values in expected["extension_per_category"].items():
        for key, value in values.items():
            assert metrics[f"extension_per_category/{name}/{key}"] == value
    # Every logged value is flat; the nested result is kept whole.
    assert not any(isinstance(value, (dict, list)) for value in metrics.values())
    assert compute_metrics.last_result["extension_per_category"] == expected["extension_per_category"]


def test_mctaco_compute_kwargs_reach_the_module_both_ways():
    rows = mctaco_rows()
    logits, label_ids = mctaco_logits(1, len(rows)), np.array(rows["label"])
    kwargs = {"confidence": 0.9, "n_resamples": 50, "seed": 3}
    whole = mctaco_trainer.compute_metrics_for(rows, compute_kwargs=kwargs)(EvalPred(logits, label_ids))
    batched = run_batches(mctaco_trainer.compute_metrics_for(rows, compute_kwargs=kwargs), logits, label_ids, 4)
    assert whole == batched
    assert whole["signature"] != "mctaco|version:1.0.0|benchscore:0.1.0|key:question_id|labels:normalized"  # named


def test_mctaco_misaligned_or_malformed_predictions_are_clear_errors():
    rows = mctaco_rows()
    logits, label_ids = mctaco_logits(0, len(rows)), np.array(rows["label"])
    compute_metrics = mctaco_trainer.compute_metrics_for(rows)
    with pytest.raises(ValueError, match=r"row 1 \(question_id 'q1'\).*not in the dataset's order"):
        compute_metrics(EvalPred(logits, label_ids[[0, 2, 1, 3, 4, 5, 6, 7, 8]]))
    with pytest.raises(ValueError, match="8 predictions for an eval dataset of 9 rows"):
        compute_metrics(EvalPred(logits[:8], label_ids[:8]))
    with pytest.raises(ValueError, match=r"logits have shape \(9, 3\)"):
        compute_metrics(EvalPred(np.zeros((9, 3)), label_ids))
    with pytest.raises(ValueError, match="row 5: the logits are NaN"):  # argmax would read NaN as the larger
        compute_metrics(EvalPred(np.where(np.arange(18).reshape(9, 2) == 11, np.nan, logits), label_ids))
    with pytest.raises(ValueError, match=r"has no column\(s\) \['question_id'\]"):
        mctaco_trainer.compute_metrics_for(rows.remove_columns("question_id"))
    with pytest.raises(ValueError, match="row 0: label is 2"):
        mctaco_trainer.compute_metrics_for(rows.cast_column("label", datasets.Value("int64")).map(lambda r: {"label": 2}))
    # Batch mode: a last batch short of the dataset, then too many rows.
    with pytest.raises(ValueError, match="ended at row 4 of an eval dataset of 9 rows"):
        compute_metrics(EvalPred(logits[:4], label_ids[:4]), compute_result=True)
    compute_metrics(EvalPred(logits[:5], label_ids[:5]), compute_result=False)
    with pytest.raises(ValueError, match=r"rows 5\.\.13"):
        compute_metrics(EvalPred(logits, label_ids), compute_result=False)


# ---------------------------------------------------------------- TSVer, hand-made claims

def tsver_claims():
    def series(name, start, stop):
        return [{"series": name, "ranges": [{"from": start, "to": stop}]}]

    rows = [
        {"claim": "Rain doubled.", "verdict": "Refuted", "justifications": ["It rose 10%."],
         "time_series": series("rain", 2000, 2010)},
        {"claim": "Fish beats grain.", "verdict": "Supported", "justifications": ["Twice as much."],
         "time_series": series("fish", 2020, 2020)},
        {"claim": "Cars halved.", "verdict": "Not Enough Evidence", "justifications": ["No data."],
         "time_series": series("cars", 1990, 1999)},
        {"claim": "Tea fell, then rose.", "verdict": "Cherry-Picking/Conflicting Evidence",
         "justifications": ["Depends on the years."], "time_series": series("tea", 2001, 2003)},
        {"claim": "Wheat is flat.", "verdict": "Supported", "justifications": ["It is."],
         "time_series": series("wheat", 2015, 2019)},
    ]
    features = datasets.Features({name: tsver_loader.FEATURES[name] for name in rows[0]})
    return datasets.Dataset.from_list(rows, features=features)


def tsver_label_ids(rows, labels=tsver_scoring.LABELS):
    return np.array([list(labels).index(verdict) for verdict in rows["verdict"]])


def tsver_pure(rows, verdicts, predicted_series=None, strict=False):
    gold = [{"Verdict": r["verdict"], "TimeSeries": tsver_scoring.ranges_from_rows(r["time_series"])} for r in rows]
    stats = [tsver_scoring.claim_item(g["Verdict"], g["TimeSeries"], {
        "verdict": v, "ranges": None if predicted_series is None else tsver_scoring.ranges_from_rows(predicted_series[i])})
        for i, (g, v) in enumerate(zip(gold, verdicts))]
    return tsver_scoring.aggregate(stats, strict=strict)


@pytest.mark.parametrize("batch_size", [1, 2, 5])
def test_tsver_whole_set_and_batches_equal_the_pure_function(batch_size):
    rows = tsver_claims()
    logits = np.random.default_rng(4).normal(size=(len(rows), 4))
    label_ids = tsver_label_ids(rows)
    predicted_series = [[{"series": "rain", "ranges": [{"from": 2005, "to": 2010}]}], None, [],
                        [{"series": "tea", "ranges": [{"from": 2001, "to": 2003}]}],
                        [{"series": "corn", "ranges": [{"from": 2015, "to": 2019}]}]]
    whole_fn = tsver_trainer.compute_metrics_for(rows, predicted_time_series=predicted_series)
    whole = whole_fn(EvalPred(logits, label_ids))
    batched = run_batches(tsver_trainer.compute_metrics_for(rows, predicted_time_series=predicted_series),
                          logits, label_ids, batch_size)
    assert whole == batched
    verdicts = [tsver_scoring.LABELS[i] for i in logits.argmax(axis=1)]
    expected = tsver_pure(rows, verdicts, predicted_series)
    assert 0 < expected["n_correct"] < len(rows) and expected["tscs"] > 0
    assert whole_fn.last_result == {**expected, "signature": whole["signature"]}
    # Logged: everything but the lists (the confusion matrix, the warnings).
    assert whole == {key: value for key, value in whole_fn.last_result.items() if not isinstance(value, list)}


def test_tsver_classifier_label_order_and_strict():
    rows = tsver_claims()
    order = ["Refuted", "Supported", "Not Enough Evidence", "Cherry-Picking/Conflicting Evidence"]
    logits = np.eye(4)[[0, 1, 1, 3, 2]]  # Refuted, Supported, Supported, Cherry, NEE
    compute_metrics = tsver_trainer.compute_metrics_for(rows, labels=order, compute_kwargs={"strict": True})
    metrics = compute_metrics(EvalPred(logits, tsver_label_ids(rows, order)))
    expected = tsver_pure(rows, ["Refuted", "Supported", "Supported", "Cherry-Picking/Conflicting Evidence",
                                 "Not Enough Evidence"], strict=True)
    assert metrics["verdict_accuracy"] == expected["verdict_accuracy"] == 0.6
    assert metrics["tscs"] == 0  # no series predicted: the official 0 for every claim
    assert metrics["signature"].startswith("tsver|version:1.0.0|benchscore:0.1.0|strict:yes")


def test_tsver_misaligned_or_malformed_predictions_are_clear_errors():
    rows = tsver_claims()
    logits, label_ids = np.zeros((5, 4)), tsver_label_ids(rows)
    compute_metrics = tsver_trainer.compute_metrics_for(rows)
    with pytest.raises(ValueError, match=r"claim 0 \('Rain doubled.'\).*label id 3 is 'Not Enough Evidence'"):
        compute_metrics(EvalPred(logits, (label_ids + 1) % 4))
    with pytest.raises(ValueError, match=r"logits have shape \(5, 2\)"):
        compute_metrics(EvalPred(np.zeros((5, 2)), label_ids))
    with pytest.raises(ValueError, match="4 predictions for an eval dataset of 5 claims"):
        compute_metrics(EvalPred(logits[:4], label_ids[:4]))
    with pytest.raises(ValueError, match=r"has no column\(s\) \['justifications'\]"):
        tsver_trainer.compute_metrics_for(rows.remove_columns("justifications"))
    with pytest.raises(ValueError, match="labels must name the classifier's classes"):
        tsver_trainer.compute_metrics_for(rows, labels=["Supported", "Refuted"])
    with pytest.raises(ValueError, match="no explanation for an Ev2R judge"):
        tsver_trainer.compute_metrics_for(rows, compute_kwargs={"ev2r_judge": lambda *args: {}})
    with pytest.raises(ValueError, match="2 predicted_time_series for 5 claims"):
        tsver_trainer.compute_metrics_for(rows, predicted_time_series=[None, None])


# ---------------------------------------------------------------- TempBench and WebNLG: decode functions

def row_numbers(n):
    """Stand-in model output: each row's own number, so a decode function can check what it is given."""
    return np.arange(n).reshape(n, 1)


def decoder(per_row, calls):
    def decode(predictions, indices):
        assert list(predictions[:, 0]) == list(indices)  # the rows it is given are the rows it is told
        calls.append(list(indices))
        return [per_row[i] for i in indices]

    return decode


@pytest.mark.parametrize("batch_size", [1, 3, 4])
def test_tempbench_whole_set_and_batches_equal_the_pure_function(batch_size):
    examples = METRICS / "tempbench_trp" / "examples"
    questions = tempbench_loader.load_tempbench(examples / "questions.jsonl")
    evidence = {line["id"]: line["evidence"] for line in map(json.loads, (examples / "evidence.jsonl").read_text().splitlines())}
    per_row = [evidence[qid] for qid in questions["id"]]
    calls = []
    compute_metrics = tempbench_trainer.compute_metrics_for(questions, decoder(per_row, calls))
    whole = compute_metrics(EvalPred(row_numbers(len(per_row)), None))
    batched = run_batches(tempbench_trainer.compute_metrics_for(questions, decoder(per_row, calls)),
                          row_numbers(len(per_row)), row_numbers(len(per_row)), batch_size)
    assert whole == batched
    assert calls[0] == [0, 1, 2, 3] and calls[1] == list(range(min(batch_size, 4)))
    expected = tempbench_scoring.score(tempbench_files.read_references(examples / "questions.jsonl"), per_row)
    assert compute_metrics.last_result == expected
    assert whole["TRP_macro"] == expected["TRP_macro"] and whole["CCR"] == expected["CCR"]
    for value, cell in expected["by_complexity"].items():
        assert whole[f"by_complexity/{value}/TRP"] == cell["TRP"]
    assert not any(isinstance(value, (dict, list)) for value in whole.values())


def test_tempbench_optional_columns_may_be_absent():
    examples = METRICS / "tempbench_trp" / "examples"
    questions = tempbench_loader.load_tempbench(examples / "questions.jsonl")
    evidence = {line["id"]: line["evidence"] for line in map(json.loads, (examples / "evidence.jsonl").read_text().splitlines())}
    per_row = [evidence[qid] for qid in questions["id"]]
    bare = questions.select_columns(["S_star", "t_query"])
    metrics = tempbench_trainer.compute_metrics_for(bare, decoder(per_row, []))(EvalPred(row_numbers(4), None))
    full = tempbench_trainer.compute_metrics_for(questions, decoder(per_row, []))(EvalPred(row_numbers(4), None))
    assert metrics["TRP_macro"] == full["TRP_macro"] and metrics["CCR"] == full["CCR"]
    assert not any(key.startswith("by_complexity/1hop") for key in metrics)  # no complexity given
    assert any(key.startswith("by_complexity/1hop") for key in full)


def test_tempbench_bad_decode_is_a_clear_error():
    examples = METRICS / "tempbench_trp" / "examples"
    questions = tempbench_loader.load_tempbench(examples / "questions.jsonl")
    compute_metrics = tempbench_trainer.compute_metrics_for(questions, lambda predictions, indices: [[]])
    with pytest.raises(ValueError, match=r"decode returned 1 items for rows 0\.\.3; expected a list of 4"):
        compute_metrics(EvalPred(row_numbers(4), None))
    with pytest.raises(ValueError, match="has no column.*t_query"):
        tempbench_trainer.compute_metrics_for(questions.remove_columns("t_query"), lambda p, i: [])
    with pytest.raises(TypeError, match="decode must be a function"):
        tempbench_trainer.compute_metrics_for(questions, None)


WEBNLG_ENTRIES = {
    "references": [["Alan_Bean | occupation | Test_pilot"],
                   ["Aarhus | leader | Jacob_Bundsgaard", "Aarhus | country | Denmark"],
                   ["Alan_Bean | birthPlace | Wheeler,_Texas"],
                   ["Ajax | ground | Amsterdam_Arena", "Ajax | league | Eredivisie", "Ajax | manager | Frank_de_Boer"]],
    "category": ["Astronaut", "City", "Astronaut", "SportsTeam"],
}
WEBNLG_DECODED = [["Alan_Bean | occupation | Test_pilot_school"],
                  ["Aarhus | country | Denmark"],
                  [],
                  ["Ajax | ground | Amsterdam_Arena", "Ajax | league | Eredivisie", "Ajax | coach | Frank_de_Boer"]]


@pytest.mark.parametrize("batch_size", [1, 2, 4])
def test_webnlg_whole_set_and_batches_equal_the_pure_function(batch_size):
    entries = datasets.Dataset.from_dict(WEBNLG_ENTRIES)
    calls = []
    compute_metrics = webnlg_trainer.compute_metrics_for(entries, decoder(WEBNLG_DECODED, calls))
    whole = compute_metrics(EvalPred(row_numbers(4), None))
    batched = run_batches(webnlg_trainer.compute_metrics_for(entries, decoder(WEBNLG_DECODED, calls)),
                          row_numbers(4), row_numbers(4), batch_size)
    assert whole == batched
    stats = [webnlg_scoring.entry_stats(refs, cands, example=i)
             for i, (refs, cands) in enumerate(zip(WEBNLG_ENTRIES["references"], WEBNLG_DECODED))]
    expected = webnlg_scoring.aggregate(stats)
    assert compute_metrics.last_result == {**expected, "signature": whole["signature"]}
    assert whole["Total_scores/Exact/F1"] == expected["Total_scores"]["Exact"]["F1"]
    assert whole["Scores_per_tag/Predicates/Strict/Missed"] == expected["Scores_per_tag"]["Predicates"]["Strict"]["Missed"]
    assert whole["Exact_match/F1"] == expected["Exact_match"]["F1"]
    assert 0 < whole["Total_scores/Exact/F1"] < 1


def test_webnlg_breakdown_is_flattened():
    entries = datasets.Dataset.from_dict(WEBNLG_ENTRIES)
    compute_metrics = webnlg_trainer.compute_metrics_for(entries, decoder(WEBNLG_DECODED, []), breakdown=True)
    metrics = run_batches(compute_metrics, row_numbers(4), row_numbers(4), 3)
    nested = compute_metrics.last_result["extension_per_category"]
    assert metrics["extension_per_category/Astronaut/Total_scores/Strict/F1"] == nested["Astronaut"]["Total_scores"]["Strict"]["F1"]
    assert metrics["extension_per_size/3/Exact_match/F1"] == compute_metrics.last_result["extension_per_size"][3]["Exact_match"]["F1"]
    assert "breakdown:yes" in metrics["signature"]
    with pytest.raises(ValueError, match=r"has no column\(s\) \['category'\]"):
        webnlg_trainer.compute_metrics_for(entries.remove_columns("category"), lambda p, i: [], breakdown=True)


def test_helpers_accept_a_preloaded_module_but_not_a_multi_process_one(tmp_path):
    rows = mctaco_rows()
    metric = load_metric("mctaco")
    metrics = mctaco_trainer.compute_metrics_for(rows, metric=metric)(EvalPred(mctaco_logits(2, 9), np.array(rows["label"])))
    assert metrics["n_questions"] == 4
    # A multi-process Trainer hands every rank all predictions: num_process > 1 would count them twice.
    shared = load_metric("mctaco", num_process=2, process_id=0, cache_dir=str(tmp_path))
    entries = datasets.Dataset.from_dict(WEBNLG_ENTRIES)
    for make in (lambda m: mctaco_trainer.compute_metrics_for(rows, metric=m),
                 lambda m: tsver_trainer.compute_metrics_for(tsver_claims(), metric=m),
                 lambda m: tempbench_trainer.compute_metrics_for(
                     tempbench_loader.load_tempbench(METRICS / "tempbench_trp" / "examples" / "questions.jsonl"),
                     lambda p, i: [], metric=m),
                 lambda m: webnlg_trainer.compute_metrics_for(entries, lambda p, i: [], metric=m)):
        with pytest.raises(ValueError, match="num_process=2, but the Trainer gives every rank all predictions"):
            make(shared)


# ---------------------------------------------------------------- a real Trainer on the CPU

@pytest.fixture(scope="module")
def hf():
    """torch and transformers, or a skip (they are the `trainer` extra)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    torch.set_num_threads(1)  # two cores, shared
    return transformers


def word_level_tokenizer(hf, texts):
    """A BERT-style tokenizer over the words of `texts`, built here (nothing is downloaded)."""
    from tokenizers import Tokenizer
    from tokenizers import models
    from tokenizers import normalizers
    from tokenizers import pre_tokenizers
    from tokenizers import processors

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
    words = sorted({word for text in texts for word in text.lower().split()})
    vocab = {token: i for i, token in enumerate(specials + words)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    return hf.PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token="[PAD]", unk_token="[UNK]",
                                      cls_token="[CLS]", sep_token="[SEP]")


def tiny_bert(hf, vocab_size, num_labels, seed):
    import torch

    torch.manual_seed(seed)
    config = hf.BertConfig(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                           intermediate_size=64, max_position_embeddings=128, num_labels=num_labels)
    return hf.BertForSequenceClassification(config)


def trainer_for(hf, model, tokenizer, train, evaluation, compute_metrics, batch_eval_metrics, tmp_path, epochs=2):
    args = hf.TrainingArguments(
        output_dir=str(tmp_path / "out"), per_device_train_batch_size=8, per_device_eval_batch_size=7,
        num_train_epochs=epochs, learning_rate=5e-3, batch_eval_metrics=batch_eval_metrics, report_to="none",
        use_cpu=True, disable_tqdm=True, save_strategy="no", seed=0, dataloader_num_workers=0)
    return hf.Trainer(model=model, args=args, train_dataset=train, eval_dataset=evaluation,
                      data_collator=hf.DataCollatorWithPadding(tokenizer), compute_metrics=compute_metrics)


def test_mctaco_real_trainer_evaluate_both_ways(hf, tmp_path):
    from benchscore.mctaco.loader import load_split

    rows = load_split(shared_path("data", "mctaco", "dev_3783.tsv")).select(range(60))  # 10 questions
    tokenizer = word_level_tokenizer(hf, list(rows["sentence"]) + list(rows["question"]) + list(rows["answer"]))
    encoded = rows.map(lambda b: tokenizer([s + " " + q for s, q in zip(b["sentence"], b["question"])], b["answer"]),
                       batched=True).rename_column("label", "labels")
    model = tiny_bert(hf, tokenizer.vocab_size, num_labels=2, seed=0)
    trainer = trainer_for(hf, model, tokenizer, encoded, encoded, mctaco_trainer.compute_metrics_for(rows), False,
                          tmp_path, epochs=12)
    trainer.train()
    whole = trainer.evaluate()

    # The same model, predictions batch by batch (batch_eval_metrics=True, 7 rows a batch).
    batched = trainer_for(hf, model, tokenizer, None, encoded,
                          mctaco_trainer.compute_metrics_for(rows, category_column="category"), True,
                          tmp_path).evaluate()
    # The pure function on the Trainer's own predictions.
    logits = trainer.predict(encoded).predictions
    yes = logits.argmax(axis=1) == 1
    assert 0 < yes.sum() < len(yes)  # the trained model says both yes and no
    expected = mctaco_scoring.score(list(yes), rows["label"], rows["question_id"])

    for metrics in (whole, batched):
        assert metrics["eval_em"] == expected["em"]
        assert metrics["eval_f1"] == expected["f1"]
        assert metrics["eval_n_questions"] == expected["n_questions"] == 10
        assert metrics["eval_signature"] == "mctaco|version:1.0.0|benchscore:0.1.0|key:question_id|labels:normalized"
        assert "eval_loss" in metrics
    assert batched["eval_extension_per_category/Event Duration/n_questions"] >= 1


def test_tsver_real_trainer_evaluate_both_ways(hf, tmp_path):
    gold = tsver_loader.gold_dataset(shared_path("data", "tsver", "tsver_dev.jsonl"))  # 24 claims
    tokenizer = word_level_tokenizer(hf, list(gold["claim"]))
    labels = {"labels": [tsver_scoring.LABELS.index(verdict) for verdict in gold["verdict"]]}
    encoded = gold.add_column("labels", labels["labels"]).map(lambda b: tokenizer(b["claim"]), batched=True)
    model = tiny_bert(hf, tokenizer.vocab_size, num_labels=4, seed=1)
    trainer = trainer_for(hf, model, tokenizer, encoded, encoded, tsver_trainer.compute_metrics_for(gold), False,
                          tmp_path, epochs=12)
    trainer.train()
    whole = trainer.evaluate()
    batched = trainer_for(hf, model, tokenizer, None, encoded, tsver_trainer.compute_metrics_for(gold), True,
                          tmp_path).evaluate()

    logits = trainer.predict(encoded).predictions
    verdicts = [tsver_scoring.LABELS[i] for i in logits.argmax(axis=1)]
    expected = tsver_pure(gold, verdicts)
    assert 0 < expected["n_correct"] < len(gold)
    for metrics in (whole, batched):
        for key in ("verdict_accuracy", "verdict_macro_f1", "tscs", "n_claims", "n_scored"):
            assert metrics[f"eval_{key}"] == expected[key], key
        assert metrics["eval_signature"] == "tsver|version:1.0.0|benchscore:0.1.0|strict:no|ev2r:tsver|judge:none"
        assert "eval_confusion_matrix" not in metrics


def test_webnlg_real_seq2seq_trainer_generate_then_decode(hf, tmp_path):
    """predict_with_generate: generated token ids (padded with -100 across batches of different
    lengths in the whole-set path), decoded by the user's function."""
    import torch

    entries = datasets.Dataset.from_dict({name: column * 3 for name, column in WEBNLG_ENTRIES.items()})  # 12
    texts = [" ".join(triples).replace("|", " ").replace("_", " ") for triples in entries["references"]]
    targets = [" && ".join(triples) for triples in entries["references"]]
    tokenizer = word_level_tokenizer(hf, texts + targets)
    encoded = entries.add_column("text", texts).add_column("target", targets).map(
        lambda b: {**tokenizer(b["text"]), "labels": tokenizer(b["target"])["input_ids"]}, batched=True)
    vocabulary = sorted({triple for triples in entries["references"] for triple in triples})

    def decode(token_ids, indices):
        """A stand-in parser: a generated sequence picks one reference triple (by its token ids)."""
        decoded = []
        for row in token_ids:
            ids = [int(t) for t in row if t > 3]  # drops -100 padding, [PAD], [UNK] and the specials
            decoded.append([vocabulary[sum(ids) % len(vocabulary)]] if ids else [])
        return decoded

    torch.manual_seed(3)
    model = hf.T5ForConditionalGeneration(hf.T5Config(
        vocab_size=tokenizer.vocab_size, d_model=32, d_kv=16, d_ff=64, num_layers=1, num_decoder_layers=1,
        num_heads=2, pad_token_id=0, eos_token_id=3, decoder_start_token_id=0, initializer_factor=5.0))

    def evaluate(batch_eval_metrics):
        args = hf.Seq2SeqTrainingArguments(
            output_dir=str(tmp_path / "out"), per_device_eval_batch_size=5, predict_with_generate=True,
            generation_max_length=6, batch_eval_metrics=batch_eval_metrics, report_to="none", use_cpu=True,
            disable_tqdm=True)
        trainer = hf.Seq2SeqTrainer(model=model, args=args, eval_dataset=encoded,
                                    data_collator=hf.DataCollatorForSeq2Seq(tokenizer, model=model),
                                    compute_metrics=webnlg_trainer.compute_metrics_for(entries, decode))
        return trainer, trainer.evaluate()

    trainer, whole = evaluate(False)
    _, batched = evaluate(True)
    generated = trainer.predict(encoded).predictions
    predictions = decode(generated, range(len(entries)))
    assert len({tuple(p) for p in predictions}) > 1  # the predictions differ between entries
    stats = [webnlg_scoring.entry_stats(refs, cands, example=i)
             for i, (refs, cands) in enumerate(zip(entries["references"], predictions))]
    expected = webnlg_scoring.aggregate(stats)
    for metrics in (whole, batched):
        assert metrics["eval_Total_scores/Exact/F1"] == expected["Total_scores"]["Exact"]["F1"]
        assert metrics["eval_Exact_match/F1"] == expected["Exact_match"]["F1"]
    timings = ("runtime", "per_second", "preparation_time")
    assert {k: v for k, v in whole.items() if not k.endswith(timings)} == \
        {k: v for k, v in batched.items() if not k.endswith(timings)}


# ---------------------------------------------------------------- the runnable examples under scripts/

def run_script(name, argv):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, METRICS.parent / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main(argv)


@pytest.mark.parametrize("name, argv, key, signature", [
    ("train_mctaco", ["--data", str(METRICS / "mctaco" / "examples" / "example.tsv"), "--epochs", "1"],
     "eval_em", "mctaco|"),
    ("train_tempbench", ["--data", str(METRICS / "tempbench_trp" / "examples" / "questions.jsonl"), "--epochs", "1",
                         "--batch-eval-metrics"], "eval_TRP_macro", "tempbench_trp|"),
    ("train_webnlg", ["--data", str(METRICS / "webnlg_rdf" / "examples" / "refs.xml"), "--epochs", "1",
                      "--batch-eval-metrics"], "eval_Total_scores/Exact/F1", "webnlg_rdf|"),
])
def test_example_scripts_run_on_the_bundled_examples(hf, name, argv, key, signature):
    metrics = run_script(name, argv)
    assert 0 <= metrics[key] <= 1
    assert metrics["eval_signature"].startswith(signature)


def test_tsver_example_script(hf):
    metrics = run_script("train_tsver", ["--data", str(shared_path("data", "tsver", "tsver_dev.jsonl")), "--epochs", "1",
                                         "--batch-eval-metrics"])
    assert metrics["eval_n_claims"] == 24 and 0 <= metrics["eval_verdict_accuracy"] <= 1


@pytest.mark.parametrize("build", [
    lambda rows: mctaco_trainer.compute_metrics_for(rows),
    lambda rows: tempbench_trainer.compute_metrics_for(rows, lambda predictions, indices: []),
    lambda rows: webnlg_trainer.compute_metrics_for(rows, lambda predictions, indices: []),
    lambda rows: tsver_trainer.compute_metrics_for(rows),
], ids=["mctaco", "tempbench", "webnlg", "tsver"])
def test_an_eval_dataset_given_as_a_list_is_a_type_error_saying_what_to_pass(build):
    with pytest.raises(TypeError, match=r"the eval dataset is a list; expected a datasets.Dataset \(.*loader"):
        build([{"question_id": "q1", "label": 1}])
