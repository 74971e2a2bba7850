"""Capture the verifier's requests for the model-written corpus (tests/data/llm/model_corpus):
every drafted sentence of each answer of a part, with its quotes and the cited PRs' facts, in
the batches the service's verification pass builds, rendered by the service's own verify
prompt. Writes `<out>/<stem>.verify.<n>.request.json` (the messages) and `.prompt.txt` (the
same as text, for a model to answer as `<stem>.verify.<n>.answer.json`). Copy the requests and
answers into the part's folder (`tune`, `seen` to `seen8` or `heldout`, replacing
the part's requests and answers to the former verify version):
tests/core/analyst/model_corpus.py replays them as the verifier. The held-out part's requests
are captured for a model to answer, not read by whoever tunes the checker. Not a test.

    .venv/bin/python benchmarks/capture_verify.py heldout --out /tmp/verify
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.core.analyst.model_corpus import verify_prompts  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for stem, requests in verify_prompts(args.part).items():
        for n, messages in enumerate(requests, 1):
            base = args.out / f"{stem}.verify.{n}"
            text = json.dumps({"messages": messages}, ensure_ascii=False, indent=1)
            base.with_name(base.name + ".request.json").write_text(text + "\n", "utf-8")
            prompt = "\n\n".join(f"=== {m['role']} ===\n{m['content']}" for m in messages)
            base.with_name(base.name + ".prompt.txt").write_text(prompt + "\n", "utf-8")
        print(f"{stem}: {len(requests)} requests")


if __name__ == "__main__":
    main()
