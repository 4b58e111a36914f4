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

Metrics: MC-TACO's documents are whole questions (as in the lm-eval task), each with the
question's official EM and F1 and its candidate accuracy; the corpus numbers are plain means over
questions, with LightEval's closed-form standard error of a mean. WebNLG's corpus numbers come
from one `CorpusLevelMetricGrouping` returning all of them as a dict (the same aggregations as the
lm-eval task); LightEval computes no standard error for such a metric. (Its bootstrap for a corpus
metric returns the standard error of the mean of the resampled values, the bootstrap's standard
deviation divided by the square root of the number of resamples: far too small to report.)

`--max-samples N` keeps N documents after LightEval's shuffle (seed 42): N whole questions.
"""

from lighteval.metrics.metrics_sample import SampleLevelComputation
from lighteval.metrics.utils.metric_utils import CorpusLevelMetricGrouping, SampleLevelMetricGrouping
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
    """One Doc per question. A LightEval Doc has one query, so the query is the question's part of
    lm-eval's mc_taco prompt and each choice is a candidate's answer line followed by " no" or " yes":
    the answer line's log-likelihood is the same in both choices of a candidate, so comparing them
    is comparing lm-eval's loglikelihood(" yes") and loglikelihood(" no") of that candidate row."""
    return Doc(
        task_name=task_name,
        query=tasks.mctaco_question_text(line),
        choices=[f"{answer_line} {choice}" for answer_line in tasks.mctaco_answer_lines(line)
                 for choice in tasks.MCTACO_CHOICES],
        gold_index=[2 * candidate + label for candidate, label in enumerate(line["labels"])],
        specific={key: line[key] for key in ("question_key", "answers", "labels", "rows")},
    )


class MCTacoQuestion(SampleLevelComputation):
    def compute(self, doc, model_response, **kwargs):
        logprobs = model_response.logprobs
        return tasks.mctaco_question_result(doc.specific, zip(logprobs[0::2], logprobs[1::2]))


def mean(values):
    """Left to right, as lm-eval's `mean` and the official tool; LightEval gives a function whose name
    contains "mean" its closed-form standard error."""
    values = list(values)
    return sum(values) / len(values)


mctaco_metric = SampleLevelMetricGrouping(
    metric_name=list(tasks.MCTACO_METRICS),
    higher_is_better={name: True for name in tasks.MCTACO_METRICS},
    category=SamplingMethod.LOGPROBS,
    sample_level_fn=MCTacoQuestion(),
    corpus_level_fn={name: mean for name in tasks.MCTACO_METRICS},
)

mc_taco_official = LightevalTaskConfig(
    name="mc_taco_official",
    prompt_function=mctaco_prompt,
    hf_repo=REPO_PREFIX + "mctaco",
    hf_subset="default",
    hf_avail_splits=["validation", "test"],
    evaluation_splits=["test"],
    few_shots_split=None,  # zero-shot, as the lm-eval task
    few_shots_select=None,
    metrics=[mctaco_metric],
    version=2,
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


class WebNLGValues(SampleLevelComputation):
    def compute(self, doc, model_response, **kwargs):
        # Every name gets the document's whole `webnlg_values`: the grouping's one corpus function
        # computes all numbers from them (LightEval hands it the values of one name).
        values = tasks.webnlg_values(doc.specific, model_response.text[0])
        return {name: values for name in WEBNLG_NAMES}


def webnlg_numbers(values):
    """All of webnlg_text2rdf's numbers as one dict, from each document's `webnlg_values`; LightEval
    computes no standard error for a corpus metric that returns a dict."""
    values = list(values)
    numbers = {name: function([value[name] for value in values]) for name, function in tasks.WEBNLG_METRICS.items()}
    numbers.update({name: mean([value[name] for value in values]) for name in tasks.WEBNLG_PER_ENTRY})
    return numbers


WEBNLG_NAMES = [*tasks.WEBNLG_METRICS, *tasks.WEBNLG_PER_ENTRY]
webnlg_metric = CorpusLevelMetricGrouping(
    metric_name=WEBNLG_NAMES,
    higher_is_better={name: name in tasks.WEBNLG_METRICS for name in WEBNLG_NAMES},  # counters: lower
    category=SamplingMethod.GENERATIVE,
    sample_level_fn=WebNLGValues(),
    corpus_level_fn={name: webnlg_numbers for name in WEBNLG_NAMES},
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
