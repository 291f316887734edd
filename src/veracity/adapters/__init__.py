"""Adapters to other tools: they convert those tools' types and call the library, nothing more.

:mod:`veracity.adapters.pytest_plugin` is the pytest plugin (``assert_grounded``).
"""
