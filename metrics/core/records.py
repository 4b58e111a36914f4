"""Small types instead of strings that other code parses back: a result's `Signature` and its `Note`s.

Both are `str` subclasses, so a result dict stays what it was for a user (JSON, `==` with text,
the printed form unchanged), while our own code reads their fields, never their text:

    >>> sig = Signature("toy", version="1.0.0", strict="no")
    >>> sig
    'toy|version:1.0.0|strict:no'
    >>> sig.fields["strict"], sig.plus(bootstrap=1000)
    ('no', 'toy|version:1.0.0|strict:no|bootstrap:1000')
    >>> note = Note("unmatched_verdicts", "2 predicted verdict(s) match no label")
    >>> note.kind, note
    ('unmatched_verdicts', '2 predicted verdict(s) match no label')
"""

from collections.abc import Iterable


def _pairs(fields: Iterable[tuple[str, object]] | dict | None, more: dict) -> list[tuple[str, object]]:
    """(key, value) pairs of fields given as a dict, as pairs or as keywords, in order."""
    return [*(fields.items() if isinstance(fields, dict) else fields or ()), *more.items()]


class Signature(str):
    """`<name>|<key>:<value>|...`: everything that fixes a result's numbers (sacrebleu's idea), formatted
    once from its fields; `fields` keeps them ({key: text}) and `plus` adds more (resampling options)."""

    name: str
    fields: dict[str, str]

    def __new__(cls, name: str, fields: Iterable[tuple[str, object]] | dict | None = None,
                **more: object) -> "Signature":
        text = {str(key): str(value) for key, value in _pairs(fields, more)}
        self = super().__new__(cls, "|".join([name, *(f"{key}:{value}" for key, value in text.items())]))
        self.name, self.fields = name, text
        return self

    def plus(self, fields: Iterable[tuple[str, object]] | dict | None = None, **more: object) -> "Signature":
        """This signature with more fields after its own (a field given again is refused)."""
        pairs = _pairs(fields, more)
        repeated = [key for key, _ in pairs if key in self.fields]
        if repeated:
            raise ValueError(f"the signature already has {repeated}: {self}")
        return Signature(self.name, [*self.fields.items(), *pairs])

    def __reduce__(self):  # pickled as its parts (a str subclass would be rebuilt from its text alone)
        return (Signature, (self.name, self.fields))


class Note(str):
    """A warning of a result: `kind` says what happened (code keeps or drops notes by it), the text is
    for people and may be reworded freely."""

    kind: str

    def __new__(cls, kind: str, text: str) -> "Note":
        self = super().__new__(cls, text)
        self.kind = kind
        return self

    def reworded(self, text: str) -> "Note":
        """The same kind of note with another text (e.g. the file it is about put first)."""
        return Note(self.kind, text)

    def __reduce__(self):
        return (Note, (self.kind, str(self)))


def extended(signature: str, fields: dict) -> Signature:
    """`signature` with `fields` after its own; a plain string (a result read back from JSON, say) is taken
    whole as the name, so its text is kept as it is and never parsed."""
    base = signature if isinstance(signature, Signature) else Signature(str(signature))
    return base.plus(fields)
