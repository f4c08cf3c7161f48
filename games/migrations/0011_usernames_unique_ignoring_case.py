"""Usernames unique whatever their letter case, in the database itself: a unique index on
``LOWER(username)`` of django.contrib.auth's ``auth_user`` (Django's
``UniqueConstraint(Lower("username"))``). Sign-up's case-insensitive check runs before the
insert, so without it two racing sign-ups ("Alice", "alice") both got an account.

auth's ``User`` is not ours to give a ``Meta.constraints``, so the index is made here, through
the schema editor (the same SQL on SQLite and PostgreSQL), and is not in any model state.

Accounts that already differ only in case stop the migration with a message naming them: which
one keeps the name is for a person to decide (rename the others, e.g. in the admin, then migrate
again)."""

from django.db import migrations
from django.db.models import Count, UniqueConstraint
from django.db.models.functions import Lower

USERNAME_UNIQUE_IGNORING_CASE = UniqueConstraint(Lower("username"),
                                                 name="auth_user_username_lower_uniq")


def case_duplicates(user_model) -> list[list[str]]:
    """The usernames that differ only in case, in sorted groups: [["Alice", "alice"], ...]."""
    lowered = (user_model.objects.annotate(lowered=Lower("username")).values("lowered")
               .annotate(n=Count("id")).filter(n__gt=1).values_list("lowered", flat=True))
    groups: dict[str, list[str]] = {}
    for name, low in (user_model.objects.annotate(lowered=Lower("username"))
                      .filter(lowered__in=list(lowered)).values_list("username", "lowered")):
        groups.setdefault(low, []).append(name)
    return sorted(sorted(group) for group in groups.values())


def add_index(apps, schema_editor) -> None:
    user_model = apps.get_model("auth", "User")
    duplicates = case_duplicates(user_model)
    if duplicates:
        listed = "; ".join(", ".join(repr(name) for name in group) for group in duplicates)
        raise RuntimeError(
            f"Usernames must be unique whatever their case, and {len(duplicates)} group(s) of "
            f"accounts differ only in case: {listed}. Rename all but one account of each group "
            f"(e.g. in the admin), then run migrate again.")
    schema_editor.add_constraint(user_model, USERNAME_UNIQUE_IGNORING_CASE)


def remove_index(apps, schema_editor) -> None:
    schema_editor.remove_constraint(apps.get_model("auth", "User"), USERNAME_UNIQUE_IGNORING_CASE)


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("games", "0010_log_pages_lz4"),
    ]

    operations = [migrations.RunPython(add_index, remove_index)]
