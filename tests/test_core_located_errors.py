"""Located input errors carry where they are as fields (issue 21): the Space names a table row from
`err.example`, never by reading `example N` back out of the text, so rewording a message moves nothing."""

import pickle

import pytest

from benchscore.core import readers


def test_fields_and_text():
    err = readers.at_example(3, "category is 'x'; expected one of ...")
    assert (err.example, err.detail, err.path, err.line) == (3, "category is 'x'; expected one of ...", None, None)
    assert str(err) == "example 3: category is 'x'; expected one of ..." and isinstance(err, ValueError)
    located = readers.at_line("gold.tsv", 7, "bad label")
    assert (located.path, located.line, located.example, str(located)) == ("gold.tsv", 7, None, "gold.tsv:7: bad label")
    typed = readers.at_example(0, "a dict was expected", readers.InputTypeError)
    assert isinstance(typed, TypeError) and typed.example == 0


@pytest.mark.parametrize("kind, located", [(ValueError, readers.InputError), (TypeError, readers.InputTypeError)])
def test_in_example_keeps_the_kind(kind, located):
    err = readers.in_example(kind("S_star[0] s is an empty string"), 5, label="example 5 ('Ada')")
    assert type(err) is located and err.example == 5 and err.detail == "S_star[0] s is an empty string"
    assert str(err) == "example 5 ('Ada'): S_star[0] s is an empty string"


def test_the_fields_survive_pickling():
    """Errors cross process boundaries (evaluate's num_process, a harness's pool) with their place."""
    again = pickle.loads(pickle.dumps(readers.at_example(4, "wrong")))
    assert (type(again), again.example, again.detail, str(again)) == (readers.InputError, 4, "wrong", "example 4: wrong")


def test_a_space_names_the_row_from_the_field_not_the_text():
    pytest.importorskip("gradio", reason="gradio is not installed (the spaces extra)")
    import gradio as gr

    from benchscore.core import space

    def score(*_):
        raise readers.InputError("reworded entirely, no index in sight", example=1)

    with pytest.raises(gr.Error, match=r"table row 2: reworded entirely, no index in sight"):
        space.table_scored(score, ["table row 1", "table row 2"])

    def unlocated(*_):
        raise ValueError("example 1: looks located, is not")

    with pytest.raises(gr.Error, match=r"[^:]example 1: looks located, is not"):
        space.table_scored(unlocated, ["table row 1", "table row 2"])
