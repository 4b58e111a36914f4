"""scripts/publish_space.py in dry-run mode and against a stubbed HfApi: never the network.

That a staged Space works from the wheel alone is tests/test_space_wheel.py.
"""

import importlib.util
import pathlib

import pytest

import benchscore

from conftest import METRICS
from conftest import REPO

spec = importlib.util.spec_from_file_location("publish_space", REPO / "scripts" / "publish_space.py")
publish_space = importlib.util.module_from_spec(spec)
spec.loader.exec_module(publish_space)

CARD = """---
title: Toy
sdk: gradio
sdk_version: 6.31.0
app_file: app.py
tags:
- evaluate
- metric
---
# Toy metric
"""
SPACE_FILES = ["README.md", "app.py", "examples/gold.tsv", "requirements.txt", "toy.py"]
WHEEL = "benchscore-0.1.0-py3-none-any.whl"


@pytest.fixture
def space(tmp_path):
    """A hand-made Space folder with caches and hidden files that must stay behind."""
    folder = tmp_path / "toy"
    for name in SPACE_FILES + ["scoring.py", "__init__.py"]:  # the package's modules come from the wheel
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("x\n")
    (folder / "README.md").write_text(CARD)
    (folder / "requirements.txt").write_text("gradio==6.31.0\nbenchscore==0.1.0\npandas\n")
    for name in ["__pycache__/scoring.cpython-311.pyc", ".pytest_cache/v/cache", ".env", "examples/.DS_Store",
                 "examples/__pycache__/x.pyc"]:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("never uploaded\n")
    return folder


class StubApi:
    """Records the calls publish() makes on an HfApi."""

    def __init__(self):
        self.calls = []

    def create_repo(self, repo_id, **kwargs):
        self.calls.append(("create_repo", repo_id, kwargs))
        return f"https://huggingface.co/spaces/{repo_id}"

    def upload_folder(self, **kwargs):
        self.calls.append(("upload_folder", kwargs))


def no_network(*args, **kwargs):
    raise AssertionError("the dry run must not create an HfApi")


def test_dry_run_lists_exactly_the_files_and_sends_nothing(space, monkeypatch, capsys):
    monkeypatch.setattr("huggingface_hub.HfApi", no_network)
    assert publish_space.main([str(space), "me/toy", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "dry run: would create or update the Space me/toy (sdk gradio) with 6 files:"
    assert [line.strip() for line in lines[1:]] == SPACE_FILES + [f"{WHEEL} (built from this checkout)"]


class RecordingApi(StubApi):
    """Also keeps what upload_folder would send (the staging folder is gone after publish returns)."""

    def upload_folder(self, **kwargs):
        super().upload_folder(**kwargs)
        folder = pathlib.Path(kwargs["folder_path"])
        self.sent = {name: (folder / name).read_bytes() for name in kwargs["allow_patterns"]}


def test_publish_uploads_the_space_files_and_the_wheel_its_requirements_point_at(space, tmp_path, capsys):
    wheel = tmp_path / WHEEL
    wheel.write_bytes(b"a wheel")
    api = RecordingApi()
    files = publish_space.publish(space, "me/toy", api=api, wheel=wheel)
    assert files == SPACE_FILES + [WHEEL]
    assert api.calls[0] == (
        "create_repo", "me/toy", {"repo_type": "space", "space_sdk": "gradio", "private": None, "exist_ok": True}
    )
    name, upload = api.calls[1]
    assert name == "upload_folder"
    assert upload["repo_id"] == "me/toy" and upload["repo_type"] == "space"
    assert upload["allow_patterns"] == files  # exactly these, by name
    assert api.sent[WHEEL] == b"a wheel"
    assert api.sent["requirements.txt"].decode() == (
        f"gradio==6.31.0\nbenchscore @ https://huggingface.co/spaces/me/toy/resolve/main/{WHEEL}\npandas\n")
    assert (space / "requirements.txt").read_text() == "gradio==6.31.0\nbenchscore==0.1.0\npandas\n"  # unchanged
    assert "uploaded 6 files to https://huggingface.co/spaces/me/toy" in capsys.readouterr().out


def test_the_cli_goes_through_hfapi(space, monkeypatch, tmp_path):
    api = StubApi()
    monkeypatch.setattr("huggingface_hub.HfApi", lambda: api)
    (tmp_path / WHEEL).write_bytes(b"a wheel")
    assert publish_space.main([str(space), "me/toy", "--private", "--wheel", str(tmp_path / WHEEL)]) == 0
    assert api.calls[0][2]["private"] is True
    assert [call[0] for call in api.calls] == ["create_repo", "upload_folder"]


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda f: (f / "README.md").write_text("# no header\n"), "README.md: no YAML header"),
        (lambda f: (f / "README.md").write_text(CARD.replace("sdk: gradio", "sdk: docker")),
         "sdk is 'docker'; expected 'gradio'"),
        (lambda f: (f / "app.py").unlink(), "app_file is 'app.py', which is not among the folder's files"),
        (lambda f: (f / "requirements.txt").write_text("gradio==5.0.0\nbenchscore==0.1.0\n"),
         "README.md has sdk_version '6.31.0' but requirements.txt pins gradio ['5.0.0']"),
        (lambda f: (f / "requirements.txt").write_text("gradio==6.31.0\nbenchscore==0.0.9\n"),
         "requirements.txt pins benchscore ['0.0.9']; expected one benchscore==0.1.0 line"),
        (lambda f: (f / "requirements.txt").unlink(), "no requirements.txt"),
        (lambda f: (f / "examples" / "a[1].tsv").write_text(""), "a[1].tsv: file names with * ? [ ] cannot be uploaded"),
    ],
)
def test_a_folder_that_is_not_a_working_space_is_refused_before_any_call(space, edit, message, capsys):
    edit(space)
    api = StubApi()
    with pytest.raises(ValueError, match=r"^" + str(space).replace("[", r"\[")) as err:
        publish_space.publish(space, "me/toy", api=api)
    assert message in str(err.value)
    assert api.calls == []
    assert publish_space.main([str(space), "me/toy", "--dry-run"]) == 2
    assert message in capsys.readouterr().err


def test_not_a_folder(tmp_path, capsys):
    assert publish_space.main([str(tmp_path / "nope"), "me/toy", "--dry-run"]) == 2
    assert "nope: not a folder" in capsys.readouterr().err


@pytest.mark.parametrize("folder", sorted(b.folder for b in benchscore.BENCHMARKS.values()))
def test_each_metric_folder_is_a_publishable_space(folder, capsys):
    """The real folders: a Space header (sdk gradio, app.py, evaluate/metric tags) and the gradio pin agree."""
    files = publish_space.publish(METRICS / folder, f"me/{folder}", dry_run=True)
    assert {"README.md", "app.py", "requirements.txt", f"{folder}.py"} <= set(files)
    assert not [name for name in files if name.endswith(".py") and name not in ("app.py", f"{folder}.py")]
    header = publish_space.read_card_header(METRICS / folder / "README.md")
    assert header["app_file"] == "app.py" and {"evaluate", "metric"} <= set(header["tags"])
    assert f"with {len(files)} files:" in capsys.readouterr().out
