"""Hypothesis strategies for hostile PR data: titles, bodies, authors, file lists and patches
full of chat mentions, tags, script links, zero-width characters, and (sometimes) 100 kB bodies."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import strategies as st

from service.core.models import CollectedPeriod, FileChange, FileStatus, PullRequest

HOSTILE = [
    "<script>alert(1)</script>",
    "<!channel>",
    "<!here>",
    "<!everyone>",
    "<@U123>",
    "<#C123|general>",
    "<at id=all></at>",
    '<at user_id="ou_x">x</at>',
    "[x](javascript:alert(1))",
    "[click](https://evil.example/)",
    "<https://evil.example|safe>",
    "<javascript:alert(1)|x>",
    '<a href="javascript:alert(1)">a</a>',
    '<img src=x onerror="alert(1)">',
    "\u200b\u200d\u2060\ufeff",
    "\u202eevil",
    "**bold** _it_ ~strike~ `code` ```fence```",
    "# heading",
    "| a | b |",
    "&lt;!channel&gt; &amp;",
    "$(rm -rf /) `id` ; DROP TABLE digests; --",
    ":DONE: https://x.example",
    "\x00\x07\x1b[31m",
    "<font color=red>red</font>",
    "{{ 7*7 }} {% raw %}",
]
HUGE_BODY_BYTES = 100_000
REPO = "volcengine/verl"
PATHS = [
    "verl/trainer/ppo/core_algos.py",
    "verl/workers/rollout/vllm_rollout.py",
    "verl/utils/fsdp_utils.py",
    "docs/index.md",
    "examples/grpo/run.sh",
    "scripts/install.sh",
    "tests/test_x.py",
    "recipe/dapo/main.py",
]
URLS = [
    "https://github.com/volcengine/verl/pull/1",
    "javascript:alert(1)",
    "",
    "https://evil.example/<!channel>",
]

fragment = st.sampled_from(HOSTILE) | st.text(max_size=24)
hostile_text = st.lists(fragment, max_size=6).map(" ".join)
huge_body = st.sampled_from(HOSTILE).map(lambda s: (s + " ") * (HUGE_BODY_BYTES // (len(s) + 1)))
body = hostile_text | st.lists(hostile_text, max_size=4).map("\n\n".join) | huge_body
author = st.none() | st.sampled_from(["alice", "<!channel>", "<@U123>", "a&b", ""]) | fragment
in_core = hostile_text.map(lambda s: f"verl/trainer/{s}.py")
path = st.sampled_from(PATHS) | in_core | fragment.filter(bool)
patch_line = hostile_text | st.sampled_from(
    [
        "rm -rf $DIR/",
        "cd /home/alice/verl",
        'export TOKEN="ghp_' + "a" * 36 + '"',
        "def forward(self, x):",
        "torch.float16",
    ]
)
patch = st.none() | st.lists(patch_line, min_size=1, max_size=6).map(
    lambda lines: f"@@ -1,1 +1,{len(lines) + 1} @@\n" + "\n".join("+" + s for s in lines)
)
file_change = st.builds(
    FileChange,
    path=path,
    status=st.sampled_from(list(FileStatus)),
    additions=st.integers(0, 3000),
    deletions=st.integers(0, 3000),
    patch=patch,
)


@st.composite
def pull_requests(draw: st.DrawFn, window_start: datetime, count: int = 6) -> list[PullRequest]:
    """Up to `count` PRs merged inside the week that starts at `window_start`."""
    made = []
    for i in range(draw(st.integers(1, count))):
        files = draw(st.lists(file_change, max_size=4))
        merged = window_start + timedelta(minutes=draw(st.integers(1, 7 * 24 * 60 - 1)))
        number = 90_000 + i
        url = draw(st.sampled_from(URLS)).replace("/1", f"/{number}", 1)
        made.append(
            PullRequest(
                number=number,
                title=draw(hostile_text),
                body=draw(body),
                url=url,
                author=draw(author),
                created_at=merged - timedelta(hours=1),
                merged_at=merged,
                additions=sum(f.additions for f in files),
                deletions=sum(f.deletions for f in files),
                changed_files=len(files),
                files=files,
                patches_fetched=True,
                labels=draw(st.none() | st.lists(fragment, max_size=2)),
            )
        )
    return made


def hostile_week(base: CollectedPeriod, prs: list[PullRequest]) -> CollectedPeriod:
    """`base` (a real week's window and repo) with `prs` instead of its own."""
    return base.model_copy(update={"prs": prs})
