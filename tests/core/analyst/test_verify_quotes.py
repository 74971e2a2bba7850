"""The verifier sees an excerpt of each cited PR, so a writer's quote from the PR's full patch
or body reads as unsupported ("a claim only its writer's quote states": request-only verifier
models answered not_enough_information for true sentences of tune2 this way). Each quote now
says where the service found it in its PR's whole data (verify request 7), on a real tune2
sentence: #56 moves the pinned verl commit, its quotes a removed and an added line."""

from __future__ import annotations

import json

from service.core.analyst.facts import PeriodFacts
from service.core.analyst.verdicts import CLOSE, OPEN, Quote, Sentence, batch_data
from tests.core.analyst.model_corpus import CORPUS, facts_for

INSTALL = "uv pip install git+https://github.com/verl-project/verl.git@"
OLD = f"-{INSTALL}a4351480871347092436d17573ad3ccf75b24122"
NEW = f"+{INSTALL}f81209acafef9b3d8b5023491951f4f114557c52"


def _facts() -> PeriodFacts:
    meta = json.loads((CORPUS / "tune2" / "weeks.json").read_text("utf-8"))["2026-W19"]
    facts: PeriodFacts = facts_for({"week": "2026-W19", **meta}, "zh")
    return facts


def _quotes(quotes: tuple[Quote, ...]) -> list[dict[str, str]]:
    sentence = Sentence(1, "summary", 0, "#56 更新 verl 固定提交。", (56,), quotes)
    data = json.loads(batch_data([sentence], _facts()).removeprefix(OPEN).removesuffix(CLOSE))
    found: list[dict[str, str]] = data["sentences"][0]["quotes"]
    return found


def test_each_quote_says_where_in_its_pr_it_was_found() -> None:
    quotes = _quotes((Quote(56, "update pinning SHA"), Quote(56, OLD), Quote(56, NEW)))
    assert [q["found"] for q in quotes] == [
        "what the PR says",
        "removed line of install.md",
        "added line of install.md",
    ]


def test_a_quote_not_in_the_data_is_marked_so() -> None:
    made_up = Quote(56, "+verl_commit: f81209a pinned in setup.py")
    wrong_side = Quote(56, "+" + OLD[1:])
    other_pr = Quote(57, "update pinning SHA")
    found = [q["found"] for q in _quotes((made_up, wrong_side, other_pr))]
    assert found[0].startswith("no: ")
    assert found[1] == "no: the line is a removed line, not +"
    assert found[2] == "no: #57 is not a PR the item cites"
