"""The corpus of model-written answers (tests/data/llm/model_corpus): in each part (`tune` to
`tune5`, parts the checker may be tuned on; `seen` to `seen10`, held-out parts whose misses
were read (after stops 24, 36, 37, 38, 40, 41, 42 and 43) and are tuned on since; `heldout`, never
tuned on nor read)
the exact request the service sent for a recorded week (`<week>.<lang>.request.json`, captured
with benchmarks/capture_request.py),
the answer a capable model wrote to that request alone (`.answer.json`), every sentence labelled
true / false / misleading against the raw PR data by a reader who wrote none of them
(`.labels.json`), and an adversarial batch of subtle mistakes and true sentences
(`.adversarial.answer.json`, `.adversarial.labels.json`); `weeks.json` names each week's
repository and the recorded week before it (a period of several weeks: its label and the weeks
it spans, under a name without dots such as `2025-W47-W48`). `verdicts` replays each answer
through the checker on the facts the service built for that request."""

from __future__ import annotations

import functools
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "ghp_corpusToken0123456789abcdef012"

CORPUS = ROOT / "tests" / "data" / "llm" / "model_corpus"
WEEKS = ROOT / "tests" / "data" / "weeks"


@dataclass(frozen=True)
class Verdict:
    """One labelled sentence and what the checker did with it."""

    part: str
    batch: str
    week: str
    lang: str
    section: str
    text: str
    label: str
    kind: str
    kept: bool
    reasons: tuple[str, ...]


def week_file(week: str, repo: str | None = None) -> Path:
    """The recorded week: tests/data/weeks/<week>.json, or <owner>/<name>.<week>.json there."""
    if repo:
        owner, name = repo.split("/")
        named = WEEKS / owner / f"{name}.{week}.json"
        if named.exists():
            return named
    return WEEKS / f"{week}.json"


def member_week(week: str, repo: str) -> Path | None:
    """A family member's recorded week, or None when the member merged nothing recorded then
    (a family period spans weeks some members have no file of)."""
    named = week_file(week, repo)
    return named if named.parent != WEEKS else None


@functools.lru_cache(maxsize=16)
def _facts(
    repo: str,
    week: str,
    previous: str | None,
    lang: str,
    members: tuple[str, ...] = (),
    period: tuple[str, tuple[str, ...]] | None = None,
) -> Any:
    """The week's facts exactly as the narrator builds them for the request: the real pipeline
    collects the week (and the week before, when recorded) from the fake GitHub serving the
    recorded files, as benchmarks/capture_request.py did, and the facts come from the stored
    digest and PR snapshots; with `members`, the family digest of `repo` and them (the one
    `digest --repo A --repo B ...` builds, each PR under its family key); with `period` (a
    period's label and the recorded weeks it spans), the digest of that period (the one
    `digest --period A..B` builds; `week` is then the part's name for it)."""
    from service import wiring
    from service.core.analyst.facts import build_facts
    from service.core.family import keyed_prs
    from service.core.periods import period_of_label
    from service.core.scope import resolve_scope
    from service.pipeline.jobs import build_scope, build_week
    from service.settings import Settings
    from tests.fakes.github import FakeGitHub

    label, spanned = period or (week, (week,))
    data = json.loads(week_file(spanned[0], repo).read_text("utf-8"))
    github = FakeGitHub(repo, token=TOKEN)
    for each in spanned:
        github.serve_week(json.loads(week_file(each, repo).read_text("utf-8")))
    for member in members:
        sibling = github.add_repo(member)
        for each in spanned:
            if (recorded := member_week(each, member)) is not None:
                sibling.serve_week(json.loads(recorded.read_text("utf-8")))
    if previous:
        github.serve_week(json.loads(week_file(previous, repo).read_text("utf-8")))
    with tempfile.TemporaryDirectory() as folder, github.running():
        settings = Settings(
            github_api_url=github.url,
            github_graphql_url=github.graphql_url,
            github_token=TOKEN,
            database_url=f"sqlite:///{folder}/corpus.db",
            digest_repos=",".join((repo, *members)),
            digest_timezone=data.get("timezone", "Asia/Shanghai"),
            digest_language=lang,
        )
        pipeline = wiring.build_pipeline(settings, with_senders=False, llm=False)
        timezone = settings.digest_timezone
        if previous:
            build_week(pipeline, repo, period_of_label(previous, timezone))
        scope = resolve_scope([repo, *members], {})
        window = period_of_label(label, timezone)
        digest = build_scope(pipeline, scope, window)
        prs = [
            pr
            for i, name in enumerate(scope.repos)
            for each in spanned
            for pr in keyed_prs(pipeline.store.load_prs(name, each), i)
        ]
        return build_facts(digest, prs, lang)


def facts_for(meta: dict[str, Any], lang: str) -> Any:
    """The facts of `meta`'s week (`week`, `repo`, `previous`, `members` for a family) in
    `lang`, built once."""
    members = tuple(meta.get("members") or ())
    period = (meta["period"], tuple(meta["weeks"])) if meta.get("period") else None
    return _facts(meta["repo"], meta["week"], meta.get("previous"), lang, members, period)


