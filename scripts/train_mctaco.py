"""Fine-tune a tiny MC-TACO candidate classifier with `transformers.Trainer` and score it officially.

    python scripts/train_mctaco.py                         # 200 dev rows from ../shared, 3 epochs
    python scripts/train_mctaco.py --data dev_3783.tsv --rows 0 --batch-eval-metrics
    python scripts/train_mctaco.py --data official:dev     # the data store's copy (benchscore data fetch mctaco)

A 2-layer BERT (hidden 32) built from a config and a word-level tokenizer built from the rows, so
nothing is downloaded; it trains and evaluates on the same rows (a wiring demo, not a baseline).
The evaluation goes through `benchscore.mctaco.trainer.compute_metrics_for`: question-level EM and
F1, the official evaluator's numbers, as `eval_em`, `eval_f1`, `eval_n_questions`.
Needs the `trainer` extra (torch, transformers, accelerate).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # scripts/_train_common.py

import _train_common as common
from benchscore.mctaco.loader import load_split
from benchscore.mctaco.trainer import compute_metrics_for

SHARED_DEV = common.SHARED / "data/mctaco/dev_3783.tsv"
DATA = SHARED_DEV if SHARED_DEV.exists() else common.REPO / "metrics/mctaco/examples/example.tsv"


def main(argv=None):
    parser = common.argument_parser(__doc__, DATA, "an MC-TACO TSV", epochs=3)
    parser.add_argument("--rows", type=int, default=200, help="first N rows (0: all)")
    args = parser.parse_args(argv)

    rows = load_split(args.data)  # sentence, question, answer, label (0 no / 1 yes), category, question_id
    rows = rows.select(range(min(args.rows, len(rows)))) if args.rows else rows
    tokenizer = common.word_level_tokenizer(list(rows["sentence"]) + list(rows["question"]) + list(rows["answer"]))
    encoded = rows.map(lambda b: tokenizer([s + " " + q for s, q in zip(b["sentence"], b["question"])], b["answer"]),
                       batched=True).rename_column("label", "labels")
    model = common.tiny_bert(tokenizer, num_labels=2)
    trainer = common.cpu_trainer(model, tokenizer, encoded, args,  # a transformers.Trainer
                                 compute_metrics=compute_metrics_for(rows, category_column="category"))  # eval order
    trainer.train()
    metrics = trainer.evaluate()
    print({key: value for key, value in metrics.items() if "per_category" not in key})
    return metrics


if __name__ == "__main__":
    main()
