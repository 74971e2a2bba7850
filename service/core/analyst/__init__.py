"""The analyst: what a language model is told about a week (facts), what it must answer (schema),
and the checker that keeps only sentences standing in those facts. Pure: no client, no network.

`service/llm/` calls the model; `service/pipeline/narrator.py` connects facts → prompt → model →
checker.
"""
