"""benchscore inside the evaluation harnesses: the official numbers where model evaluations run.

- `lm_eval_tasks/`: task folders for EleutherAI's lm-evaluation-harness (`lm_eval --include_path
  "$(benchscore lm-eval-path)"`): `mc_taco_official`, `webnlg_text2rdf` (+ its subsets and Russian).
- `lighteval_tasks.py`: the same tasks as a LightEval `--custom-tasks` module.

Both are thin: the task logic (documents, prompts, parsing, corpus aggregations) is in `tasks.py`,
and every call into our scorers goes through `scorers.py`. Nothing here imports lm_eval or
lighteval at module level except the LightEval module itself.
"""

import os

HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))
LM_EVAL_TASKS_DIR = os.path.join(HARNESS_DIR, "lm_eval_tasks")


def lm_eval_path():
    """The folder to pass as `lm_eval --include_path`."""
    return LM_EVAL_TASKS_DIR
