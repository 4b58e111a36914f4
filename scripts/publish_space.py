"""Create or update a Hugging Face Space from a metric folder (`evaluate-cli create` fails on huggingface_hub >= 1).

    python scripts/publish_space.py metrics/mctaco your-name/mctaco --dry-run   # list what would be uploaded
    python scripts/publish_space.py metrics/mctaco your-name/mctaco             # create if needed, then upload

A Space is the folder's Space files (README.md with the YAML header, app.py, the evaluate module
`<folder>.py`, requirements.txt, examples/) plus a wheel of the current `benchscore`: the scoring
code is the installed package, as evaluate's own sacrebleu and seqeval Spaces install their
libraries. The Space's requirements.txt pins `benchscore==<version>`; in the uploaded copy that line
points at the uploaded wheel instead, so the Space works before any package release (the Space
must be public for its build to fetch the wheel). Exactly the files `--dry-run` lists are uploaded.

Before anything is sent, the folder is checked to be a gradio Space (README.md header with
`sdk: gradio` and an `app_file` that exists, a requirements.txt pinning the gradio of
`sdk_version` and the benchscore of this checkout). Files deleted from the folder stay on the
Space: remove them there by hand. The token is huggingface_hub's usual one (`HF_TOKEN` or
`hf auth login`); this script never reads or prints it.
"""

import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
GLOB_CHARACTERS = re.compile(r"[*?\[\]]")  # file names are passed to upload_folder as patterns


def project_version():
    return re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(encoding="utf-8"), re.M).group(1)


def space_files(folder):
    """The Space files of a metric folder, as sorted POSIX paths relative to `folder`."""
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a folder; expected a metric folder such as metrics/mctaco")
    names = ["README.md", "app.py", f"{folder.name}.py", "requirements.txt"]
    files = [name for name in names if (folder / name).is_file()]
    examples = folder / "examples"
    if examples.is_dir():
        for path in sorted(examples.rglob("*")):
            relative = path.relative_to(folder)
            # Hidden names are skipped: tool caches, and files such as .env that may hold secrets.
            if path.is_file() and not any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
                files.append(relative.as_posix())
    for name in files:
        if GLOB_CHARACTERS.search(name):
            raise ValueError(f"{folder}: {name}: file names with * ? [ ] cannot be uploaded; rename it")
    return sorted(files)


def read_card_header(readme):
    """The YAML header of a README.md as a dict (huggingface_hub's own reader)."""
    from huggingface_hub.repocard import metadata_load

    header = metadata_load(readme)
    if not header:
        raise ValueError(f"{readme}: no YAML header (--- ... ---); a Space needs sdk, sdk_version and app_file there")
    return header


def check_space_folder(folder, files, version):
    """Raises ValueError naming the first problem that would break the Space or make it differ from what we test."""
    folder = pathlib.Path(folder)
    if "README.md" not in files:
        raise ValueError(f"{folder}: no README.md; a Space needs one with a YAML header (sdk: gradio, ...)")
    header = read_card_header(folder / "README.md")
    if header.get("sdk") != "gradio":
        raise ValueError(f"{folder}/README.md: sdk is {header.get('sdk')!r}; expected 'gradio'")
    app_file = header.get("app_file")
    if app_file not in files:
        raise ValueError(f"{folder}/README.md: app_file is {app_file!r}, which is not among the folder's files")
    if "requirements.txt" not in files:
        raise ValueError(f"{folder}: no requirements.txt; the Space would not install benchscore and gradio")
    requirements = (folder / "requirements.txt").read_text(encoding="utf-8")
    pins = re.findall(r"^gradio==(\S+)", requirements, re.M)
    sdk_version = str(header.get("sdk_version"))
    if pins != [sdk_version]:
        raise ValueError(
            f"{folder}: README.md has sdk_version {sdk_version!r} but requirements.txt pins gradio "
            f"{pins or 'nowhere'}; expected one gradio==<sdk_version> line, the version the app is tested with"
        )
    benchscore_pins = re.findall(r"^benchscore==(\S+)", requirements, re.M)
    if benchscore_pins != [version]:
        raise ValueError(f"{folder}: requirements.txt pins benchscore {benchscore_pins or 'nowhere'}; "
                         f"expected one benchscore=={version} line, the version of this checkout")
    return header


def build_wheel(out_dir):
    """A wheel of this checkout in `out_dir` (offline: no build isolation, no index); returns its path."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--wheel-dir", str(out_dir), str(REPO)], check=True)
    [wheel] = pathlib.Path(out_dir).glob("benchscore-*.whl")
    return wheel


def stage(folder, out_dir, wheel=None, repo_id=None):
    """The Space as it is uploaded, in `out_dir`: the Space files, and the wheel that requirements.txt points at.

    Returns the staged files (relative POSIX paths), the wheel last.
    """
    folder, out_dir = pathlib.Path(folder), pathlib.Path(out_dir)
    version = project_version()
    files = space_files(folder)
    check_space_folder(folder, files, version)
    for name in files:
        (out_dir / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / name, out_dir / name)
    if wheel is None:
        return files
    wheel = pathlib.Path(wheel)
    shutil.copyfile(wheel, out_dir / wheel.name)
    if repo_id is not None:
        url = f"https://huggingface.co/spaces/{repo_id}/resolve/main/{wheel.name}"
        requirements = out_dir / "requirements.txt"
        text = requirements.read_text(encoding="utf-8")
        requirements.write_text(re.sub(r"^benchscore==\S+$", f"benchscore @ {url}", text, flags=re.M),
                                encoding="utf-8")
    return files + [wheel.name]


def publish(folder, repo_id, dry_run=False, private=None, api=None, out=None, wheel=None):
    """Creates the Space if needed and uploads its files and a benchscore wheel; with dry_run, only lists them."""
    out = out or sys.stdout
    with tempfile.TemporaryDirectory() as staging:
        if dry_run:
            files = stage(folder, staging) + [f"benchscore-{project_version()}-py3-none-any.whl (built from this checkout)"]
            print(f"dry run: would create or update the Space {repo_id} (sdk gradio) with {len(files)} files:", file=out)
            for name in files:
                print(f"  {name}", file=out)
            return files
        wheel = wheel or build_wheel(pathlib.Path(staging, "dist"))
        space = pathlib.Path(staging, "space")
        files = stage(folder, space, wheel, repo_id)
        if api is None:
            from huggingface_hub import HfApi

            api = HfApi()
        url = api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
        api.upload_folder(repo_id=repo_id, repo_type="space", folder_path=str(space), allow_patterns=files,
                          commit_message=f"Upload {pathlib.Path(folder).name} Space ({len(files)} files)")
    print(f"uploaded {len(files)} files to {url}", file=out)
    return files


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="the metric folder, e.g. metrics/mctaco")
    parser.add_argument("repo_id", help="the Space, as owner/name")
    parser.add_argument("--dry-run", action="store_true", help="list the files that would be uploaded; send nothing")
    parser.add_argument("--private", action="store_true",
                        help="create the Space private (an existing one is unchanged; its build cannot fetch the wheel)")
    parser.add_argument("--wheel", help="upload this benchscore wheel instead of building one from the checkout")
    args = parser.parse_args(argv)
    try:
        publish(args.folder, args.repo_id, dry_run=args.dry_run, private=args.private or None, wheel=args.wheel)
    except (ValueError, OSError, subprocess.CalledProcessError) as err:
        print(f"publish_space: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
