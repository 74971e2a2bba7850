"""The leftover-reference search: what it asks GitHub code search, what the fake answers (as
GitHub's legacy search/code does: punctuation ignored, a quoted term is a phrase of words), and
what the migration detector then says."""

from __future__ import annotations

from collections.abc import Callable

from service.core.models import FileStatus, RiskKind
from service.core.profile import RepoProfile
from service.core.risks import detect_risks
from service.github import references, rest
from service.github.convert import code_search_paths
from service.github.http import GitHubHttp
from service.pipeline.recorded import pr_from_recorded
from tests.core.risks.helpers import change, make_pr
from tests.fakes.github import FakeGitHub
from tests.github.conftest import REPO, week_data

TREE = {
    "docs/vla.md": "See verl/experimental/vla/README.md for the simulator setup.",
    "examples/vla/run.py": "from verl.experimental.vla.env import make_env",
    "docs/faq.md": "A recipe is a training setup; VLA models are supported.",
    "verl/trainer/main.py": "import verl.experimental.agent_loop",
}


def w48_prs() -> list:
    return [pr_from_recorded(raw, REPO) for raw in week_data("2025-W48")["pulls"]]


def paths_for(http: GitHubHttp, term: str) -> list[str]:
    return code_search_paths(rest.code_search(http, REPO, term))


def test_fake_code_search_ignores_punctuation_like_github(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    github.tree = dict(TREE)
    http = make_http()
    # an import path finds the import and the path string alike
    assert paths_for(http, "verl.experimental.vla") == ["docs/vla.md", "examples/vla/run.py"]
    assert paths_for(http, "verl/experimental/vla") == ["docs/vla.md", "examples/vla/run.py"]
    # "recipe/" is the bare word recipe: it finds prose, which is why it is never asked
    assert paths_for(http, "recipe/") == ["docs/faq.md"]
    assert paths_for(http, "vla") == ["docs/faq.md", "docs/vla.md", "examples/vla/run.py"]


def test_search_asks_phrases_never_bare_words(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    prs = w48_prs()
    github.tree = {"docs/agent.rst": "python -m recipe.langgraph_agent.example.create_dataset"}
    complete, found = references.remaining_references(make_http(), REPO, prs)
    assert complete
    assert found == {
        "recipe/langgraph_agent": ["docs/agent.rst"],
        "recipe/retool": [],
        "verl/workers/roles": [],
    }
    for call in github.calls("GET", "/search/code"):
        phrase = call.query["q"][0].split('"')[1]
        assert len(phrase.replace("/", ".").split(".")) > 1, phrase


def test_a_failed_query_leaves_only_its_path_unanswered(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    prs = w48_prs()
    http = make_http()
    github.fail_next(502, times=http.max_retries + 1)  # the first query fails every attempt
    complete, found = references.remaining_references(http, REPO, prs)
    assert not complete
    assert sorted(found) == ["recipe/retool", "verl/workers/roles"]
    # #4283 removed recipe/langgraph_agent and recipe/retool: one has no answer
    by_pr = {
        r.prs[0]: r.rule
        for r in detect_risks(prs, verl_profile, references=found)
        if r.kind == RiskKind.MIGRATION
    }
    assert by_pr == {4283: "search_incomplete", 4352: "no_references"}


def test_refused_search_is_incomplete_not_a_missing_token(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    prs = w48_prs()
    github.break_path("/search/code", 403)
    complete, found = references.remaining_references(make_http(), REPO, prs)
    assert (complete, found) == (False, {})
    rules = {
        r.rule for r in detect_risks(prs, verl_profile, references=found) if r.kind == "migration"
    }
    assert rules == {"search_incomplete"}


def test_directory_moved_into_a_submodule_is_not_searched(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    gitmodules = (
        '@@ -0,0 +1,3 @@\n+[submodule "recipe"]\n+\tpath = recipe\n'
        "+\turl = https://github.com/verl-project/verl-recipe.git\n"
    )
    moved = [
        change(f"recipe/{name}", None, FileStatus.REMOVED, deletions=40)
        for name in ("README.md", "dapo/main.py", "dapo/run.sh", "spin/main.py")
    ]
    pr = make_pr(
        40,
        "[recipe] refactor: recipes move to verl-recipe",
        [change(".gitmodules", gitmodules), *moved],
    )
    github.tree = {"docs/index.rst": "recipe/dapo/run.sh"}
    assert references.remaining_references(make_http(), REPO, [pr]) == (True, {})
    assert github.calls("GET", "/search/code") == []
