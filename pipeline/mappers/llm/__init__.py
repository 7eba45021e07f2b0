"""The LLM mapper: a model through litellm proposes the mapping table.

:mod:`.mapper` (the mapper, registered as ``llm``), :mod:`.prompt` (the prompt and its examples),
:mod:`.parse` (the answer as a table). The client is :mod:`pipeline.llm`, shared with ``kgc text``.
"""
