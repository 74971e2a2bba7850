"""JSON the store writes already serialised: a model's JSON made in one pass by pydantic's
serializer, instead of `model_dump` building a tree of dicts that the engine's `json.dumps`
then walks (a 2,046-PR digest is ~37 MB of JSON; its dicts, several times that).

Every engine of the store is made with `serialise` as its JSON serializer
(`create_engine(..., json_serializer=serialise)`): a `JsonText` is written as it is, any other
value as `json.dumps` writes it. The text is ASCII (`ensure_ascii`, as `json.dumps`): one byte a
character, however many emoji a PR's body holds."""

from __future__ import annotations

import json

from pydantic import BaseModel


class JsonText(str):
    """A value already serialised as JSON text."""

    __slots__ = ()


def serialise(value: object) -> str:
    """The JSON text of a column's value: a `JsonText` as it is, anything else by `json.dumps`."""
    if isinstance(value, JsonText):
        return value
    return json.dumps(value)


def model_json(model: BaseModel) -> JsonText:
    """`model` serialised as `model_dump(mode="json")` then `json.dumps` would, in one pass."""
    # decoded straight into the JsonText: no third copy of a 2,046-PR digest's JSON beside it
    return JsonText(model.__pydantic_serializer__.to_json(model, ensure_ascii=True), "ascii")
