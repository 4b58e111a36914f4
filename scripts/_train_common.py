"""What the runnable examples scripts/train_*.py share: the command line, a word-level tokenizer built
from the data, a tiny BERT built from a config (nothing is downloaded) and a CPU `Trainer` that trains
and evaluates on the same rows (a wiring demo, not a baseline). What each example is about, its data
and its `compute_metrics_for(...)`, stays in the example.
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

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", REPO.parent / "shared"))  # the benchmarks' data


def argument_parser(doc, data, data_help, epochs):
    """--data (default `data`), --epochs and --batch-eval-metrics; the description is `doc`'s first line."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--data", default=str(data), help=data_help)
    parser.add_argument("--epochs", type=float, default=epochs)
    parser.add_argument("--batch-eval-metrics", action="store_true", help="score batch by batch (add_batch)")
    return parser


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


def tiny_bert(tokenizer, num_labels, **config):
    """A 2-layer BERT classifier (hidden 32) built from a config; `config` e.g. problem_type."""
    return BertForSequenceClassification(BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=256, num_labels=num_labels, **config))


def cpu_trainer(model, tokenizer, encoded, args, compute_metrics, learning_rate=5e-3, train_batch_size=16,
                eval_batch_size=32):
    """A `Trainer` on the CPU that trains on `encoded` and evaluates the same rows with `compute_metrics`."""
    return Trainer(
        model=model,
        args=TrainingArguments(output_dir=tempfile.mkdtemp(), num_train_epochs=args.epochs, learning_rate=learning_rate,
                               per_device_train_batch_size=train_batch_size, per_device_eval_batch_size=eval_batch_size,
                               use_cpu=True, batch_eval_metrics=args.batch_eval_metrics, save_strategy="no",
                               report_to="none"),
        train_dataset=encoded,
        eval_dataset=encoded,
        data_collator=DataCollatorWithPadding(tokenizer),
        compute_metrics=compute_metrics,
    )
