"""Answer text: sentences, ``[n]`` citation markers and their resolution, code spans, the factual
and refusal filters, and word helpers.

It reads any answer, not only veracity's own: both ``generate`` (which writes answers) and
``verify`` (which checks them) use it, and it uses neither (a test keeps it so). It imports
nothing of veracity but ``types``, ``errors`` and ``defaults``.
"""
