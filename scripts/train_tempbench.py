"""Fine-tune a tiny TempBench evidence selector with `transformers.Trainer` and score its retrieval (TRP, CCR).

    python scripts/train_tempbench.py                      # questions_point.jsonl fixtures from ../shared
    python scripts/train_tempbench.py --data questions.jsonl --batch-eval-metrics

TempBench scores the evidence a retriever returns, so the model's output must be decoded into
triples. Here each question comes with a candidate pool (its S_star, S_dist and S_stale triples, in
a fixed shuffled order); a 2-layer BERT (hidden 32, built from a config) reads the question and the
candidates and gives one logit per candidate slot (multi-label). `decode` keeps the top --k
candidates by logit, best first: that is the question's retrieved evidence. Nothing is downloaded; it
trains and evaluates on the same questions (a wiring demo, not a baseline). The evaluation goes
through `benchscore.tempbench_trp.trainer.compute_metrics_for` (`eval_TRP_macro`, `eval_CCR`, ...).
Needs the `trainer` extra (torch, transformers, accelerate).
"""

import argparse
import os
import pathlib
import random
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

from benchscore.tempbench_trp.loader import load_tempbench
from benchscore.tempbench_trp.trainer import compute_metrics_for

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", REPO.parent / "shared"))
FIXTURES = SHARED / "data/tempbench/fixtures/questions_point.jsonl"
EXAMPLE = REPO / "metrics/tempbench_trp/examples/questions.jsonl"
FIELDS = ("s", "r", "o", "t_start", "t_end")  # the "label" space


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


def candidate_pools(questions, seed=0):
    """Per question: its S_star, S_dist and S_stale triples (label space), shuffled, and which are gold."""
    rng = random.Random(seed)
    pools = []
    for question in questions:
        gold = [{k: t[k] for k in FIELDS} for t in question["S_star"]]
        others = [{k: t[k] for k in FIELDS} for t in (question["S_dist"] or []) + (question["S_stale"] or [])]
        pool = [(t, True) for t in gold] + [(t, False) for t in others]
        rng.shuffle(pool)
        pools.append(pool)
    return pools


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(FIXTURES if FIXTURES.exists() else EXAMPLE), help="a questions JSONL")
    parser.add_argument("--epochs", type=float, default=3)
    parser.add_argument("--k", type=int, default=2, help="candidates retrieved per question")
    parser.add_argument("--batch-eval-metrics", action="store_true", help="score batch by batch (add_batch)")
    args = parser.parse_args(argv)

    questions = load_tempbench(args.data)  # id, question, t_query, S_star, S_dist, S_stale, complexity, ...
    pools = candidate_pools(questions)
    slots = max(len(pool) for pool in pools)
    texts = [" ; ".join(f"{t['s']} {t['r']} {t['o']} {t['t_start']:.0f} {t['t_end']:.0f}" for t, _ in pool)
             for pool in pools]
    tokenizer = word_level_tokenizer(list(questions["question"]) + texts)
    encoded = questions.add_column("text", texts).add_column(
        "labels", [[float(i < len(pool) and pool[i][1]) for i in range(slots)] for pool in pools])
    encoded = encoded.map(lambda b: tokenizer(b["question"], b["text"], truncation=True, max_length=128), batched=True)

    def decode(logits, indices):
        """Per row: its question's top-k candidates by logit (the retrieved evidence, best first)."""
        evidence = []
        for row, index in zip(logits, indices):
            pool = pools[index]
            chosen = sorted(range(len(pool)), key=lambda j: -row[j])[:args.k]
            evidence.append([pool[j][0] for j in chosen])
        return evidence

    model = BertForSequenceClassification(BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=256, num_labels=slots,
        problem_type="multi_label_classification"))
    trainer = Trainer(
        model=model,
        args=TrainingArguments(output_dir=tempfile.mkdtemp(), num_train_epochs=args.epochs, learning_rate=5e-3,
                               per_device_train_batch_size=16, per_device_eval_batch_size=32, use_cpu=True,
                               batch_eval_metrics=args.batch_eval_metrics, save_strategy="no", report_to="none"),
        train_dataset=encoded,
        eval_dataset=encoded,
        data_collator=DataCollatorWithPadding(tokenizer),
        compute_metrics=compute_metrics_for(questions, decode),  # gold S_star and t_query from the questions
    )
    trainer.train()
    metrics = trainer.evaluate()
    print({key: value for key, value in metrics.items() if "/" not in key})
    return metrics


if __name__ == "__main__":
    main()
