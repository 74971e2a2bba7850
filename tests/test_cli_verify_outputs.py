"""`verl-week digest` with the verification pass, every format and both languages: a real
subprocess on the sample week, a model replaying the recorded answer and the recorded
verifier answer. The sentences the verifier refused reach no output (Markdown, HTML, JSON, the
Slack and the Feishu card) but the JSON's audit list, with the verifier's reason; the entailed
ones do; every output counts the dropped sentences; the verifier is asked once per language."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.fakes.model_servers import serve_replay
from tests.fakes.openai import ANSWERS, API_KEY, MODEL
from tests.processes import run_cli as run
from tests.test_cli_llm_outputs import DROPPED, FORMATS, TRUE

BASE = {lang: ANSWERS / f"2026-W04.good.{lang}.json" for lang in ("zh", "en")}
VERDICTS = {
    lang: (ANSWERS / f"2026-W04.verdicts.{lang}.json").read_text(encoding="utf-8")
    for lang in ("zh", "en")
}
# the sentences the recorded verdicts refuse: summary[2] and recommendations[1]
REFUSED = {
    lang: [
        json.loads(path.read_text(encoding="utf-8"))["summary"][2]["text"],
        json.loads(path.read_text(encoding="utf-8"))["recommendations"][1]["text"],
    ]
    for lang, path in BASE.items()
}


def fragment(text: str) -> str:
    """The longest part of `text` between PR references (an output may link those)."""
    return max(re.split(r"#\d+", text), key=len).strip(" ,，、。.")


@pytest.mark.process
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_recorded_verifier_answer_replayed_through_digest_in_every_format(
    tmp_path: Path, lang: str
) -> None:
    with serve_replay(BASE, recorded_verdicts=VERDICTS) as model:
        settings = {
            "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite",
            "LLM_BASE_URL": model.url,
            "LLM_API_KEY": API_KEY,
            "LLM_MODEL": MODEL,
            "LLM_TIMEOUT_SECONDS": "20",
        }
        outputs = {}
        for fmt in FORMATS:
            args = ["digest", "--sample", "--lang", lang, "--format", fmt]
            result = run(args, tmp_path, **settings)
            assert result.returncode == 0, result.stderr
            outputs[fmt] = result.stdout
        assert (len(model.calls), len(model.verify_calls)) == (1, 1)
        # the rules alone keep them: what the verifier refused is what goes
        args = ["digest", "--sample", "--lang", lang, "--format", "markdown"]
        plain = run(args, tmp_path, **settings, LLM_VERIFY_ENABLED="false").stdout
        assert all(fragment(refused) in plain for refused in REFUSED[lang])
    analysis = json.loads(outputs["json"])["analysis"]
    dropped = {d["text"]: d["reasons"] for d in analysis["dropped"]}
    assert list(dropped) == REFUSED[lang]
    assert dropped[REFUSED[lang][0]][0].startswith("verifier contradicted: ")
    assert dropped[REFUSED[lang][1]][0].startswith("verifier not_enough_information: ")
    audited = json.loads(outputs["json"])
    audited["analysis"]["dropped"] = []
    shown = {**outputs, "json": json.dumps(audited, ensure_ascii=False)}
    for fmt, text in shown.items():
        for refused in REFUSED[lang]:
            assert fragment(refused) not in text, (fmt, refused)
        assert TRUE[lang] in text, fmt
        if fmt != "json":
            kind = "report" if fmt in ("markdown", "html") else "card"
            assert DROPPED[lang][kind].format(n=2) in text, fmt
