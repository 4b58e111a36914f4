"""Fine-tune a tiny WebNLG+ text-to-RDF model with `transformers.Trainer` and score it with the official metric.

    python scripts/train_webnlg.py                         # the first 100 English entries from ../shared
    python scripts/train_webnlg.py --data en_all.xml --batch-eval-metrics
    python scripts/train_webnlg.py --data official:en_seen  # the data store's copy (benchscore data fetch webnlg)

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

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # scripts/_train_common.py

import _train_common as common
from benchscore.webnlg_rdf.loader import load_dataset
from benchscore.webnlg_rdf.trainer import compute_metrics_for

FIRST100 = common.SHARED / "data/webnlg/subsets/first100/ref_en.xml"
EXAMPLE = common.REPO / "metrics/webnlg_rdf/examples/refs.xml"


def main(argv=None):
    data = FIRST100 if FIRST100.exists() else EXAMPLE
    parser = common.argument_parser(__doc__, data, "a WebNLG references XML", epochs=10)
    args = parser.parse_args(argv)

    entries = load_dataset(args.data)  # eid, category, size, references, lexicalisations
    entries = entries.filter(lambda entry: len(entry["lexicalisations"]) > 0)
    vocabulary = sorted({triple for triples in entries["references"] for triple in triples})
    texts = [lexicalisations[0] for lexicalisations in entries["lexicalisations"]]
    tokenizer = common.word_level_tokenizer(texts)
    encoded = entries.add_column("text", texts).add_column(
        "labels", [[float(triple in set(triples)) for triple in vocabulary] for triples in entries["references"]])
    encoded = encoded.map(lambda b: tokenizer(b["text"], truncation=True, max_length=128), batched=True)

    def decode(logits, indices):
        """Per row: the vocabulary triples with a positive logit, or else the best one."""
        return [[vocabulary[j] for j in range(len(vocabulary)) if row[j] > 0] or [vocabulary[row.argmax()]]
                for row in logits]

    model = common.tiny_bert(tokenizer, num_labels=len(vocabulary), problem_type="multi_label_classification")
    trainer = common.cpu_trainer(model, tokenizer, encoded, args,  # a transformers.Trainer
                                 compute_metrics=compute_metrics_for(entries, decode, breakdown=True),
                                 learning_rate=1e-2, train_batch_size=8)
    trainer.train()
    metrics = trainer.evaluate()
    print({key: value for key, value in metrics.items() if key.startswith("eval_Total_scores/") and key.endswith("F1")
           or key in ("eval_Exact_match/F1", "eval_signature")})
    return metrics


if __name__ == "__main__":
    main()
