"""``python -m veracity.cli``: the ``veracity`` command."""

from veracity.cli.application import main

main()
