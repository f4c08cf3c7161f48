"""How every form of the site is drawn (``FORM_RENDERER``): each field's label, its input,
its errors right under it and its help text after them, muted (a password's rules must not
read as errors); errors about no one field (a wrong password) first, announced. Forms then
render with ``{{ form }}``, the same everywhere."""

from __future__ import annotations

from django.forms.renderers import TemplatesSetting


class FormRenderer(TemplatesSetting):
    """Django's renderer through the site's template settings (so ``config/templates/forms``
    overrides Django's own form templates; its widgets' templates still come from
    ``django.forms``)."""

    form_template_name = "forms/form.html"
    field_template_name = "forms/field.html"
