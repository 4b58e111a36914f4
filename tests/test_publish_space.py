"""scripts/publish_space.py in dry-run mode and against a stubbed HfApi: never the network."""

import importlib.util

import pytest

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
UPLOADED = ["README.md", "__init__.py", "app.py", "examples/gold.tsv", "requirements.txt", "scoring.py"]


@pytest.fixture
def space(tmp_path):
    """A hand-made Space folder with caches and hidden files that must stay behind."""
    folder = tmp_path / "toy"
    for name in UPLOADED:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("x\n")
    (folder / "README.md").write_text(CARD)
    (folder / "requirements.txt").write_text("gradio==6.31.0\nevaluate==0.4.6\n")
    for name in ["__pycache__/scoring.cpython-311.pyc", ".pytest_cache/v/cache", ".env", "examples/.DS_Store",
                 "stale.pyc"]:
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
    assert [line.strip() for line in lines[1:]] == UPLOADED


def test_publish_creates_the_space_and_uploads_the_listed_files(space, capsys):
    api = StubApi()
    files = publish_space.publish(space, "me/toy", api=api)
    assert files == UPLOADED
    assert api.calls[0] == (
        "create_repo", "me/toy", {"repo_type": "space", "space_sdk": "gradio", "private": None, "exist_ok": True}
    )
    name, upload = api.calls[1]
    assert name == "upload_folder"
    assert upload["repo_id"] == "me/toy" and upload["repo_type"] == "space"
    assert upload["folder_path"] == str(space)
    assert upload["allow_patterns"] == UPLOADED  # exactly the dry run's list, by name
    assert "uploaded 6 files to https://huggingface.co/spaces/me/toy" in capsys.readouterr().out


def test_the_cli_goes_through_hfapi(space, monkeypatch):
    api = StubApi()
    monkeypatch.setattr("huggingface_hub.HfApi", lambda: api)
    assert publish_space.main([str(space), "me/toy", "--private"]) == 0
    assert api.calls[0][2]["private"] is True
    assert [call[0] for call in api.calls] == ["create_repo", "upload_folder"]


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda f: (f / "README.md").write_text("# no header\n"), "README.md: no YAML header"),
        (lambda f: (f / "README.md").write_text(CARD.replace("sdk: gradio", "sdk: docker")),
         "sdk is 'docker'; expected 'gradio'"),
        (lambda f: (f / "app.py").unlink(), "app_file is 'app.py', which is not among the folder's files"),
        (lambda f: (f / "requirements.txt").write_text("gradio==5.0.0\n"),
         "README.md has sdk_version '6.31.0' but requirements.txt pins gradio ['5.0.0']"),
        (lambda f: (f / "requirements.txt").unlink(), "no requirements.txt"),
        (lambda f: (f / "a[1].py").write_text(""), "a[1].py: file names with * ? [ ] cannot be uploaded"),
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


@pytest.mark.parametrize("folder", ["mctaco", "tempbench_trp", "webnlg_rdf", "tsver"])
def test_each_metric_folder_is_a_publishable_space(folder, capsys):
    """The real folders: a Space header (sdk gradio, app.py, evaluate/metric tags) and the gradio pin agree."""
    files = publish_space.publish(METRICS / folder, f"me/{folder}", dry_run=True)
    assert {"README.md", "__init__.py", "app.py", "requirements.txt", f"{folder}.py", "scoring.py"} <= set(files)
    assert not [name for name in files if "__pycache__" in name or name.endswith(".pyc")]
    header = publish_space.read_card_header(METRICS / folder / "README.md")
    assert header["app_file"] == "app.py" and {"evaluate", "metric"} <= set(header["tags"])
    assert f"with {len(files)} files:" in capsys.readouterr().out
