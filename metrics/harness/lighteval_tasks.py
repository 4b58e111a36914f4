"""LightEval custom tasks with benchscore's official numbers: `mc_taco_official` and
`webnlg_text2rdf` (+ `webnlg_text2rdf_seen`, `_unseen_entities`, `_unseen_categories`, `_ru`).

    lighteval accelerate "model_name=/path/to/model" "mc_taco_official|0" \
        --custom-tasks benchscore.harness.lighteval_tasks
    lighteval accelerate "model_name=/path/to/model" "webnlg_text2rdf|3" \
        --custom-tasks benchscore.harness.lighteval_tasks

Same documents, prompts, parsing and corpus numbers as the lm-evaluation-harness tasks (the logic
is `benchscore.harness.tasks`). LightEval's plain-text prompt (instruction, then each few-shot
example as "query gold", then the query, joined by blank lines) is byte-identical to lm-eval's for
these tasks (description + examples joined by blank lines, target delimiter " ").

Data: LightEval loads every dataset with `datasets.load_dataset(hf_repo, hf_subset)`, which cannot
read the official TSV/XML files, and it has no per-task loader hook. This module therefore wraps
`LightevalTask.download_dataset_worker` once, at import: for a task whose `hf_repo` is
`benchscore/<benchmark>` it builds the DatasetDict from the official files (`official_file`:
`BENCHSCORE_MCTACO_DIR` / `BENCHSCORE_WEBNLG_DIR` or the benchscore data store); every other task
goes to LightEval's own loader unchanged. Nothing is downloaded.

Metrics: each task has one `CorpusLevelMetricGrouping` whose corpus function returns all of its
numbers as a dict. LightEval computes no standard error for a corpus metric that returns a dict;
otherwise it would bootstrap our corpus function over *documents* (MC-TACO candidates, breaking
questions apart) in a process pool. `em_stderr`/`f1_stderr` are ours, over whole questions, and
so are WebNLG's `<scheme>_f1_stderr`, over entries.

`--max-samples`: LightEval shuffles the documents (seed 42) before keeping the first N, so for
MC-TACO the kept candidates rarely make whole questions; only whole questions are scored
(`n_questions`, `partial_questions` say how many). For a quick run on whole questions, point
`BENCHSCORE_MCTACO_DIR` at a folder whose TSVs hold a few whole questions.
"""

from lighteval.metrics.metrics_sample import SampleLevelComputation
from lighteval.metrics.utils.metric_utils import CorpusLevelMetricGrouping
from lighteval.tasks.lighteval_task import LightevalTask, LightevalTaskConfig
from lighteval.tasks.requests import Doc, SamplingMethod

from benchscore.harness import tasks

REPO_PREFIX = "benchscore/"


# ------------------------------------------------------------------------------- data
def _dataset(repo, subset):
    if repo == REPO_PREFIX + "mctaco":
        return tasks.mctaco_dataset()
    if repo == REPO_PREFIX + "webnlg":
        data = tasks.webnlg_dataset(subset)
        import datasets

        language = "ru" if subset == "ru" else "en"
        shots = [{"row": -1 - i, "eid": None, "category": None, "size": len(shot["references"]),
                  "references": shot["references"], "text": shot["text"]}
                 for i, shot in enumerate(tasks.WEBNLG_FEWSHOT[language])]
        data["fewshot"] = datasets.Dataset.from_list(shots, features=data["test"].features)
        return data
    return None


_lighteval_download = LightevalTask.download_dataset_worker


def _download_dataset_worker(task):
    data = _dataset(task.dataset_path, task.dataset_config_name)
    return _lighteval_download(task) if data is None else data


if getattr(LightevalTask.download_dataset_worker, "__module__", None) != __name__:
    LightevalTask.download_dataset_worker = staticmethod(_download_dataset_worker)


# ------------------------------------------------------------------------------- MC-TACO
def mctaco_prompt(line, task_name=None):
    """lm-eval's mc_taco prompt; choices " no"/" yes" as lm-eval's target delimiter + choice."""
    return Doc(
        task_name=task_name,
        query=tasks.mctaco_doc_to_text(line),
        choices=[" " + choice for choice in tasks.MCTACO_CHOICES],
        gold_index=line["label"],
        specific={"row": line["row"], "question_key": line["question_key"], "n_candidates": line["n_candidates"],
                  "label": line["label"]},
    )


