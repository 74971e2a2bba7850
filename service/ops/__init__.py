"""Operator tools: `doctor`, `backup`/`restore` and `analyst-check`."""
