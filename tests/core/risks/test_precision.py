"""Precision and dtype: an existing setting or default changes value; new, moved or commented
precision code does not."""

from __future__ import annotations

import pytest

from service.core.models import CollectedPeriod, FileStatus, Risk, Severity
from service.core.profile import RepoProfile, load_profile
from service.core.risks import precision
from service.core.risks.base import Context
from tests.core.risks.helpers import LABELS, change, make_pr, new_file, real_pr, week_context


def detect_one(
    pr_number: int, label: str, weeks: dict[str, CollectedPeriod], profile: RepoProfile
) -> list[Risk]:
    return precision.DETECTOR.detect([real_pr(weeks, label, pr_number)], Context(profile=profile))


# --- real positives and negatives ---------------------------------------------------------


def test_real_precision_aware_optimizer_turned_on_4221(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # "BF16 mode should use PAO": the existing bf16 optimizer config dict gains
    # use_precision_aware_optimizer=True, a changed default for every bf16 run (reverted in #4234)
    (risk,) = detect_one(4221, "2025-W47", weeks, verl_profile)
    assert (risk.rule, risk.severity) == ("dtype_change", Severity.MEDIUM)  # title says BF16
    assert risk.params["terms"] == "use_precision_aware_optimizer"
    assert [(e.path, e.line, e.side) for e in risk.evidence] == [
        ("verl/utils/megatron/optimizer.py", 50, "added")
    ]
    assert risk.evidence[0].snippet == '"use_precision_aware_optimizer": True,'


def test_real_fp8_moved_between_files_4280_is_not_a_change(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4280 moves the vLLM fp8 patching from vllm_rollout.py into a new utils.py
    assert detect_one(4280, "2026-W04", weeks, verl_profile) == []


def test_real_docstring_in_a_new_file_4885_is_not_a_change(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4885 adds hccl_checkpoint_engine.py whose docstring says "Defaults to torch.bfloat16"
    pr = real_pr(weeks, "2026-W04", 4885)
    assert any(f.status == FileStatus.ADDED for f in pr.files)
    assert detect_one(4885, "2026-W04", weeks, verl_profile) == []


@pytest.mark.parametrize(
    ("label", "number"),
    [
        ("2025-W47", 3519),  # adds a new fp8 quantization option: nothing existing changes
        ("2025-W47", 4223),  # a new use_fp8_padding=False parameter keeps the old behaviour
        ("2025-W48", 4063),  # moves fp16/bf16 flags around in megatron_utils.py
        ("2026-W04", 4936),  # passes use_fp8_padding=use_fp8_padding through new calls
        ("2025-W47", 4158),  # an fp16 recipe script: not core
    ],
)
def test_real_precision_plumbing_is_not_a_change(
    label: str, number: int, weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    assert detect_one(number, label, weeks, verl_profile) == []


def test_real_weeks_flag_these_prs(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    flagged = {
        label: [
            (r.prs[0], r.severity.value)
            for r in precision.DETECTOR.detect(
                weeks[label].prs, week_context(weeks, label, verl_profile)
            )
        ]
        for label in LABELS
    }
    assert flagged == {
        "2025-W47": [(4221, "medium")],
        "2025-W48": [],
        "2026-W03": [],
        "2026-W04": [],
    }


# --- synthetic: the recorded weeks change no dtype literal --------------------------------


def _risk(path: str, patch: str, title: str = "[fsdp] fix: x") -> list[Risk]:
    pr = make_pr(20, title, [change(path, patch)])
    return precision.DETECTOR.detect([pr], Context(profile=make_profile()))


def make_profile() -> RepoProfile:
    return load_profile("volcengine/verl")


def test_changed_dtype_default_is_flagged() -> None:
    """Synthetic: no recorded PR changes a dtype literal of an existing setting."""
    patch = (
        "@@ -20,4 +20,4 @@ class FSDPEngine:\n"
        "     def __init__(self, config):\n"
        "-        self.param_dtype = torch.float32\n"
        "+        self.param_dtype = torch.bfloat16\n"
        "         self.config = config\n"
    )
    (risk,) = _risk("verl/workers/engine/fsdp/transformer_impl.py", patch)
    assert (risk.params["terms"], risk.params["count"]) == ("float32, bfloat16", 1)
    assert [(e.line, e.side) for e in risk.evidence] == [(21, "removed"), (21, "added")]
    assert risk.severity == Severity.LOW  # one change in code, title not about precision


def test_changed_yaml_and_dataclass_defaults_are_medium() -> None:
    """Synthetic: a config definition's default changes (YAML key, dataclass field)."""
    yaml = (
        "@@ -8,3 +8,3 @@ fsdp_config:\n   mixed_precision:\n"
        "-    param_dtype: bf16\n+    param_dtype: fp32\n"
    )
    field = (
        "@@ -30,2 +30,2 @@ class OptimConfig(BaseConfig):\n"
        "-    use_amp: bool = True\n+    use_amp: bool = False\n"
    )
    assert _risk("verl/trainer/config/actor/dp_actor.yaml", yaml)[0].params["terms"] == "bf16, fp32"
    (risk,) = _risk("verl/utils/profiler/config.py", field)
    assert (risk.params["terms"], risk.severity) == ("use_amp", Severity.MEDIUM)


def test_changed_autocast_dtype_in_call() -> None:
    patch = (
        "@@ -5,2 +5,2 @@ def forward(self, x):\n"
        '-    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):\n'
        '+    with torch.autocast(device_type="cuda", dtype=torch.float16):\n'
        "         return self.model(x)\n"
    )
    (risk,) = _risk("verl/workers/actor/dp_actor.py", patch, "[fsdp] fix: use fp16 autocast")
    assert (risk.params["terms"], risk.severity) == ("bfloat16, float16", Severity.MEDIUM)


def test_moved_comment_docstring_and_new_files_are_not_changes() -> None:
    moved = make_pr(
        21,
        "[worker] refactor: move",
        [
            change(
                "verl/workers/a.py",
                "@@ -3,2 +3,1 @@ def f():\n-    dtype = torch.bfloat16\n     pass\n",
            ),
            change(
                "verl/workers/b.py",
                "@@ -7,1 +7,2 @@ def g():\n     pass\n+    dtype  =  torch.bfloat16\n",
            ),
        ],
    )
    commented = (
        "@@ -1,5 +1,5 @@ def h():\n"
        '     """Cast.\n'
        "-    Defaults to torch.float32.\n"
        "+    Defaults to torch.bfloat16.\n"
        '     """\n'
        "-    # dtype = torch.float32\n"
        "+    # dtype = torch.bfloat16\n"
    )
    added = new_file("verl/workers/c.py", ["dtype = torch.float16"])
    profile = make_profile()
    assert precision.DETECTOR.detect([moved], Context(profile=profile)) == []
    assert _risk("verl/workers/d.py", commented) == []
    pr = make_pr(22, "[worker] feat: c", [added])
    assert precision.DETECTOR.detect([pr], Context(profile=profile)) == []


def test_new_parameter_with_a_default_is_not_a_change() -> None:
    patch = (
        "@@ -10,3 +10,4 @@\n def preprocess(\n     input_ids,\n+    use_fp8_padding=False,\n ):\n"
    )
    assert _risk("verl/models/mcore/util.py", patch) == []


def test_tests_generated_configs_and_non_core_are_not_read() -> None:
    patch = "@@ -1,1 +1,1 @@\n-dtype = torch.float32\n+dtype = torch.bfloat16\n"
    for path in (
        "tests/workers/test_fsdp.py",
        "verl/trainer/config/_generated_ppo_trainer.yaml",
        "examples/run.py",
    ):
        assert _risk(path, patch) == [], path


def test_precision_terms_need_a_literal_swap() -> None:
    assert precision.precision_terms("x = y.to(torch.float32)", "x = y.to(torch.bfloat16)") == (
        "float32",
        "bfloat16",
    )
    assert precision.precision_terms('"fp8": "e4m3",', '"fp8": "hybrid",') == ("e4m3",)
    # an expression replaced, not a literal: a refactor of where the value comes from
    assert precision.precision_terms("fp8 = unwrap(m).config.fp8", "fp8 = self.config.fp8") == ()
    # different statements are not two versions of one line
    assert precision.precision_terms('if q == "fp8":', "if rank != 0:") == ()


def test_a_removed_line_pairs_with_the_most_alike_added_line_first_of_equals() -> None:
    """The pairing skips the added lines that cannot beat the best so far (difflib's upper
    bounds): an unlike line first, then two equally alike ones, the first of which is kept;
    a line less alike than SIMILAR makes no pair even when it changes a dtype."""
    patch = (
        "@@ -20,2 +20,5 @@ class FSDPEngine:\n"
        "     def __init__(self, config):\n"
        "-        self.param_dtype = torch.float32\n"
        "+        logger.info('building the engine from its config')\n"
        "+        self.param_dtype = torch.bfloat16\n"
        "+        self.param_dtype = torch.float16\n"
        "+        self.config = config\n"
    )
    (risk,) = _risk("verl/workers/engine/fsdp/transformer_impl.py", patch)
    assert risk.params["terms"] == "float32, bfloat16"
    assert [(e.line, e.snippet) for e in risk.evidence] == [
        (21, "self.param_dtype = torch.float32"),
        (22, "self.param_dtype = torch.bfloat16"),
    ]
    unlike = (
        "@@ -20,1 +20,1 @@ def build():\n"
        "-    dtype = torch.float32\n"
        "+    return make_engine(config, dtype=torch.bfloat16, device=device, seed=seed)\n"
    )
    assert _risk("verl/workers/engine/fsdp/transformer_impl.py", unlike) == []


def test_the_mention_test_is_the_mentions_regex(weeks: dict[str, CollectedPeriod]) -> None:
    """mentions_precision answers what MENTIONS.search answers (lowered ASCII text, the regex
    itself otherwise), on every recorded line and at the edges of ignoring case and of the
    `amp`/`quant` word boundaries."""
    texts = [
        raw
        for label in LABELS
        for pr in weeks[label].prs
        for f in pr.files
        for raw in (f.patch or "").splitlines()
    ]
    texts += ["BF16", "Param_DType", "use_AMP=1", "3amp", "ampere", "Amp", "QUANT_x", "quanta"]
    texts += ["FLOAT8_E4M3FN", "精度 bf16", "ﬂoat16", "dtyp\u0130", "xamp", "_amp_", "amp2"]
    texts += ["amp", "a amp", "quant", "(quant)", "quantize", "2quant", "quant9", "Grad_Scaler"]
    texts += [f"x = {value.upper()}" for value in sorted(precision.VALUES)]
    assert sum(precision.mentions_precision(text) for text in texts) > 100
    for text in texts:
        assert precision.mentions_precision(text) == bool(precision.MENTIONS.search(text)), text
