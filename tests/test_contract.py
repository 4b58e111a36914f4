"""One contract, every benchmark, every entry point (in the spirit of torchmetrics' MetricTester).

On each folder's bundled example, these give the same headline numbers, to the last float:
the pure read path (`files.score_files`, no evaluate), `evaluate` `compute`, `add_batch` in chunks,
two processes (evaluate's `num_process=2`), the Trainer helper, `benchscore <bench> --json`, and the
Space's scoring function (every number it shows, with all its digits). Each folder's modules
conform to the vocabulary's protocols (`benchscore.core.contract`).

The benchmarks come from the registry; each plugs in with the `Case` its folder's `contract.py`
defines (how to read its example into each entry point's inputs, which numbers are its headline),
so a fifth benchmark is its folder alone. `BENCHSCORE_METRICS` points the suite at another copy
of the package (tests/test_template.py runs it on a copy with the template benchmark added).
"""

import importlib
import json
import uuid

import numpy as np
import pytest
from conftest import METRICS, load_metric
from test_distributed import EVALUATE_WORKER, run_pair

import benchscore
from benchscore import cli
from benchscore.core import contract
from benchscore.core.records import Note, Signature

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the examples exercise warned quirks

BENCHMARKS = {b.name: b for b in benchscore.BENCHMARKS.values()}


class Bench:
    """A registry entry with its folder's contract `Case`."""

    def __init__(self, benchmark):
        self.name, self.folder = benchmark.name, benchmark.folder
        self.case = importlib.import_module(f"benchscore.{self.folder}.contract").CASE
        contract.check_case(self.case, self.folder)
        self.headline, self.config_name = self.case.headline, self.case.config_name

    def paths(self):
        return [str(METRICS / self.folder / "examples" / name) for name in self.case.files]


def headline(case, result):
    return contract.flat_keys(result, case.headline)


@pytest.fixture(scope="module", params=sorted(BENCHMARKS))
def case(request):
    return Bench(BENCHMARKS[request.param])


@pytest.fixture(scope="module")
def expected(case):
    """The pure read path's headline numbers: what every other entry point must give."""
    return headline(case, case.case.pure(*case.paths()))


def test_every_module_of_the_folder_speaks_the_vocabulary(case):
    for module_name, protocol in contract.PROTOCOLS.items():
        module = importlib.import_module(f"benchscore.{case.folder}.{module_name}")
        assert contract.missing_names(module, protocol) == [], f"{case.folder}/{module_name}.py"
        assert isinstance(module, protocol)


def test_results_carry_a_signature_and_notes_not_bare_strings(case):
    """The signature formats itself from fields and the warnings carry their kind, on the pure path
    and through evaluate alike."""
    for result in (case.case.pure(*case.paths()),
                   load_metric(case.folder, case.config_name).compute(**case.case.inputs(*case.paths()))):
        assert isinstance(result["signature"], Signature) and result["signature"].fields["benchscore"]
        assert all(isinstance(w, Note) and w.kind for w in result.get("warnings", ()))


def test_evaluate_compute(case, expected):
    result = load_metric(case.folder, case.config_name).compute(**case.case.inputs(*case.paths()))
    assert headline(case, result) == expected


def test_evaluate_add_batch_in_chunks(case, expected):
    module = load_metric(case.folder, case.config_name)
    inputs = case.case.inputs(*case.paths())
    n = len(inputs["predictions"])
    for start in range(0, n, 2):
        module.add_batch(**{name: column[start:start + 2] for name, column in inputs.items()})
    assert headline(case, module.compute()) == expected


def test_two_processes(case, expected, tmp_path):
    spec = {"cache_dir": str(tmp_path / "cache"), "timeout": 60, "jobs": [
        {"name": case.folder, "path": str(METRICS / case.folder), "config_name": case.config_name,
         "inputs": case.case.inputs(*case.paths()), "compute_kwargs": {}, "batch_size": 2,
         "experiment_id": uuid.uuid4().hex}]}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    rank0, rank1 = run_pair(EVALUATE_WORKER, lambda rank: [str(tmp_path / "spec.json"), str(rank)])
    assert rank1 == {case.folder: None}
    assert headline(case, rank0[case.folder]) == json.loads(json.dumps(expected))


def test_trainer_helper(case, expected):
    compute_metrics, eval_pred = case.case.trainer(*case.paths())
    logged = compute_metrics(eval_pred)
    if case.case.trainer_inputs is not None:  # the classifier's predictions differ from the example's
        inputs = case.case.trainer_inputs(case.case.inputs(*case.paths()), eval_pred)
        expected = headline(case, load_metric(case.folder, case.config_name).compute(**inputs))
    assert {key: logged[key] for key in case.headline} == expected
    assert headline(case, compute_metrics.last_result) == expected


def test_cli_json(case, expected, capsys):
    assert cli.main([case.name, *case.case.cli_args(*case.paths())]) == 0
    assert headline(case, json.loads(capsys.readouterr().out)) == expected


