"""lm-eval hooks of `mc_taco_official`; the logic is in `benchscore.harness.tasks`."""

from lm_eval.api.task import ConfigurableTask, MultipleChoiceTask

from benchscore.harness import tasks

load_dataset = tasks.mctaco_dataset  # custom_dataset: called with the task's metadata (data_dir=...)
doc_to_text = tasks.mctaco_question_text
# lm-eval 0.5 has one task class per output type (ConfigurableTask is their base); in 0.4 one
# ConfigurableTask serves every output type and MultipleChoiceTask is an unrelated legacy class.
_MultipleChoiceTask = MultipleChoiceTask if issubclass(MultipleChoiceTask, ConfigurableTask) else ConfigurableTask


class MCTacoQuestions(_MultipleChoiceTask):
    """A document is a whole question. Its requests are lm-eval's own multiple-choice requests of
    each candidate row in turn ((prompt, " no"), (prompt, " yes"), with lm-eval's `mc_taco` prompt of
    the row); a YAML task can give a document one context only, hence this class. Everything else
    (data, metrics, process_results) is the YAML's."""

    def __init__(self, config=None, **kwargs):
        # lm-eval hands a `class:` task its whole YAML; the `class` key itself is no TaskConfig field.
        super().__init__(config={key: value for key, value in (config or {}).items() if key != "class"}, **kwargs)

    def fewshot_context(self, doc, num_fewshot, *args, **kwargs):
        if num_fewshot:
            # A few-shot example would be a whole question, which lm-eval's mc_taco never shows: refused
            # rather than made up.
            raise ValueError(f"mc_taco_official is zero-shot, as lm-eval's mc_taco by default; got --num_fewshot "
                             f"{num_fewshot}, expected 0")
        return super().fewshot_context(doc, num_fewshot, *args, **kwargs)

    def construct_requests(self, doc, ctx, *args, **kwargs):
        if kwargs.get("apply_chat_template"):
            raise ValueError("mc_taco_official scores the log-likelihoods of a plain prompt, as lm-eval's mc_taco; "
                             "expected no --apply_chat_template")
        requests = []
        for context in tasks.mctaco_candidate_contexts(doc, ctx):
            requests += super().construct_requests(doc, context, *args, **kwargs)
        for index, request in enumerate(requests):  # candidate by candidate, " no" then " yes"
            request.idx = index
        return requests


def process_results(doc, results):
    """results: (loglikelihood, is_greedy) per request, in request order."""
    loglikelihoods = [result[0] for result in results]
    return tasks.mctaco_question_result(doc, zip(loglikelihoods[0::2], loglikelihoods[1::2]))
