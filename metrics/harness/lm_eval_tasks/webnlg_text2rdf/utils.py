"""lm-eval hooks of the `webnlg_text2rdf*` tasks; the logic is in `benchscore.harness.tasks`."""

from benchscore.harness import tasks


def load_en(data_dir=None, **_metadata):
    return tasks.webnlg_dataset("en", data_dir)


def load_en_seen(data_dir=None, **_metadata):
    return tasks.webnlg_dataset("en_seen", data_dir)


def load_en_unseen_entities(data_dir=None, **_metadata):
    return tasks.webnlg_dataset("en_unseen_entities", data_dir)


def load_en_unseen_categories(data_dir=None, **_metadata):
    return tasks.webnlg_dataset("en_unseen_categories", data_dir)


def load_ru(data_dir=None, **_metadata):
    return tasks.webnlg_dataset("ru", data_dir)


def fewshot_en():
    return tasks.WEBNLG_FEWSHOT["en"]


def fewshot_ru():
    return tasks.WEBNLG_FEWSHOT["ru"]


doc_to_text = tasks.webnlg_doc_to_text
doc_to_target = tasks.webnlg_doc_to_target


def process_results(doc, results):
    return tasks.webnlg_values(doc, results[0])


# The corpus aggregations, `utils.<metric>` in the yaml (strict_f1, exact_f1, partial_f1, ent_type_f1,
# triple_f1): one module name per metric of the harness-neutral table.
globals().update(tasks.WEBNLG_METRICS)
