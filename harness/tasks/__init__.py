"""Task modules, one per family (``spatial``, ``relational``, ``csp``); importing them registers the tasks."""
