"""Distributed evaluation with real processes on this host.

1. evaluate's own multi-process mode (`num_process`, `process_id`, `experiment_id`): two processes
   each `add_batch` half of the examples into a shared cache folder; process 0's `compute()` gives
   exactly the single-process numbers (and, for MC-TACO, the official evaluator's), process 1 gets
   None. Then its failure modes: a missing peer (an error after `timeout`), and two runs sharing an
   `experiment_id`.
2. torch.distributed (gloo, CPU, 127.0.0.1): two ranks each score their shard of a model's output,
   `gather_object` sends it to rank 0, which computes with the trainer helper.
"""

import json
import os
import socket
import subprocess
import sys
import uuid

import pytest

from benchscore.mctaco import files as mctaco_files
from benchscore.tempbench_trp import loader as tempbench_loader
from benchscore.tsver import loader as tsver_loader
from benchscore.webnlg_rdf import loader as webnlg_loader
from conftest import METRICS
from conftest import REPO
from conftest import load_metric
from conftest import shared_path

# `import evaluate` imports transformers (and torch) when they are installed, ~8 s of CPU per
# process; these workers need neither, so a finder makes `import transformers` fail for them, as
# where it is not installed. (Not sys.modules["transformers"] = None: datasets' pickler tests that key.)
HIDE_TRANSFORMERS = """
import sys
class HideTransformers:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "transformers":
            raise ImportError("transformers is hidden in this worker")
sys.meta_path.insert(0, HideTransformers())
"""

EVALUATE_WORKER = HIDE_TRANSFORMERS + r"""
import json
import evaluate

spec = json.load(open(sys.argv[1]))
rank = int(sys.argv[2])
results = {}
for job in spec["jobs"]:
    metric = evaluate.load(job["path"], job["config_name"], num_process=2, process_id=rank,
                           experiment_id=job["experiment_id"], cache_dir=spec["cache_dir"], timeout=spec["timeout"])
    inputs = job["inputs"]
    n = len(inputs["predictions"])
    start, stop = (0, n // 2) if rank == 0 else (n // 2, n)  # contiguous halves: process 0's rows come first
    for lo in range(start, stop, job["batch_size"]):
        hi = min(lo + job["batch_size"], stop)
        metric.add_batch(**{name: column[lo:hi] for name, column in inputs.items()})
    results[job["name"]] = metric.compute(**job["compute_kwargs"])
print(json.dumps(results))
"""


def run_pair(code, args_for_rank, timeout=120):
    """Starts rank 0 and rank 1 of `code` at once; returns their parsed JSON outputs (last stdout line)."""
    return run_pair_env(code, args_for_rank, lambda rank: {}, timeout)


