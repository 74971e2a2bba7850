"""Counts per risk level said "of" a number of risks: the levels split the risks, so their
counts cannot add up to more (a real sentence of the seen answers copied a level total the
risk list does not hold); and two trend buckets compared on this week's counts."""

from __future__ import annotations

from service.core.analyst.counts import bucket_order_reasons, leads_its_kind, level_sum_reasons
from tests.core.analyst.model_corpus import facts_for
from tests.core.analyst.test_facts_not_words import _meta, check


def test_levels_adding_up_to_more_than_the_whole_are_dropped() -> None:
    reasons = check("seen", "2026-W19.zh", "本周检测到 11 个风险，其中高风险 1 个")
    assert "levels exceed the whole: 1 + 8 + 6 = 15 > 11 risks" in reasons


def test_levels_within_the_whole_are_kept() -> None:
    assert level_sum_reasons("本周检测到 7 个风险，其中高等级 1 个、中等级 5 个。") == []
    assert level_sum_reasons("with 4 detected risks including 1 high and 3 medium") == []
    assert level_sum_reasons("4 risks, of which 3 high and 2 medium") == [
        "levels exceed the whole: 3 + 2 = 5 > 4 risks"
    ]


def test_a_single_level_is_no_split() -> None:
    assert check("seen", "2026-W34.zh", "本周合入 26 个 PR") == []


def test_two_buckets_compared_are_compared_on_the_digests_counts() -> None:
    # verl-omni 2026-W20: six fix-type and six feat-type PRs, eight doc and two algo
    trends = facts_for(_meta("seen2", "2026-W20"), "en").trends
    assert check("seen2", "2026-W20.en.adversarial", "Since fix-type PRs outnumbered") == [
        "comparison outnumbered: the digest counts fix 6, feat 6 this week"
    ]
    assert bucket_order_reasons("The doc module had more than the algo module", trends) == []
    assert bucket_order_reasons("algo 模块的 PR 少于 doc 模块", trends) == []
    assert bucket_order_reasons("algo 模块的 PR 多于 doc 模块", trends) == [
        "comparison 多于: the digest counts algo 2, doc 8 this week"
    ]
    # a bucket against a number or the week before is not this comparison
    assert bucket_order_reasons("The doc module had more than 5 PRs", trends) == []


def test_a_bucket_said_to_lead_its_kind_is_checked_on_the_digests_counts() -> None:
    # verl-omni 2026-W20: doc 8 PRs, the most of any module; algo 2
    trends = facts_for(_meta("seen2", "2026-W20"), "en").trends
    assert check("seen2", "2026-W20.en.adversarial", "The doc module led all modules") == []
    assert leads_its_kind("The doc module led all modules with 8 PRs", trends)
    assert leads_its_kind("doc 模块在所有模块中最多", trends)
    assert not leads_its_kind("The algo module led all modules", trends)
    assert not leads_its_kind("All modules grew", trends)
