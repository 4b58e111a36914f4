"""Fine-tune a tiny WebNLG+ text-to-RDF model with `transformers.Trainer` and score it with the official metric.

    python scripts/train_webnlg.py                         # the first 100 English entries from ../shared
    python scripts/train_webnlg.py --data en_all.xml --batch-eval-metrics

The metric scores decoded triples, so the model's output must become "subject | predicate |
object" strings. To stay tiny and quick this model is a closed-vocabulary triple tagger: a 2-layer
BERT (hidden 32, built from a config) reads an entry's first lexicalisation and gives one logit
per triple seen in the references (multi-label); `decode` keeps the triples with a positive logit
(at least the best one).
(A seq2seq model would decode generated text instead: see benchscore/webnlg_rdf/trainer.py.)
Nothing is downloaded; it trains and evaluates on the same entries (a wiring demo, not a
baseline). The evaluation goes through `benchscore.webnlg_rdf.trainer.compute_metrics_for`
(`eval_Total_scores/Exact/F1`, `eval_Exact_match/F1`, ...).
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

from benchscore.webnlg_rdf.loader import load_dataset
from benchscore.webnlg_rdf.trainer import compute_metrics_for

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", REPO.parent / "shared"))
FIRST100 = SHARED / "data/webnlg/subsets/first100/ref_en.xml"
EXAMPLE = REPO / "metrics/webnlg_rdf/examples/refs.xml"


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
    parser.add_argument("--data", default=str(FIRST100 if FIRST100.exists() else EXAMPLE), help="a WebNLG references XML")
    parser.add_argument("--epochs", type=float, default=10)
    parser.add_argument("--batch-eval-metrics", action="store_true", help="score batch by batch (add_batch)")
    args = parser.parse_args(argv)

    entries = load_dataset(args.data)  # eid, category, size, references, lexicalisations
    entries = entries.filter(lambda entry: len(entry["lexicalisations"]) > 0)
    vocabulary = sorted({triple for triples in entries["references"] for triple in triples})
    texts = [lexicalisations[0] for lexicalisations in entries["lexicalisations"]]
    tokenizer = word_level_tokenizer(texts)
    encoded = entries.add_column("text", texts).add_column(
        "labels", [[float(triple in set(triples)) for triple in vocabulary] for triples in entries["references"]])
    encoded = encoded.map(lambda b: tokenizer(b["text"], truncation=True, max_length=128), batched=True)

    def decode(logits, indices):
        """Per row: the vocabulary triples with a positive logit, or else the best one."""
        return [[vocabulary[j] for j in range(len(vocabulary)) if row[j] > 0] or [vocabulary[row.argmax()]]
                for row in logits]

    model = BertForSequenceClassification(BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=256, num_labels=len(vocabulary),
        problem_type="multi_label_classification"))
    trainer = Trainer(
        model=model,
        args=TrainingArguments(output_dir=tempfile.mkdtemp(), num_train_epochs=args.epochs, learning_rate=1e-2,
                               per_device_train_batch_size=8, per_device_eval_batch_size=32, use_cpu=True,
                               batch_eval_metrics=args.batch_eval_metrics, save_strategy="no", report_to="none"),
        train_dataset=encoded,
        eval_dataset=encoded,
        data_collator=DataCollatorWithPadding(tokenizer),
        compute_metrics=compute_metrics_for(entries, decode, breakdown=True),  # references and categories
    )
    trainer.train()
    metrics = trainer.evaluate()
    print({key: value for key, value in metrics.items() if key.startswith("eval_Total_scores/") and key.endswith("F1")
           or key in ("eval_Exact_match/F1", "eval_signature")})
    return metrics


if __name__ == "__main__":
    main()
