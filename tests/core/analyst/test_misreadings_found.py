"""True sentences dropped because a quote, a name or a figure was "not found" though the PR's
data holds it (seen4, checkA): a quote of an unchanged line, of a body's table row after the
template's checklist, of a list item whose `-` is its own mark; a name of a hunk header or an
author's login; an author's count said as "6 of the 17 PRs"; a figure on a `* step:400` line.
Each on small hand-built PR data, with a false variant of the sentence still dropped; and the
quotes that now count are read where they stand (a heading's section, a table's row, a plan)."""

from __future__ import annotations

import functools

from service.core.analyst.checker import Checker, check_text
from service.core.analyst.facts import PeriodFacts, build_facts
from service.core.analyst.quote_places import grounding_quotes
from service.core.analyst.quotes import Quote
from service.core.models import FileChange, FileStatus, PullRequest
from tests.commands.builders import digest_from_week
from tests.conftest import load_week

N = 4665  # the recorded W04 PR whose data each test replaces
AUTHOR = "NancyFyong"

BODY = """\
### What does this PR do?

Adds FP8 rollout for vLLM.

### Checklist Before Starting

- [x] Search for similar PRs.

### Test

|model|parallel|GPUs|time|
|Qwen3-VL-30B-A3B-Instruct|TP2,EP8|4*8|5s|
|DeepSeek-V3.1-Terminus|TP8,PP16,EP8|16*8|120s|
|DeepSeek-V3.1-Terminus|TP16,PP16|32*8|80s|

Over 200 training steps, the async mode was 9 hours faster.

#### Qwen3-8B-Base Dense Model

- FP8 rollout leads to around ~12% rollout speedup

#### Qwen3-30B-A3B-Base MoE Model

- FP8 rollout : over 35% rollout speedup

Plans
- will open another PR to support FP8 rollout in SGLang
"""

SCRIPT = """\
@@ -30,6 +30,6 @@ python3 -m trainer.main \\
     data.val_files=$test_path \\
-    data.train_batch_size=8 \\
+    data.train_batch_size=32 \\
     actor.ppo_micro_batch_size_per_gpu=4 \\
"""

ENGINE = """\
@@ -764,6 +765,8 @@ class DiffusersFSDPEngine(BaseEngine):
             offload_fsdp_model_to_cpu(self.module)
+        gc.collect()
"""

DOC = """\
@@ -0,0 +1,4 @@
+- FP8 rollout leads to around ~12% rollout speedup
+## Results
+    * step:400
+| mode | total time 400 step |
"""


GITIGNORE = "@@ -128,2 +128,2 @@ ENV/\n logs\n-.history\n+.history"
WORKFLOW = """\
@@ -10,4 +10,4 @@ on:
     paths:
-      - "recipe/**"
+      - "recipe/dapo/**"
-      - "tests/special_sanity/**"
+      - "tests/special_sanity/check.py"
-      - "examples/old/**"
"""
DOCKERFILE = """\
@@ -1,4 +1,4 @@
 ARG KERNELS_VERSION=0.14.1
-ARG TORCH_VERSION=2.8.0
+ARG TORCH_VERSION=2.9.0
"""
PYPROJECT = """\
@@ -20,3 +20,3 @@ gpu = [
-    "kernels==0.14.1",
+    "kernels==0.16.0",
"""
SMOKE = """\
@@ -1,5 +1,4 @@
 name: smoke_latest
-      - ci/smoke_latest.yml
-      - ci/retired_job.yml
-  push:
+  workflow_dispatch:
"""
METADATA = "@@ -0,0 +1,2 @@\n+import json\n+PINS = {}"


