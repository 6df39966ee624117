"""The bundled derivation files, shipped as ``otbound.derivations``.

They are loaded by path (:func:`otbound.engine.bundled.load_file`), never imported as modules of
this package; this file only makes the folder a package that the wheel can carry.
"""
