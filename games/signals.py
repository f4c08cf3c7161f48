"""Signals other apps listen to without ``games`` importing them.

``match_finished`` is sent once the transaction that finished matches has committed, with
``match_ids`` (a list: a tournament may create and finish many matches at once) and ``series``
(match id -> ``Match.series``, what each is part of: a receiver skips the matches of other
series without a query). A receiver runs in the process that finished the match; anything it must not
lose it should also find again by itself (a crash between the commit and the receiver is
possible): tournaments, for example, also sweep for finished matches they have not recorded.
"""

from django.dispatch import Signal

match_finished = Signal()
