"""The README's figures and published tables, regenerated from ../shared (run from the checkout):

    python scripts/make_figures.py            # docs/images/*.png and the tables printed as markdown

MC-TACO's test set with the four released prediction files (the paper's table, with which differences
are real), WebNLG+ 2020 English text-to-RDF with four submissions, and the slice bars of TempBench's
bundled example.
"""

import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
IMAGES = REPO / "docs" / "images"

MCTACO = [("BERT + unit normalization", "bert.norm"), ("ESIM + GloVe", "esim.glove"), ("ESIM + ELMo", "esim.elmo"),
          ("RoBERTa", "roberta")]
WEBNLG = [("Amazon AI (Shanghai)", "amazon_ai_shanghai"), ("bt5", "bt5"), ("CycleGT", "cyclegt"),
          ("Baseline", "baseline")]


def benchscore(*argv: str) -> str:
    done = subprocess.run([sys.executable, "-m", "benchscore", *argv], capture_output=True, text=True, check=True)
    return done.stdout


def table_argv(bench: str, gold: str, systems: list[tuple[str, pathlib.Path]]) -> list[str]:
    argv = ["table", bench, "--gold", gold]
    for name, path in systems:
        argv += ["--predictions", str(path), "--name", name]
    return argv


def main() -> int:
    IMAGES.mkdir(parents=True, exist_ok=True)
    mctaco = [(name, SHARED / "mctaco" / "baseline_outputs" / f"{stem}.output.txt") for name, stem in MCTACO]
    print(benchscore(*table_argv("mctaco", "official:test", mctaco), "--plot", str(IMAGES / "mctaco_forest.png")))
    webnlg = [(name, SHARED / "webnlg" / "submissions" / "en" / stem / "all.xml") for name, stem in WEBNLG]
    print(benchscore(*table_argv("webnlg", "official:en", webnlg)))
    examples = REPO / "metrics" / "tempbench_trp" / "examples"
    benchscore("tempbench", "--questions", str(examples / "questions.jsonl"), "--evidence",
               str(examples / "evidence.jsonl"), "--plot", str(IMAGES / "tempbench_slices.png"))
    print(f"figures in {IMAGES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
