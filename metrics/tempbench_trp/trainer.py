"""TempBench inside a `transformers.Trainer`: a `compute_metrics` for a model whose output decodes to evidence.

    from benchscore.tempbench_trp.loader import load_tempbench
    from benchscore.tempbench_trp.trainer import compute_metrics_for
    questions = load_tempbench("benchmark_labelled.jsonl", split="test")   # one row per question

    def decode(predictions, indices):        # the model's output rows -> evidence per question
        texts = tokenizer.batch_decode(np.where(predictions < 0, tokenizer.pad_token_id, predictions),
                                       skip_special_tokens=True)
        return [parse_my_triples(text) for text in texts]   # [(s, r, o, t_start, t_end), ...] each

    trainer = Seq2SeqTrainer(model, Seq2SeqTrainingArguments(..., predict_with_generate=True),
                             eval_dataset=tokenized_questions,
                             compute_metrics=compute_metrics_for(questions, decode))
    trainer.evaluate()     # {"eval_TRP_macro": ..., "eval_TRP_micro": ..., "eval_CCR": ..., ...}

`decode(predictions, indices)` gets the Trainer's predictions for some rows (a numpy array, or a
tuple of arrays; padding may be -100) and their row numbers in the eval dataset (a `range`), and
returns one evidence list per row: dicts with s, r, o (or s_id, r_id, o_id for the "id" space),
t_start, t_end, or 5-tuples, in rank order. The gold side (S_star, t_query, complexity,
operator_type, id) is read from the eval dataset, in order (before or after tokenization, same
rows, unshuffled). The same numbers with `compute_metrics(eval_pred)` and with
`TrainingArguments(batch_eval_metrics=True)`; nested dicts are flattened for logging
("by_complexity/1hop/TRP") and the full result is `.last_result`. After an evaluation that stopped
with an error, build a new helper (batch mode counts rows across calls). transformers is not
imported here.
"""

from benchscore.tempbench_trp.loader import metric_inputs
from benchscore.core.trainer import DecodedComputeMetrics
from benchscore.core.trainer import flatten_for_logging  # re-exported: part of this module's API
from benchscore.core.trainer import outputs_to_numpy as to_numpy  # re-exported; here tuples stay tuples


class TempbenchComputeMetrics(DecodedComputeMetrics):
    """The `compute_metrics` callable; build it with `compute_metrics_for`."""

    benchmark = "tempbench_trp"

    decoded, decoded_lists = "evidence", "evidence lists"

    def __init__(self, eval_dataset, decode, metric=None, config_name=None, compute_kwargs=None):
        self._set_decode(decode)
        missing = [c for c in ("S_star", "t_query") if c not in eval_dataset.column_names]
        if missing:
            raise ValueError(f"the eval dataset has no column(s) {missing} (it has {eval_dataset.column_names}); "
                             f"expected the questions as from benchscore.tempbench_trp.loader.load_tempbench")
        self.gold = metric_inputs(eval_dataset)  # references, t_query, ...
        super().__init__(len(eval_dataset), metric, compute_kwargs, config_name)


def compute_metrics_for(eval_dataset, decode, metric=None, config_name=None, compute_kwargs=None):
    """A `compute_metrics` for `Trainer` scoring retrieved evidence with TempBench TRP/CCR (reference numbers).

    Args:
        eval_dataset: the questions in the Trainer's order (S_star, t_query; complexity,
            operator_type and id when present), before or after tokenization.
        decode: (predictions, indices) -> one evidence list per row (see the module docstring).
        metric: an evaluate module to use (e.g. this module from the Hub), with num_process=1:
            a multi-process Trainer already gives every rank all predictions;
            default: this folder's module with `config_name`.
        config_name: "label" (default) or "id", the triple space of the decoded evidence.
        compute_kwargs: keyword arguments for the module's `compute`, e.g. {"top_k": 10}.
    Returns:
        a callable for `Trainer(compute_metrics=...)`, with or without `batch_eval_metrics`.
    """
    return TempbenchComputeMetrics(eval_dataset, decode, metric, config_name, compute_kwargs)
