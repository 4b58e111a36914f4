"""MC-TACO in benchscore's registry: its command, folder, title and official data (pinned)."""

from benchscore.core.registry import Benchmark, File, Source

DATA = Source(
    name="mctaco",
    title="MC-TACO (temporal commonsense)",
    owner="CogComp", repo="MCTACO", commit="0ba9b790ad5a87ab3eef0f0cb7819408192f9729",
    files={
        "dev": File("dataset/dev_3783.tsv",
                    "8de54f6d3e0a6466e4ba2c5179c7f9ac3442eeba8683c46fd712f5f54751d6dd", 679912, "dev_3783.tsv"),
        "test": File("dataset/test_9442.tsv",
                     "47e12f88559eb0735eeca2af2d0a3ed48efb3bb2742ff31de9fcfc9a76094354", 1705225, "test_9442.tsv"),
        "readme": File("dataset/readme.txt",
                       "53be12e6940843dde0dae9cc91aefb3ac7c57dab780e1dc7aac20bdc12c2a281", 2208, "readme.txt"),
    },
    default=("dev", "test", "readme"),
    aliases={"validation": "dev"},
    data_dir="dataset",
    licence="not stated (the repository has no LICENSE file; the Hugging Face dataset card says \"unknown\")",
    cite="Zhou, Khashabi, Ning and Roth, \"Going on a vacation\" takes longer than \"Going for a walk\": "
         "A Study of Temporal Commonsense Understanding, EMNLP 2019",
    bibtex="""@inproceedings{ZKNR19,
    author = {Ben Zhou and Daniel Khashabi and Qiang Ning and Dan Roth},
    title = {"Going on a vacation" takes longer than "Going for a walk": A Study of Temporal Commonsense Understanding},
    booktitle = {EMNLP},
    year = {2019},
}""",
)

BENCHMARK = Benchmark(name="mctaco", folder="mctaco", title="MC-TACO",
                      scores="question-level EM and F1 (official evaluator)", data=DATA)
