"""Names people choose (usernames, team names): one comparison key for look-alikes; control characters.

Two names are the same name when their keys are equal: NFKC (fullwidth ``\uff34\uff45\uff41\uff4d`` is ``Team``, as
Django normalises usernames), casefolded, without invisible characters (zero-width spaces and joiners,
soft hyphens, bidirectional marks, fillers) and with runs of white space as one space.
"""

import unicodedata

# Default-ignorable characters that are not in the format category (Cf): they render as nothing.
_IGNORABLE = {"\u034f", "\u115f", "\u1160", "\u17b4", "\u17b5", "\u180e", "\u3164", "\uffa0"}
_IGNORABLE |= {chr(code) for code in range(0xFE00, 0xFE10)}  # variation selectors
# Bidirectional embeddings, overrides and isolates reorder what follows them on screen.
_BIDI_CONTROLS = {chr(code) for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def _invisible(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf") or char in _IGNORABLE


def name_key(name: str) -> str:
    """The form in which names are compared.

    >>> name_key("\\uff34\\uff45\\uff41\\uff4d\\uff21") == name_key("Team\\u200bA") == name_key(" teama ") == "teama"
    True
    """
    text = unicodedata.normalize("NFKC", name)
    text = "".join(char for char in text if not _invisible(char))
    return " ".join(unicodedata.normalize("NFKC", text.casefold()).split())


def control_characters(name: str) -> list[str]:
    """The control characters of ``name`` (terminal escapes, NUL, bidirectional overrides) as ``U+XXXX``.

    >>> control_characters("\\x1b]0;pwned\\x07 team")
    ['U+001B', 'U+0007']
    """
    found = [char for char in name if unicodedata.category(char) == "Cc" or char in _BIDI_CONTROLS]
    return [f"U+{ord(char):04X}" for char in dict.fromkeys(found)]


# A spreadsheet reads a cell that starts with one of these as a formula (=HYPERLINK(...), +cmd|...).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A text cell of a CSV export, with a formula's first character guarded by ``'`` (OWASP's advice);
    numbers and other values unchanged.

    >>> csv_cell('=HYPERLINK("https://evil.example","x")'), csv_cell("-1"), csv_cell(-1), csv_cell("Owls")
    ('\\'=HYPERLINK("https://evil.example","x")', "'-1", -1, 'Owls')
    """
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def csv_row(row: dict) -> dict:
    return {key: csv_cell(value) for key, value in row.items()}