def _drafts(answer: str, facts: Any) -> list[Any]:
    """The answer's drafts as the narrator reads them (a family's PR references keyed)."""
    from service.core.analyst.family_refs import keyed_drafts
    from service.core.analyst.schema import parse_answer

    return keyed_drafts(parse_answer(answer, facts.repos), facts.repos)


def _outcomes(answer: str, facts: Any) -> dict[tuple[str, str], tuple[bool, tuple[str, ...]]]:
    from service.core.analyst.checker import check_answer

    analysis = check_answer(_drafts(answer, facts), facts, model="corpus", prompt_version="corpus")
    return _analysis_outcomes(analysis, facts.repos)


def _analysis_outcomes(
    analysis: Any, repos: tuple[str, ...] = ()
) -> dict[tuple[str, str], tuple[bool, tuple[str, ...]]]:
    """Each sentence of `analysis` (kept or dropped) with whether it was kept and why not, by
    its text as the model wrote it (a family's keys named again: `verl-omni#25`)."""
    from service.core.analyst.family_refs import named_text

    def shown(text: str) -> str:
        return " ".join((named_text(text, repos) if repos else text).split())

    out: dict[tuple[str, str], tuple[bool, tuple[str, ...]]] = {}
    for section in ("summary", "key_changes", "pr_points", "trends", "recommendations"):
        for item in getattr(analysis, section):
            out[(section, shown(item.text))] = (True, ())
    for item in analysis.review_notes:
        out[("review_notes", shown(item.text))] = (True, ())
    if analysis.headline is not None:
        out[("headline", shown(analysis.headline.text))] = (True, ())
    for dropped in analysis.dropped:
        text = shown(dropped.text)
        verdict = (False, tuple(dropped.reasons))
        out.setdefault((dropped.section, text), verdict)
        if dropped.section == "key_changes" and ": " in text:  # dropped as `theme: text`
            out.setdefault((dropped.section, text.split(": ", 1)[1]), verdict)
    return out


def within_limits(text: str) -> list[str]:
    """An answer as answers within the schema's limits: an adversarial batch holds more items
    per section than a model may write, and more than one point for a PR, and the checker drops
    those past a limit, and a PR's second point, unread."""
    from service.core.analyst.schema import LIMITS

    data = json.loads(text)
    chunks: list[dict[str, Any]] = []
    for section, limit in LIMITS.items():
        if section == "headline":
            continue
        for n, items in enumerate(_spread(data.get(section) or [], limit, section == "pr_points")):
            while len(chunks) <= n:
                chunks.append({name: [] for name in LIMITS} | {"headline": data["headline"]})
            chunks[n][section] = items
    return [json.dumps(chunk, ensure_ascii=False) for chunk in chunks] or [text]


def _spread(items: list[Any], limit: int, one_per_pr: bool) -> list[list[Any]]:
    """`items` in order over as few chunks as hold at most `limit` each (and, for PR points,
    one point per PR each)."""
    chunks: list[list[Any]] = []
    for item in items:
        pr = item.get("pr") if one_per_pr and isinstance(item, dict) else None
        for chunk in chunks:
            if len(chunk) < limit and (pr is None or all(i.get("pr") != pr for i in chunk)):
                chunk.append(item)
                break
        else:
            chunks.append([item])
    return chunks


def verdicts(part: str, verified: bool = False) -> list[Verdict]:
    """Every labelled sentence of one part, with the checker's verdict (after the recorded
    verification pass when `verified`)."""
    out: list[Verdict] = []
    for labels_path in sorted((CORPUS / part).glob("*.labels.json")):
        labels = json.loads(labels_path.read_text("utf-8"))
        answer_path = labels_path.with_name(labels_path.name.replace(".labels.", ".answer."))
        meta = {
            "week": labels["week"],
            **json.loads((CORPUS / part / "weeks.json").read_text("utf-8"))[labels["week"]],
        }
        batch = "adversarial" if ".adversarial." in labels_path.name else "answers"
        facts = facts_for(meta, labels["lang"])
        outcome: dict[tuple[str, str], tuple[bool, tuple[str, ...]]] = {}
        stem = answer_path.name.removesuffix(".answer.json")
        recorded = recorded_verdicts(part, stem) if verified else {}
        for answer in within_limits(answer_path.read_text("utf-8")):
            if verified:
                outcome |= _verified_outcomes(answer, facts, recorded)
            else:
                outcome |= _outcomes(answer, facts)
        for s in labels["sentences"]:
            if s["section"] == "headline" and not s["text"].strip():
                continue
            kept, reasons = outcome.get((s["section"], " ".join(s["text"].split())), (False, ()))
            out.append(
                Verdict(
                    part,
                    batch,
                    labels["week"],
                    labels["lang"],
                    s["section"],
                    s["text"],
                    s["label"],
                    s.get("kind", ""),
                    kept,
                    reasons,
                )
            )
    return out


