"""Build a tiny random causal LM (GPT-2 architecture, 2 layers, hidden 32) and a byte-level BPE
tokenizer trained on the given texts, and save both to a folder that `lm_eval --model hf
--model_args pretrained=FOLDER` (or LightEval's transformers backend) loads offline.

    python scripts/make_tiny_lm.py /tmp/tiny-lm                      # texts: MC-TACO + WebNLG from ../shared
    python scripts/make_tiny_lm.py /tmp/tiny-lm --train-webnlg 5     # also fit it a little on 5 entries

Nothing is downloaded. The numbers such a model gets are wiring checks, not baselines. With
`--train-webnlg N` the model is fitted for a few dozen steps on the prompts and references of the
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


def fit(model, tokenizer, pairs, steps=60, learning_rate=1e-2, seed=0):
    """A few dozen Adam steps on (prompt, continuation) pairs, all in one batch, the loss on the
    continuations only, so that greedy decoding after a prompt repeats its continuation."""
    import torch

    torch.manual_seed(seed)
    rows = [(tokenizer(prompt)["input_ids"], tokenizer(continuation + EOS)["input_ids"]) for prompt, continuation in pairs]
    width = max(len(p) + len(c) for p, c in rows)
    input_ids = torch.full((len(rows), width), tokenizer.eos_token_id)
    labels = torch.full((len(rows), width), -100)
    attention_mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, (p, c) in enumerate(rows):
        input_ids[i, : len(p) + len(c)] = torch.tensor(p + c)
        labels[i, len(p) : len(p) + len(c)] = torch.tensor(c)
        attention_mask[i, : len(p) + len(c)] = 1
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    model.train()
    for _ in range(steps):
        loss = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    return float(loss.detach())


def build(out_dir, texts, fit_pairs=(), steps=60):
    """Save a tiny causal LM and its tokenizer (trained on `texts`) to `out_dir`; fit it on
    `fit_pairs` of (prompt, continuation)."""
    tokenizer = byte_level_tokenizer(list(texts) + [p + c for p, c in fit_pairs])
    model = tiny_causal_lm(tokenizer)
    if fit_pairs:
        fit(model, tokenizer, list(fit_pairs), steps=steps)
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return out_dir


def webnlg_fit_pairs(n_entries, subset="en", data_dir=None):
    """(prompt, references) of the first n entries, the prompt as lm-eval and LightEval build it for
    `webnlg_text2rdf` with 3 shots (description, the 3 few-shot examples, the entry)."""
    from benchscore.harness import tasks

    language = "ru" if subset == "ru" else "en"
    shots = "".join(tasks.webnlg_doc_to_text(shot) + " " + tasks.webnlg_doc_to_target(shot) + "\n\n"
                    for shot in tasks.WEBNLG_FEWSHOT[language])
    docs = tasks.webnlg_dataset(subset, data_dir)["test"].select(range(n_entries))
    return [(tasks.WEBNLG_DESCRIPTION + shots + tasks.webnlg_doc_to_text(doc), " " + tasks.webnlg_doc_to_target(doc))
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
            from benchscore.webnlg_rdf.files import read_references

            texts += [text for entry in read_references(path) for text in entry["lexicalisations"] + entry["triples"]]
    fit_pairs = webnlg_fit_pairs(args.train_webnlg, data_dir=args.webnlg_dir) if args.train_webnlg else ()
    print(build(args.out_dir, texts, fit_pairs))


if __name__ == "__main__":
    main()
