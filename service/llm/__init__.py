"""Adapter: an OpenAI-compatible chat completions endpoint (vLLM, SGLang, Ark, DeepSeek, Qwen,
OpenAI) through the official `openai` client."""
