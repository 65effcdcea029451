"""``python -m noisefloor``: the same command line as the ``noisefloor`` console script."""

from noisefloor.cli.main import cli

if __name__ == "__main__":
    cli(prog_name="noisefloor")