def _pr() -> PullRequest:
    base = next(p for p in load_week("2026-W04").prs if p.number == N)
    files = [
        FileChange(path="examples/run.sh", additions=1, deletions=1, patch=SCRIPT),
        FileChange(path="engine/diffusers_impl.py", additions=2, patch=ENGINE),
        FileChange(path="docs/fp8.md", status=FileStatus.ADDED, additions=4, patch=DOC),
        FileChange(path=".gitignore", additions=1, deletions=1, patch=GITIGNORE),
        FileChange(path=".github/workflows/e2e.yml", additions=2, deletions=3, patch=WORKFLOW),
        FileChange(path="docker/Dockerfile.cuda", additions=1, deletions=1, patch=DOCKERFILE),
        FileChange(path="pyproject.toml", additions=1, deletions=1, patch=PYPROJECT),
        FileChange(path="ci/smoke.yml", additions=1, deletions=3, patch=SMOKE),
        FileChange(
            path="scripts/env_metadata.py", status=FileStatus.ADDED, additions=163, patch=METADATA
        ),
    ]
    return base.model_copy(update={"body": BODY, "files": files, "author": AUTHOR})


@functools.lru_cache(maxsize=2)
def _facts(language: str = "en") -> PeriodFacts:
    week = load_week("2026-W04")
    others = [p for p in week.prs if p.number != N]
    # NancyFyong also wrote the two PRs after hers: 3 of the week's 22
    theirs = {p.number for p in others[:2]}
    update = {"author": AUTHOR, "author_name": "Nancy Fyong"}
    prs = [_pr()] + [p.model_copy(update=update) if p.number in theirs else p for p in others]
    week = week.model_copy(update={"prs": prs})
    return build_facts(digest_from_week(week, language=language), week.prs)


def _checker(language: str = "en") -> Checker:
    return Checker(_facts(language))


def _reasons(text: str, *quotes: str, section: str = "pr_points", lang: str = "en") -> list[str]:
    evidence = [(N, q) for q in quotes]
    return check_text(text, [N], section, _checker(lang), evidence)


def _found(quote: str) -> Quote:
    checker = _checker()
    return checker.quotes.find(N, quote, [N])


# --- quotes in the data ------------------------------------------------------------------


def test_a_quote_of_an_unchanged_line_is_found() -> None:
    found = _found("     actor.ppo_micro_batch_size_per_gpu=4 \\")
    assert found.found
    assert found.where == "unchanged line of run.sh"
    assert not _found("     actor.ppo_micro_batch_size_per_gpu=8 \\").found


def test_a_list_items_own_mark_is_no_side() -> None:
    # `- FP8 …` is an added line of docs/fp8.md, mark and all: no removed line
    found = _found("- FP8 rollout leads to around ~12% rollout speedup")
    assert found.found
    assert found.side == "+"
    assert not _found("- FP8 rollout leads to around ~15% rollout speedup").found


def test_a_bodys_table_row_after_the_checklist_is_found() -> None:
    assert _found("|Qwen3-VL-30B-A3B-Instruct|TP2,EP8|4*8|5s|").found
    assert not _found("|Qwen3-VL-30B-A3B-Instruct|TP2,EP8|4*8|9s|").found


def test_a_figure_of_the_body_after_the_checklist_is_the_prs() -> None:
    quote = "the async mode was 9 hours faster"
    true = "Over 200 training steps the async mode was 9 hours faster."
    assert _reasons(true, quote) == []
    false = true.replace("200", "300")
    assert any(r.startswith("figure 300") for r in _reasons(false, quote))


# --- names in the data -------------------------------------------------------------------


def test_a_name_of_a_hunk_header_is_in_the_patch() -> None:
    true = f"#{N} calls gc.collect() in DiffusersFSDPEngine after offloading the model."
    assert not any("DiffusersFSDPEngine" in r for r in _reasons(true, "+        gc.collect()"))
    false = true.replace("DiffusersFSDPEngine", "DiffusersFSDPWorker")
    assert any("DiffusersFSDPWorker" in r for r in _reasons(false, "+        gc.collect()"))


def test_an_authors_login_is_a_name_of_the_week_and_their_count_is_checked() -> None:
    checker = _checker("zh")
    assert check_text(f"本周 {AUTHOR} 合入 3 个 PR。", [], "summary", checker) == []
    assert check_text(f"本周 {AUTHOR} 合入 4 个 PR。", [], "summary", checker) != []


