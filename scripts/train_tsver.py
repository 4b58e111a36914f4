"""Fine-tune a tiny TSVer verdict classifier with `transformers.Trainer` and score it officially.

    python scripts/train_tsver.py                          # tsver_dev.jsonl from ../shared, 10 epochs
    python scripts/train_tsver.py --data tsver_test.jsonl --batch-eval-metrics
    python scripts/train_tsver.py --data official:dev      # the data store's copy (benchscore data fetch tsver)

A 2-layer BERT (hidden 32) built from a config reads the claim and predicts one of the four
verdicts; the tokenizer is built from the claims, so nothing is downloaded. It trains and
evaluates on the same claims (a wiring demo, not a baseline). The evaluation goes through
`benchscore.tsver.trainer.compute_metrics_for`: verdict accuracy and macro-F1 as the official
scorer computes them (`eval_verdict_accuracy`, `eval_verdict_macro_f1`, ...). A verdict
classifier names no time series, so TSCS is 0 (the official score for that).
Needs the `trainer` extra (torch, transformers, accelerate).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # scripts/_train_common.py

import _train_common as common
from benchscore.tsver.loader import gold_dataset
from benchscore.tsver.scoring import LABELS
from benchscore.tsver.trainer import compute_metrics_for

SHARED_DEV = common.SHARED / "data/tsver/tsver_dev.jsonl"


def main(argv=None):
    parser = common.argument_parser(__doc__, SHARED_DEV, "a TSVer gold file (tsver_dev.jsonl, tsver_test.jsonl)",
                                    epochs=10)
    args = parser.parse_args(argv)

    gold = gold_dataset(args.data)  # claim, verdict, justifications, time_series, ...
    tokenizer = common.word_level_tokenizer(list(gold["claim"]))
    encoded = gold.add_column("labels", [LABELS.index(verdict) for verdict in gold["verdict"]])
    encoded = encoded.map(lambda b: tokenizer(b["claim"]), batched=True)
    model = common.tiny_bert(tokenizer, num_labels=len(LABELS))
    trainer = common.cpu_trainer(model, tokenizer, encoded, args,  # a transformers.Trainer
                                 compute_metrics=compute_metrics_for(gold),  # logit column i is LABELS[i]
                                 train_batch_size=8, eval_batch_size=8)
    trainer.train()
    metrics = trainer.evaluate()
    print(metrics)
    return metrics


if __name__ == "__main__":
    main()
