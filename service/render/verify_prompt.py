"""The verifier's prompt: templates/prompts/<lang>/verify_{system,user}.txt.j2 around one batch
of sentences and the cited PRs' facts (core/analyst/verdicts.py builds the data). The version
hashes the verdict schema and the templates, so a cached verdict is never reused for another
prompt."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence

from service.core.analyst.verdicts import CLOSE, OPEN, VERIFY_VERSION, verdict_schema
from service.core.scope import short_name
from service.render.environment import environment
from service.render.prompt import span_of

TEMPLATES = ("prompts/{lang}/verify_system.txt.j2", "prompts/{lang}/verify_user.txt.j2")
VERSION_HASH_CHARS = 8

Message = dict[str, str]


@functools.lru_cache(maxsize=4)
def verify_version(lang: str) -> str:
    """`verify.VERIFY_VERSION.<hash of the schema and this language's templates>`."""
    env = environment()
    digest = hashlib.sha256(json.dumps(verdict_schema(), sort_keys=True).encode())
    for name in TEMPLATES:
        assert env.loader is not None  # noqa: S101 - environment() always sets a loader
        source, _, _ = env.loader.get_source(env, name.format(lang=lang))
        digest.update(source.encode())
    return f"verify.{VERIFY_VERSION}.{digest.hexdigest()[:VERSION_HASH_CHARS]}"


def verify_messages(
    repo: str, period: str, lang: str, data: str, repos: Sequence[str] = ()
) -> list[Message]:
    """The system and user messages asking for the verdicts on one batch (`data`); `repos`:
    a family's repositories, the first the primary (its PRs are named by reference)."""
    env = environment()
    context = {
        "repo": repo,
        "repos": list(repos),
        "short_names": [short_name(r) for r in repos],
        "week": period,  # the prompts' name (their text is hashed into VERIFY_VERSION)
        "span": span_of(period),
        "schema": json.dumps(verdict_schema(), ensure_ascii=False),
        "data": data,
        "open": OPEN,
        "close": CLOSE,
    }
    system, user = (env.get_template(t.format(lang=lang)).render(**context) for t in TEMPLATES)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
