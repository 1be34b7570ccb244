"""Autograd Lab's grading pipeline (nbgrader), for the instructor: ``python -m grading``.

Not part of ``autograd_lab`` (which stays NumPy-only). See docs/instructor-guide.md.
"""
