"""Explaining a failure (說明), layer 4: why one case failed, and the one explainer (which clause
value an engine behaves as)."""
