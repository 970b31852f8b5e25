"""`confbot eval`: the presenters of the ConfQuestions evaluation.

`command.run` reads the benchmark and dispatches to one presenter per kind of run
(`retrieval`, `conversational`, `attribution`); each presenter runs `core.evaluation` and
prints its tables with `tables`. Presenters import `tables` and `core`, never each other.
"""
