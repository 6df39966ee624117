"""Bridges to other libraries, each in its own module and each importing its library itself.

Nothing else in otbound imports this package (the top layer, ``tests/test_architecture.py``), so
``import otbound`` and the command line never load the libraries bridged to:

- :mod:`otbound.integrations.opacus` — an Opacus accountant (``pip install 'otbound[opacus]'``).
"""
