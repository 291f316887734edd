"""What the commands print on the terminal (``--json`` prints ``to_dict()`` instead), one module
per result: ``index`` (:class:`~veracity.corpus.indexer.IndexReport`), ``search``
(:class:`~veracity.types.SearchResult`), ``pair`` (``check``'s
:class:`~veracity.types.ScoredPair`), ``answer`` (``ask`` and ``evolve``), ``calibration``
(``calibrate``), ``report`` (``verify``), ``repair`` (``repair`` and ``ask --repair``), and
``evidence``, the passage line that ``report`` and ``repair`` share.

Every line goes through :mod:`veracity.cli.render`, so document text, titles, paths and
messages are shown as written, never read as markup.
"""
