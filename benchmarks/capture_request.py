"""Capture the exact request the service sends to the model for a recorded week: the real
`verl-week digest` runs against the fake GitHub serving the week (and the week before it, when
recorded, so `previous_week` is in the data as in production) and a fake OpenAI-compatible
model that records what it is asked. Writes `<out>/<week>.<lang>.request.json` (the request
body: model, messages, response_format) and `<week>.<lang>.prompt.txt` (its messages as text,
for a person or a model to answer); a week's request, its answer and labels go into one part
of tests/data/llm/model_corpus (`tune`, `tune2`, `seen` to `seen8`: tuned on; `heldout`:
never). Not a test.

    .venv/bin/python benchmarks/capture_request.py tests/data/weeks/2026-W04.json \
        --previous tests/data/weeks/2026-W03.json --lang zh --out /tmp/requests

A family digest: name each further repository's week file with `--member`; the request is the
one `digest --repo A --repo B ...` sends, and the files are named `<week>.family.<lang>.*`.
A period of several weeks: name the other weeks of the same repository with `--also` and the
period with `--period` (the request `digest --period 2025-11-17..2025-11-30` sends); the files
are named after `--key` (a name without dots, e.g. `2025-W47-W48`). A family's period names
each member's week files with `--member`, once per recorded week:

    .venv/bin/python benchmarks/capture_request.py tests/data/weeks/2025-W47.json \
        --also tests/data/weeks/2025-W48.json --period 2025-11-17..2025-11-30 \
        --key 2025-W47-W48 --lang zh --out /tmp/requests
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.github import FakeGitHub  # noqa: E402
from tests.fakes.openai import FakeModel, serve_model  # noqa: E402

TOKEN = "ghp_captureToken0123456789abcdef0"  # noqa: S105 - the fake GitHub's


def _digest(env: dict[str, str], week: str, lang: str, *extra: str, fmt: str = "json") -> str:
    """`verl-week digest` of `week` (an ISO week, or any period label) in `lang` (to
    /dev/null unless `extra` names an output)."""
    which = "--week" if "-W" in week else "--period"
    command = [str(ROOT / ".venv" / "bin" / "verl-week"), "digest", which, week]
    command += ["--lang", lang, "--format", fmt]
    command += [*extra] if "--output" in extra else ["--output", os.devnull, *extra]
    done = subprocess.run(command, env=env, check=True, capture_output=True, timeout=600)
    return done.stdout.decode("utf-8")


@contextlib.contextmanager
def serving(
    week_file: Path,
    previous: Path | None,
    lang: str,
    answer: str,
    members: tuple[Path, ...] = (),
    also: tuple[Path, ...] = (),
) -> Iterator[tuple[dict[str, str], list[str], FakeModel]]:
    """The environment `verl-week digest` needs to build the week of `week_file` (and the
    repositories of `members`, and the further weeks `also` of the same repository) from the
    fake GitHub, with a fake model answering `answer`; the week before is built first, without
    the model, when `previous` is given. Yields the environment, the digest's repositories and
    the model."""
    data = json.loads(week_file.read_text("utf-8"))
    github = FakeGitHub(data["repo"], token=TOKEN)
    github.serve_week(data)
    for further in also:
        github.serve_week(json.loads(further.read_text("utf-8")))
    repos = [data["repo"]]
    siblings: dict[str, FakeGitHub] = {}
    for member in members:
        member_data = json.loads(member.read_text("utf-8"))
        if member_data["repo"] not in siblings:
            siblings[member_data["repo"]] = github.add_repo(member_data["repo"])
            repos.append(member_data["repo"])
        siblings[member_data["repo"]].serve_week(member_data)
    earlier = json.loads(previous.read_text("utf-8")) if previous else None
    if earlier:
        github.serve_week(earlier)
    with tempfile.TemporaryDirectory() as folder, github.running(), serve_model() as model:
        model.always(answer)
        env = {
            **os.environ,
            "GITHUB_API_URL": github.url,
            "GITHUB_GRAPHQL_URL": github.graphql_url,
            "GITHUB_TOKEN": TOKEN,
            "DATABASE_URL": f"sqlite:///{folder}/capture.db",
            "DIGEST_REPOS": ",".join(repos),
            "DIGEST_TIMEZONE": data.get("timezone", "Asia/Shanghai"),
            "LLM_BASE_URL": model.url,
            "LLM_API_KEY": model.key,
            "LLM_MODEL": model.model,
            "LLM_VERIFY_ENABLED": "false",
        }
        if earlier:
            _digest(env, earlier["week"], lang, "--no-llm")
        yield env, repos, model


def capture(
    week_file: Path,
    previous: Path | None,
    lang: str,
    members: tuple[Path, ...] = (),
    also: tuple[Path, ...] = (),
    period: str | None = None,
) -> dict[str, Any]:
    """The request body `verl-week digest` sends for the week of `week_file` in `lang` (with
    the repositories of `members` in the same digest, when given; of `period`, served the
    further weeks `also`, when given)."""
    week = period or json.loads(week_file.read_text("utf-8"))["week"]
    # "{}" is not an answer: the digest goes out without a narrative
    with serving(week_file, previous, lang, "{}", members, also) as (env, repos, model):
        scope = [arg for repo in repos for arg in ("--repo", repo)] if members else []
        _digest(env, week, lang, *scope)
        return model.last_request()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("week_file", type=Path)
    parser.add_argument("--previous", type=Path, default=None)
    parser.add_argument("--member", type=Path, action="append", default=[])
    parser.add_argument("--also", type=Path, action="append", default=[])
    parser.add_argument("--period", default=None)
    parser.add_argument("--key", default=None)
    parser.add_argument("--lang", choices=("zh", "en"), required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if bool(args.period) != bool(args.also) or bool(args.period) != bool(args.key):
        parser.error("--period, --also and --key go together")
    members, also = tuple(args.member), tuple(args.also)
    body = capture(args.week_file, args.previous, args.lang, members, also, args.period)
    week = args.key or json.loads(args.week_file.read_text("utf-8"))["week"]
    args.out.mkdir(parents=True, exist_ok=True)
    family = ".family" if args.member else ""
    stem = f"{args.out / week}{family}.{args.lang}"
    text = json.dumps(body, ensure_ascii=False, indent=1)
    Path(f"{stem}.request.json").write_text(text + "\n", "utf-8")
    prompt = "\n\n".join(f"=== {m['role']} ===\n{m['content']}" for m in body["messages"])
    Path(f"{stem}.prompt.txt").write_text(prompt + "\n", "utf-8")
    print(f"{stem}.request.json: {len(prompt):,} characters of prompt")


if __name__ == "__main__":
    main()
