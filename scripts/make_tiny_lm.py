"""Build a tiny random causal LM (GPT-2 architecture, 2 layers, hidden 32) and a byte-level BPE
tokenizer trained on the given texts, and save both to a folder that `lm_eval --model hf
--model_args pretrained=FOLDER` (or LightEval's transformers backend) loads offline.

    python scripts/make_tiny_lm.py /tmp/tiny-lm                      # texts: MC-TACO + WebNLG from ../shared
    python scripts/make_tiny_lm.py /tmp/tiny-lm --train-webnlg 5     # also fit it a little on 5 entries

Nothing is downloaded. The numbers such a model gets are wiring checks, not baselines. With
`--train-webnlg N` the model is fitted for a few hundred steps on the prompts and references of the
first N English test entries, so that greedy decoding writes triple-like lines (a random model
writes none, and every F1 would be 0): a test of the scoring path, and plainly not an evaluation.
Needs the `trainer` extra (torch, transformers).
"""

import argparse
import os
import pathlib

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", REPO.parent / "shared"))
EOS = "<|endoftext|>"


def byte_level_tokenizer(texts, vocab_size=1000):
    """A GPT-2-style byte-level BPE tokenizer trained on `texts` (any text round-trips)."""
    from tokenizers import Tokenizer
    from tokenizers import decoders
    from tokenizers import models
    from tokenizers import pre_tokenizers
    from tokenizers import trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[EOS],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train_from_iterator(texts, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token=EOS, bos_token=EOS, pad_token=EOS,
                                   unk_token=EOS)


def tiny_causal_lm(tokenizer, seed=0):
    import torch
    from transformers import GPT2Config
    from transformers import GPT2LMHeadModel

    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=1024, n_embd=32, n_layer=2, n_head=2,
                        bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id)
    return GPT2LMHeadModel(config)


def fit(model, tokenizer, texts, steps=300, learning_rate=1e-2, seed=0):
    """A few hundred Adam steps on `texts` (one batch: all of them), so greedy decoding repeats them."""
    import torch

    torch.manual_seed(seed)
    batch = tokenizer([text + EOS for text in texts], return_tensors="pt", padding=True)
    labels = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    model.train()
    for _ in range(steps):
        loss = model(**batch, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    return float(loss.detach())


def build(out_dir, texts, fit_texts=(), steps=300):
    """Save a tiny causal LM and its tokenizer (trained on `texts`) to `out_dir`; fit it on `fit_texts`."""
    tokenizer = byte_level_tokenizer(list(texts) + list(fit_texts))
    model = tiny_causal_lm(tokenizer)
    if fit_texts:
        fit(model, tokenizer, list(fit_texts), steps=steps)
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return out_dir


def webnlg_fit_texts(n_entries, subset="en", data_dir=None):
    """Few-shot prompt + entry + references, as the `webnlg_text2rdf` task writes them, for the first n entries."""
    from benchscore.harness import tasks

    docs = tasks.webnlg_dataset(subset, data_dir)["test"].select(range(n_entries))
    return [tasks.WEBNLG_DESCRIPTION + tasks.webnlg_doc_to_text(doc) + "\n" + tasks.webnlg_doc_to_target(doc)
            for doc in docs]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--mctaco-dir", default=str(SHARED / "data/mctaco"))
    parser.add_argument("--webnlg-dir", default=str(SHARED / "data/webnlg"))
    parser.add_argument("--train-webnlg", type=int, default=0, metavar="N", help="fit on the first N English entries")
    args = parser.parse_args(argv)
    texts = []
    mctaco = pathlib.Path(args.mctaco_dir, "dev_3783.tsv")
    if mctaco.exists():
        texts += mctaco.read_text(encoding="utf-8").splitlines()
    for name in ("en_all.xml", "ru_all.xml"):
        path = pathlib.Path(args.webnlg_dir, "references", name)
        if path.exists():
            texts += path.read_text(encoding="utf-8").splitlines()
    fit_texts = webnlg_fit_texts(args.train_webnlg, data_dir=args.webnlg_dir) if args.train_webnlg else ()
    print(build(args.out_dir, texts, fit_texts))


if __name__ == "__main__":
    main()
