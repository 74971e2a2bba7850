"""Scopes: one repository or a named family (DIGEST_GROUPS), on the command line and in
settings; PR keys and references of a family."""

from __future__ import annotations

import argparse
import json

import pytest

from service.cli import build_parser
from service.cli.common import scope_of
from service.core.scope import Scope, pr_key, ref_label, resolve_scope, split_key
from service.errors import ConfigError, InputError
from service.settings import load_settings

FAMILY = [
    "verl-project/verl",
    "verl-project/verl-omni",
    "verl-project/verl-recipe",
    "verl-project/verl-vla",
]
GROUPS_TEXT = "verl-project=" + "|".join(FAMILY) + ";other=a/b|c/d"


def test_groups_are_read_from_the_pipe_syntax_and_from_json() -> None:
    piped = load_settings(_env_file=None, digest_groups=GROUPS_TEXT)
    as_json = load_settings(
        _env_file=None,
        digest_groups=json.dumps({"verl-project": FAMILY, "other": ["a/b", "c/d"]}),
    )
    assert piped.digest_groups == as_json.digest_groups
    assert piped.digest_groups["verl-project"] == FAMILY
    assert piped.digest_groups["other"] == ["a/b", "c/d"]


def test_groups_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIGEST_GROUPS", GROUPS_TEXT)
    monkeypatch.setenv("DIGEST_REPOS", "verl-project,x/y")
    settings = load_settings(_env_file=None)
    assert settings.repositories == [*FAMILY, "x/y"]
    assert settings.scope(["verl-project"]) == Scope("verl-project", tuple(FAMILY))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("verl=a/b|nope", "expected owner/name in family 'verl'"),
        ("a/b=c/d", "expected a family name without '/'"),
        ("just-a-name", "expected name=owner/a|owner/b"),
        ("{broken", "expected a JSON object of lists"),
    ],
)
def test_a_bad_group_is_one_line(value: str, expected: str) -> None:
    with pytest.raises(ConfigError, match="DIGEST_GROUPS") as info:
        load_settings(_env_file=None, digest_groups=value)
    assert expected in info.value.message


def test_digest_repos_names_only_known_families() -> None:
    with pytest.raises(ConfigError, match="family of DIGEST_GROUPS"):
        load_settings(_env_file=None, digest_repos="verl-project")


def test_resolving_names_to_a_scope() -> None:
    groups = {"verl-project": FAMILY}
    assert resolve_scope(["a/b"], groups) == Scope.one("a/b")
    assert not Scope.one("a/b").is_family
    family = resolve_scope(["verl-project"], groups)
    assert family.is_family
    assert family.primary == "verl-project/verl"
    assert family.key == "verl-project"
    # the family's repositories listed one by one are the family
    assert resolve_scope(FAMILY, groups).key == "verl-project"
    adhoc = resolve_scope(["a/b", "c/d", "a/b"], groups)
    assert adhoc.repos == ("a/b", "c/d")
    assert adhoc.key == "a/b+c/d"
    assert family.index("verl-omni") == 1
    assert family.index("VERL-PROJECT/VERL-VLA") == 3


def test_keys_and_references() -> None:
    repos = FAMILY
    assert pr_key(0, 6200) == 6200
    assert ref_label(repos, 6200) == "#6200"
    key = pr_key(1, 25)
    assert split_key(key) == (1, 25)
    assert ref_label(repos, key) == "verl-omni#25"


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(argv)


@pytest.mark.parametrize("verb", ["digest", "post", "risks"])
def test_every_week_verb_takes_repeated_repos_and_families(verb: str) -> None:
    settings = load_settings(_env_file=None, digest_groups=GROUPS_TEXT)
    repeated = _args(verb, "--repo", "verl-project/verl", "--repo", "verl-project/verl-omni")
    assert scope_of(repeated, settings).repos == tuple(FAMILY[:2])
    listed = _args(verb, "--repos", ",".join(FAMILY))
    assert scope_of(listed, settings) == Scope("verl-project", tuple(FAMILY))
    assert scope_of(_args(verb, "--repo", "verl-project"), settings).key == "verl-project"
    assert scope_of(_args(verb), settings) == Scope.one("volcengine/verl")


def test_an_unknown_name_is_bad_input() -> None:
    settings = load_settings(_env_file=None)
    with pytest.raises(InputError, match="family of DIGEST_GROUPS"):
        scope_of(_args("digest", "--repo", "verl-project"), settings)