def run_pair_env(code, args_for_rank, env_for_rank, timeout=120):
    """`run_pair` with extra environment variables per rank."""
    path = os.pathsep.join(filter(None, [str(REPO / "tests"), os.environ.get("PYTHONPATH")]))  # keep a copy's
    env = dict(os.environ, PYTHONPATH=path, OMP_NUM_THREADS="1")
    procs = [subprocess.Popen([sys.executable, "-c", code, *args_for_rank(rank)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env={**env, **env_for_rank(rank)})
             for rank in (0, 1)]
    outputs = []
    for rank, proc in enumerate(procs):
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
            raise
        assert proc.returncode == 0, f"rank {rank} failed:\n{err[-3000:]}"
        outputs.append(json.loads(out.strip().splitlines()[-1]))
    return outputs


def as_json(value):
    """What a result looks like after the workers' JSON (int dict keys become strings; floats are exact)."""
    return json.loads(json.dumps(value))


# ---------------------------------------------------------------- the four modules' inputs

def mctaco_job():
    rows = mctaco_files.read_references(shared_path("data", "mctaco", "dev_3783.tsv"))
    predictions = mctaco_files.read_predictions(shared_path("data", "mctaco", "predictions", "dev_random_seed2019.txt"))
    inputs = {"predictions": predictions, "references": [row["label"] for row in rows],
              "sentence": [row["sentence"] for row in rows], "question": [row["question"] for row in rows],
              "category": [row["category"] for row in rows]}
    return "mctaco", None, inputs, {}, 500


def tsver_job():
    gold_path = shared_path("data", "tsver", "tsver_dev.jsonl")
    gold = tsver_loader.gold_dataset(gold_path)
    predictions = tsver_loader.predictions_dataset(
        shared_path("data", "tsver", "predictions", "pred_dev_perturbed_seed12345.jsonl"), gold_path)
    references = [{name: row[name] for name in ("claim", "verdict", "justifications", "time_series")} for row in gold]
    return "tsver", None, {"predictions": list(predictions), "references": references}, {}, 5


def tempbench_job():
    questions = tempbench_loader.load_tempbench(shared_path("data", "tempbench", "fixtures", "questions_point.jsonl"))
    evidence_path = shared_path("data", "tempbench", "fixtures", "evidence_partial_label.jsonl")
    evidence = {line["id"]: line["evidence"] for line in map(json.loads, evidence_path.read_text(encoding="utf-8").splitlines())}
    inputs = {"predictions": [evidence[qid] for qid in questions["id"]], **tempbench_loader.metric_inputs(questions)}
    return "tempbench_trp", None, inputs, {"dedup": True}, 40


def webnlg_job():
    first100 = shared_path("data", "webnlg", "subsets", "first100")
    entries = webnlg_loader.load_dataset(first100 / "ref_en.xml", first100 / "cand_en_bt5.xml")
    inputs = {"predictions": list(entries["predictions"]), "references": list(entries["references"]),
              "category": list(entries["category"])}
    return "webnlg_rdf", "breakdown", inputs, {}, 16


def test_evaluate_two_processes_equal_one_process(tmp_path):
    jobs = [mctaco_job(), tsver_job(), tempbench_job(), webnlg_job()]
    spec = {"cache_dir": str(tmp_path / "cache"), "timeout": 60, "jobs": [
        {"name": folder, "path": str(METRICS / folder), "config_name": config_name, "inputs": inputs,
         "compute_kwargs": compute_kwargs, "batch_size": batch_size, "experiment_id": uuid.uuid4().hex}
        for folder, config_name, inputs, compute_kwargs, batch_size in jobs]}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    rank0, rank1 = run_pair(EVALUATE_WORKER, lambda rank: [str(tmp_path / "spec.json"), str(rank)])

    assert rank1 == {folder: None for folder, *_ in jobs}  # only process 0 computes
    for folder, config_name, inputs, compute_kwargs, _ in jobs:
        single = load_metric(folder, config_name).compute(**inputs, **compute_kwargs)
        assert rank0[folder] == as_json(single), folder
    # MC-TACO: the official evaluator's recorded numbers, through two processes.
    assert (rank0["mctaco"]["em"], rank0["mctaco"]["f1"]) == (0.0873440285204991, 0.36222479896260157)
    assert rank0["tsver"]["n_claims"] == 24 and rank0["tempbench_trp"]["n_questions"] == 265
    assert rank0["webnlg_rdf"]["signature"].endswith("breakdown:yes")


# ---------------------------------------------------------------- evaluate's failure modes (no ../shared needed)

def small_mctaco_inputs():
    return {"predictions": ["yes", "no", "no"], "references": ["yes", "yes", "no"], "question_id": ["a", "a", "b"]}


def test_missing_peer_is_an_error_after_the_timeout(tmp_path):
    experiment_id = uuid.uuid4().hex
    metric = load_metric("mctaco", num_process=2, process_id=0, experiment_id=experiment_id,
                         cache_dir=str(tmp_path), timeout=1)
    # Process 0 waits for every peer's lock file at its first add_batch. (evaluate's message names
    # the missing peer's file, "-2-1", but says "from process 0", its own id.)
    with pytest.raises(ValueError, match=f"{experiment_id}-2-1.arrow.lock from process 0 but it doesn't exist"):
        metric.add_batch(**small_mctaco_inputs())
    # It leaves its cache files behind (documented): a rerun needs a new experiment_id or a clean folder.
    assert any(path.suffix == ".arrow" for path in tmp_path.rglob("*"))


def test_two_runs_sharing_an_experiment_id_collide(tmp_path):
    # Run A's process 1 holds its cache file lock (its process 0 never comes: it gives up after 1 s,
    # still holding it); run B's process 1, with the same experiment_id, cannot take that file.
    experiment_id = uuid.uuid4().hex
    run_a = load_metric("mctaco", num_process=2, process_id=1, experiment_id=experiment_id, cache_dir=str(tmp_path),
                        timeout=1)
    with pytest.raises(ValueError, match=f"{experiment_id}-2-0.arrow.lock from process 1"):
        run_a.add_batch(**small_mctaco_inputs())
    run_b = load_metric("mctaco", num_process=2, process_id=1, experiment_id=experiment_id, cache_dir=str(tmp_path),
                        timeout=1)
    with pytest.raises(ValueError, match="another evaluation module instance is already using the local cache file"):
        run_b.add_batch(**small_mctaco_inputs())


def test_keep_in_memory_is_refused_with_several_processes():
    with pytest.raises(ValueError, match="keep_in_memory"):
        load_metric("mctaco", num_process=2, process_id=0, keep_in_memory=True)


# ---------------------------------------------------------------- torch.distributed, gloo on 127.0.0.1

GLOO_WORKER = HIDE_TRANSFORMERS + r"""
import datetime
import json
import numpy as np
import torch
import torch.distributed as dist
from benchscore.mctaco import files
from benchscore.mctaco import loader
from benchscore.mctaco import trainer
from benchscore.tsver import loader as tsver_loader
from benchscore.tsver import scoring as tsver_scoring
from benchscore.tsver import trainer as tsver_trainer

port, rank, dev_tsv, predictions_txt, tsver_gold = sys.argv[1:6]
rank = int(rank)
dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2,
                        timeout=datetime.timedelta(seconds=60))

# MC-TACO: this rank's shard, as DistributedSampler deals it (rows rank, rank + 2, ...), and its
# "model output": two logits per candidate (here from the prediction file).
rows = loader.load_split(dev_tsv)
yes = files.read_predictions(predictions_txt)
mine = list(range(rank, len(rows), 2))
logits = torch.tensor([[0.0, 1.0] if yes[i] else [1.0, 0.0] for i in mine])
shard = {"index": mine, "logits": logits.numpy().tolist(), "labels": [rows[i]["label"] for i in mine]}

# TSVer: a verdict classifier's logits per claim of this rank's shard (here: the gold verdict
# for even claims, "Refuted" for odd ones).
gold = tsver_loader.gold_dataset(tsver_gold)
tsver_mine = list(range(rank, len(gold), 2))
verdict_ids = [tsver_scoring.LABELS.index(gold[i]["verdict"] if i % 2 == 0 else "Refuted") for i in tsver_mine]
tsver_shard = {"index": tsver_mine, "logits": np.eye(4)[verdict_ids].tolist(),
               "labels": [tsver_scoring.LABELS.index(gold[i]["verdict"]) for i in tsver_mine]}

gathered = [None, None] if rank == 0 else None
dist.gather_object((shard, tsver_shard), gathered, dst=0)
result = None
if rank == 0:
    class EvalPred:
        def __init__(self, shards):
            order = np.argsort(np.concatenate([s["index"] for s in shards]), kind="stable")
            self.predictions = np.concatenate([s["logits"] for s in shards])[order]
            self.label_ids = np.concatenate([s["labels"] for s in shards])[order]

    result = {"mctaco": trainer.compute_metrics_for(rows)(EvalPred([g[0] for g in gathered])),
              "tsver": tsver_trainer.compute_metrics_for(gold)(EvalPred([g[1] for g in gathered]))}
dist.barrier()
dist.destroy_process_group()
print(json.dumps(result))
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_torch_distributed_gloo_gather_then_compute_on_rank_0():
    pytest.importorskip("torch")
    dev = shared_path("data", "mctaco", "dev_3783.tsv")
    predictions = shared_path("data", "mctaco", "predictions", "dev_random_seed2019.txt")
    tsver_gold = shared_path("data", "tsver", "tsver_dev.jsonl")
    port = str(free_port())
    rank0, rank1 = run_pair(GLOO_WORKER, lambda rank: [port, str(rank), str(dev), str(predictions), str(tsver_gold)])
    assert rank1 is None
    assert (rank0["mctaco"]["em"], rank0["mctaco"]["f1"]) == (0.0873440285204991, 0.36222479896260157)
    # TSVer: 12 even claims right; the odd ones right only where the gold verdict is Refuted.
    gold = tsver_loader.gold_dataset(tsver_gold)
    right = sum(1 for i, verdict in enumerate(gold["verdict"]) if i % 2 == 0 or verdict == "Refuted")
    assert rank0["tsver"]["verdict_accuracy"] == right / len(gold)
    assert rank0["tsver"]["n_scored"] == len(gold) == 24


# ---------------------------------------------------------------- a real Trainer on two processes (gloo)

TRAINER_WORKER = r"""
import json
import os
import sys
import tempfile

import torch
from tokenizers import Tokenizer
from tokenizers import models
from tokenizers import pre_tokenizers
from tokenizers import processors
from transformers import BertConfig
from transformers import BertForSequenceClassification
from transformers import DataCollatorWithPadding
from transformers import PreTrainedTokenizerFast
from transformers import Trainer
from transformers import TrainingArguments

from benchscore.mctaco import loader
from benchscore.mctaco import scoring
from benchscore.mctaco import trainer as mctaco_trainer

dev_tsv, n_rows = sys.argv[1], int(sys.argv[2])
torch.set_num_threads(1)
rows = loader.load_split(dev_tsv).select(range(n_rows))
words = sorted({w for r in rows for f in ("sentence", "question", "answer") for w in r[f].split()})
vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + words)}
tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
                                                   special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]")
