"""Go's ``sort.Sort`` (sort/zsortinterface.go: pattern-defeating quicksort), statement for statement.

kubectl's ``--sort-by`` sorts with ``sort.Sort``, which is not stable, and with a ``Less`` that is not a strict
order (an object that lacks the field is "less" than every other one, another such object included). The order
kubectl prints is then what this algorithm makes of that ``Less``, not what a stable sort would: objects without
the field end up first in an order of their own. :func:`sort_order` returns exactly that order.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["sort_order"]

_MAX_INSERTION = 12


def sort_order(n: int, less: Callable[[int, int], bool]) -> list[int]:
    """The original indexes of ``n`` items in the order ``sort.Sort`` leaves them, ``less(i, j)`` comparing the items
    that started at positions i and j."""
    order = list(range(n))
    if n <= 1:
        return order
    data = _Data(order, less)
    _pdqsort(data, 0, n, n.bit_length())
    return order


class _Data:
    __slots__ = ("less_fn", "order")

    def __init__(self, order: list[int], less: Callable[[int, int], bool]) -> None:
        self.order = order
        self.less_fn = less

    def less(self, i: int, j: int) -> bool:
        return self.less_fn(self.order[i], self.order[j])

    def swap(self, i: int, j: int) -> None:
        order = self.order
        order[i], order[j] = order[j], order[i]


def _insertion_sort(data: _Data, a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and data.less(j, j - 1):
            data.swap(j, j - 1)
            j -= 1


def _sift_down(data: _Data, lo: int, hi: int, first: int) -> None:
    root = lo
    while True:
        child = 2 * root + 1
        if child >= hi:
            return
        if child + 1 < hi and data.less(first + child, first + child + 1):
            child += 1
        if not data.less(first + root, first + child):
            return
        data.swap(first + root, first + child)
        root = child


def _heap_sort(data: _Data, a: int, b: int) -> None:
    first, lo, hi = a, 0, b - a
    for i in range((hi - 1) // 2, -1, -1):
        _sift_down(data, i, hi, first)
    for i in range(hi - 1, -1, -1):
        data.swap(first, first + i)
        _sift_down(data, lo, i, first)


_UNKNOWN, _INCREASING, _DECREASING = 0, 1, 2


def _pdqsort(data: _Data, a: int, b: int, limit: int) -> None:
    was_balanced = True
    was_partitioned = True
    while True:
        length = b - a
        if length <= _MAX_INSERTION:
            _insertion_sort(data, a, b)
            return
        if limit == 0:
            _heap_sort(data, a, b)
            return
        if not was_balanced:
            _break_patterns(data, a, b)
            limit -= 1
        pivot, hint = _choose_pivot(data, a, b)
        if hint == _DECREASING:
            _reverse_range(data, a, b)
            pivot = (b - 1) - (pivot - a)
            hint = _INCREASING
        if was_balanced and was_partitioned and hint == _INCREASING and _partial_insertion_sort(data, a, b):
            return
        if a > 0 and not data.less(a - 1, pivot):
            a = _partition_equal(data, a, b, pivot)
            continue
        mid, already_partitioned = _partition(data, a, b, pivot)
        was_partitioned = already_partitioned
        left_len, right_len = mid - a, b - mid
        balance_threshold = length // 8
        if left_len < right_len:
            was_balanced = left_len >= balance_threshold
            _pdqsort(data, a, mid, limit)
            a = mid + 1
        else:
            was_balanced = right_len >= balance_threshold
            _pdqsort(data, mid + 1, b, limit)
            b = mid


def _partition(data: _Data, a: int, b: int, pivot: int) -> tuple[int, bool]:
    data.swap(a, pivot)
    i, j = a + 1, b - 1
    while i <= j and data.less(i, a):
        i += 1
    while i <= j and not data.less(j, a):
        j -= 1
    if i > j:
        data.swap(j, a)
        return j, True
    data.swap(i, j)
    i += 1
    j -= 1
    while True:
        while i <= j and data.less(i, a):
            i += 1
        while i <= j and not data.less(j, a):
            j -= 1
        if i > j:
            break
        data.swap(i, j)
        i += 1
        j -= 1
    data.swap(j, a)
    return j, False


def _partition_equal(data: _Data, a: int, b: int, pivot: int) -> int:
    data.swap(a, pivot)
    i, j = a + 1, b - 1
    while True:
        while i <= j and not data.less(a, i):
            i += 1
        while i <= j and data.less(a, j):
            j -= 1
        if i > j:
            break
        data.swap(i, j)
        i += 1
        j -= 1
    return i


def _partial_insertion_sort(data: _Data, a: int, b: int) -> bool:
    max_steps, shortest_shifting = 5, 50
    i = a + 1
    for _ in range(max_steps):
        while i < b and not data.less(i, i - 1):
            i += 1
        if i == b:
            return True
        if b - a < shortest_shifting:
            return False
        data.swap(i, i - 1)
        if i - a >= 2:
            for j in range(i - 1, 0, -1):
                if not data.less(j, j - 1):
                    break
                data.swap(j, j - 1)
        if b - i >= 2:
            for j in range(i + 1, b):
                if not data.less(j, j - 1):
                    break
                data.swap(j, j - 1)
    return False


def _break_patterns(data: _Data, a: int, b: int) -> None:
    length = b - a
    if length >= 8:
        random = length  # xorshift seeded with the length
        modulus = 1 << length.bit_length()
        mask = (1 << 64) - 1
        for idx in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
            random ^= (random << 13) & mask
            random ^= random >> 7
            random ^= (random << 17) & mask
            other = random & (modulus - 1)
            if other >= length:
                other -= length
            data.swap(idx, a + other)


def _choose_pivot(data: _Data, a: int, b: int) -> tuple[int, int]:
    shortest_ninther, max_swaps = 50, 4 * 3
    length = b - a
    swaps = [0]
    i = a + length // 4 * 1
    j = a + length // 4 * 2
    k = a + length // 4 * 3
    if length >= 8:
        if length >= shortest_ninther:
            i = _median(data, i - 1, i, i + 1, swaps)
            j = _median(data, j - 1, j, j + 1, swaps)
            k = _median(data, k - 1, k, k + 1, swaps)
        j = _median(data, i, j, k, swaps)
    if swaps[0] == 0:
        return j, _INCREASING
    if swaps[0] == max_swaps:
        return j, _DECREASING
    return j, _UNKNOWN


def _order2(data: _Data, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
    if data.less(b, a):
        swaps[0] += 1
        return b, a
    return a, b


def _median(data: _Data, a: int, b: int, c: int, swaps: list[int]) -> int:
    a, b = _order2(data, a, b, swaps)
    b, c = _order2(data, b, c, swaps)
    a, b = _order2(data, a, b, swaps)
    return b


def _reverse_range(data: _Data, a: int, b: int) -> None:
    i, j = a, b - 1
    while i < j:
        data.swap(i, j)
        i += 1
        j -= 1
