"""spf13/cobra's "did you mean" (cobra v1.10.2, the version kubectl v1.36.3 is built with), and the plugin's one
suggestion policy built on it.

- :func:`ld`: cobra.go ``ld(s, t, ignoreCase)``, the Levenshtein distance over bytes (insertions, deletions and
  substitutions of one byte each), after ``strings.ToLower`` of both when ``ignore_case``;
- :func:`suggested`: the rule of command.go ``(*Command).SuggestionsFor``: a name is suggested when
  ``ld(typed, name, true) <= SuggestionsMinimumDistance`` (2 unless set) or when the name, lowercased, starts
  with the typed text, lowercased;
- :func:`did_you_mean`: every "did you mean" the plugin prints (unknown commands, kinds, names, label values,
  fields) chooses its words with it: cobra's rule picks the candidates, and of those the nearest ones (the
  smallest ``ld``; ties in the order they were given in, at most :data:`MAX_SUGGESTIONS`) are offered, never the
  typed word itself, nothing for an empty word. cobra lists every candidate in command order on lines of their
  own; the plugin's message is one line, so it names only the best.
"""

from __future__ import annotations

from collections.abc import Iterable

SUGGESTIONS_MINIMUM_DISTANCE = 2  # cobra's default (command.go: "if c.SuggestionsMinimumDistance <= 0 { ... = 2 }")
MAX_SUGGESTIONS = 3  # the plugin's: more names than three make no one-line hint


def ld(s: str, t: str, ignore_case: bool) -> int:
    """cobra.go ``ld``: the Levenshtein distance between the UTF-8 bytes of ``s`` and ``t``."""
    if ignore_case:
        s, t = s.lower(), t.lower()
    left, right = s.encode("utf-8", "surrogateescape"), t.encode("utf-8", "surrogateescape")
    previous = list(range(len(right) + 1))
    for i, byte in enumerate(left, 1):
        current = [i]
        for j, other in enumerate(right, 1):
            if byte == other:
                current.append(previous[j - 1])
            else:
                current.append(min(previous[j], current[j - 1], previous[j - 1]) + 1)
        previous = current
    return previous[-1]


def suggested(typed: str, name: str, minimum_distance: int = SUGGESTIONS_MINIMUM_DISTANCE) -> bool:
    """``SuggestionsFor``'s test of one name: within ``minimum_distance`` edits, or ``typed`` is its prefix (both
    case-insensitive)."""
    return ld(typed, name, True) <= minimum_distance or name.lower().startswith(typed.lower())


def suggestions_for(typed: str, names: Iterable[str]) -> list[str]:
    """``(*Command).SuggestionsFor(typed)`` over ``names`` (the available commands, in their order)."""
    return [name for name in names if suggested(typed, name)]


def did_you_mean(typed: str, names: Iterable[str]) -> list[str]:
    """The names to offer for ``typed``: the one suggestion policy (see the module's text)."""
    if not typed:
        return []
    scored = []
    seen = set()
    for order, name in enumerate(names):
        if name == typed or name in seen:
            continue
        seen.add(name)
        distance = ld(typed, name, True)
        if distance <= SUGGESTIONS_MINIMUM_DISTANCE or name.lower().startswith(typed.lower()):
            scored.append((distance, order, name))
    if not scored:
        return []
    nearest = min(distance for distance, _, _ in scored)
    return [name for distance, _, name in sorted(scored) if distance == nearest][:MAX_SUGGESTIONS]
