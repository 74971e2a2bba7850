"""The analyst's prompt: templates/prompts/<lang>/{system,user}.txt.j2 around the week's facts.

The wording lives in the templates; the data is `facts_json` from core, placed between two
delimiter lines it cannot contain. `prompt_version` changes whenever the schema, the schema
version or the templates' text change, so a cached answer is never reused for another prompt.
"""

from __future__ import annotations

import functools
import hashlib
import json

from service.core.analyst.facts import PeriodFacts, facts_json
from service.core.analyst.schema import LIMITS, PROMPT_VERSION, answer_schema
from service.core.periods.kinds import rules_for_label
from service.core.scope import short_name
from service.render.environment import environment

OPEN = "<<<WEEK_DATA"
CLOSE = "WEEK_DATA>>>"
TEMPLATES = ("prompts/{lang}/system.txt.j2", "prompts/{lang}/user.txt.j2")
VERSION_HASH_CHARS = 8

Message = dict[str, str]


@functools.lru_cache(maxsize=8)
def prompt_version(lang: str, family: bool = False) -> str:
    """`PROMPT_VERSION.<hash of the schema and of this language's templates>` (a family's
    schema names PRs by reference: its answers are another version's)."""
    env = environment()
    digest = hashlib.sha256(json.dumps(answer_schema(family), sort_keys=True).encode())
    for name in TEMPLATES:
        assert env.loader is not None  # noqa: S101 - environment() always sets a loader
        source, _, _ = env.loader.get_source(env, name.format(lang=lang))
        digest.update(source.encode())
    return f"{PROMPT_VERSION}.{digest.hexdigest()[:VERSION_HASH_CHARS]}"


def prompt_messages(facts: PeriodFacts, data: str | None = None) -> list[Message]:
    """The system and user messages for `facts` in the facts' language (`data`: the facts'
    JSON when the caller has it already)."""
    env = environment()
    lang = facts.language
    family = bool(facts.repos)
    context = {
        "repo": facts.repo,
        # a family's repositories by their full and short names, the first the primary
        "repos": list(facts.repos),
        "short_names": [short_name(r) for r in facts.repos],
        "week": facts.period,
        # what the period is (week, month, range, release): the wording of all but a week
        # says "this period", not "this week"
        "span": span_of(facts.period),
        "first_day": facts.first_day,
        "last_day": facts.last_day,
        "limits": LIMITS,
        "schema": json.dumps(answer_schema(family), ensure_ascii=False),
        "data": data if data is not None else facts_json(facts),
        "open": OPEN,
        "close": CLOSE,
    }
    system, user = (env.get_template(t.format(lang=lang)).render(**context) for t in TEMPLATES)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def span_of(label: str) -> str:
    """What the period `label` names: week, month, range or release."""
    rules = rules_for_label(label)
    return rules.name if rules is not None else "week"


def prompt_chars(messages: list[Message]) -> int:
    """The prompt's size in characters (what benchmarks and the size tests measure)."""
    return sum(len(m["content"]) for m in messages)
