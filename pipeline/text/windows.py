"""Long texts cut into windows the offline extractor can score.

The offline extractor scores every ordered pair of candidate mentions of a text, and each pair's
features read the words around and between the two names, so its time grows with the cube of
the text's length: a 2,000-character paragraph takes over 30 s, 5,000 characters minutes.
Text2KGBench's inputs are at most 529 characters (99% under 330), and a triple's two names sit in
one sentence or two neighbouring ones, so a longer text is extracted window by window: runs of
whole sentences of at most :data:`MAX_CHARS` characters (a longer sentence is cut between
clauses, at a ``;`` or a comma, else at a space).
"""
from __future__ import annotations

import re

__all__ = ["MAX_CHARS", "text_windows"]

#: longest text extracted in one piece (characters); above the longest Text2KGBench input (529)
MAX_CHARS = 600

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def text_windows(text: str, limit: int = MAX_CHARS) -> list[str]:
    """``[text]`` when it has at most ``limit`` characters, else consecutive windows of whole
    sentences (split after ``.``, ``!`` or ``?`` before a capital or a digit), each of at most
    ``limit`` characters; a sentence longer than ``limit`` is cut between clauses when it can
    (its last ``;`` before the limit, else its last comma, in the window's second half: a cut at
    a space may fall inside a name), else at its last space (at the limit when it has none). Whitespace between windows is dropped; the windows'
    text is otherwise the input's, in order."""
    if len(text) <= limit:
        return [text]
    pieces: list[str] = []
    for sent in _SENTENCE_END.split(text.strip()):
        while len(sent) > limit:
            cut = _cut(sent, limit)
            pieces.append(sent[:cut].strip())
            sent = sent[cut:].strip()
        if sent:
            pieces.append(sent)
    windows: list[str] = []
    for p in pieces:
        if windows and len(windows[-1]) + 1 + len(p) <= limit:
            windows[-1] += " " + p
        else:
            windows.append(p)
    return windows


def _cut(sent: str, limit: int) -> int:
    """Where to cut a sentence longer than ``limit``: after its last ``;`` or ``,`` followed by a
    space in ``[limit // 2, limit]``, else at its last space before the limit, else at the limit."""
    for mark in ("; ", ", "):
        i = sent.rfind(mark, limit // 2, limit)
        if i > 0:
            return i + 1
    i = sent.rfind(" ", 1, limit + 1)
    return i if i > 0 else limit
