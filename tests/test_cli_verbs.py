"""The command line is one module per verb (service/cli/): every module of the package but the
shared ones registers its verbs in the parser, and each verb is run by a function of its own
module."""

from __future__ import annotations

import argparse
import importlib
import pkgutil

import service.cli
from service.cli import VERB_MODULES, build_parser

SHARED = {"common", "periods"}  # helpers several verbs use; register nothing
# verb → the module (under service.cli) that registers and runs it
OWNER = {
    "digest": "digest",
    "post": "post",
    "risks": "answer",
    "pr": "answer",
    "ask": "answer",
    "serve": "serve",
    "doctor": "doctor",
    "scheduler": "scheduler",
    "migrate": "migrate",
    "backup": "backup",
    "restore": "backup",
    "analyst-check": "analyst_check",
}


def _verbs(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(found) == 1
    return dict(found[0].choices)


def test_each_verb_is_run_by_the_module_that_registers_it() -> None:
    verbs = _verbs(build_parser())
    assert list(verbs) == list(OWNER)  # the order `--help` lists them in
    for verb, parser in verbs.items():
        run = parser.get_default("run")
        assert callable(run), verb
        assert run.__module__ == f"service.cli.{OWNER[verb]}", verb


def test_every_verb_module_is_importable_and_registered() -> None:
    names = {m.name for m in pkgutil.iter_modules(service.cli.__path__)} - SHARED
    assert names == set(OWNER.values())
    assert {m.__name__.rpartition(".")[2] for m in VERB_MODULES} == names
    for name in sorted(names):
        module = importlib.import_module(f"service.cli.{name}")
        alone = argparse.ArgumentParser()
        module.register(alone.add_subparsers(dest="command"))
        assert set(_verbs(alone)) == {v for v, owner in OWNER.items() if owner == name}, name


def test_a_verb_parses_into_its_own_run_function() -> None:
    args = build_parser().parse_args(["restore", "backup.db"])
    assert args.command == "restore"
    assert args.run.__name__ == "run_restore"
    assert str(args.file) == "backup.db"
