"""TSVer in benchscore's registry: its command, folder, title and official data (pinned)."""

from benchscore.core.registry import Benchmark, File, Source

DATA = Source(
    name="tsver",
    title="TSVer (time-series fact verification)",
    owner="marekstrong", repo="TSVer", commit="7dd35f2a311440c8421a399d40602022ebf21183",
    files={
        "test": File("data/tsver_test.jsonl",
                     "cbb0c59056111d25ed1276d33224e458c89483a6d842cc7f0d94c204cd563eae", 388558, "tsver_test.jsonl"),
        "dev": File("data/tsver_dev.jsonl",
                    "0d3c81d665e4572ce2aedb33044d9df413ebbf555c7980e7d45271f387e2a3f6", 28975, "tsver_dev.jsonl"),
        "licence": File("LICENSE", "28a9529c7d0bb4dc51f4bf5c116a3d16ef247a052f7591466768ddf563fd1cf5", 20138,
                        "LICENSE_CC-BY-SA-4.0.txt"),
        "metadata": File("data/time_series/metadata.json",
                         "5ad054561e2470fbcc7bafe1e963a7ab5756e70aac99ac850b501c97cfe20e33", 204892,
                         "time_series/metadata.json"),
        "country_codes": File("data/time_series/country_codes.yaml",
                              "6b7140f2c25fe5403143209f58ebc259cbe112fe318a43f156ad002120a7f471", 5981,
                              "time_series/country_codes.yaml"),
        # The Ev²R judge prompt (TEMPLATE_EV2R) of the official pipeline: read as data by
        # benchscore.tsver.prompt_template (parsed, never executed), so it is pinned like the data.
        "prompt_templates": File("baseline/prompt_templates.py",
                                 "4aa6bd347ee34c5d3571248d7ca582494cb51dbfe59a32875a009a5b2dc9d385", 10430,
                                 "baseline/prompt_templates.py"),
    },
    default=("test", "dev", "licence", "prompt_templates"),
    data_dir="data",
    licence="CC BY-SA 4.0 (the repository's LICENSE, fetched beside the data)",
    cite="Strong and Vlachos, TSVer: A Benchmark for Fact Verification Against Time-Series Evidence, "
         "EMNLP 2025 (arXiv:2511.01101)",
    bibtex="""@inproceedings{strong-vlachos-2025-tsver,
    title = "{TSV}er: A Benchmark for Fact Verification Against Time-Series Evidence",
    author = "Strong, Marek and Vlachos, Andreas",
    booktitle = "Proceedings of the 2025 Conference on Empirical Methods in Natural Language Processing",
    year = "2025",
    eprint = "2511.01101",
    archivePrefix = "arXiv",
}""",
)

BENCHMARK = Benchmark(name="tsver", folder="tsver", title="TSVer",
                      scores="verdict accuracy, TSCS and Ev2R (official scorer)", data=DATA)
