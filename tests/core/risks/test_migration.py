"""Large removals and migrations, with what is known about leftover references."""

from __future__ import annotations

from service.core.models import CollectedPeriod, FileChange, FileStatus, PullRequest, Severity
from service.core.profile import RepoProfile
from service.core.risks import migration
from service.core.risks.base import Context
from tests.core.risks.helpers import LABELS, change, make_pr, real_pr, week_context


def test_real_recipe_move_4283_says_where_the_code_lives_now(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # "Move `recipe/retool` and `recipe/langgraph_agent` to new repository
    # [verl-recipe](https://github.com/verl-project/verl-recipe)": a migration users act on
    pr = real_pr(weeks, "2025-W48", 4283)
    assert migration.destination(pr) == "https://github.com/verl-project/verl-recipe"
    (risk,) = migration.DETECTOR.detect([pr], Context(profile=verl_profile))
    assert (risk.rule, risk.severity, risk.verified) == ("moved_repository", Severity.HIGH, False)
    assert risk.params["url"] == "https://github.com/verl-project/verl-recipe"
    assert risk.params["files"] == 21
    assert risk.params["lines"] == 2473
    assert risk.params["targets"] == "recipe/langgraph_agent/, recipe/retool/"
    assert [e.path for e in risk.evidence] == ["recipe/langgraph_agent/", "recipe/retool/"]


def test_removal_targets_are_the_removed_directories(
    weeks: dict[str, CollectedPeriod],
) -> None:
    assert migration.removal_targets(real_pr(weeks, "2025-W48", 4283)) == [
        "recipe/langgraph_agent",
        "recipe/retool",
    ]
    # renamed-away files count: verl/workers/roles/ is gone entirely in #4352
    assert migration.removal_targets(real_pr(weeks, "2025-W48", 4352)) == ["verl/workers/roles"]


def test_verified_references_remaining_are_evidence(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    pr = real_pr(weeks, "2025-W48", 4283)
    references = {
        "recipe/retool": ["docs/sglang_multiturn/multiturn.rst"],
        "recipe/langgraph_agent": [],
    }
    context = Context(profile=verl_profile, references=references)
    (risk,) = migration.DETECTOR.detect([pr], context)
    assert (risk.rule, risk.verified, risk.params["references"]) == ("references_remain", True, 1)
    assert risk.evidence[0].path == "docs/sglang_multiturn/multiturn.rst"
    assert risk.evidence[0].snippet == "recipe/retool"


def test_verified_clean_migration(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    pr = real_pr(weeks, "2025-W48", 4352)
    searched: dict[str, list[str]] = {"verl/workers/roles": []}
    (risk,) = migration.DETECTOR.detect([pr], Context(profile=verl_profile, references=searched))
    assert (risk.rule, risk.severity, risk.verified) == ("no_references", Severity.LOW, True)


def test_search_targets_are_what_the_detector_reads(weeks: dict[str, CollectedPeriod]) -> None:
    targets = migration.search_targets(weeks["2025-W48"].prs, limit=5)
    assert targets == ["recipe/langgraph_agent", "recipe/retool", "verl/workers/roles"]
    assert migration.search_targets(weeks["2025-W48"].prs, limit=1) == ["recipe/langgraph_agent"]


def test_search_phrases_are_import_paths_and_paths(weeks: dict[str, CollectedPeriod]) -> None:
    # Python packages are searched by import path; GitHub ignores the punctuation, so the phrase
    # also finds the path string (recipe/retool/run.sh)
    terms = migration.search_terms(weeks["2025-W48"].prs, limit=5)
    assert [(t.target, t.phrases) for t in terms] == [
        ("recipe/langgraph_agent", ("recipe.langgraph_agent",)),
        ("recipe/retool", ("recipe.retool",)),
        ("verl/workers/roles", ("verl.workers.roles",)),
    ]


def _removed(*paths: str, deletions: int = 10) -> list[FileChange]:
    return [change(p, None, FileStatus.REMOVED, deletions=deletions) for p in paths]


def test_one_word_directory_is_searched_through_its_children() -> None:
    # synthetic: deleting a whole top-level directory; "recipe" alone would match every file
    # that says recipe, so its biggest removed subdirectories are searched instead
    files = _removed("recipe/README.md", "recipe/dapo/main.py", "recipe/dapo/run.sh")
    files += _removed("recipe/spin/README.md", deletions=50)
    files += _removed("docs/old/README.md", "docs/old/a.md", "docs/old/b.md")
    pr = make_pr(30, "[recipe] chore: drop recipes", files)
    assert migration.removal_targets(pr) == ["docs/old", "recipe"]
    terms = migration.search_terms([pr], limit=5)
    assert [(t.target, t.phrases) for t in terms] == [
        ("docs/old", ("docs/old",)),
        ("recipe", ("recipe/spin", "recipe.dapo", "recipe/README.md")),
    ]
    # the budget counts phrases: a target whose phrases do not all fit is not searched
    assert [t.target for t in migration.search_terms([pr], limit=3)] == ["docs/old"]
    assert all(len(migration.search_words(p)) > 1 for t in terms for p in t.phrases)


def test_search_words_follow_github_code_search() -> None:
    assert migration.search_words("from verl.experimental.vla import x") == [
        "from",
        "verl",
        "experimental",
        "vla",
        "import",
        "x",
    ]
    assert migration.search_words("recipe/") == ["recipe"]
    assert migration.search_words("verl/experimental/vla") == migration.search_words(
        "verl.experimental.vla"
    )


def test_references_may_name_the_module(verl_profile: RepoProfile) -> None:
    pr = make_pr(
        9,
        "[misc] refactor: drop old package",
        [
            change(f"verl/old/{name}.py", "@@ -1,1 +0,0 @@\n-x = 1", FileStatus.REMOVED)
            for name in ("__init__", "a", "b")
        ],
    )
    context = Context(profile=verl_profile, references={"verl.old": ["verl/new/user.py"]})
    (risk,) = migration.DETECTOR.detect([pr], context)
    assert (risk.rule, risk.severity) == ("references_remain", Severity.HIGH)


def test_small_removals_are_not_migrations(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4146 deletes one workflow; #4258 one test file; #5033 one utils module
    for label, number in (("2025-W47", 4146), ("2025-W48", 4258), ("2026-W04", 5033)):
        pr = real_pr(weeks, label, number)
        assert migration.DETECTOR.detect([pr], Context(profile=verl_profile)) == []


def test_some_files_of_a_directory_are_not_a_directory_removal(verl_profile: RepoProfile) -> None:
    # four files of verl/utils deleted, but its __init__.py stays: the directory lives on
    files = [change(f"verl/utils/f{i}.py", None, FileStatus.REMOVED, deletions=5) for i in range(4)]
    pr = make_pr(11, "[misc] chore: drop helpers", files)
    assert migration.removed_directories(pr) == []
    assert migration.DETECTOR.detect([pr], Context(profile=verl_profile)) == []


def test_partly_removed_directory_is_not_a_directory_removal(verl_profile: RepoProfile) -> None:
    names = ("__init__", "f1", "f2", "f3")
    files = [change(f"recipe/a/{n}.py", None, FileStatus.REMOVED, deletions=5) for n in names]
    files.append(change("recipe/a/kept.py", "@@ -1,1 +1,1 @@\n-a\n+b"))
    pr = make_pr(10, "[recipe] chore: trim", files)
    assert migration.removed_directories(pr) == []
    assert migration.DETECTOR.detect([pr], Context(profile=verl_profile)) == []


def test_real_weeks_flag_these_prs(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    flagged = [
        (label, r.prs[0], r.severity.value)
        for label in LABELS
        for r in migration.DETECTOR.detect(
            weeks[label].prs, week_context(weeks, label, verl_profile)
        )
    ]
    assert flagged == [("2025-W48", 4283, "high"), ("2025-W48", 4352, "medium")]


# --- searches that ran, and directories that moved into a submodule -----------------------


def test_search_that_did_not_answer_is_not_a_missing_token(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # the code search ran (references is a dict) but has no answer for #4283's paths
    pr = real_pr(weeks, "2025-W48", 4283)
    (risk,) = migration.DETECTOR.detect([pr], Context(profile=verl_profile, references={}))
    assert (risk.rule, risk.verified, risk.severity) == ("search_incomplete", False, Severity.HIGH)
    # what the search missed comes first; where the code went stays in the params
    assert risk.params["url"] == "https://github.com/verl-project/verl-recipe"


def test_destination_needs_a_move_to_another_repository(
    weeks: dict[str, CollectedPeriod],
) -> None:
    pr = real_pr(weeks, "2025-W48", 4283)
    # a link to a PR or issue, or to the repository itself, is not where code went
    for body in (
        "Move recipes to a new repository, see https://github.com/volcengine/verl/pull/4000",
        "Move recipes to a new repository, see https://github.com/o/r/issues/12",
        "Cleanup; docs at https://github.com/verl-project/verl-recipe",
    ):
        changed = pr.model_copy(update={"body": body, "title": "[recipe] chore: cleanup"})
        assert migration.destination(changed) is None, body


GITMODULES = (
    "@@ -1,3 +1,6 @@\n"
    ' [submodule "third_party/x"]\n'
    " \tpath = third_party/x\n"
    " \turl = https://github.com/o/x.git\n"
    '+[submodule "recipe"]\n'
    "+\tpath = recipe\n"
    "+\turl = https://github.com/verl-project/verl-recipe.git\n"
)


def _submodule_pr(extra: list[FileChange] | None = None) -> PullRequest:
    moved = _removed(
        "recipe/README.md", "recipe/dapo/main.py", "recipe/dapo/run.sh", "recipe/spin/main.py"
    )
    gitlink = change("recipe", "@@ -0,0 +1 @@\n+Subproject commit " + "0" * 40, FileStatus.ADDED)
    files = [change(".gitmodules", GITMODULES), gitlink, *moved, *(extra or [])]
    return make_pr(31, "[recipe] refactor: move recipes to verl-recipe", files)


def test_directory_turned_into_a_submodule_is_moved_not_deleted(
    verl_profile: RepoProfile,
) -> None:
    """Synthetic: the recorded weeks have no PR that adds a submodule."""
    pr = _submodule_pr()
    assert [(s.path, s.url) for s in migration.submodules(pr)] == [
        ("recipe", "https://github.com/verl-project/verl-recipe.git")
    ]
    assert migration.removal_targets(pr) == []
    assert migration.search_terms([pr], limit=5) == []
    for references in (None, {}, {"recipe": ["docs/index.rst"]}):
        context = Context(profile=verl_profile, references=references)
        (risk,) = migration.DETECTOR.detect([pr], context)
        # a migration users must act on (`git submodule update --init`), never a low note
        assert (risk.rule, risk.severity) == ("submodule", Severity.MEDIUM)
        assert risk.params["url"] == "https://github.com/verl-project/verl-recipe.git"
        assert risk.params["targets"] == "recipe/"
        assert (risk.params["files"], risk.params["lines"]) == (4, 40)
        first = risk.evidence[0]
        assert (first.path, first.line, first.side) == (".gitmodules", 5, "added")
        assert first.snippet == "path = recipe"


def test_submodule_pr_raises_no_other_alarm(verl_profile: RepoProfile) -> None:
    from service.core.risks import detect_risks

    risks = detect_risks([_submodule_pr()], verl_profile)
    assert [(r.kind, r.rule) for r in risks] == [("migration", "submodule")]


def test_other_removals_of_a_submodule_pr_are_still_migrations(verl_profile: RepoProfile) -> None:
    extra = _removed(*(f"verl/old/{n}.py" for n in ("__init__", "a", "b")))
    pr = _submodule_pr(extra)
    assert migration.removal_targets(pr) == ["verl/old"]
    rules = [r.rule for r in migration.DETECTOR.detect([pr], Context(profile=verl_profile))]
    assert rules == ["submodule", "unverified"]
