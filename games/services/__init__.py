"""Services: every change goes through here (HackSoft style ``<entity>_<action>``), one module
per responsibility:

* :mod:`.accounts`: sign-up and API tokens;
* :mod:`.matches`: the match lifecycle (create, join, leave, act, resign, deadlines);
* :mod:`.automatic`: the Celery task's side: out-of-process seats asked with no lock held;
* :mod:`.multiplexed`: one thread playing many matches' out-of-process seats at once;
* :mod:`.store`: loading a match into the match driver and storing what it made.
"""

from .accounts import user_sign_up, user_token, user_token_rotate
from .automatic import match_advance_automatic_seats, matches_resume_stalled
from .matches import (
    BuiltMatch,
    NewMatch,
    match_create,
    match_expire_deadlines,
    match_join,
    match_leave,
    match_resign,
    match_stop,
    match_submit_action,
    matches_build,
    matches_create,
    matches_save,
    matches_unseal,
)
from .multiplexed import match_loop

__all__ = [
    "BuiltMatch", "NewMatch", "match_advance_automatic_seats", "match_create",
    "match_expire_deadlines", "match_join", "match_leave", "match_loop", "match_resign",
    "match_stop",
    "match_submit_action", "matches_build", "matches_create", "matches_resume_stalled",
    "matches_save", "matches_unseal", "user_sign_up", "user_token", "user_token_rotate",
]
