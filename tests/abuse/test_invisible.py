"""Bidi controls and invisible characters in PR text (titles, bodies, authors, labels, paths):
none reaches Slack, Feishu, the report pages (HTML, Markdown) or a command answer, where they
could reorder or hide what a reader sees; the JSON page keeps the data but writes them as
\\u escapes, so the raw page can't be reordered either."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import requests

from service.core.models import CollectedPeriod
from service.core.weeks import parse_week
from service.pipeline import jobs
from tests.abuse.conftest import REPO, Service, feishu_message, said
from tests.conftest import load_week

# isolates (2066-2069), the Arabic letter mark, soft hyphen, Mongolian vowel separator, Hangul
# fillers, tag characters (E0000-E007F), and the older overrides and zero-width ones
INVISIBLE = (
    "\u2066\u2067\u2068\u2069\u061c\u00ad\u180e\u3164\uffa0\u115f\u1160"
    "\U000e0001\U000e0041\U000e007f\u202e\u202d\u200b\u200e\u2060\ufeff\u034f"
)
INVISIBLE_RE = re.compile(f"[{INVISIBLE}]")
SPOOF = "fix \u2066\u202eevil\u2069 \U000e0041\U000e0042 so\u00adft \u3164 ok"


def found(text: str) -> list[str]:
    return [f"U+{ord(ch):04X}" for ch in INVISIBLE_RE.findall(text)]


def spoofed_week() -> CollectedPeriod:
    week = load_week("2026-W04")
    prs = list(week.prs)
    for i in range(3):
        files = [f.model_copy(update={"path": f"verl/trainer/{SPOOF}.py"}) for f in prs[i].files]
        prs[i] = prs[i].model_copy(
            update={
                "title": f"[trainer] fix: {SPOOF} #{i}",
                "body": f"This PR {SPOOF}.",
                "author": f"mallory\u2067{i}",
                "labels": [f"bug{SPOOF}"],
                "files": files,
                "merged_at": week.window.start + timedelta(hours=1 + i),
            }
        )
    return week.model_copy(update={"prs": prs})


def test_invisible_characters_reach_no_reader(service: Service) -> None:
    week = spoofed_week()
    service.weeks[week.window.label] = week
    window = parse_week(week.window.label, "Asia/Shanghai", service.pipeline.clock())
    result = jobs.run_week(service.pipeline, REPO, window, trigger="test")
    assert result.outcome == "ok", result.error
    [posted] = service.slack.messages("C1")
    assert "evil" in json.dumps(posted["blocks"], ensure_ascii=False)  # the title is there
    assert found(json.dumps(posted, ensure_ascii=False)) == []
    [card] = service.feishu.posted("oc_group1")
    assert found(json.dumps(card.card, ensure_ascii=False)) == []

    base = f"{service.url}/reports/{REPO}/{week.window.label}"
    for suffix in ("", ".md"):
        page = service.keep(requests.get(base + suffix, timeout=10))
        assert page.status_code == 200
        assert "evil" in page.text
        assert found(page.text) == [], suffix
    data = service.keep(requests.get(base + ".json", timeout=10))
    assert found(data.text) == []
    assert any(p["title"] == f"[trainer] fix: {SPOOF} #0" for p in data.json()["prs"])

    for text in (f"risks {week.window.label}", f"top 5 {week.window.label}"):
        assert found(said(service.command(text))) == []
    event = feishu_message(f"top 5 {week.window.label}")
    assert service.feishu_post(event).status_code == 200
    assert found(service.replies_to(event["event"]["message"]["message_id"])) == []
