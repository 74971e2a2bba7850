"""A rewrite told of the wrong lines (tune3, the verl family 2026-W34): #7492 rewrites lines
#7127 added (the Megatron-Bridge install of an Ascend CI workflow), not its new
`runtime_env.py_executable`; a sentence telling an added item and then that "its added lines"
were rewritten says the item changed. The relation also has to exist when the Chinese passive
puts the verb after the second PR ("被 #7492 改写")."""

from __future__ import annotations

from tests.core.analyst.test_misreadings_sides import _reasons


def _relations(text: str, prs: list[int]) -> list[str]:
    return [r for r in _reasons("tune3", "2026-W34", "zh", text, prs) if r.startswith("relation")]


def test_a_rewrite_told_of_an_item_the_later_pr_did_not_touch_is_dropped() -> None:
    text = (
        "#7127 在 ppo_trainer.yaml 中新增 runtime_env.py_executable 配置项，初始值为 null，"
        "其新增行之后被 #7492 改写。"
    )
    assert _relations(text, [7127, 7492]) == [
        "relation: #7492 rewrites other lines of #7127 than runtime_env.py_executable"
    ]


def test_a_rewrite_told_of_the_lines_it_rewrote_is_kept() -> None:
    text = "#7127 在 CI 中用 uv pip install 安装 Megatron-Bridge，这些新增行之后被 #7492 改写。"
    assert _relations(text, [7127, 7492]) == []


def test_a_rewrite_that_names_no_item_is_kept() -> None:
    text = "#7127 接入 uv，其部分新增行之后被 #7492 改写。"
    assert _relations(text, [7127, 7492]) == []


def test_a_passive_relation_with_the_verb_after_the_second_pr_must_exist() -> None:
    # no PR of the week reverts #7127
    assert _relations("#7127 接入 uv，之后被 #7492 撤销。", [7127, 7492]) == [
        "relation: #7492 撤销 #7127"
    ]
