"""Fine-tune a tiny TempBench evidence selector with `transformers.Trainer` and score its retrieval (TRP, CCR).

    python scripts/train_tempbench.py                      # questions_point.jsonl fixtures from ../shared
    python scripts/train_tempbench.py --data questions.jsonl --batch-eval-metrics
    python scripts/train_tempbench.py --data official:train   # the store's Hub copy (benchscore data fetch tempbench)

TempBench scores the evidence a retriever returns, so the model's output must be decoded into
triples. Here each question comes with a candidate pool (its S_star, S_dist and S_stale triples, in
a fixed shuffled order); a 2-layer BERT (hidden 32, built from a config) reads the question and the
candidates and gives one logit per candidate slot (multi-label). `decode` keeps the top --k
candidates by logit, best first: that is the question's retrieved evidence. Nothing is downloaded; it
trains and evaluates on the same questions (a wiring demo, not a baseline). The evaluation goes
through `benchscore.tempbench_trp.trainer.compute_metrics_for` (`eval_TRP_macro`, `eval_CCR`, ...).
Needs the `trainer` extra (torch, transformers, accelerate).
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # scripts/_train_common.py

import _train_common as common
from benchscore.tempbench_trp.loader import load_tempbench
from benchscore.tempbench_trp.trainer import compute_metrics_for

FIXTURES = common.SHARED / "data/tempbench/fixtures/questions_point.jsonl"
EXAMPLE = common.REPO / "metrics/tempbench_trp/examples/questions.jsonl"
FIELDS = ("s", "r", "o", "t_start", "t_end")  # the "label" space


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
    data = FIXTURES if FIXTURES.exists() else EXAMPLE
    parser = common.argument_parser(__doc__, data, "a questions JSONL", epochs=3)
    parser.add_argument("--k", type=int, default=2, help="candidates retrieved per question")
    args = parser.parse_args(argv)

    questions = load_tempbench(args.data)  # id, question, t_query, S_star, S_dist, S_stale, complexity, ...
    pools = candidate_pools(questions)
    slots = max(len(pool) for pool in pools)
    texts = [" ; ".join(f"{t['s']} {t['r']} {t['o']} {t['t_start']:.0f} {t['t_end']:.0f}" for t, _ in pool)
             for pool in pools]
    tokenizer = common.word_level_tokenizer(list(questions["question"]) + texts)
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

    model = common.tiny_bert(tokenizer, num_labels=slots, problem_type="multi_label_classification")
    trainer = common.cpu_trainer(model, tokenizer, encoded, args,  # a transformers.Trainer
                                 compute_metrics=compute_metrics_for(questions, decode))  # gold from the questions
    trainer.train()
    metrics = trainer.evaluate()
    print({key: value for key, value in metrics.items() if "/" not in key})
    return metrics


if __name__ == "__main__":
    main()
