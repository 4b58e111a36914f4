"""`benchscore lm-eval-path`: the folder to pass as `lm_eval --include_path`.

    lm_eval --include_path "$(benchscore lm-eval-path)" --tasks mc_taco_official --model hf ...
"""

from . import lm_eval_path


def add_arguments(parser):
    pass


def run(args):
    print(lm_eval_path())
    return 0
