"""Create or update a Hugging Face Space from a metric folder (`evaluate-cli create` fails on huggingface_hub >= 1).

    python scripts/publish_space.py metrics/mctaco your-name/mctaco --dry-run   # list what would be uploaded
    python scripts/publish_space.py metrics/mctaco your-name/mctaco             # create if needed, then upload

The folder is uploaded as it is, minus caches and hidden files (`__pycache__`, `*.pyc`, anything whose
name starts with a dot: `.pytest_cache`, `.env`, ...): exactly the files `--dry-run` lists, passed to
`upload_folder` by name. Before anything is sent, the folder is
checked to be a gradio Space (README.md header with `sdk: gradio` and an `app_file` that exists, a
requirements.txt pinning the gradio of `sdk_version`). Files deleted from the folder stay on the
Space: remove them there by hand. The token is huggingface_hub's usual one (`HF_TOKEN` or
`hf auth login`); this script never reads or prints it.
"""

import argparse
import pathlib
import re
import sys

SKIPPED_SUFFIXES = (".pyc", ".pyo")
GLOB_CHARACTERS = re.compile(r"[*?\[\]]")  # file names are passed to upload_folder as patterns


def space_files(folder):
    """The files to upload, as sorted POSIX paths relative to `folder`."""
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a folder; expected a metric folder such as metrics/mctaco")
    files = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        # Hidden names are skipped too: tool caches, and files such as .env that may hold secrets.
        if any(part == "__pycache__" or part.startswith(".") for part in relative.parts):
            continue
        if not path.is_file() or path.name.endswith(SKIPPED_SUFFIXES):
            continue
        if GLOB_CHARACTERS.search(relative.as_posix()):
            raise ValueError(f"{folder}: {relative.as_posix()}: file names with * ? [ ] cannot be uploaded; rename it")
        files.append(relative.as_posix())
    return files


def read_card_header(readme):
    """The YAML header of a README.md as a dict (huggingface_hub's own reader)."""
    from huggingface_hub.repocard import metadata_load

    header = metadata_load(readme)
    if not header:
        raise ValueError(f"{readme}: no YAML header (--- ... ---); a Space needs sdk, sdk_version and app_file there")
    return header


def check_space_folder(folder, files):
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
        raise ValueError(f"{folder}: no requirements.txt; the Space would not install evaluate and datasets")
    pins = re.findall(r"^gradio==(\S+)", (folder / "requirements.txt").read_text(encoding="utf-8"), re.M)
    sdk_version = str(header.get("sdk_version"))
    if pins != [sdk_version]:
        raise ValueError(
            f"{folder}: README.md has sdk_version {sdk_version!r} but requirements.txt pins gradio "
            f"{pins or 'nowhere'}; "
            "expected one gradio==<sdk_version> line, the version the app is tested with"
        )
    return header


def publish(folder, repo_id, dry_run=False, private=None, api=None, out=None):
    """Creates the Space if needed and uploads the folder's files; with dry_run, only lists them."""
    out = out or sys.stdout
    files = space_files(folder)
    check_space_folder(folder, files)
    if dry_run:
        print(f"dry run: would create or update the Space {repo_id} (sdk gradio) with {len(files)} files:", file=out)
        for name in files:
            print(f"  {name}", file=out)
        return files
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    url = api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
    api.upload_folder(
        repo_id=repo_id,
        repo_type="space",
        folder_path=str(folder),
        allow_patterns=files,
        commit_message=f"Upload {pathlib.Path(folder).name} Space ({len(files)} files)",
    )
    print(f"uploaded {len(files)} files to {url}", file=out)
    return files


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="the metric folder, e.g. metrics/mctaco")
    parser.add_argument("repo_id", help="the Space, as owner/name")
    parser.add_argument("--dry-run", action="store_true", help="list the files that would be uploaded; send nothing")
    parser.add_argument("--private", action="store_true",
                        help="create the Space private (an existing one is unchanged)")
    args = parser.parse_args(argv)
    try:
        publish(args.folder, args.repo_id, dry_run=args.dry_run, private=args.private or None)
    except (ValueError, OSError) as err:
        print(f"publish_space: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
