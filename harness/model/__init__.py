"""The rule model (規則模型), layer 1: cards and their notation, seats, the typed rule set, the
source documents (來源), the variant loader with its located problems, and the clause registry.

Imports only from `harness.errors` and `harness._paths`; every other layer builds on it.
"""
