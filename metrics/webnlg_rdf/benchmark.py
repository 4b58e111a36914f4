"""WebNLG+ 2020 text-to-RDF in benchscore's registry: its command, folder, title and official data (pinned)."""

from benchscore.core.registry import Benchmark, File, Source

DATA = Source(
    name="webnlg",
    title="WebNLG+ 2020 text-to-RDF (reference files of the official scorer)",
    owner="WebNLG", repo="WebNLG-Text-to-triples", commit="6a409508885bcd7b3a5d8e42f599fe6c3c6b8564",
    files={
        "en": File("Data/semantic-parsing-test-data-with-refs-en(2).xml",
                   "8542911fedeae13087e04896bd611e57fd8b3a1e5509244a0e57a6c509bc7115", 2010966,
                   "references/en_all.xml"),
        "en_seen": File("Data/semantic-parsing-test-data-with-refs-en(2) (Seen).xml",
                        "6a564b6a96cc61190e0ca8370e0dd7147e5a10a14c806f982d8dbbd2733d3979", 756761,
                        "references/en_seen.xml"),
        "en_unseen_entities": File("Data/semantic-parsing-test-data-with-refs-en(2) (Unseen Entities).xml",
                                   "2655f2a99b43c860eb5d551e596bfdfe55654ea2fdd494a4896418e4e5d0f22a", 386916,
                                   "references/en_unseen_entities.xml"),
        "en_unseen_categories": File(
            "Data/semantic-parsing-test-data-with-refs-en(2) (Unseen Entities and Categories).xml",
            "4a90c5234266250d66ad7737a0a151baa5ad97c71ef325783b5a8b05ba45d27c", 881551,
            "references/en_unseen_categories.xml"),
        "ru": File("Data/semantic-parsing-test-data-with-refs-ru.xml",
                   "853ee5364ee33aa7e53c34852fdd805b518718c12ee81499d7af18ed7876b549", 1885627,
                   "references/ru_all.xml"),
    },
    default=("en", "en_seen", "en_unseen_entities", "en_unseen_categories", "ru"),
    aliases={"en_all": "en", "ru_all": "ru", "en-seen": "en_seen", "en-unseen-entities": "en_unseen_entities",
             "en-unseen-categories": "en_unseen_categories"},
    data_dir="Data",
    licence="CC BY-NC-SA 4.0 (the WebNLG 3.0 test data; the scorer's repository itself is GPL-3.0, "
            "and no code is fetched)",
    cite="Castro Ferreira et al., The 2020 Bilingual, Bi-Directional WebNLG+ Shared Task: Overview and "
         "Evaluation Results (WebNLG+ 2020), WebNLG+ 2020, https://aclanthology.org/2020.webnlg-1.7",
    bibtex="""@inproceedings{castro-ferreira-etal-2020-2020,
    title = "The 2020 Bilingual, Bi-Directional {W}eb{NLG}+ Shared Task: Overview and Evaluation Results ({W}eb{NLG}+ 2020)",
    author = "Castro Ferreira, Thiago and Gardent, Claire and Ilinykh, Nikolai and van der Lee, Chris and
      Mille, Simon and Moussallem, Diego and Shimorina, Anastasia",
    booktitle = "Proceedings of the 3rd International Workshop on Natural Language Generation from the Semantic Web (WebNLG+)",
    year = "2020",
    address = "Dublin, Ireland (Virtual)",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2020.webnlg-1.7",
    pages = "55--76",
}""",
)

BENCHMARK = Benchmark(name="webnlg", folder="webnlg_rdf", title="WebNLG+ 2020 text-to-RDF",
                      scores="Strict/Exact/Partial/Type P/R/F1 (official evaluation script)", data=DATA)
