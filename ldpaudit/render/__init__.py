"""Rendering used by every stage, so below them: progress lines, terminal width, exact values
as text, notebook displays, LaTeX escapes, small tables and plots of JSON results.

It imports no stage (nor :mod:`ldpaudit.mechanism`): a stage that needs its own knowledge to be
shown passes it in (``mechanism_markdown(mech, channel_lines)``) or renders it in its own
package (``ldpaudit.derive.render``, ``ldpaudit.audit.report``). Nothing is imported here, so
``import ldpaudit.render.progress`` costs only that module."""
