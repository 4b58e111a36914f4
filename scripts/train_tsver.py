"""Fine-tune a tiny TSVer verdict classifier with `transformers.Trainer` and score it officially.

    python scripts/train_tsver.py                          # tsver_dev.jsonl from ../shared, 10 epochs
    python scripts/train_tsver.py --data tsver_test.jsonl --batch-eval-metrics

A 2-layer BERT (hidden 32) built from a config reads the claim and predicts one of the four
verdicts; the tokenizer is built from the claims, so nothing is downloaded. It trains and
evaluates on the same claims (a wiring demo, not a baseline). The evaluation goes through
`benchscore.tsver.trainer.compute_metrics_for`: verdict accuracy and macro-F1 as the official
scorer computes them (`eval_verdict_accuracy`, `eval_verdict_macro_f1`, ...). A verdict
classifier names no time series, so TSCS is 0 (the official score for that).
Needs the `trainer` extra (torch, transformers, accelerate).
"""

import argparse
import os
import pathlib
import tempfile

from tokenizers import Tokenizer
from tokenizers import models
from tokenizers import normalizers
from tokenizers import pre_tokenizers
from tokenizers import processors
from transformers import BertConfig
from transformers import BertForSequenceClassification
from transformers import DataCollatorWithPadding
from transformers import PreTrainedTokenizerFast
from transformers import Trainer
from transformers import TrainingArguments

from benchscore.tsver.loader import gold_dataset
from benchscore.tsver.scoring import LABELS
from benchscore.tsver.trainer import compute_metrics_for

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED_DEV = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", REPO.parent / "shared")) / "data/tsver/tsver_dev.jsonl"


def word_level_tokenizer(texts):
    """A BERT-style tokenizer whose vocabulary is the words of `texts`."""
    words = sorted({word for text in texts for word in text.lower().split()})
    vocab = {token: i for i, token in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + words)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token="[PAD]", unk_token="[UNK]",
                                   cls_token="[CLS]", sep_token="[SEP]")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(SHARED_DEV), help="a TSVer gold file (tsver_dev.jsonl, tsver_test.jsonl)")
    parser.add_argument("--epochs", type=float, default=10)
    parser.add_argument("--batch-eval-metrics", action="store_true", help="score batch by batch (add_batch)")
    args = parser.parse_args(argv)

    gold = gold_dataset(args.data)  # claim, verdict, justifications, time_series, ...
    tokenizer = word_level_tokenizer(list(gold["claim"]))
    encoded = gold.add_column("labels", [LABELS.index(verdict) for verdict in gold["verdict"]])
    encoded = encoded.map(lambda b: tokenizer(b["claim"]), batched=True)
    model = BertForSequenceClassification(BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=256, num_labels=len(LABELS)))
    trainer = Trainer(
        model=model,
        args=TrainingArguments(output_dir=tempfile.mkdtemp(), num_train_epochs=args.epochs, learning_rate=5e-3,
                               per_device_train_batch_size=8, per_device_eval_batch_size=8, use_cpu=True,
                               batch_eval_metrics=args.batch_eval_metrics, save_strategy="no", report_to="none"),
        train_dataset=encoded,
        eval_dataset=encoded,
        data_collator=DataCollatorWithPadding(tokenizer),
        compute_metrics=compute_metrics_for(gold),  # logit column i is LABELS[i]
    )
    trainer.train()
    metrics = trainer.evaluate()
    print(metrics)
    return metrics


if __name__ == "__main__":
    main()