class MCTacoItem(SampleLevelComputation):
    def compute(self, doc, model_response, **kwargs):
        loglikelihood_no, loglikelihood_yes = model_response.logprobs[:2]
        item = tasks.mctaco_item(doc.specific, loglikelihood_no, loglikelihood_yes)
        return {name: item for name in MCTACO_NAMES}


def mctaco_numbers(items):
    """All of mc_taco_official's numbers, as one dict (see the module docstring)."""
    numbers = {name: function(items) for name, function in tasks.MCTACO_METRICS.items()}
    numbers["acc"] = sum(item["prediction"] == item["label"] for item in items) / len(items)
    return numbers


MCTACO_NAMES = list(tasks.MCTACO_METRICS) + ["acc"]
mctaco_metric = CorpusLevelMetricGrouping(
    metric_name=MCTACO_NAMES,
    higher_is_better={name: name not in ("em_stderr", "f1_stderr", "partial_questions") for name in MCTACO_NAMES},
    category=SamplingMethod.LOGPROBS,
    sample_level_fn=MCTacoItem(),
    corpus_level_fn={name: mctaco_numbers for name in MCTACO_NAMES},
)

mc_taco_official = LightevalTaskConfig(
    name="mc_taco_official",
    prompt_function=mctaco_prompt,
    hf_repo=REPO_PREFIX + "mctaco",
    hf_subset="default",
    hf_avail_splits=["validation", "test"],
    evaluation_splits=["test"],
    few_shots_split="validation",
    few_shots_select="sequential",
    metrics=[mctaco_metric],
    version=1,
)


# ------------------------------------------------------------------------------- WebNLG
def webnlg_prompt(line, task_name=None):
    return Doc(
        task_name=task_name,
        query=tasks.webnlg_doc_to_text(line),
        choices=[tasks.webnlg_doc_to_target(line)],
        gold_index=0,
        instruction=tasks.WEBNLG_DESCRIPTION.strip(),
        specific={"row": line["row"], "references": line["references"]},
    )


class WebNLGItem(SampleLevelComputation):
    def compute(self, doc, model_response, **kwargs):
        item = tasks.webnlg_item(doc.specific, model_response.text[0])
        return {name: item for name in tasks.WEBNLG_METRICS}


def webnlg_numbers(items):
    """All of webnlg_text2rdf's numbers, as one dict."""
    return {name: function(items) for name, function in tasks.WEBNLG_METRICS.items()}


webnlg_metric = CorpusLevelMetricGrouping(
    metric_name=list(tasks.WEBNLG_METRICS),
    higher_is_better={name: name.endswith("_f1") for name in tasks.WEBNLG_METRICS},  # stderrs and counts: lower
    category=SamplingMethod.GENERATIVE,
    sample_level_fn=WebNLGItem(),
    corpus_level_fn={name: webnlg_numbers for name in tasks.WEBNLG_METRICS},
)


def _webnlg_task(name, subset):
    return LightevalTaskConfig(
        name=name,
        prompt_function=webnlg_prompt,
        hf_repo=REPO_PREFIX + "webnlg",
        hf_subset=subset,
        hf_avail_splits=["fewshot", "test"],
        evaluation_splits=["test"],
        few_shots_split="fewshot",  # hand-written examples (see benchscore.harness.tasks.WEBNLG_FEWSHOT)
        few_shots_select="sequential",
        generation_size=256,
        stop_sequence=["\n\n"],
        metrics=[webnlg_metric],
        version=1,
    )


TASKS_TABLE = [
    mc_taco_official,
    _webnlg_task("webnlg_text2rdf", "en"),
    _webnlg_task("webnlg_text2rdf_seen", "en_seen"),
    _webnlg_task("webnlg_text2rdf_unseen_entities", "en_unseen_entities"),
    _webnlg_task("webnlg_text2rdf_unseen_categories", "en_unseen_categories"),
    _webnlg_task("webnlg_text2rdf_ru", "ru"),
]
