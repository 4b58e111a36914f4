"""nltk 3.4.5's `word_tokenize` (punkt sentence split, then its improved Treebank rules) (work in progress)."""


def tokenize(text):
    """Tokens of `text` exactly as nltk 3.4.5's `word_tokenize` gave them (before lower-casing)."""
    raise NotImplementedError
