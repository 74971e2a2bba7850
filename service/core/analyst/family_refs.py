"""A family digest's PRs as the model reads and names them (core/scope.py).

The analysis keys every PR by one integer (`verl-omni#25` is `1 * KEY_STRIDE + 25`), but a
key is nothing a person or a model knows: the data the model and the verifier are given names
each PR as the report does, `#6200` for the primary repository's and `verl-omni#25` for
another's (`named_payload`), a bare `#N` in the text of another repository's PR is written
`verl-omni#N` (`qualified`: on GitHub it is that repository's PR), and the model writes PRs
the same way in its text, `prs`, `pr` and evidence. `keyed_text` / `keyed_drafts` read the
model's references back to keys before the checker, so that `verl-omni#25` and `#25` are
different PRs (the renderers write a key back as `verl-omni#25`)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from service.core.analyst.schema import Draft
from service.core.scope import pr_key, ref_label, short_name

_REF = re.compile(r"(?<![\w/#-])(?:[\w.-]+/)?([\w.-]+)#(\d{1,7})\b")
# a bare `#N` (not part of a word, path, reference, entity or escape)
_BARE = re.compile(r"(?<![\w/#&;\\-])#(\d{1,7})\b")
# a family key in text (`#10000373`), and one followed by its reference
# (`#10000373 (verl-omni#373)`)
_KEYED = re.compile(r"(?<![\w/#&;\\-])#(\d{8})\b")
_KEYED_NOTE = re.compile(r"(?<![\w/#&;\\-])#(\d{8}) \([\w.-]+#\d{1,7}\)")
# the fields of the model's data and answers that hold PRs, and those holding counts only
PR_FIELDS = frozenset({"number", "pr", "prs"})
COUNT_FIELDS = frozenset({"totals", "previous_week"})


def keyed_text(text: str, repos: Sequence[str]) -> str:
    """`verl-omni#25` → `#<key>`, `verl#6200` → `#6200`; other text as it is."""
    index = {short_name(r).lower(): i for i, r in enumerate(repos)}

    def key(match: re.Match[str]) -> str:
        found = index.get(match.group(1).lower())
        if found is None:
            return match.group(0)
        return f"#{pr_key(found, int(match.group(2)))}"

    return _REF.sub(key, text)


def keyed_drafts(drafts: Sequence[Draft], repos: Sequence[str]) -> list[Draft]:
    """The drafts with their references keyed (a single repository's: unchanged)."""
    if not repos:  # Digest.repo_names is empty for one repository
        return list(drafts)
    return [
        dataclasses.replace(d, text=keyed_text(d.text, repos), theme=keyed_text(d.theme, repos))
        for d in drafts
    ]


def qualified(text: str, repo: str) -> str:
    """A bare `#N` in the text of a PR of `repo` (a family's other repository) as `repo#N`."""
    name = short_name(repo)
    return _BARE.sub(lambda m: f"{name}#{m.group(1)}", text)


def named_text(text: str, repos: Sequence[str]) -> str:
    """Every family key in `text` as its reference (`#10000373` → `verl-omni#373`)."""
    text = _KEYED_NOTE.sub(lambda m: ref_label(repos, int(m.group(1))), text)
    return _KEYED.sub(lambda m: ref_label(repos, int(m.group(1))), text)


def _named_prs(value: Any, repos: Sequence[str]) -> Any:
    """A PR field's value: a key as its reference, a list of keys as references (a list of
    PRs' facts, such as the data's `prs`, is walked like the rest)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return ref_label(repos, value)
    if isinstance(value, list):
        return [
            _named_prs(v, repos) if isinstance(v, int) else named_payload(v, repos) for v in value
        ]
    return named_payload(value, repos)


def named_payload(node: Any, repos: Sequence[str]) -> Any:
    """The model's (or the verifier's) data with every PR named by its reference: the PR
    fields (`number`, `pr`, `prs`) as `#6200` / `verl-omni#25`, keys in text as references;
    the `ref` beside a key goes (the reference is the name now)."""
    if isinstance(node, dict):
        return {
            name: value
            if name in COUNT_FIELDS
            else _named_prs(value, repos)
            if name in PR_FIELDS
            else named_payload(value, repos)
            for name, value in node.items()
            if name != "ref"
        }
    if isinstance(node, list):
        return [named_payload(v, repos) for v in node]
    if isinstance(node, str):
        return named_text(node, repos)
    return node