def test_the_weeks_count_beside_an_authors_is_the_whole() -> None:
    checker = _checker()
    true = f"The week merged 22 PRs, with {AUTHOR} the most active author at 3 PRs."
    assert check_text(true, [], "summary", checker) == []
    false = f"The week merged 22 PRs, with {AUTHOR} merging 22 PRs."
    assert check_text(false, [], "summary", checker) != []


def test_an_authors_part_of_the_weeks_prs_is_their_count() -> None:
    checker = _checker()
    assert check_text("Nancy Fyong authored 3 of the 22 PRs.", [], "summary", checker) == []
    assert check_text("Nancy Fyong authored 4 of the 22 PRs.", [], "summary", checker) != []
    # "of the week's PRs" is the week's count, not the count of the PRs cited
    false = f"{AUTHOR} authored 1 of the week's PRs, #{N}."
    assert check_text(false, [N], "summary", checker) != []


def test_a_figure_on_a_listed_setting_line_is_told_in_words() -> None:
    evidence = _checker().evidence.pr(N)
    assert evidence is not None
    assert evidence.states("400", [], "the docs run 400 steps")
    assert not evidence.states("400", [], "the docs run 400 epochs")


# --- where the quotes stand ----------------------------------------------------------------


def test_a_line_must_stand_under_the_heading_quoted_with_it() -> None:
    heading = "#### Qwen3-8B-Base Dense Model"
    true = "On Qwen3-8B-Base FP8 rollout gave around 12% rollout speedup."
    assert _reasons(true, heading, "- FP8 rollout leads to around ~12% rollout speedup") == []
    false = "On Qwen3-8B-Base FP8 rollout gave over 35% rollout speedup."
    reasons = _reasons(false, heading, "- FP8 rollout : over 35% rollout speedup")
    assert any("stands under another heading" in r for r in reasons)


def test_a_clauses_figures_stand_in_one_quoted_row() -> None:
    rows = (
        "|DeepSeek-V3.1-Terminus|TP8,PP16,EP8|16*8|120s|",
        "|DeepSeek-V3.1-Terminus|TP16,PP16|32*8|80s|",
    )
    true = f"#{N} 的测试中，DeepSeek-V3.1-Terminus 在 TP8、PP16、EP8 的 16*8 卡配置下耗时 120s。"
    assert not any(r.startswith("table rows") for r in _reasons(true, *rows, lang="zh"))
    false = true.replace("120s", "80s")
    assert any(r.startswith("table rows") for r in _reasons(false, *rows, lang="zh"))


def test_a_plans_quote_grounds_only_a_plan() -> None:
    plan = Quote(N, "- will open another PR to support FP8 rollout in SGLang", where="x")
    assert grounding_quotes(f"#{N} adds SGLang FP8 rollout.", [plan]) == ()
    assert grounding_quotes(f"#{N} will support SGLang in another PR.", [plan]) == (plan,)


# --- code copied, files named ----------------------------------------------------------------


def test_markup_the_patch_holds_as_code_is_no_markup() -> None:
    true = f"#{N} narrows the e2e triggers, replacing recipe/** with recipe/dapo/**."
    assert not any(r.startswith("markup") for r in _reasons(true))
    false = f"#{N} narrows the e2e triggers to **recipe** only."
    assert any(r.startswith("markup") for r in _reasons(false))


def test_a_named_files_added_lines_are_its_line_count() -> None:
    true = f"#{N} 新增 163 行的 env_metadata.py，记录固定版本。"
    assert not any("163" in r for r in _reasons(true, lang="zh"))
    false = true.replace("163", "136")
    assert any("136" in r for r in _reasons(false, lang="zh"))


def test_a_name_told_as_added_to_a_file_is_on_its_added_lines() -> None:
    kept = _reasons(f"#{N} adds .history to .gitignore.")
    assert not any(r.startswith("added to file") for r in kept)
    (reason,) = [r for r in _reasons(f"#{N} adds CLAUDE.md to .gitignore.") if "added to" in r]
    assert reason == "added to file: no added line of .gitignore holds CLAUDE.md"


