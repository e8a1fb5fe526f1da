"""Simulated play measured (對局統計), layer 4: many whole matches of a variant with bots, sharded
by seed on one core, in processes or on a Dask cluster, each match reduced to a record, and
statistics over the records with 95 % confidence intervals.

Imports from the engines (the cluster layer), the interpreter, the rule model and layer 0;
never from the conformance tools or the front ends. The numbers depend on the variant, its
options, the bots, the seed and the number of matches only: never on where the matches ran.
"""
