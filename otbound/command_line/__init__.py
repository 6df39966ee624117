"""The ``otbound`` command line's parts: its arguments, what its flags mean for the library, and
its text output (:mod:`otbound.cli` runs the commands)."""
