"""Fine-tune a tiny MC-TACO candidate classifier with `transformers.Trainer` and score it officially.

    python scripts/train_mctaco.py                         # 200 dev rows from ../shared, 3 epochs
    python scripts/train_mctaco.py --data dev_3783.tsv --rows 0 --batch-eval-metrics

A 2-layer BERT (hidden 32) built from a config and a word-level tokenizer built from the rows, so
nothing is downloaded; it trains and evaluates on the same rows (a wiring demo, not a baseline).
The evaluation goes through `benchscore.mctaco.trainer.compute_metrics_for`: question-level EM and
F1, the official evaluator's numbers, as `eval_em`, `eval_f1`, `eval_n_questions`.
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

from benchscore.mctaco.loader import load_split
from benchscore.mctaco.trainer import compute_metrics_for

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED_DEV = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", REPO.parent / "shared")) / "data/mctaco/dev_3783.tsv"
EXAMPLE = REPO / "metrics/mctaco/examples/example.tsv"


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
    parser.add_argument("--data", default=str(SHARED_DEV if SHARED_DEV.exists() else EXAMPLE), help="an MC-TACO TSV")
    parser.add_argument("--rows", type=int, default=200, help="first N rows (0: all)")
    parser.add_argument("--epochs", type=float, default=3)
    parser.add_argument("--batch-eval-metrics", action="store_true", help="score batch by batch (add_batch)")
    args = parser.parse_args(argv)

    rows = load_split(args.data)  # sentence, question, answer, label (0 no / 1 yes), category, question_id
    rows = rows.select(range(min(args.rows, len(rows)))) if args.rows else rows
    tokenizer = word_level_tokenizer(list(rows["sentence"]) + list(rows["question"]) + list(rows["answer"]))
    encoded = rows.map(lambda b: tokenizer([s + " " + q for s, q in zip(b["sentence"], b["question"])], b["answer"]),
                       batched=True).rename_column("label", "labels")
    model = BertForSequenceClassification(BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=256, num_labels=2))
    trainer = Trainer(
        model=model,
        args=TrainingArguments(output_dir=tempfile.mkdtemp(), num_train_epochs=args.epochs, learning_rate=5e-3,
                               per_device_train_batch_size=16, per_device_eval_batch_size=32, use_cpu=True,
                               batch_eval_metrics=args.batch_eval_metrics, save_strategy="no", report_to="none"),
        train_dataset=encoded,
        eval_dataset=encoded,
        data_collator=DataCollatorWithPadding(tokenizer),
        compute_metrics=compute_metrics_for(rows, category_column="category"),  # the rows in eval order
    )
    trainer.train()
    metrics = trainer.evaluate()
    print({key: value for key, value in metrics.items() if "per_category" not in key})
    return metrics


if __name__ == "__main__":
    main()
