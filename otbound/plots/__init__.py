"""Plots of privacy curves (issue 15): :mod:`otbound.plots.charts` describes and draws the
charts of ``rdp``/``adp``/``account --plot``, :mod:`otbound.plots.figures` the seeds' main figures
and the docs' that ``otbound figures`` regenerates into ``docs/figures/``. matplotlib is imported only when a
chart is drawn."""
