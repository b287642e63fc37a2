"""What the repository's tools share, below all of them.

- `jaxpro.repo`: where the checkout is and the versions pyproject.toml pins.
- `jaxpro.anchors`: the heading anchors of a Markdown file, as GitHub makes them.
- `jaxpro.evals`: the trigger and answer evaluations (tasks, grading, client sessions, comparing arms,
  reports), used by the command-line entry points in dev/, by the documentation site and by the tests.
- `jaxpro.currency_check`: runs scripts/jax_currency_check.py for the `jax-currency-check` command and the
  pre-commit hook (.pre-commit-hooks.yaml).

Nothing here imports from dev/, docsite/ or tests/.
"""