# --- the verification pass on the corpus -------------------------------------------------
# Every drafted sentence of an answer (not only those today's rules keep, so the recording
# outlives a change of the rules) was sent to a verifier model in the batches the service
# builds (`verify_prompts`); a capable model answered each batch from its request alone
# (`<stem>.verify.<n>.answer.json`). `verified_verdicts` replays those answers as the
# verifier's: a sentence the rules keep stays only when the recorded verdict entails it.

VERIFY_MAX_TOKENS = 2_000  # Settings.llm_verify_max_tokens' default


def _stems(part: str) -> list[Path]:
    answers = (CORPUS / part).glob("*.answer.json")
    return sorted(p for p in answers if ".verify." not in p.name)  # not a verifier's answer


def _meta(part: str, week: str) -> dict[str, Any]:
    weeks = json.loads((CORPUS / part / "weeks.json").read_text("utf-8"))
    return {"week": week, **weeks[week]}


def _all_sentences(answer: str, facts: Any) -> list[Any]:
    """Every drafted sentence of `answer` as the verifier sees it (a key change with its
    theme), numbered from 1."""
    from service.core.analyst.verdicts import Sentence, quotes_of

    drafts = [d for d in _drafts(answer, facts) if d.text.strip()]
    return [
        Sentence(
            id=n,
            section=d.section,
            index=0,
            text=f"{d.theme}: {d.text}" if d.theme else d.text,
            prs=d.prs,
            quotes=quotes_of(d),
        )
        for n, d in enumerate(drafts, 1)
    ]


def verify_prompts(part: str) -> dict[str, list[list[dict[str, str]]]]:
    """The verifier's requests for every answer of `part`, by answer file stem."""
    from service.core.analyst.verdicts import batch_data, batches
    from service.render.verify_prompt import verify_messages

    out: dict[str, list[list[dict[str, str]]]] = {}
    for answer_path in _stems(part):
        stem = answer_path.name.removesuffix(".answer.json")
        week, lang = stem.split(".")[0], stem.split(".")[1]
        facts = facts_for(_meta(part, week), lang)
        requests = []
        for chunk in within_limits(answer_path.read_text("utf-8")):
            for batch in batches(_all_sentences(chunk, facts), facts, VERIFY_MAX_TOKENS):
                data = batch_data(batch, facts)
                requests.append(verify_messages(facts.repo, facts.period, lang, data))
        out[stem] = requests
    return out


def _norm(text: str) -> str:
    return " ".join(text.split())


def recorded_verdicts(part: str, stem: str) -> dict[str, tuple[str, str]]:
    """What the recorded verifier said of each sentence of `stem`, by its text as shown."""
    from service.core.analyst.verdicts import CLOSE, OPEN

    out: dict[str, tuple[str, str]] = {}
    for answer in sorted((CORPUS / part).glob(f"{stem}.verify.*.answer.json")):
        request = answer.with_name(answer.name.replace(".answer.json", ".request.json"))
        messages = json.loads(request.read_text("utf-8"))["messages"]
        user = messages[-1]["content"]
        data = json.loads(user[user.index(OPEN) + len(OPEN) : user.rindex(CLOSE)])
        texts = {s["id"]: _norm(s["text"]) for s in data["sentences"]}
        for v in json.loads(answer.read_text("utf-8"))["verdicts"]:
            if v.get("id") in texts:
                out.setdefault(texts[v["id"]], (v["verdict"], v.get("reason", "")))
    return out


@dataclass
class _Replayed:
    """A verifier client answering each batch from the recorded verdicts by sentence text;
    a sentence never recorded is left out of the answer (so it stays, unjudged)."""

    recorded: dict[str, tuple[str, str]]
    model: str = "corpus-verifier"

    def complete(self, messages: list[dict[str, str]], response_format: dict[str, Any]) -> Any:
        from service.core.analyst.verdicts import CLOSE, OPEN
        from service.llm.completion import Completion

        user = messages[-1]["content"]
        data = json.loads(user[user.index(OPEN) + len(OPEN) : user.rindex(CLOSE)])
        verdicts = [
            {"id": s["id"], "verdict": found[0], "reason": found[1]}
            for s in data["sentences"]
            if (found := self.recorded.get(_norm(s["text"]))) is not None
        ]
        return Completion(json.dumps({"verdicts": verdicts}), 0, 0)


class _NoCache:
    def get_model_answer(self, *_: Any) -> None:
        return None

    def save_model_answer(self, *_: Any) -> None:
        return None


def _verified_outcomes(
    answer: str, facts: Any, recorded: dict[str, tuple[str, str]]
) -> dict[tuple[str, str], tuple[bool, tuple[str, ...]]]:
    from service.core.analyst.checker import check_answer
    from service.pipeline.verifier import Verifier

    drafts = _drafts(answer, facts)
    analysis = check_answer(drafts, facts, model="corpus", prompt_version="corpus")
    verifier = Verifier(_Replayed(recorded), _NoCache(), 3600.0, VERIFY_MAX_TOKENS)
    return _analysis_outcomes(verifier.verified(analysis, drafts, facts), facts.repos)
