"""Judging an answer (判定), layer 4: the one judge, the comparison of an output with its
expectation, the interpreter's own outcome, and the soundness of a listing."""
