"""`benchscore mctaco`: the official evaluator's command, with validated input.

    benchscore mctaco --gold dev_3783.tsv --predictions preds.txt          # the official two lines
    benchscore mctaco --gold dev_3783.tsv --predictions preds.txt --json   # + per-category, signature
    benchscore mctaco --gold dev_3783.tsv --predictions preds.txt -o scores.json
"""

import json

from .loader import read_predictions
from .loader import read_tsv
from .scoring import question_key
from .scoring import score
from .scoring import signature
from .scoring import to_yes


def add_arguments(parser):
    parser.add_argument("--gold", required=True, help="the MC-TACO TSV (dev_3783.tsv or test_9442.tsv)")
    parser.add_argument("--predictions", required=True, help="one yes/no label per line, aligned with --gold")
    parser.add_argument("--json", action="store_true", help="print a JSON object with the per-category breakdown")
    parser.add_argument("-o", "--output", help='also write {"em": ..., "f1": ...} to this file, like the official tool')


def evaluate_files(gold_path, predictions_path):
    """Scores a prediction file against a gold TSV: the result dict with its signature."""
    rows = read_tsv(gold_path)
    predictions = read_predictions(predictions_path)
    if len(predictions) != len(rows):
        raise ValueError(
            f"{predictions_path} has {len(predictions)} labels but {gold_path} has {len(rows)} rows; "
            "expected one label per gold row, in the same order"
        )
    # Parsed here so an error names the file's line, not a row index; booleans pass through scoring as they are.
    predictions = [to_yes(label, f"{predictions_path}: line {line}", "the label")
                   for line, label in enumerate(predictions, start=1)]
    result = score(
        predictions,
        [row["label"] for row in rows],
        [question_key(row["sentence"], row["question"]) for row in rows],
        [row["category"] for row in rows],
    )
    result["signature"] = signature("sentence+question")
    return result


def run(args):
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    args.gold = data.resolve("mctaco", args.gold)
    result = evaluate_files(args.gold, args.predictions)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"Strict Acc.: {result['em']}")
        print(f"Avg F1: {result['f1']}")
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump({"em": result["em"], "f1": result["f1"]}, f)
    return 0
