"""`verl-week analyst-check FILE`: the checker run on a model's answer file (the JSON the model is
asked for, core/analyst/schema.py) for a stored week or the bundled sample, one line per
sentence, kept or dropped with the checker's reasons, so a maintainer sees why a sentence went.

The week's facts are built as the narrator builds them (the stored digest and PR snapshots);
no model is asked. The file's text is untrusted: printed lines carry no control characters and
no secret in full (masked as the risk rules mask them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from service.core.analyst.audit import Verdict, audit_answer
from service.core.analyst.deferral import deferrable
from service.core.analyst.facts import PeriodFacts, build_facts
from service.core.analyst.family_refs import keyed_drafts, named_text
from service.core.analyst.schema import Draft, InvalidAnswerError, parse_answer
from service.core.analyst.verdicts import Judgement, Sentence, quotes_of, verifier_reason
from service.core.family import keyed_prs
from service.core.models import Digest, Period, PullRequest
from service.core.risks.secrets import PATTERNS, mask
from service.core.scope import ref_label
from service.errors import InputError
from service.pipeline.jobs import Pipeline, build_week

if TYPE_CHECKING:
    from service.pipeline.verifier import Verifier

MAX_FILE_BYTES = 1_000_000
# an answer has at most a few dozen items (schema.LIMITS); this many is no model's answer
MAX_SENTENCES = 1_000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def _read(path: Path) -> str:
    """At most MAX_FILE_BYTES of `path` (a device such as /dev/zero, a pipe, a file growing
    while read: never more), as UTF-8 text."""
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise InputError(f"{path} is larger than {MAX_FILE_BYTES:,} bytes: not an answer")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path} is not UTF-8 text: not an answer") from None


def read_answer(path: Path, repos: Sequence[str] = ()) -> list[Draft]:
    """The drafts of an answer file (a family's, `repos`, with its PR references keyed as the
    narrator keys them); InputError (one line) when it can't be read or parsed, or holds more
    than MAX_SENTENCES items."""
    try:
        drafts = keyed_drafts(parse_answer(_read(path), repos), repos)
    except InvalidAnswerError as exc:
        raise InputError(f"{path} is not an answer of the model's schema: {exc}") from None
    if len(drafts) > MAX_SENTENCES:
        raise InputError(
            f"{path} holds {len(drafts):,} sentences, more than {MAX_SENTENCES:,}: not an answer"
        )
    return drafts


def week_inputs(
    pipeline: Pipeline, repo: str, window: Period, *, lang: str, sample: bool
) -> tuple[Digest, list[PullRequest]]:
    """The digest and PR snapshots the narrator would use: the sample built now in `lang`, or
    what the store holds for the week, in `lang` or else the pipeline's language (InputError
    when it holds nothing)."""
    if sample:
        pipeline.language = lang
        return build_week(pipeline, repo, window), pipeline.store.load_prs(repo, window.label)
    stored = (
        pipeline.store.get_digest(repo, window, language)
        for language in dict.fromkeys([lang, pipeline.language])
    )
    found = next((d for d in stored if d is not None), None)
    if found is None:
        raise InputError(
            f"no stored digest of {repo} {window.label}: run `verl-week digest --repo {repo} "
            f"--week {window.label}` first, or use --sample"
        )
    if not found.repo_names:
        return found, pipeline.store.load_prs(repo, window.label)
    # a family's: each repository's snapshots under their family keys, as the narrator has them
    snapshots = [pipeline.store.load_prs(name, window.label) for name in found.repo_names]
    return found, [pr for i, prs in enumerate(snapshots) for pr in keyed_prs(prs, i)]


def safe(text: str) -> str:
    """Untrusted text for a terminal: one line, no control characters, secrets masked."""
    text = _CONTROL.sub("", " ".join(text.split()))
    for pattern in PATTERNS.values():
        text = pattern.sub(lambda m: mask(m.group(0)), text)
    return text


def verdict_lines(verdict: Verdict, repos: Sequence[str] = ()) -> list[str]:
    """`kept    summary[1]  #4280,#4665  text`, then for a kept one a line per quote or value
    claim that grounded it, for a dropped one a line per claim that failed (a family's PRs
    named as its report names them, `verl-omni#25`)."""
    outcome = "empty" if verdict.empty else ("kept" if verdict.kept else "dropped")
    prs = ",".join(ref_label(repos, n) for n in verdict.prs) or "-"

    def shown(text: str) -> str:
        return safe(named_text(text, repos) if repos else text)

    lines = [f"{outcome:<8}{verdict.where:<20}{prs:<15} {shown(verdict.text)}"]
    lines += [f"{'':<8}- {shown(reason)}" for reason in verdict.reasons]
    lines += [f"{'':<8}+ {shown(ground)}" for ground in verdict.grounds]
    return lines


def verified(
    verdicts: list[Verdict], drafts: Sequence[Draft], facts: PeriodFacts, verifier: Verifier
) -> tuple[list[Verdict], list[str]]:
    """The verdicts after the verification pass (a kept sentence it refused is dropped with
    its reason; a dropped one the rules could only not confirm is kept when it judged it
    entailed, core/analyst/deferral.py), and a line saying why sentences went unjudged."""
    kept = [i for i, v in enumerate(verdicts) if v.kept]
    deferred = [i for i, v in enumerate(verdicts) if deferrable(v.reasons)]
    # numbered and worded as the narrator numbers them, kept ones first (the same batch, the
    # same cached verdicts)
    asked = [*kept, *deferred]
    sentences = [
        Sentence(
            n,
            drafts[i].section,
            n,
            _normal(verdicts[i].text),
            verdicts[i].prs,
            quotes_of(drafts[i]),
        )
        for n, i in enumerate(asked, 1)
    ]
    if not sentences:
        return verdicts, []
    judged = verifier.judge(sentences, facts)
    out = list(verdicts)
    for number, judgement in judged.verdicts.items():
        index = asked[number - 1]
        out[index] = _judged(out[index], judgement, was_kept=number <= len(kept))
    unjudged = sum(s.id not in judged.verdicts for s in sentences[: len(kept)])
    why = judged.failures[0] if judged.failures else ""
    note = [f"verifier: {unjudged} sentences kept without a verdict: {safe(why)}"] if why else []
    return out, note


def _judged(verdict: Verdict, judgement: Judgement, *, was_kept: bool) -> Verdict:
    """A verdict after the verifier's judgement of its sentence."""
    if was_kept:
        return (
            verdict
            if judgement.entailed
            else replace(verdict, reasons=(verifier_reason(judgement),))
        )
    if not judgement.entailed:
        return replace(verdict, reasons=(*verdict.reasons, verifier_reason(judgement)))
    why = f": {judgement.reason}" if judgement.reason else ""
    grounds = [f"verifier entailed what the rules could not confirm{why}"]
    grounds += [f"unconfirmed by the rules: {reason}" for reason in verdict.reasons]
    return replace(verdict, reasons=(), grounds=tuple(grounds))


def _normal(text: str) -> str:
    return " ".join(text.split()) if "\n" not in text else text.strip()


def check_file(
    path: Path,
    pipeline: Pipeline,
    repo: str,
    window: Period,
    *,
    lang: str,
    sample: bool,
    verifier: Verifier | None = None,
) -> list[str]:
    """The report of `analyst-check`: a heading line, then each sentence's verdict (after the
    verification pass when a `verifier` is given)."""
    digest, prs = week_inputs(pipeline, repo, window, lang=lang, sample=sample)
    repos = digest.repo_names
    drafts = read_answer(path, repos)
    facts = build_facts(digest, prs, lang)
    verdicts = audit_answer(drafts, facts)
    notes: list[str] = []
    if verifier is not None:
        verdicts, notes = verified(verdicts, drafts, facts, verifier)
    kept = sum(v.kept for v in verdicts)
    dropped = sum(bool(v.reasons) for v in verdicts)
    head = (
        f"{digest.repo} {digest.period} ({lang}): {kept + dropped} sentences, "
        f"{kept} kept, {dropped} dropped"
    )
    return [head, *(line for v in verdicts for line in verdict_lines(v, repos)), *notes]
