"""lm-eval hooks of `mc_taco_official`; the logic is in `benchscore.harness.tasks`."""

from benchscore.harness import tasks

load_dataset = tasks.mctaco_dataset  # custom_dataset: called with the task's metadata (data_dir=...)


def process_results(doc, results):
    """results: [(loglikelihood, is_greedy) of " no", of " yes"] (doc_to_choice order)."""
    (loglikelihood_no, _), (loglikelihood_yes, _) = results
    item = tasks.mctaco_item(doc, loglikelihood_no, loglikelihood_yes)
    # `acc` is lm-eval's own per-candidate accuracy (its mc_taco's `acc` on the same documents);
    # every other metric is a corpus number over whole questions computed from `item`.
    return {"acc": float(item["prediction"] == item["label"]), **{name: item for name in tasks.MCTACO_METRICS}}


# The corpus aggregations, `utils.<metric>` in the yaml (em, f1, em_stderr, f1_stderr, n_questions,
# partial_questions): one module name per metric of the harness-neutral table.
globals().update(tasks.MCTACO_METRICS)
