"""Running the corpus against an engine (執行), layer 4: the cases a run covers, the runner, the
engine session, a run's results and journal, and JSON read back from files."""
