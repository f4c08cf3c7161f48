"""Known resolvable designs: rounds in which every pair of participants meets exactly once.

A resolvable design splits ``n`` participants into tables of ``k`` for ``r`` rounds (its
parallel classes) so that every pair shares exactly one table over the ``r`` rounds; then
``r = (n - 1) / (k - 1)``. Cycling through the classes keeps every pair's meetings within one
of each other's for any number of rounds, the best any schedule can do. Pure Python, no Django.

Held here: the lines of the affine spaces AG(d, q) for the prime powers ``q`` from 3 to 8
(``n = q**d`` in tables of ``q``: 9 and 27 in threes, 16 and 64 in fours, 25 in fives, 49 in
sevens, 64 in eights, ...) and Kirkman's fifteen schoolgirls (15 in threes, 7 rounds).
Two-seat tables are a round robin's business (``tournaments.scheduling.round_robin``).
"""

from __future__ import annotations

from collections.abc import Sequence

Table = tuple[int, ...]

#: Kirkman's schoolgirl problem (1850), one of its seven solutions: seven days of five rows of
#: three, every two girls in one row exactly once. Girls are letters ``A..O``.
_KIRKMAN_15 = (
    "ABJ CEM FKL HIN DGO",
    "ACH DEI FGM JLN BKO",
    "ADL BHM GIK CFN EJO",
    "AEG BIL CJK DMN FHO",
    "AFI BCD GHJ EKN LMO",
    "AKM DFJ EHL BGN CIO",
    "BEF CGL DHK IJM ANO",
)

def resolvable_design(participants: int, seats: int) -> list[list[Table]] | None:
    """The parallel classes of a known resolvable design for this shape, or ``None``."""
    if participants == 15 and seats == 3:
        return [
            [tuple(ord(girl) - ord("A") for girl in row) for row in day.split()]
            for day in _KIRKMAN_15
        ]
    if seats in _FIELDS and seats >= 3:
        dimension, size = 1, seats
        while size < participants:
            dimension, size = dimension + 1, size * seats
        if size == participants and dimension >= 2:
            return _affine_space(seats, dimension)
    return None


#: The fields GF(q), q <= 8: the prime ones add and multiply modulo q; for 4 and 8 the
#: elements are polynomials over GF(2) (bit i the coefficient of x^i), added by XOR and
#: multiplied modulo an irreducible polynomial (x^2 + x + 1, x^3 + x + 1).
_FIELDS = {3: None, 4: 0b111, 5: None, 7: None, 8: 0b1011}


def _multiply(a: int, b: int, q: int) -> int:
    modulus = _FIELDS[q]
    if modulus is None:
        return a * b % q
    product = 0
    while b:
        if b & 1:
            product ^= a
        b >>= 1
        a <<= 1
        if a & q:
            a ^= modulus
    return product


def _add(a: int, b: int, q: int) -> int:
    return (a + b) % q if _FIELDS[q] is None else a ^ b


def _affine_space(q: int, dimension: int) -> list[list[Table]]:
    """The lines of AG(d, q), one round per direction: a point is a vector of d coordinates
    over GF(q), participant ``sum(x_i * q**i)``; the direction ``v`` (a nonzero vector whose
    last nonzero coordinate is 1) splits the points into the lines ``{x + t v}``. Every two
    points lie on exactly one line: ``(q**d - 1) / (q - 1)`` rounds of ``q**(d - 1)`` tables."""
    points = [tuple(index // q**i % q for i in range(dimension)) for index in range(q**dimension)]

    def number(point: Sequence[int]) -> int:
        return sum(x * q**i for i, x in enumerate(point))

    classes = []
    for v in points:
        if not any(v) or v[max(i for i, x in enumerate(v) if x)] != 1:
            continue
        placed = [False] * len(points)
        lines = []
        for x in points:
            if placed[number(x)]:
                continue
            line = tuple(number([_add(a, _multiply(t, b, q), q) for a, b in zip(x, v, strict=True)])
                         for t in range(q))
            for member in line:
                placed[member] = True
            lines.append(line)
        classes.append(lines)
    return classes
