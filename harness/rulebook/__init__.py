"""Player-facing rulebooks (規則書), layer 5 beside the front ends: a variant's rules as
sentences in the order of play, in simplified Chinese, traditional Chinese and English, built
from the variant data. It draws cards with `harness.frontends.card_faces`; the command line and the
site (`harness.frontends`) write its books out.

The sentences are templates keyed by clause id and value (`spec/rulebook/`), so that a variant
file of one's own gets a rulebook too; each sentence is marked stated (the source's words in a
note) or our reading (the reason and the other readings in a note).
"""