encoded = rows.map(lambda b: tokenizer([s + " " + q for s, q in zip(b["sentence"], b["question"])], b["answer"]),
                   batched=True).rename_column("label", "labels")
torch.manual_seed(0)  # the same weights on both ranks
model = BertForSequenceClassification(BertConfig(
    vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
    max_position_embeddings=256, num_labels=2, initializer_range=0.5))

results = {}
for batch_eval_metrics in (False, True):
    args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_eval_batch_size=4, use_cpu=True,
                             batch_eval_metrics=batch_eval_metrics, report_to="none", disable_tqdm=True,
                             ddp_backend="gloo")
    trainer = Trainer(model=model, args=args, eval_dataset=encoded, data_collator=DataCollatorWithPadding(tokenizer),
                      compute_metrics=mctaco_trainer.compute_metrics_for(rows))
    results[batch_eval_metrics] = trainer.evaluate()
    world_size = args.world_size

# The reference: the same model on every row in this process, no Trainer, then the pure scorer.
model.eval()
with torch.no_grad():
    features = DataCollatorWithPadding(tokenizer)([{k: v for k, v in r.items() if k in ("input_ids", "attention_mask")}
                                                   for r in encoded])
    yes = (model(**features).logits.argmax(-1) == 1).tolist()
expected = scoring.score(yes, list(rows["label"]), list(rows["question_id"]))
print(json.dumps({"world_size": world_size, "whole": results[False], "batched": results[True],
                  "expected": expected, "n_yes": sum(yes)}))
"""


def test_trainer_on_two_processes_gathers_in_dataset_order():
    pytest.importorskip("transformers")
    dev = shared_path("data", "mctaco", "dev_3783.tsv")
    port = str(free_port())
    n_rows = 61  # with 2 ranks x 4 rows a batch, the last batch is padded with repeats that must be dropped

    # What torchrun would set for each of the two processes.
    outputs = run_pair_env(TRAINER_WORKER, lambda rank: [str(dev), str(n_rows)], lambda rank: {
        "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port})
    for output in outputs:
        assert output["world_size"] == 2
        assert 0 < output["n_yes"] < n_rows
        for metrics in (output["whole"], output["batched"]):
            assert (metrics["eval_em"], metrics["eval_f1"], metrics["eval_n_questions"]) == (
                output["expected"]["em"], output["expected"]["f1"], output["expected"]["n_questions"])
