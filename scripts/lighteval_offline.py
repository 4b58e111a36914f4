"""Run the `lighteval` command with only the `--custom-tasks` tasks in its task registry.

    python scripts/lighteval_offline.py accelerate "model_name=/path/to/model" "mc_taco_official|0" \
        --custom-tasks benchscore.harness.lighteval_tasks --output-dir out --save-details

Why: LightEval 0.13.0 imports every built-in task module when it builds its registry, whatever
tasks are asked for, and two of them fail here before any task runs:
- `lighteval/tasks/tasks/tiny_benchmarks.py` downloads tinyBenchmarks.pkl from GitHub at import
  (ConnectionError offline; the eager imports: https://github.com/huggingface/lighteval/issues/1004);
- `lighteval/tasks/tasks/mt_bench/main.py` builds its LLM judge at import, which calls
  `HfApi().list_models(model_name=...)`: a Hub request, and a TypeError on huggingface_hub >= 2.0,
  which removed the argument (1.x warns that it is deprecated:
  https://github.com/huggingface/huggingface_hub/pull/4112, removed by
  https://github.com/huggingface/huggingface_hub/pull/4955); this environment has 2.4.
And a third after the model has run, in every run: its details logger hashes `str`s with
`xxhash.xxh64(doc.query)`, which xxhash >= 4 refuses ("Strings must be encoded before hashing";
https://github.com/huggingface/lighteval/issues/1330, fix proposed in
https://github.com/huggingface/lighteval/pull/1332); datasets pulls xxhash 4.1.0 here.
This wrapper registers the custom tasks only (the tasks asked for must all be custom tasks), gives
the details logger an xxh64 that encodes a `str` as UTF-8 first (xxhash 3's behaviour), and
otherwise runs LightEval's own command line unchanged.
"""

import sys

import xxhash
from lighteval.logging import info_loggers
from lighteval.tasks.registry import Registry


def custom_tasks_only(custom_tasks=None, load_multilingual=False):
    if custom_tasks is None:
        raise SystemExit("lighteval_offline.py runs --custom-tasks tasks only; pass --custom-tasks")
    return Registry._extract_configs(Registry.create_custom_tasks_module(custom_tasks))


class _Xxhash:
    @staticmethod
    def xxh64(data=b"", *args, **kwargs):
        return xxhash.xxh64(data.encode("utf-8") if isinstance(data, str) else data, *args, **kwargs)


Registry.load_all_task_configs = staticmethod(custom_tasks_only)
info_loggers.xxhash = _Xxhash

if __name__ == "__main__":
    from lighteval.__main__ import app

    sys.argv[0] = "lighteval"
    app()
