"""The verifier's independent references of noise families beyond the Gaussian and Laplace
(:mod:`otbound.verify.noise_references`): for a family module ``<module>`` of
:mod:`otbound.numerics.families`, a module ``<module>_reference`` here defining
``<MODULE>_REFERENCE``, a :class:`~otbound.verify.noise_references.FamilyReference` (found by
:func:`~otbound.verify.noise_references.reference`; nothing to register)."""
