"""Hostile text in both directions: command text with mrkdwn, `<at>` tags, SQL and shell
metacharacters gets a usage answer and runs nothing; PR titles and bodies with `<script>`,
`<!channel>`, `<at id=all></at>` and 100 kB bodies come out inert in the posted cards and in the
report pages served by the app."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
import requests

from service.core.models import CollectedPeriod
from service.core.weeks import parse_week
from service.pipeline import jobs
from tests.abuse.conftest import REPO, SEEDED, USER, Service, feishu_message, said, snapshot
from tests.conftest import load_week
from tests.fuzz import inert

CANARY = "pwned-canary"
HOSTILE_COMMANDS = [
    "'; DROP TABLE digests; --",
    "risks '; DROP TABLE digests; --",
    "pr 1; DROP TABLE deliveries",
    "pr 4280' OR '1'='1",
    f"$(touch {CANARY})",
    f"risks `touch {CANARY}`",
    f"week 2026-W04 && touch {CANARY}",
    f"top 5 | touch {CANARY}",
    "*bold* _it_ ~strike~ <!channel> <!here> <@U123>",
    '<at id=all></at> <at user_id="ou_x">x</at>',
    "[x](javascript:alert(1)) <https://evil.example|click>",
    "summary \u200b<!channel>\u200b",
    "{{ 7*7 }} {% for x in y %}",
    "a" * 5000,
]
NOT_UNDERSTOOD = ("I don't know the command", "is not a PR number", "not a week", "Usage", "usage")
HOSTILE_TITLE = (
    "<script>alert(1)</script> <!channel> <!here> <@U123> <at id=all></at> [x](javascript:alert(1))"
)
HUGE_BODY = ("<!channel> <at id=all></at> <script>alert(1)</script> " * 2000)[:100_000]


def no_canary(tmp_path: Path) -> bool:
    return not any(p.name == CANARY for p in tmp_path.rglob("*")) and not Path(CANARY).exists()


@pytest.mark.parametrize("text", HOSTILE_COMMANDS)
def test_hostile_slack_command_text_gets_an_inert_answer(
    service: Service, tmp_path: Path, text: str
) -> None:
    before = snapshot(service.store)
    response = service.command(text, user=USER)
    assert response.status_code == 200
    payload = response.json()
    assert inert.slack_problems(payload.get("text", ""), payload.get("blocks", [])) == []
    assert "Traceback" not in said(response)
    assert "incident" not in said(response)  # a clear answer, not an internal error
    service.settle()
    assert snapshot(service.store) == before
    assert [e.period for e in service.store.list_reports()] == sorted(SEEDED, reverse=True)
    assert no_canary(tmp_path)


def test_hostile_command_answers_name_the_problem(service: Service) -> None:
    for text in ("'; DROP TABLE digests; --", "pr 1; DROP TABLE deliveries", f"$(touch {CANARY})"):
        answer = said(service.command(text))
        assert any(phrase in answer for phrase in NOT_UNDERSTOOD), answer


@pytest.mark.parametrize("text", HOSTILE_COMMANDS[:10])
def test_hostile_feishu_message_text_gets_an_inert_reply(
    service: Service, tmp_path: Path, text: str
) -> None:
    before = snapshot(service.store)
    event = feishu_message(text)
    assert service.feishu_post(event).status_code == 200
    service.replies_to(event["event"]["message"]["message_id"])
    for message in service.feishu.replies():
        assert inert.feishu_problems(message.card) == []
    assert service.feishu.violations == []
    assert snapshot(service.store) == before
    assert no_canary(tmp_path)


def hostile_week() -> CollectedPeriod:
    """The real 2026-W04 with hostile titles, bodies, authors and paths on its first PRs."""
    week = load_week("2026-W04")
    prs = list(week.prs)
    for i in range(3):
        files = [
            f.model_copy(update={"path": f"verl/trainer/{HOSTILE_TITLE}.py"}) for f in prs[i].files
        ]
        prs[i] = prs[i].model_copy(
            update={
                "title": f"{HOSTILE_TITLE} #{i}",
                "body": HUGE_BODY,
                "author": "<!channel>",
                "files": files,
                "merged_at": week.window.start + timedelta(hours=1 + i),
            }
        )
    return week.model_copy(update={"prs": prs})


def test_hostile_prs_are_inert_in_cards_and_report_pages(service: Service) -> None:
    week = hostile_week()
    assert len(week.prs[0].body.encode()) >= 100_000
    service.weeks[week.window.label] = week
    window = parse_week(week.window.label, "Asia/Shanghai", service.pipeline.clock())
    result = jobs.run_week(service.pipeline, REPO, window, trigger="test")
    assert result.outcome == "ok", result.error
    assert service.slack.violations == []
    assert service.feishu.violations == []
    [posted] = service.slack.messages("C1")
    assert inert.slack_problems(posted["text"], posted["blocks"]) == []
    [card] = service.feishu.posted("oc_group1")
    assert inert.feishu_problems(card.card) == []
    assert "script" in json.dumps(card.card)  # the hostile titles are there, as text
    base = f"{service.url}/reports/{REPO}/{week.window.label}"
    page = service.keep(requests.get(base, timeout=10))
    assert page.status_code == 200
    assert "&lt;script&gt;" in page.text
    assert inert.html_problems(page.text) == []
    markdown = service.keep(requests.get(base + ".md", timeout=10))
    assert inert.markdown_problems(markdown.text) == []
    data = service.keep(requests.get(base + ".json", timeout=10))
    assert data.headers["content-type"].startswith("application/json")
    assert any(HOSTILE_TITLE in p["title"] for p in data.json()["prs"])  # data stays data
    # the risks answer over the same hostile week
    answer = service.command(f"risks {week.window.label}").json()
    assert inert.slack_problems(answer["text"], answer["blocks"]) == []
