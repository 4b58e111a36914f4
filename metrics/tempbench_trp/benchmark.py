"""TempBench in benchscore's registry: its command, folder, title and official data (pinned)."""

from benchscore.core.registry import Benchmark, Source

DATA = Source(
    name="tempbench",
    title="TempBench (temporal KG QA), Hugging Face Hub dataset",
    owner="Guen", repo="tempbench", commit=None,
    files={
        "labelled": "benchmark/benchmark_labelled.jsonl",
        "ids": "benchmark/benchmark.jsonl",
        "functional_negatives": "benchmark/functional_negatives.jsonl",
        "addendum": "v1.0.1-addendum.md",
        "card": "README.md",
    },
    default=("labelled", "ids", "functional_negatives", "addendum", "card"),
    licence="as stated on the dataset card (README.md, fetched beside the data)",
    cite="Caldarini, TempBench: A Temporal Knowledge-Graph QA Benchmark with Per-Question Gold Subgraphs "
         "and Retrieval-Quality Metrics, CIKM '26, doi:10.1145/3799682.3840181",
    bibtex="""@inproceedings{caldarini2026tempbench,
    author = {Caldarini},
    title = {TempBench: A Temporal Knowledge-Graph QA Benchmark with Per-Question Gold Subgraphs and Retrieval-Quality Metrics},
    booktitle = {Proceedings of the ACM International Conference on Information and Knowledge Management (CIKM '26)},
    year = {2026},
    doi = {10.1145/3799682.3840181},
}""",
)

BENCHMARK = Benchmark(name="tempbench", folder="tempbench_trp", title="TempBench",
                      scores="TRP, CCR and coverage (reference scorer)", data=DATA)
