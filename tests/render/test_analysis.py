"""The model-written parts in every output: the checked sentences of the scripted good answer
reach Markdown, HTML, JSON, Slack and Feishu (and `pr N`) in both languages, with a note that
names the model and says each sentence was checked; nothing the checker dropped reaches any of
them; a section left too thin is the deterministic one."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from service.commands.kinds import PrAnswer
from service.core.analyst.checker import check_answer
from service.core.analyst.schema import parse_answer
from service.core.models import AnalysisItem, Digest
from service.render import feishu, slack
from service.render.feishu_limits import feishu_violations
from service.render.limits import slack_violations
from service.render.report import render_html, render_json, render_markdown
from service.render.text import render_answer_text
from tests.core.analyst.helpers import week_digest, week_facts
from tests.fakes.openai import recorded_answer

MODEL = "Qwen/Qwen3-32B"
URL = "https://verl-week.example.org/reports/volcengine/verl/2026-W04"
# what the invented answer made up: none of it may reach an output
MADE_UP = [
    "#9999",
    "35%",
    "3 倍",
    "evil",
    "javascript",
    "channel>",
    "user_id",
    "@all",
    "Ignore previous",
    "admin token",
    "document.cookie",
    "忽略之前",
    "This week the team",
    "严重回归",
    "magic_engine",
    "15 个 PR",
    "立即回滚",
    "profiler 有严重",
]


def with_answer(name: str, lang: str) -> Digest:
    drafts = parse_answer(recorded_answer(name))
    analysis = check_answer(drafts, week_facts(language=lang), model=MODEL, prompt_version="1")
    return week_digest(language=lang).model_copy(update={"analysis": analysis})


def outputs(digest: Digest) -> Iterator[tuple[str, str]]:
    lang = digest.language
    yield "markdown", render_markdown(digest)
    yield "html", render_html(digest)
    message = slack.render_digest(digest, report_url=URL, lang=lang)
    assert slack_violations(message) == []
    yield "slack", json.dumps({"text": message.text, "blocks": message.blocks}, ensure_ascii=False)
    card = feishu.render_digest(digest, report_url=URL, lang=lang)
    assert feishu_violations(card, via="app") == []
    yield "feishu", json.dumps(card, ensure_ascii=False)
    for kind, target in (("slack", slack), ("feishu", feishu)):
        pr = target.render_answer(pr_answer(digest, 4280), lang)
        yield (
            f"{kind} pr",
            json.dumps(pr if isinstance(pr, dict) else pr.blocks, ensure_ascii=False),
        )
    yield "text pr", render_answer_text(pr_answer(digest, 4280), lang, digest)


def pr_answer(digest: Digest, number: int) -> PrAnswer:
    from service.core.analyst.sections import written

    view = written(digest)
    return PrAnswer(
        repo=digest.repo,
        period=digest.window,
        pr=digest.pr(number),
        number=number,
        point=view.point(number) if view else None,
        point_model=view.model if view else "",
        report_url=URL,
    )


GOOD = {
    "zh": [
        "本周主线是 rollout 架构的进程分离与新推理引擎接入",
        "TensorRT-LLM 成为新的 rollout 引擎，新增 1676 行",
        "训练与推理拆到不同进程",
        f"由模型 {MODEL} 撰写",
    ],
    "en": [
        "Rollout moves to separate processes and gains a TensorRT-LLM engine",
        "TensorRT-LLM becomes a rollout engine, with 1676 added lines",
        "Training and inference run in separate processes",
        MODEL,
    ],
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_good_sentences_reach_every_output_with_the_models_name(lang: str) -> None:
    digest = with_answer(f"2026-W04.good.{lang}", lang)
    for name, text in outputs(digest):
        if name.endswith("pr"):
            assert GOOD[lang][2] in text, name
            assert MODEL in text, name
            continue
        for sentence in GOOD[lang]:
            assert sentence in text, (name, sentence)
    assert json.loads(render_json(digest))["analysis"]["model"] == MODEL


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_report_says_which_parts_the_model_wrote_and_that_each_was_checked(lang: str) -> None:
    markdown = render_markdown(with_answer(f"2026-W04.good.{lang}", lang))
    note = markdown.split("\n> ", 1)[1].split("\n", 1)[0]
    if lang == "zh":
        assert note.startswith("本报告的执行摘要、重点变化、趋势点评、后续建议与重点 PR 要点由模型")
        assert "每一句都已与本周数据核对" in note
    else:
        assert note.startswith("The executive summary, key changes, trend remarks")
        assert "recommendations and key points of the top PRs of this report were written" in note
        assert "every sentence was checked" in note


@pytest.mark.parametrize(
    "text", ["新功能类 PR 共 7 个，占本周的主体。", "Features made up 7 PRs this week."]
)
def test_a_sentence_is_shown_as_written_without_a_list_of_the_prs_it_rests_on(text: str) -> None:
    """A PR list appended to a sentence says each PR is what the sentence says ("core code
    without tests (#5052, #5095, #5085)" where two were not flagged): none is appended."""
    lang = "zh" if "个" in text else "en"
    digest = with_answer(f"2026-W04.good.{lang}", lang)
    assert digest.analysis is not None
    digest.analysis.trends = [AnalysisItem(text=text, prs=[4998])]
    markdown = render_markdown(digest)
    assert f"\n{text}\n" in markdown
    assert "4998](" not in markdown.split(text, 1)[0].rsplit("\n", 1)[-1]


def test_nothing_made_up_reaches_markdown_html_slack_feishu_or_answers() -> None:
    digest = with_answer("2026-W04.bad.zh", "zh")
    assert digest.analysis is not None
    assert len(digest.analysis.dropped) == 13
    for name, text in outputs(digest):
        for invented in MADE_UP:
            assert invented not in text, (name, invented)


def test_in_json_what_was_made_up_stands_only_in_the_audit_list() -> None:
    digest = with_answer("2026-W04.bad.zh", "zh")
    data = json.loads(render_json(digest))
    audit = json.dumps(data["analysis"].pop("dropped"), ensure_ascii=False)
    rest = json.dumps(data, ensure_ascii=False)
    for invented in MADE_UP:
        assert invented not in rest, invented
    for invented in ("#9999", "35%", "evil", "javascript", "<!channel>", "忽略之前"):
        assert invented in audit, invented
    assert "reasons" in audit


def test_thin_sections_fall_back_to_the_deterministic_text() -> None:
    bad = with_answer("2026-W04.bad.zh", "zh")
    plain = week_digest(language="zh")
    markdown = render_markdown(bad)
    deterministic = render_markdown(plain)
    section = lambda text, title: text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]  # noqa: E731
    # summary: one sentence kept, four dropped → the rule-written summary
    assert section(markdown, "执行摘要") == section(deterministic, "执行摘要")
    assert "本周共合入 22 个 PR，来自 20 位贡献者。" not in markdown
    # trends: nothing kept → the rule-written trend lines
    trends = section(markdown, "模块与主题趋势")
    assert trends == section(deterministic, "模块与主题趋势")
    # key changes: three kept, two dropped → the model's bullets
    changes = section(markdown, "本周重点变化")
    assert "**昇腾 NPU**：" in changes
    assert changes != section(deterministic, "本周重点变化")
    # recommendations: one kept, naming #5033, which the table, two risk items and the
    # rule-written summary name often already: a kept sentence is shown all the same (issue 27
    # §2: a mention limit drops repeats, never what the checker kept)
    recommendations = section(markdown, "后续建议")
    assert "补充测试：它们修改了核心路径" in recommendations
    assert recommendations != section(deterministic, "后续建议")
    # risks stay the detectors'
    assert section(markdown, "风险观察") == section(deterministic, "风险观察")
    # points: #4280's checked point; #4665's was dropped, so its rule-written point (facts, in
    # the report's language) stays
    table = section(markdown, "重点 PR 速览")
    assert "训练与推理拆到不同进程" in table
    assert "新增 `TRTLLMHttpServer`、`TRTLLMReplica` 等 7 个类或函数。" in table


def test_without_an_analysis_every_output_is_the_deterministic_one() -> None:
    plain = week_digest(language="zh")
    failed = plain.model_copy(update={"analysis": None})
    assert render_markdown(failed) == render_markdown(plain)
    assert "由模型" not in render_markdown(plain)
    assert "✎" not in json.dumps(slack.render_digest(plain, report_url=URL, lang="zh").blocks)
    text = render_answer_text(pr_answer(plain, 4280), "zh", plain)
    assert "要点（模型" not in text


def test_model_text_is_escaped_for_each_target_and_code_spans_stay_code() -> None:
    digest = with_answer("2026-W04.good.zh", "zh")
    assert digest.analysis is not None
    item = AnalysisItem(
        text="#4280 修改了 `verl/workers/engine_workers.py` & __init__ 的 a_b。", prs=[4280]
    )
    digest.analysis.summary = [item, *digest.analysis.summary[1:]]
    markdown = render_markdown(digest)
    assert "修改了 `verl/workers/engine_workers.py` & \\_\\_init\\_\\_ 的 a_b" in markdown
    html = render_html(digest)
    assert "<code>verl/<wbr>workers/<wbr>engine_workers.py</code> &amp; __init__" in html
    card = json.dumps(
        slack.render_digest(digest, report_url=URL, lang="zh").blocks, ensure_ascii=False
    )
    assert "`verl/workers/engine_workers.py` &amp; __init__" in card


def test_a_comparison_after_a_code_span_reads_as_typed_in_markdown() -> None:
    digest = with_answer("2026-W04.good.zh", "zh")
    assert digest.analysis is not None
    text = "#4280 要求 `tensorrt-llm` >= 1.2.0rc6，`use_fused_kernels` - 在 triton>=3.3 上关闭。"
    item = AnalysisItem(text=text, prs=[4280])
    digest.analysis.summary = [item, *digest.analysis.summary[1:]]
    markdown = render_markdown(digest)
    assert text.removeprefix("#4280 ").removesuffix("。") in markdown


HOSTILE = (
    '<!channel> <@U123> <at user_id="all"></at> [x](javascript:alert(1)) <script>alert(1)</script>'
    " **bold** <https://evil.example.com|click> `<!here>` #4280"
)


def test_model_text_that_skipped_the_checker_is_still_inert_everywhere() -> None:
    """Defence in depth: even an Analysis that never met the checker renders inert."""
    from service.core.models import Analysis
    from tests.fuzz.inert import feishu_problems, html_problems, markdown_problems, slack_problems

    item = AnalysisItem(text=HOSTILE, prs=[4280], theme="<at id=all></at>")
    hostile = Analysis(
        model="<!channel>",
        prompt_version="1",
        language="zh",
        headline=item,
        summary=[item, item],
        key_changes=[item, item],
        pr_points=[AnalysisItem(text=HOSTILE, prs=[4280])],
        trends=[item],
        recommendations=[item],
        review_notes=[item],
    )
    digest = week_digest(language="zh").model_copy(update={"analysis": hostile})
    assert markdown_problems(render_markdown(digest)) == []
    assert html_problems(render_html(digest)) == []
    message = slack.render_digest(digest, report_url=URL, lang="zh")
    assert slack_problems(message.text, message.blocks) == []
    assert feishu_problems(feishu.render_digest(digest, report_url=URL, lang="zh")) == []
    answer = pr_answer(digest, 4280)
    reply = slack.render_answer(answer, "zh")
    assert slack_problems(reply.text, reply.blocks) == []
    assert feishu_problems(feishu.render_answer(answer, "zh")) == []
    assert markdown_problems(render_answer_text(answer, "zh", digest)) == []


def test_a_card_or_report_in_another_language_shows_none_of_the_models_text() -> None:
    digest = with_answer("2026-W04.good.zh", "zh")
    english = json.dumps(slack.render_digest(digest, report_url=URL, lang="en").blocks)
    assert "rollout 架构" not in english
    assert MODEL not in english
    card = json.dumps(feishu.render_digest(digest, report_url=URL, lang="en"), ensure_ascii=False)
    assert "训练与推理" not in card
    assert MODEL not in render_markdown(digest, "en")