def test_a_value_a_file_keeps_is_on_its_unchanged_lines() -> None:
    true = f"#{N} 的 Dockerfile.cuda 中 KERNELS_VERSION 仍为 0.14.1，pyproject.toml 已升到 0.16.0。"
    assert not any(r.startswith("file value") for r in _reasons(true, lang="zh"))
    false = f"#{N} 在 Dockerfile.cuda 中把 KERNELS_VERSION 升到 0.14.1。"
    assert any(r.startswith("file value 0.14.1") for r in _reasons(false, lang="zh"))


def test_a_folder_is_on_the_side_of_the_paths_under_it() -> None:
    old, new = '-      - "tests/special_sanity/**"', '+      - "tests/special_sanity/check.py"'
    true = f"#{N} narrows the e2e triggers, replacing tests/special_sanity/** with {new[10:-1]}."
    assert not any(r.startswith("old value") for r in _reasons(true, old, new))
    false = f"#{N} now triggers the e2e run on examples/old/ changes."
    reasons = _reasons(false, '-      - "examples/old/**"')
    assert any(r.startswith("old value examples/old/") for r in reasons)


def test_a_name_on_an_unchanged_line_still_stands() -> None:
    trigger = "+  workflow_dispatch:"
    true = f"#{N} leaves smoke_latest with only a workflow_dispatch trigger."
    assert not any(r.startswith("old name") for r in _reasons(true, trigger))
    false = f"#{N} leaves retired_job with only a workflow_dispatch trigger."
    assert any(r.startswith("old name retired_job") for r in _reasons(false, trigger))


def test_a_setting_written_as_code_is_set_so_in_the_data() -> None:
    true = f"#{N} sets data.train_batch_size=32 and keeps actor.ppo_micro_batch_size_per_gpu=4."
    assert not any(r.startswith("setting") for r in _reasons(true))
    # each value moved to the other option
    false = f"#{N} sets data.train_batch_size=4 and keeps actor.ppo_micro_batch_size_per_gpu=32."
    assert [r for r in _reasons(false) if r.startswith("setting")] == [
        "setting train_batch_size=4: no line of the cited PRs sets it so",
        "setting ppo_micro_batch_size_per_gpu=32: no line of the cited PRs sets it so",
    ]


def test_a_key_told_as_changed_is_on_a_changed_line() -> None:
    true = f"#{N} raises data.train_batch_size from 8 to 32."
    assert not any(r.startswith("unchanged key") for r in _reasons(true))
    # the values of the changed key told of a key the script keeps
    false = f"#{N} raises actor.ppo_micro_batch_size_per_gpu from 8 to 32."
    assert any(r.startswith("unchanged key actor.ppo_micro") for r in _reasons(false))


def test_a_file_told_as_changed_is_one_the_pr_changes() -> None:
    """A squash merge's body lists its commits, and a commit's change may be gone from the
    merged diff: "adds a News entry to the README" needs a cited PR that changes a README."""
    true = f"#{N} 在 docs/fp8.md 中加入 FP8 rollout 的说明。"
    assert not any(r.startswith("untouched file") for r in _reasons(true, lang="zh"))
    may = "用户可在 dapo_7b.sh 中加入 +async_training.parallel=True 启用。"
    assert not any(r.startswith("untouched file") for r in _reasons(may, lang="zh"))
    false_zh = f"#{N} 还在 README News 中加入了发布博客的条目。"
    assert "untouched file: no cited PR changes README" in _reasons(false_zh, lang="zh")
    false_en = f"#{N} also adds a News entry to the README."
    assert "untouched file: no cited PR changes README" in _reasons(false_en)


def test_a_dotted_key_added_to_a_yaml_file_is_its_nested_keys() -> None:
    from service.core.analyst.evidence import PREvidence
    from service.core.analyst.file_values import added_to_reasons

    yaml = PREvidence(
        number=N, text="", files=(("conf/hf_model.yaml", (), ("mtp:", "  enable: False")),)
    )
    assert added_to_reasons(f"#{N} adds `mtp.enable` to hf_model.yaml.", [yaml]) == []
    assert added_to_reasons(f"#{N} adds `mtp.disable` to hf_model.yaml.", [yaml]) == [
        "added to file: no added line of hf_model.yaml holds mtp.disable"
    ]
