"""Go's ``encoding/csv`` reading one record, as pflag reads a string-slice flag value (``readAsCSV``).

Fields are split on ``,``; a field that starts with ``"`` is quoted (``""`` is a literal quote, commas and
newlines stay inside); a ``"`` anywhere else is an error, with Go's text and line/column numbers.
"""

from __future__ import annotations


class CSVError(ValueError):
    """Go's ``encoding/csv`` parse error text."""


_BARE_QUOTE = 'bare " in non-quoted-field'
_QUOTE = 'extraneous or missing " in quoted-field'


def _error(record_line: int, line: int, column: int, message: str) -> CSVError:
    if record_line != line:
        return CSVError(f"record on line {record_line}; parse error on line {line}, column {column}: {message}")
    return CSVError(f"parse error on line {line}, column {column}: {message}")


class _Lines:
    """``Reader.readLine``: lines with their ``\n``, ``\r\n`` read as ``\n``, a final ``\r`` dropped."""

    def __init__(self, data: bytes):
        self.data, self.offset, self.number = data, 0, 0

    def read(self) -> tuple[bytes, bool]:
        """(line, at_eof): ``at_eof`` only when nothing at all was left to read."""
        data, start = self.data, self.offset
        end = data.find(b"\n", start)
        line = data[start:] if end < 0 else data[start : end + 1]
        self.offset = len(data) if end < 0 else end + 1
        self.number += 1
        eof = end < 0 and not line
        if end < 0 and line.endswith(b"\r"):
            line = line[:-1]
        if line.endswith(b"\r\n"):
            line = line[:-2] + b"\n"
        return line, eof


def _length_nl(line: bytes) -> int:
    return 1 if line.endswith(b"\n") else 0


def go_read_csv_record(text: str) -> list[str]:
    """The first record of ``text`` as Go's ``csv.Reader.Read`` returns it (pflag's ``readAsCSV``; ``""`` -> []).

    A port of Go's ``readRecord`` with the default settings (comma ``,``, no comments, strict quotes):
    leading empty lines are skipped, positions are byte columns, errors carry Go's text.
    """
    if text == "":
        return []
    lines = _Lines(text.encode("utf-8", "surrogateescape"))
    while True:
        line, eof = lines.read()
        if eof or len(line) != _length_nl(line):
            break  # skip empty lines
    if eof:
        raise CSVError("EOF")
    record_line = lines.number
    buffer = bytearray()
    ends: list[int] = []
    column = 1
    line_number = lines.number
    while True:  # parseField
        if not line.startswith(b'"'):
            comma = line.find(b",")
            field = line[:comma] if comma >= 0 else line[: len(line) - _length_nl(line)]
            quote = field.find(b'"')
            if quote >= 0:
                raise _error(record_line, lines.number, column + quote, _BARE_QUOTE)
            buffer += field
            ends.append(len(buffer))
            if comma < 0:
                break
            line = line[comma + 1 :]
            column += comma + 1
            continue
        line = line[1:]
        column += 1
        done = False
        while True:
            quote = line.find(b'"')
            if quote >= 0:
                buffer += line[:quote]
                line = line[quote + 1 :]
                column += quote + 1
                if line.startswith(b'"'):
                    buffer += b'"'
                    line = line[1:]
                    column += 1
                elif line.startswith(b","):
                    line = line[1:]
                    column += 1
                    ends.append(len(buffer))
                    break  # next field
                elif _length_nl(line) == len(line):
                    ends.append(len(buffer))
                    done = True
                    break
                else:
                    raise _error(record_line, lines.number, column - 1, _QUOTE)
            elif line:
                buffer += line
                column += len(line)
                line, _ = lines.read()
                if line:
                    line_number += 1
                    column = 1
            else:
                raise _error(record_line, line_number, column, _QUOTE)
        if done:
            break
    data = bytes(buffer)
    starts = [0, *ends[:-1]]
    return [data[start:end].decode("utf-8", "surrogateescape") for start, end in zip(starts, ends)]
