"""The corpus and its cases (用例), layer 4: loading and checking cases, variants as values, and
what the corpus covers."""
