"""The ``noisefloor`` command line: one click group, one module per command group.

The CLI is thin: it parses options, calls the library and formats results. No statistics
live here.
"""
