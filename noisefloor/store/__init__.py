"""The task-scoped negative-knowledge store (ET-MCP substrate) and its canonical keys."""

from noisefloor.store.keys import call_fingerprint, canonical_arguments, canonical_key

__all__ = ["call_fingerprint", "canonical_arguments", "canonical_key"]
