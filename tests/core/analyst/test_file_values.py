"""A version told of the wrong file (file_values.py), on the recorded verl-omni 2026-W34 week
of the model corpus (seen2): #363 upgrades torch-npu in the NPU Dockerfiles, not in
Dockerfile.cuda."""

from __future__ import annotations

from service.core.analyst.checker import Checker, check_text
from service.core.analyst.evidence import PREvidence
from service.core.analyst.file_values import file_value_reasons
from tests.core.analyst.model_corpus import facts_for
from tests.core.analyst.test_facts_not_words import _meta, check


def _cited(number: int) -> list[PREvidence]:
    facts = facts_for(_meta("seen2", "2026-W34"), "zh")
    found = facts.evidence.pr(number)
    assert found is not None
    return [found]


def test_a_version_told_of_a_file_that_does_not_hold_it_is_dropped() -> None:
    assert check("seen2", "2026-W34.zh.adversarial", "#363 在 Dockerfile.cuda") == [
        "file value 2.10.0.post2: on changed lines of Dockerfile.a2.npu, Dockerfile.a3.npu, "
        "not of Dockerfile.cuda"
    ]


def test_the_version_in_the_file_it_names_or_in_no_named_file_is_not_judged() -> None:
    cited = _cited(363)
    right = "#363 在 Dockerfile.a2.npu 中把 torch-npu 升级到 2.10.0.post2"
    assert file_value_reasons(right, cited) == []
    # no file of the PR named: the figure rules judge the version
    assert file_value_reasons("#363 把 torch-npu 升级到 2.10.0.post2", cited) == []
    # the file in one clause, the version in another
    said = "#363 updates Dockerfile.cuda, and upgrades torch-npu to 2.10.0.post2"
    assert file_value_reasons(said, cited) == []
    # a version no changed line holds is left to the figure rules
    assert file_value_reasons("#363 在 Dockerfile.cuda 中使用 9.9.9", cited) == []


def test_the_rule_runs_in_the_checker() -> None:
    checker = Checker(facts_for(_meta("seen2", "2026-W34"), "zh"))
    text = "#363 bumps torch-npu to 2.10.0.post2 in Dockerfile.cuda."
    reasons = check_text(text, (363,), "pr_points", checker)
    assert any(r.startswith("file value 2.10.0.post2") for r in reasons)


def test_a_settings_value_told_of_the_wrong_file_is_dropped_but_a_size_is_not_judged() -> None:
    # #45's gpu_smoke.yml times out after 20 minutes; the 10-minute timeout is secrets_scan.yml's
    assert check("seen2", "2026-W19.en.adversarial", "The gpu_smoke job in gpu_smoke.yml") == [
        "file value 10: on changed lines of secrets_scan.yml, not of gpu_smoke.yml"
    ]
    facts = facts_for(_meta("seen2", "2026-W19"), "en")
    cited = [e for e in (facts.evidence.pr(45),) if e is not None]
    assert file_value_reasons("gpu_smoke.yml has a 20-minute timeout", cited) == []
    # a count of lines, files or PRs is no setting's value
    assert file_value_reasons("#45 adds 10 lines to gpu_smoke.yml", cited) == []
