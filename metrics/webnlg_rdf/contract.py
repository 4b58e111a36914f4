"""WebNLG's bundled example through every entry point: what tests/test_contract.py runs (see
`benchscore.core.contract`), and how to feed each entry point this benchmark's files."""

import numpy as np

from benchscore.core.contract import Case, EvalPrediction
from benchscore.webnlg_rdf import files, loader, trainer


def module_inputs(references: str, candidates: str) -> dict:
    """The evaluate module's compute() inputs for a reference and a candidate XML file."""
    entries = loader.load_dataset(references, candidates)
    return {"predictions": list(entries["predictions"]), "references": list(entries["references"])}


def trainer_run(references: str, candidates: str) -> tuple:
    """The Trainer helper with a `decode` that returns each entry's candidate triples (the model's output
    is its row number)."""
    entries = loader.load_dataset(references, candidates)
    decoded = list(entries["predictions"])

    def decode(predictions, indices):
        return [decoded[i] for i in indices]

    return (trainer.compute_metrics_for(entries.remove_columns("predictions"), decode),
            EvalPrediction(np.arange(len(decoded)).reshape(-1, 1)))


HEADLINE = tuple(f"Total_scores/{scheme}/{rate}" for scheme in ("Ent_type", "Partial", "Strict", "Exact")
                 for rate in ("Precision", "Recall", "F1")) + ("Exact_match/F1",)

CASE = Case(
    files=("refs.xml", "cands.xml"),
    cli_args=lambda references, candidates: [references, candidates, "--json", "--no-progress"],
    pure=lambda references, candidates: files.score_files(references, candidates), inputs=module_inputs,
    trainer=trainer_run, headline=HEADLINE,
    space_cells={**{key: ({"scores": "Total_scores", "scheme": key.split("/")[1]}, key.split("/")[2])
                    for key in HEADLINE[:-1]}, "Exact_match/F1": ({"scores": "Exact_match"}, "F1")})