def _space_cell(table, case, key):
    match, column = case.case.space_cells[key]
    rows = table[np.logical_and.reduce([table[name] == wanted for name, wanted in match.items()])]
    assert len(rows) == 1, (key, match, table.to_string())
    return str(rows[column].iloc[0])


@pytest.mark.parametrize("display", ["rounded", "every digit"])
def test_space_shows_every_headline_number(case, expected, display):
    """Each headline number in its own cell (the row and column the Space labels it with), rounded to
    4 decimals or with every digit; the downloaded result keeps every digit either way."""
    pytest.importorskip("gradio", reason="gradio is not installed (CI installs the spaces extra)")
    import browser

    app = browser.load_app(case.folder)
    output = app.score_files(*case.paths(), display=display)
    table, downloads = output[0], output[-1]
    assert set(case.case.space_cells) == set(case.headline)
    for key, value in expected.items():
        cell = _space_cell(table, case, key)
        if isinstance(value, int):
            assert cell == str(value), (key, value, cell)
        else:
            assert cell == (repr(value) if display == "every digit" else f"{value:.4f}"), (key, value, cell)
    result_file = next(path for path in downloads if path.endswith("_result.json"))
    assert headline(case, json.loads(open(result_file, encoding="utf-8").read())) == expected


def test_space_hands_over_the_result_and_the_table(case, tmp_path):
    """The Space's downloads: the result as the CLI prints it (every digit, warnings in the user's file
    names), and the run as a table in every format, attested by the inputs' sha256; each display
    choice shows the same numbers again from the downloaded result."""
    pytest.importorskip("gradio", reason="gradio is not installed (CI installs the spaces extra)")
    import browser

    from benchscore.core import space
    from benchscore.data.store import sha256_of

    app, paths = browser.load_app(case.folder), case.paths()
    output = app.score_files(*paths)
    downloads = {path.rsplit("/", 1)[1]: path for path in output[-1]}
    bench = benchscore.benchmark(case.name)
    assert sorted(downloads) == sorted([f"{bench.name}_result.json",
                                        *(f"{bench.name}_table.{end}" for _, end in space.TABLE_FILES)])
    result = json.loads(open(downloads[f"{bench.name}_result.json"], encoding="utf-8").read())
    pure = json.loads(json.dumps(case.case.pure(*paths)))
    # The Space's options may add slices (and say so in the signature); everything the CLI prints is there.
    assert {k: result[k] for k in pure if k not in ("warnings", "signature")} == {
        k: v for k, v in pure.items() if k not in ("warnings", "signature")}
    assert result["signature"] == output[-3]  # (..., signature, notes, downloads) in every app
    assert len(result.get("warnings", ())) == len(pure.get("warnings", ()))
    table = json.loads(open(downloads[f"{bench.name}_table.json"], encoding="utf-8").read())
    assert table["signature"] == result["signature"] and [row["system"] for row in table["rows"]] == ["run"]
    assert {key: cell["value"] for key, cell in table["rows"][0]["metrics"].items()} == {
        key: bench.table.run_value(result, key) for key in table["metrics"]}
    assert table["attestation"]["inputs"] == {path.rsplit("/", 1)[1]: sha256_of(path) for path in paths}
    for name, path in downloads.items():
        text = open(path, encoding="utf-8").read()
        assert str(METRICS) not in text, name  # no server path: the files are named as the user knows them
    again = space.shown_again(app.present, len(output) - 1)
    for display in space.DISPLAYS:  # the tables, the signature and the notes, from the downloaded result alone
        shown, scored = again(output[-1], display), app.score_files(*paths, display=display)[:-1]
        assert shown[0].equals(scored[0]) and shown[-2:] == scored[-2:], display
    assert again(None, "rounded") == (space.gr.skip(),) * (len(output) - 1)


def _with_surrogate(value):
    """`value` (an example's feature) with "\\ud800" added to its first string; None if it has none."""
    if isinstance(value, str):
        return value + "\ud800"
    if isinstance(value, dict):
        for key, item in value.items():
            changed = _with_surrogate(item)
            if changed is not None:
                return {**value, key: changed}
    if isinstance(value, list):
        for i, item in enumerate(value):
            changed = _with_surrogate(item)
            if changed is not None:
                return value[:i] + [changed] + value[i + 1:]
    return None


def test_a_lone_surrogate_in_any_text_feature_is_refused_naming_the_example(case):
    # Arrow cannot store one; evaluate would raise a bare UnicodeEncodeError naming nothing.
    inputs = case.case.inputs(*case.paths())
    module = load_metric(case.folder, case.config_name)
    tried = 0
    for name, column in inputs.items():
        changed = _with_surrogate(column[1])
        if changed is None:
            continue
        tried += 1
        with pytest.raises(ValueError, match=r"^example 1: "):  # a bad label, or "holds a lone surrogate"
            module.compute(**{**inputs, name: [column[0], changed, *column[2:]]})
    assert tried > 0
