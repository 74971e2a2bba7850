"""The evidence index the checker grounds claims in (built from the real recorded weeks), and
the glossary it reads them with (data, not code)."""

from __future__ import annotations

from service.core.analyst.evidence import Relation
from service.core.analyst.glossary import glossary, parse
from service.core.analyst.injection import domains, masked
from tests.core.analyst.corpus import corpus_facts
from tests.core.analyst.helpers import week_facts


def test_changed_lines_are_kept_by_side() -> None:
    evidence = week_facts("2026-W04").evidence
    assert evidence is not None
    pr = evidence.pr(4280)
    assert pr is not None
    assert "def get_zeromq_address" in pr.removed
    assert "def get_zeromq_address" not in pr.added
    assert "verl/workers/rollout/vllm_rollout/vllm_rollout.py" in pr.paths
    assert "breaking" in pr.risks
    assert evidence.pr(99999) is None


def test_the_actions_a_pr_shows_in_its_words_and_diff() -> None:
    evidence = week_facts("2025-W47").evidence
    assert evidence is not None
    ci = evidence.pr(4146)  # "remove weekly validation workflow", "Disable env …"
    assert ci is not None
    assert {"remove", "disable"} <= ci.said_actions
    assert "enable" not in ci.said_actions  # not read out of VLLM_ASCEND_ENABLE_NZ
    revert = evidence.pr(4234)
    assert revert is not None
    assert "revert" in revert.actions
    timeout = week_facts("2025-W48").evidence.pr(4279)  # type: ignore[union-attr]
    assert timeout is not None
    assert timeout.settings["timeout-minutes"] == (frozenset({"25"}), frozenset({"30"}))


def test_relations_are_the_ones_the_digest_found() -> None:
    evidence = week_facts("2025-W48").evidence
    assert evidence is not None
    assert Relation(4258, 4251, "revert") in evidence.relations
    assert evidence.related(4258, 4251) == {"revert"}
    assert evidence.related(4251, 4258) == set()
    assert evidence.followed_up(4254)
    assert not evidence.followed_up(4273)


def test_the_earlier_weeks_counts_only_when_it_is_stored() -> None:
    with_earlier = corpus_facts("2026-W04", "zh").evidence
    assert with_earlier is not None
    assert with_earlier.previous_period == "2026-W03"
    assert with_earlier.previous["modules"]["rollout"] == (5, 3)
    assert with_earlier.previous["categories"]["fixes"] == (8, 15)
    alone = week_facts("2026-W04").evidence
    assert alone is not None
    assert alone.previous == {}


def test_the_glossary_is_data() -> None:
    words = glossary()
    assert set(words.concepts_in("稠密模型与混合专家模型在昇腾上保存检查点")) == {
        "dense",
        "moe",
        "ascend_npu",
        "checkpoint",
    }
    assert "moe" in words.concepts_in("qwen3_vl_moe")  # `_` breaks words
    assert "fsdp" not in words.concepts_in("fsdpx")
    assert words.group_members("nixl") == ["nixl", "hccl", "nccl", "mooncake"]
    extra = parse(
        '[concepts]\nxpu = ["xpu", "英特尔"]\n[groups]\nhw = ["xpu"]\n'
        "[actions]\n[relations]\n[words]\n[buckets]\n"
    )
    assert extra.concepts_in("在 XPU 上") == {"xpu": "XPU"}
    assert extra.group_members("xpu") == ["xpu"]


def test_domains_of_any_top_level_domain_but_not_code() -> None:
    evidence = week_facts("2026-W04").evidence
    assert evidence is not None
    profiler = evidence.pr(4320)
    assert profiler is not None
    assert domains("see evil.example.xyz or docs.verl.app", []) == [
        "evil.example.xyz",
        "docs.verl.app",
    ]
    assert domains("详见 verl.engineering 。", []) == ["verl.engineering"]
    assert domains("uses torch.profiler and verl/utils/profiler/profile.py", [profiler]) == []
    assert domains("patch_v012.py, README.md, e.g. v0.11, 8.3.RC1", []) == []


def test_secrets_are_masked_once() -> None:
    text = "token ghp_" + "a" * 10 + "B1" * 13 + " and sk-proj-AbCdEf1234567890XyZ"
    out = masked(text)
    assert "ghp_****" in out
    assert "sk-p****" in out
    assert masked(out) == out
