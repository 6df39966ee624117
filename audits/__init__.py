"""The bundled audit entries, shipped as ``otbound.audits``.

Each file defines ``CLAIM`` (an :class:`otbound.audit.Claim`) and is loaded by path
(:func:`otbound.audit.catalog.load_claim_file`), never imported as a module of this package.
"""
