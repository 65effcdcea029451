"""The collaboration-tax runner: drive the harness tasks against OpenAI-compatible endpoints.

:mod:`~noisefloor.endpoints` (the endpoint layer), :mod:`~harness.runner.dialogue` (solo,
pair and split_solo rollouts), :mod:`~harness.runner.journal` (the append-only journal and
the trial records built from it), :mod:`~harness.runner.run` (``run_tax`` and ``merge_runs``)
and :mod:`~harness.runner.scripted` (a scripted OpenAI-compatible server to try it offline).
"""
