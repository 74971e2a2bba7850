"""Words read as claims they are not (tune3, the verl family): "HTTP server" names a protocol,
not a link spelled apart; "由 38 位贡献者完成" counts the week's contributors (a figure, checked
as one), it names no author."""

from __future__ import annotations

from tests.core.analyst.test_misreadings_sides import _reasons


def test_the_http_protocol_is_no_link_and_a_scheme_spelled_apart_is() -> None:
    text = "#7422 删除了三个 HTTP server 在非 HYBRID 模式下改写 load_format 的判断。"
    assert [r for r in _reasons("tune3", "2026-W34", "zh", text, [7422]) if "link" in r] == []
    spelled = "#7422 的说明见 http [:] //example 页面。"
    assert any(r.startswith("link") for r in _reasons("tune3", "2026-W34", "zh", spelled, [7422]))


def _summary_reasons(text: str) -> list[str]:
    """The reasons against a summary sentence (`_reasons` checks it as a PR point, which must
    name a PR)."""
    return [r for r in _reasons("tune3", "2026-W20", "zh", text, []) if not r.startswith("no_prs")]


def test_a_count_of_contributors_is_a_figure_not_an_author() -> None:
    said = "本周家族共合入 61 个 PR，由 {n} 位贡献者完成。"
    assert _summary_reasons(said.format(n=38)) == []
    wrong = _summary_reasons(said.format(n=37))
    assert not any(r.startswith("authorship") for r in wrong)
    assert any("37" in r for r in wrong)
