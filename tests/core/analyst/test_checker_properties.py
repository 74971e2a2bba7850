"""Property tests of the checker: a sentence built only from a PR's facts is kept; the same
sentence with one figure or one PR number changed is dropped. On every PR of the recorded
weeks, and on synthetic PRs whose titles state multipliers, percentages, versions and names."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from service.core.analyst.checker import Checker, check_text
from service.core.analyst.facts import PeriodFacts, PRFacts
from tests.commands.builders import WEEK_LABELS
from tests.core.analyst.helpers import week_facts

PROPERTY = settings(max_examples=150, deadline=None)
REAL_PRS = [(label, pr.number) for label in WEEK_LABELS for pr in week_facts(label).prs]
SENTENCES = {
    "zh": "#{n} 新增 {additions} 行、删除 {deletions} 行，涉及 {files} 个文件。",
    "en": "#{n} adds {additions} lines and deletes {deletions} across {files} files.",
}
FIELDS = ("additions", "deletions", "files")


def _checker(label: str, lang: str) -> Checker:
    return Checker(week_facts(label, lang))


def _sentence(lang: str, n: int, values: dict[str, int]) -> str:
    return SENTENCES[lang].format(n=n, **values)


def _known(checker: Checker, pr: PRFacts) -> set[str]:
    return checker.numbers(pr) | checker.week_numbers | {"1"}


@PROPERTY
@given(st.sampled_from(REAL_PRS), st.sampled_from(["zh", "en"]))
def test_a_sentence_of_a_real_prs_own_figures_is_kept(pick: tuple[str, int], lang: str) -> None:
    label, number = pick
    checker = _checker(label, lang)
    pr = checker.facts.pr(number)
    assert pr is not None
    values = {f: getattr(pr, f) for f in FIELDS}
    assert check_text(_sentence(lang, number, values), [number], "summary", checker) == []


@PROPERTY
@given(
    st.sampled_from(REAL_PRS),
    st.sampled_from(["zh", "en"]),
    st.sampled_from(FIELDS),
    st.integers(min_value=1, max_value=10**6),
)
def test_the_same_sentence_with_one_figure_changed_is_dropped(
    pick: tuple[str, int], lang: str, field: str, shift: int
) -> None:
    label, number = pick
    checker = _checker(label, lang)
    pr = checker.facts.pr(number)
    assert pr is not None
    values = {f: getattr(pr, f) for f in FIELDS}
    values[field] += shift
    assume(str(values[field]) not in _known(checker, pr))
    found = check_text(_sentence(lang, number, values), [number], "summary", checker)
    assert found == [f"figure: {values[field]}"]


@PROPERTY
@given(st.sampled_from(REAL_PRS), st.sampled_from(["zh", "en"]), st.integers(1, 10**6))
def test_the_same_sentence_with_its_pr_number_changed_is_dropped(
    pick: tuple[str, int], lang: str, other: int
) -> None:
    label, number = pick
    checker = _checker(label, lang)
    pr = checker.facts.pr(number)
    assert pr is not None
    assume(other != number)
    values = {f: getattr(pr, f) for f in FIELDS}
    found = check_text(_sentence(lang, other, values), [number], "summary", checker)
    expected = "pr_not_cited" if checker.facts.pr(other) else "pr_not_in_week"
    assert f"{expected}: #{other}" in found


# --- synthetic PRs: multipliers, percentages, versions and identifiers from the title --------

NAMES = st.from_regex(r"[a-z]{3,8}_[a-z]{3,8}", fullmatch=True)
TENTHS = st.integers(min_value=11, max_value=99).map(lambda v: f"{v / 10:g}")


def _week(pr: PRFacts, lang: str) -> PeriodFacts:
    other = PRFacts(number=pr.number + 1, title="[ci] chore: bump", additions=1, files=1)
    return PeriodFacts(
        repo="o/r",
        period="2026-W04",
        language=lang,
        first_day="2026-01-19",
        last_day="2026-01-25",
        totals={"prs": 2, "additions": pr.additions + 1},
        trends={},
        risks=(),
        prs=(pr, other),
        by_number={pr.number: pr, other.number: other},
    )


@PROPERTY
@given(
    st.integers(min_value=1, max_value=99_999),
    NAMES,
    TENTHS,
    st.integers(min_value=1, max_value=99),
    st.integers(min_value=10, max_value=99),
    st.sampled_from(["zh", "en"]),
)
def test_a_synthetic_sentence_of_multiplier_percent_version_and_name_is_kept_then_dropped(
    number: int, name: str, multiplier: str, percent: int, minor: int, lang: str
) -> None:
    title = f"[perf] feat: speed {name} up {multiplier}x, {percent}% less memory on v0.{minor}"
    pr = PRFacts(number=number, title=title, additions=10, deletions=2, files=3)
    checker = Checker(_week(pr, lang))
    if lang == "zh":
        text = "#{n} 让 `{name}` 提速 {m}x，内存减少 {p}%，适用于 0.{v}。"
    else:
        text = "#{n} makes `{name}` {m}x faster with {p}% less memory on 0.{v}."
    good = {"n": number, "name": name, "m": multiplier, "p": percent, "v": minor}
    assert check_text(text.format(**good), [number], "summary", checker) == []
    for key, changed, shown in (
        ("m", f"{float(multiplier) + 0.1:g}", "{}x"),
        ("p", str(percent + 100), "{}%"),
        ("v", str(minor + 100), "0.{}"),
    ):
        bad = {**good, key: changed}
        assert check_text(text.format(**bad), [number], "summary", checker) == [
            f"figure: {shown.format(changed)}"
        ]
    renamed = {**good, "name": name + "_x"}
    assert check_text(text.format(**renamed), [number], "summary", checker) == [
        f"identifier: {name}_x"
    ]
